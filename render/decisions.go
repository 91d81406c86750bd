package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/query"
)

// Decisions writes `sepad decisions`: each record's time, skill and kind
// in words, then its words; verbose adds the rule id and the test's
// statistics.
func Decisions(w io.Writer, ds []query.Decision, verbose bool) {
	if len(ds) == 0 {
		fmt.Fprintln(w, "no decisions yet")
		return
	}
	records := make([]mutation.Record, len(ds))
	keys := map[string]map[string]bool{} // a name's skill keys
	var projects []string
	for i, d := range ds {
		if b, err := json.Marshal(d.Payload); err == nil {
			json.Unmarshal(b, &records[i])
		}
		n := records[i].Skill
		if keys[n] == nil {
			keys[n] = map[string]bool{}
		}
		keys[n][d.SkillKey] = true
		projects = append(projects, d.Project)
	}
	labels := ProjectLabels(projects)
	for i, d := range ds {
		r := records[i]
		applied := ""
		if !r.Applied {
			applied = " (not applied)"
		}
		// A name used in several projects says which project the
		// record is about: "deploy (shop)".
		name := query.DisplayName(r.Skill)
		if len(keys[r.Skill]) > 1 && d.Project != "" {
			name += " (" + labels[d.Project] + ")"
		}
		head := strings.TrimRight(fmt.Sprintf("%s  %-8s %s", Time(d.Time), name, KindWords(r.Kind)), " ")
		if verbose {
			head = strings.TrimRight(fmt.Sprintf("%s  %-8s %-15s %-26s", Time(d.Time), name, r.Kind, r.Rule), " ")
		}
		fmt.Fprintf(w, "%s%s\n    %s\n", head, applied, r.Words)
		if verbose && r.Decision != nil {
			fmt.Fprintf(w, "    rule: %s\n", r.Decision.Rule)
			if r.Decision.Detail != "" && r.Decision.Detail != r.Decision.Words {
				fmt.Fprintf(w, "    test: %s\n", r.Decision.Detail)
			}
		}
		if d.Cost != nil {
			fmt.Fprintf(w, "    cost: %s\n", d.Cost.Words)
		}
		if r.Decision != nil {
			if s := OverClaimWords(r.Decision.Baseline, r.Decision.Candidate); s != "" {
				fmt.Fprintf(w, "    integrity: %s\n", s)
			}
		}
	}
}

// OverClaimWords says which of a decision's versions over-claimed
// ("v4 over-claims in 3 of 12 runs"): runs whose final answer claimed
// more than the tool calls showed (docs/integrity.md); "" when neither did.
func OverClaimWords(samples ...decide.Sample) string {
	var parts []string
	for _, s := range samples {
		if s.OverClaims > 0 {
			parts = append(parts, fmt.Sprintf("v%d over-claims in %d of %d runs", s.Seq, s.OverClaims, s.N))
		}
	}
	return strings.Join(parts, "; ")
}

// KindWords names a record's kind for a person; the ids stay in --json
// and -v (issue 36 item 6).
func KindWords(kind string) string {
	switch kind {
	case mutation.KindWouldRollBack:
		return "would roll back"
	case mutation.KindEvalGate:
		return "eval gate"
	}
	return strings.ReplaceAll(kind, "_", " ")
}

// Diff writes `sepad diff`: the mutator's edits, if any, then the two
// versions as a unified diff.
func Diff(w io.Writer, d *query.Diff) {
	if len(d.Edits) > 0 {
		fmt.Fprintf(w, "# the mutator's %s of v%d:\n", Plural(len(d.Edits), "edit", "edits"), d.From.Version)
		for i, e := range d.Edits {
			what := e.Passage
			if e.Op == "add" {
				what = e.Text
			}
			fmt.Fprintf(w, "# %d. %s %q", i+1, e.Op, what)
			if e.Op == "replace" {
				fmt.Fprintf(w, " with %q", e.Text)
			}
			if e.Reason != "" {
				fmt.Fprintf(w, ": %s", e.Reason)
			}
			fmt.Fprintln(w)
		}
	}
	name := query.DisplayName(d.Skill.Name)
	if d.Files != nil {
		fileDiffs(w, d, name)
		return
	}
	fmt.Fprintf(w, "--- %s v%d (%s)\n+++ %s v%d (%s)\n", name, d.From.Version, d.From.Hash, name, d.To.Version, d.To.Hash)
	hunks(w, d.Hunks)
}

func hunks(w io.Writer, hs []query.Hunk) {
	for _, h := range hs {
		fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(h.FromLine, h.FromCount), hunkRange(h.ToLine, h.ToCount))
		for _, l := range h.Lines {
			fmt.Fprintf(w, "%s%s\n", l.Op, l.Text)
		}
	}
}

// hunkRange is a unified diff's "l,s" (just "l" when s is 1).
func hunkRange(line, count int) string {
	if count == 1 {
		return fmt.Sprint(line)
	}
	return fmt.Sprintf("%d,%d", line, count)
}

// fileDiffs prints the diff of two CLAUDE.md versions file by file: a
// unified diff per instruction file that differs, an added or removed
// file against nothing.
func fileDiffs(w io.Writer, d *query.Diff, name string) {
	fmt.Fprintf(w, "# %s v%d (%s) → v%d (%s): %s changed\n", name, d.From.Version, d.From.Hash, d.To.Version, d.To.Hash, Plural(len(d.Files), "instruction file", "instruction files"))
	for _, f := range d.Files {
		from, to := "a/"+f.Label, "b/"+f.Label
		switch {
		case f.FromHash == "":
			from = "/dev/null"
		case f.ToHash == "":
			to = "/dev/null"
		}
		fmt.Fprintf(w, "--- %s\tv%d %s\n+++ %s\tv%d %s\n", from, d.From.Version, OrDash(f.FromHash), to, d.To.Version, OrDash(f.ToHash))
		switch f.Unknown {
		case "both":
			fmt.Fprintln(w, "# sepad never read either text of this file: only its hashes differ")
		case "from":
			fmt.Fprintf(w, "# sepad never read this file's text in v%d: only its hashes differ\n", d.From.Version)
		case "to":
			fmt.Fprintf(w, "# sepad never read this file's text in v%d: only its hashes differ\n", d.To.Version)
		}
		hunks(w, f.Hunks)
	}
}
