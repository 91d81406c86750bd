package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"text/tabwriter"

	"github.com/sepad/sepad/query"
)

func init() {
	register("explain", "explain one execution's score: its tool calls, signals and place in the aggregate", runExplain)
}

func runExplain(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("explain", stderr)
	var qf queryFlags
	qf.add(fs)
	skill := fs.String("skill", "", "with last: the newest execution of this skill (as `sepad label last --skill`)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: sepad explain [EXECUTION_ID|last] [--skill S] [--json]   (an ID prefix of 4+ characters works; last, the default, is the newest execution)")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErrorf("explain takes one EXECUTION_ID or last (see sepad executions)")
	}
	id := "last"
	if len(pos) == 1 {
		id = pos[0]
	}
	if id == "last" {
		// The newest execution, as `sepad executions --limit 1` lists it
		// (the plugin's /sepad:explain with no argument).
		v := url.Values{"limit": {"1"}}
		if *skill != "" {
			v.Set("skill", skillArgument(*skill))
		}
		var list query.Executions
		if _, err := fetch(qf, "/v1/executions?"+v.Encode(), &list); err != nil {
			return err
		}
		if len(list.Executions) == 0 {
			if *skill != "" {
				return fmt.Errorf("explain last --skill %s: %w", *skill, errNoExecutions)
			}
			return fmt.Errorf("explain last: %w", errNoExecutions)
		}
		id = list.Executions[0].ID
	}
	var doc query.Explain
	body, err := fetch(qf, "/v1/executions/"+pathArg(id), &doc)
	if err != nil {
		return err
	}
	if qf.json {
		return printJSON(stdout, body)
	}
	printExplain(stdout, &doc)
	return nil
}

// errNoExecutions: `explain last` with nothing recorded yet.
var errNoExecutions = errors.New("no execution recorded yet")

