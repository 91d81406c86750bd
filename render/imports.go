package render

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sepad/sepad/export"
	"github.com/sepad/sepad/importer"
	"github.com/sepad/sepad/query"
)

// Import writes what `sepad import` read, skipped, left out as already
// there, and added (docs/import.md).
func Import(w io.Writer, rep importer.Report, dry bool) {
	var evs []string
	for k, n := range rep.Events {
		evs = append(evs, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(evs)
	fmt.Fprintf(w, "read %s from %s", Plural(rep.Read, "payload", "payloads"), Plural(len(rep.Files), "file", "files"))
	if len(evs) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(evs, ", "))
	}
	fmt.Fprintln(w)
	for _, f := range rep.Files {
		var notes []string
		if f.Truncated {
			notes = append(notes, "truncated")
		}
		if f.Encoding != "" {
			notes = append(notes, "read as "+f.Encoding)
		}
		if f.Repaired > 0 {
			notes = append(notes, fmt.Sprintf("mojibake repaired in %s", Plural(f.Repaired, "string", "strings")))
		}
		if len(notes) > 0 {
			fmt.Fprintf(w, "  %s: %s\n", f.Path, strings.Join(notes, ", "))
		}
	}
	if dry {
		fmt.Fprintf(w, "dry run: nothing imported (%d duplicates within the files)\n", rep.Duplicates)
	} else {
		fmt.Fprintf(w, "imported %s into %s", Plural(rep.Imported, "payload", "payloads"), Plural(rep.Executions, "execution", "executions"))
		if rep.UnknownOutcome > 0 {
			fmt.Fprintf(w, "; %s of unknown outcome (no post event where the log does not show it records them)", Plural(rep.UnknownOutcome, "tool call", "tool calls"))
		}
		fmt.Fprintln(w)
		if rep.FailuresOnly > 0 {
			fmt.Fprintf(w, "%s failures only (no PostToolUse): tool success unknown there, not scored (docs/import.md)\n",
				Plural(rep.FailuresOnly, "session's log records", "sessions' logs record"))
		}
		if n := rep.Duplicates + rep.AlreadyStored + rep.SpoolSessions; n > 0 {
			fmt.Fprintf(w, "left out %d: %d already imported, %d of sessions sepad's hook recorded, %d found twice in the files\n",
				n, rep.AlreadyStored, rep.SpoolSessions, rep.Duplicates)
		}
		if len(rep.Foreign) > 0 {
			fmt.Fprintf(w, "%s not a path on this system (recorded as named, not watched, never written): %s\n",
				Plural(len(rep.Foreign), "project is", "projects are"), strings.Join(rep.Foreign, ", "))
		}
		if rep.Collisions > 0 {
			fmt.Fprintf(w, "%s not stored: their IDs are taken (see sepad quarantine)\n", Plural(rep.Collisions, "execution", "executions"))
		}
	}
	if len(rep.Skipped) > 0 {
		fmt.Fprintf(w, "skipped %d:\n", len(rep.Skipped))
		byReason := map[string][]importer.Skip{}
		var order []string
		for _, s := range rep.Skipped {
			r := s.Reason
			if i := strings.Index(r, ": "); i > 0 && strings.HasPrefix(r, "no hook_event_name") {
				r = r[:i] // one line for a whole non-hook file
			}
			if byReason[r] == nil {
				order = append(order, r)
			}
			byReason[r] = append(byReason[r], s)
		}
		for _, r := range order {
			ss := byReason[r]
			where := fmt.Sprintf("%s#%d", ss[0].File, ss[0].Index)
			if len(ss) > 1 {
				where += fmt.Sprintf(" and %d more", len(ss)-1)
			}
			fmt.Fprintf(w, "  %s: %s\n", where, r)
		}
	}
}

// Facets writes what `sepad import --facets` labelled, left and skipped.
func Facets(w io.Writer, rep *importer.FacetsReport) {
	fmt.Fprintf(w, "read %s from %s: %s with executions here\n", Plural(rep.Facets, "facet", "facets"), rep.Dir, Plural(rep.Sessions, "session", "sessions"))
	verb := "labelled"
	if rep.DryRun {
		verb = "dry run: would label"
	}
	fmt.Fprintf(w, "%s %s (source insights)\n", verb, Plural(len(rep.Labelled), "execution", "executions"))
	for _, l := range rep.Labelled {
		fmt.Fprintf(w, "  %s  %s  %s\n", l.Execution, query.DisplayName(l.Skill), l.Outcome)
	}
	reasons := map[string]int{}
	for _, k := range rep.Kept {
		r := k.Reason
		if i := strings.Index(r, ":"); i > 0 {
			r = r[:i]
		}
		reasons[r]++
	}
	var keys []string
	for r := range reasons {
		keys = append(keys, r)
	}
	sort.Strings(keys)
	for _, r := range keys {
		fmt.Fprintf(w, "left %s as they were: %s\n", Plural(reasons[r], "execution", "executions"), r)
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(w, "skipped %s: %s\n", s.File, s.Reason)
	}
}

// NothingExported says why an export wrote no row (issue 36 item 7).
func NothingExported(format string, st export.Stats, selected bool) string {
	switch {
	case st.Read == 0:
		return "0 exported: no executions are recorded yet"
	case st.Kept == 0 && selected:
		return fmt.Sprintf("0 exported: none of the %s matches --skill, --since or --min-value", Plural(st.Read, "execution", "executions"))
	}
	lab := fmt.Sprintf("%d of them %s labelled (`sepad label`)", st.Labelled, map[bool]string{true: "is", false: "are"}[st.Labelled == 1])
	switch format {
	case export.SFT:
		return fmt.Sprintf("0 exported: none of the %s is usable for sft: it needs a label of success scored 0.65 or more, with a rubric version and a rater or model; %s",
			Plural(st.Kept, "execution", "executions"), lab)
	case export.Preference:
		return fmt.Sprintf("0 exported: no pair among the %s: a pair needs a labelled success and a labelled failure of one skill, each scored 0.7 or more, with a rubric version and a rater or model, and an answer; %s",
			Plural(st.Kept, "execution", "executions"), lab)
	}
	return fmt.Sprintf("0 exported from %s", Plural(st.Kept, "execution", "executions"))
}
