package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/query"
)

func init() {
	register("decisions", "list decisions, rollbacks and conflicts [SKILL]", runDecisions)
}

// runDecisions is `sepad decisions [SKILL]`: GET /v1/decisions.
func runDecisions(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("decisions", stderr)
	var qf queryFlags
	qf.add(fs)
	limit := fs.Int("limit", query.DefaultLimit, "newest decisions to show")
	verbose := fs.Bool("v", false, "also show each record's rule id and the test's statistics")
	teamView := fs.Bool("team", false, "the team's decisions on pooled runs, from the team database (SKILL: a name or a prompt_id)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErrorf("decisions takes at most one SKILL")
	}
	if *teamView {
		skill := ""
		if len(pos) == 1 {
			skill = pos[0]
		}
		return teamDecisions(qf, skill, *limit, stdout)
	}
	v := url.Values{"limit": {fmt.Sprint(*limit)}}
	if len(pos) == 1 {
		v.Set("skill", skillArgument(pos[0]))
	}
	var doc query.Decisions
	body, err := fetch(qf, "/v1/decisions?"+v.Encode(), &doc)
	if err != nil {
		return err
	}
	if qf.json {
		return printJSON(stdout, body)
	}
	if len(doc.Decisions) == 0 {
		fmt.Fprintln(stdout, "no decisions yet")
		return nil
	}
	for _, d := range doc.Decisions {
		var r mutation.Record
		if b, err := json.Marshal(d.Payload); err == nil {
			json.Unmarshal(b, &r)
		}
		applied := ""
		if !r.Applied {
			applied = " (not applied)"
		}
		head := strings.TrimRight(fmt.Sprintf("%s  %-8s %s", fmtTime(d.Time), r.Skill, kindWords(r.Kind)), " ")
		if *verbose {
			head = strings.TrimRight(fmt.Sprintf("%s  %-8s %-15s %-26s", fmtTime(d.Time), r.Skill, r.Kind, r.Rule), " ")
		}
		fmt.Fprintf(stdout, "%s%s\n    %s\n", head, applied, r.Words)
		if *verbose && r.Decision != nil {
			fmt.Fprintf(stdout, "    rule: %s\n", r.Decision.Rule)
			if r.Decision.Detail != "" && r.Decision.Detail != r.Decision.Words {
				fmt.Fprintf(stdout, "    test: %s\n", r.Decision.Detail)
			}
		}
		if d.Cost != nil {
			fmt.Fprintf(stdout, "    cost: %s\n", d.Cost.Words)
		}
		if r.Decision != nil {
			if w := overClaimWords(r.Decision.Baseline, r.Decision.Candidate); w != "" {
				fmt.Fprintf(stdout, "    integrity: %s\n", w)
			}
		}
	}
	return nil
}

// overClaimWords says which of a decision's versions over-claimed
// ("v4 over-claims in 3 of 12 runs"): runs whose final answer claimed
// more than the tool calls showed (docs/integrity.md); "" when neither did.
func overClaimWords(samples ...mutation.Sample) string {
	var parts []string
	for _, s := range samples {
		if s.OverClaims > 0 {
			parts = append(parts, fmt.Sprintf("v%d over-claims in %d of %d runs", s.Seq, s.OverClaims, s.N))
		}
	}
	return strings.Join(parts, "; ")
}

// kindWords names a record's kind for a person; the ids stay in --json
// and -v (issue 36 item 6).
func kindWords(kind string) string {
	switch kind {
	case mutation.KindWouldRollBack:
		return "would roll back"
	case mutation.KindEvalGate:
		return "eval gate"
	}
	return strings.ReplaceAll(kind, "_", " ")
}