func printExplain(w io.Writer, e *query.Explain) {
	x := &e.Execution
	fmt.Fprintf(w, "execution  %s\n", x.ID)
	fmt.Fprintf(w, "skill      %s (%s)  %s\n", x.Skill, orDash(x.Project), x.SkillKey)
	fmt.Fprintf(w, "version    %s\n", fmtVersion(x.Version, x.Hash))
	fmt.Fprintf(w, "session    %s", x.SessionID)
	if e.AgentID != "" {
		fmt.Fprintf(w, "  agent %s", e.AgentID)
	}
	fmt.Fprintln(w)
	start, end := "-", "-"
	if e.StartedAt != nil {
		start = fmtTime(*e.StartedAt)
	}
	if e.EndedAt != nil {
		end = fmtTime(*e.EndedAt)
	}
	complete := "complete"
	if !x.Complete {
		complete = "incomplete (no closing event)"
	}
	fmt.Fprintf(w, "ran        %s → %s, %s, %s, %d events\n", start, end, fmtDurationMS(x.DurationMS), complete, e.Events)
	if e.Prompt != "" {
		fmt.Fprintf(w, "prompt     %s\n", clip(e.Prompt, 100))
	}
	if e.StopError != "" {
		fmt.Fprintf(w, "stopped    on API error %s\n", e.StopError)
	}
	for _, c := range e.Compactions {
		fmt.Fprintf(w, "compacted  %s (%s): the model went on from a summary of the run so far\n", orDash(c.Trigger), fmtTime(c.At))
	}
	fmt.Fprintf(w, "usage      %s\n", fmtUsage(x.Usage, x.UsageReason))

	fmt.Fprintf(w, "\ntool calls (%d, %d failed)\n", x.Calls, x.Failed)
	if len(e.Calls) > 0 {
		tw := tabwriter.NewWriter(trimTrailing(w), 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  #\tTOOL\tRESULT\tDURATION\tNOTE")
		for _, c := range e.Calls {
			note := clip(c.Error, 60)
			if c.Retry {
				note = strings.TrimSuffix("retry of a failed call; "+note, "; ")
			}
			if c.Source == "transcript" {
				note = "seen only in the transcript: " + note
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\n", c.Index, c.Tool, c.Status, fmtDurationMS(c.DurationMS), note)
		}
		tw.Flush()
	}

	if len(e.ShellLines) > 0 {
		// Not tool calls: no hook reports their result (docs/rubric.md).
		fmt.Fprintf(w, "\nshell lines of the skill (%d, run when it was expanded; not tool calls, result not observed)\n", len(e.ShellLines))
		for _, l := range e.ShellLines {
			fmt.Fprintf(w, "  %d  %s  %s  (invoked by %s)\n", l.Index, l.Tool, clip(l.Command, 80), orDash(l.InvokedBy))
		}
	}

	s := &e.Score
	fmt.Fprintln(w)
	if s.Scored {
		fmt.Fprintf(w, "score %s %s: %s (rubric %s)\n", fmtScore(s.Score), s.Grade, s.Advice, s.RubricVersion)
	} else {
		fmt.Fprintf(w, "unscored: no signal had evidence (rubric %s)\n", s.RubricVersion)
	}
	if len(s.Signals) > 0 {
		tw := tabwriter.NewWriter(trimTrailing(w), 0, 0, 2, ' ', 0)
		// VALUE is the sub-score (higher is better, as the points are), the
		// number the demo and the dashboard show: error_rate's is one minus
		// the error rate (issue 36 item 1).
		fmt.Fprintln(tw, "  SIGNAL\tVALUE\tWEIGHT\tCONTRIBUTION\tDETAIL")
		for _, g := range s.Signals {
			if !g.Present {
				fmt.Fprintf(tw, "  %s\tabsent\t%.2f → 0\t-\t%s\n", g.Signal, g.Weight, g.Detail)
				continue
			}
			fmt.Fprintf(tw, "  %s\t%.3f\t%.2f → %.4f\t%.2f\t%s\n", g.Signal, g.SubScore, g.Weight, g.EffectiveWeight, g.Contribution, g.Detail)
		}
		tw.Flush()
	}
	if s.Errors.Total > 0 {
		fmt.Fprintf(w, "  errors: %d (%d tool failures, %d retries, %d output patterns, %d soft failures, %d corrections)\n",
			s.Errors.Total, s.Errors.ToolFailures, s.Errors.Retries, s.Errors.OutputPatterns, s.Errors.SoftFailures, s.Errors.Corrections)
	}

	if len(e.Labels) > 0 {
		fmt.Fprintf(w, "\nlabels (%d, the newest counts)\n", len(e.Labels))
		for i := range e.Labels {
			l := &e.Labels[i]
			who := "no rater"
			switch {
			case l.Rater != "":
				who = "rater " + l.Rater
			case l.Model != "":
				who = "model " + l.Model
			case l.Source != "":
				who = "from " + l.Source
			}
			rv := "no rubric_version"
			if l.RubricVersion != "" {
				rv = "rubric_version " + l.RubricVersion
			}
			fmt.Fprintf(w, "  %s  %s %.2f, %s, %s", fmtTime(l.Time), l.Outcome, l.Score, who, rv)
			if l.Note != "" {
				fmt.Fprintf(w, ": %s", clip(l.Note, 80))
			}
			fmt.Fprintln(w)
			if i == 0 {
				printDerived(w, l)
			}
		}
	}

	a := &e.Aggregate
	v := &a.Version
	fmt.Fprintf(w, "\naggregate of %s: %s %s, n %d (%s)\n", fmtVersion(v.Version, v.Hash), fmtScore(v.Aggregate), fmtGrade(v.Grade), v.N, v.Status)
	switch a.In {
	case "window":
		kept := "kept"
		if a.Trimmed != "" {
			kept = "trimmed (" + a.Trimmed + " 10%): weight 0"
		}
		fmt.Fprintf(w, "  this score is #%d (newest first) of the %d-score window, %s", *a.Position+1, a.Window, kept)
		switch {
		case a.Trimmed != "":
		case a.Weight > 0:
			fmt.Fprintf(w, ", weight %.2f (%.1f%% of the weighted mean)", a.Weight, a.Share*100)
		default:
			fmt.Fprint(w, ", beyond the recency weights: weight 0")
		}
		fmt.Fprintln(w)
	case "outside_window":
		fmt.Fprintf(w, "  this score is older than the window the weighted part reads: it counts in n, mean and sd only\n")
	case "unscored":
		fmt.Fprintln(w, "  unscored executions do not enter the aggregate")
	case "other_rubric":
		fmt.Fprintf(w, "  scored under rubric %s: it does not enter the current rubric's aggregate\n", s.RubricVersion)
	}
	printOutcome(w, e)
	printValue(w, e)
	printIntegrity(w, e)
}

// printOutcome says what the work came to and how the answer's claims
// stand against it (docs/outcome.md): the outcome signal's evidence.
func printOutcome(w io.Writer, e *query.Explain) {
	o := e.Outcome
	if o == nil || o.Report == nil {
		return
	}
	fmt.Fprintf(w, "\noutcome: %s (the outcome signal, docs/outcome.md)\n", strings.ReplaceAll(o.State, "_", " "))
	for _, s := range o.Words {
		fmt.Fprintf(w, "  %s\n", s)
	}
	if len(o.RunWords) > 0 {
		fmt.Fprintln(w, "  verification runs:")
		for _, s := range o.RunWords {
			fmt.Fprintf(w, "    %s\n", s)
		}
	}
}

// printValue shows the execution's value score (docs/value.md).
func printValue(w io.Writer, e *query.Explain) {
	v := e.Value
	if v == nil {
		return
	}
	fmt.Fprintf(w, "\nvalue %.4f (how much this run is worth learning from; not part of the score)\n", v.Score)
	novelty := fmt.Sprintf("against the skill's %d previous runs", v.Compared)
	if v.Compared == 0 {
		novelty = "no previous run: the midpoint"
	}
	fmt.Fprintf(w, "  complexity          %.4f × 0.25  %s, %s, %s\n", v.Complexity, plural(v.Steps, "step", "steps"),
		plural(v.UniqueTypes, "step type", "step types"), plural(v.ErrorRecoveries, "error recovery", "error recoveries"))
	fmt.Fprintf(w, "  novelty             %.4f × 0.35  %s\n", v.Novelty, novelty)
	fmt.Fprintf(w, "  tool diversity      %.4f × 0.15  %s\n", v.ToolDiversity, plural(v.UniqueTools, "distinct tool", "distinct tools"))
	outcome := "success"
	if !v.Success {
		outcome = "not a success: × 0.3"
	}
	fmt.Fprintf(w, "  outcome confidence  %.4f × 0.25  score / 100, %s\n", v.OutcomeConfidence, outcome)
	if len(v.Overrides) > 0 {
		fmt.Fprintf(w, "  overrides: %s\n", strings.Join(v.Overrides, ", "))
	}
}

// printIntegrity shows what the final answer claimed against what the
// calls showed (docs/integrity.md).
func printIntegrity(w io.Writer, e *query.Explain) {
	r := e.Integrity
	if r == nil {
		return
	}
	verdict := "no over-claim"
	if r.OverClaim {
		verdict = "OVER-CLAIM"
	}
	fmt.Fprintf(w, "\nintegrity: %s (claimed vs observed; not part of the score)\n", verdict)
	for _, o := range r.Observations {
		seen := "not observed"
		switch {
		case o.Observed == nil:
		case *o.Observed:
			seen = "borne out"
		default:
			seen = "contradicted"
		}
		fmt.Fprintf(w, "  %-10s %-12s %q: %s\n", o.Claim, seen, clip(o.Quote, 70), o.Fact)
	}
}
