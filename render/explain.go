package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/reward"
)

// Explain writes `sepad explain`: one execution's calls, signals, labels,
// place in its version's aggregate, outcome, value and integrity.
func Explain(w io.Writer, e *query.Explain) {
	x := &e.Execution
	fmt.Fprintf(w, "execution  %s\n", x.ID)
	fmt.Fprintf(w, "skill      %s (%s)  %s\n", query.DisplayName(x.Skill), OrDash(x.Project), query.DisplayKey(x.SkillKey))
	fmt.Fprintf(w, "version    %s\n", Version(x.Version, x.Hash))
	fmt.Fprintf(w, "session    %s", x.SessionID)
	if e.AgentID != "" {
		fmt.Fprintf(w, "  agent %s", e.AgentID)
	}
	fmt.Fprintln(w)
	start, end := "-", "-"
	if e.StartedAt != nil {
		start = Time(*e.StartedAt)
	}
	if e.EndedAt != nil {
		end = Time(*e.EndedAt)
	}
	complete := "complete"
	if !x.Complete {
		complete = "incomplete (no closing event)"
	}
	fmt.Fprintf(w, "ran        %s → %s, %s, %s, %d events\n", start, end, DurationMS(x.DurationMS), complete, e.Events)
	if e.Prompt != "" {
		fmt.Fprintf(w, "prompt     %s\n", Clip(e.Prompt, 100))
	}
	if e.StopError != "" {
		fmt.Fprintf(w, "stopped    on API error %s\n", e.StopError)
	}
	for _, c := range e.Compactions {
		fmt.Fprintf(w, "compacted  %s (%s): the model went on from a summary of the run so far\n", OrDash(c.Trigger), Time(c.At))
	}
	fmt.Fprintf(w, "usage      %s\n", Usage(x.Usage, x.UsageReason))

	fmt.Fprintf(w, "\ntool calls (%d, %d failed)\n", x.Calls, x.Failed)
	if len(e.Calls) > 0 {
		tw := Table(w)
		fmt.Fprintln(tw, "  #\tTOOL\tRESULT\tDURATION\tNOTE")
		for _, c := range e.Calls {
			note := Clip(c.Error, 60)
			if c.Retry {
				note = strings.TrimSuffix("retry of a failed call; "+note, "; ")
			}
			if c.Source == "transcript" {
				note = "seen only in the transcript: " + note
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\n", c.Index, c.Tool, c.Status, DurationMS(c.DurationMS), note)
		}
		tw.Flush()
	}

	if len(e.ShellLines) > 0 {
		// Not tool calls: no hook reports their result (docs/rubric.md).
		fmt.Fprintf(w, "\nshell lines of the skill (%d, run when it was expanded; not tool calls, result not observed)\n", len(e.ShellLines))
		for _, l := range e.ShellLines {
			fmt.Fprintf(w, "  %d  %s  %s  (invoked by %s)\n", l.Index, l.Tool, Clip(l.Command, 80), OrDash(l.InvokedBy))
		}
	}

	s := &e.Score
	fmt.Fprintln(w)
	if s.Scored {
		fmt.Fprintf(w, "score %s %s: %s (rubric %s)\n", Score(s.Score), s.Grade, s.Advice, s.RubricVersion)
	} else {
		fmt.Fprintf(w, "unscored: no signal had evidence (rubric %s)\n", s.RubricVersion)
	}
	if len(s.Signals) > 0 {
		tw := Table(w)
		// VALUE is the sub-score (higher is better, as the points are), the
		// number the demo and the dashboard show: error_rate's is one minus
		// the error rate (issue 36 item 1), so its row is named "error-free"
		// (SignalName; the ids stay in --json).
		fmt.Fprintln(tw, "  SIGNAL\tVALUE\tWEIGHT\tCONTRIBUTION\tDETAIL")
		for _, g := range s.Signals {
			if !g.Present {
				fmt.Fprintf(tw, "  %s\tabsent\t%.2f → 0\t-\t%s\n", SignalName(g.Signal), g.Weight, g.Detail)
				continue
			}
			fmt.Fprintf(tw, "  %s\t%.3f\t%.2f → %.4f\t%.2f\t%s\n", SignalName(g.Signal), g.SubScore, g.Weight, g.EffectiveWeight, g.Contribution, g.Detail)
		}
		tw.Flush()
	}
	if s.Errors.Total > 0 {
		fmt.Fprintf(w, "  errors: %d (%s, %s, %s, %s, %s)\n", s.Errors.Total,
			Plural(s.Errors.ToolFailures, "tool failure", "tool failures"), Plural(s.Errors.Retries, "retry", "retries"),
			Plural(s.Errors.OutputPatterns, "output pattern", "output patterns"), Plural(s.Errors.SoftFailures, "soft failure", "soft failures"),
			Plural(s.Errors.Corrections, "correction", "corrections"))
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
			rv := "no rubric version"
			if l.RubricVersion != "" {
				rv = "rubric " + l.RubricVersion
			}
			fmt.Fprintf(w, "  %s  %s %.2f, %s, %s", Time(l.Time), l.Outcome, l.Score, who, rv)
			if l.Note != "" {
				fmt.Fprintf(w, ": %s", Clip(l.Note, 80))
			}
			fmt.Fprintln(w)
			if i == 0 {
				Derived(w, l)
			}
		}
	}

	a := &e.Aggregate
	v := &a.Version
	grade := "" // an ungraded version has none: no "-" beside its aggregate
	if v.Grade != "" {
		grade = " " + v.Grade
	}
	fmt.Fprintf(w, "\naggregate of %s: %s%s, n %d (%s)\n", Version(v.Version, v.Hash), Score(v.Aggregate), grade, v.N, v.Status)
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
	Outcome(w, e)
	Value(w, e)
	Integrity(w, e)
}

// Outcome says what the work came to and how the answer's claims
// stand against it (docs/outcome.md): the outcome signal's evidence.
func Outcome(w io.Writer, e *query.Explain) {
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

// Value shows the execution's value score (docs/value.md).
func Value(w io.Writer, e *query.Explain) {
	v := e.Value
	if v == nil {
		return
	}
	fmt.Fprintf(w, "\nvalue %.4f (how much this run is worth learning from; not part of the score)\n", v.Score)
	novelty := fmt.Sprintf("against the skill's %d previous runs", v.Compared)
	if v.Compared == 0 {
		novelty = "no previous run: the midpoint"
	}
	fmt.Fprintf(w, "  complexity          %.4f × 0.25  %s, %s, %s\n", v.Complexity, Plural(v.Steps, "step", "steps"),
		Plural(v.UniqueTypes, "step type", "step types"), Plural(v.ErrorRecoveries, "error recovery", "error recoveries"))
	fmt.Fprintf(w, "  novelty             %.4f × 0.35  %s\n", v.Novelty, novelty)
	fmt.Fprintf(w, "  tool diversity      %.4f × 0.15  %s\n", v.ToolDiversity, Plural(v.UniqueTools, "distinct tool", "distinct tools"))
	outcome := "success"
	if !v.Success {
		outcome = "not a success: × 0.3"
	}
	fmt.Fprintf(w, "  outcome confidence  %.4f × 0.25  score / 100, %s\n", v.OutcomeConfidence, outcome)
	if len(v.Overrides) > 0 {
		words := make([]string, len(v.Overrides))
		for i, o := range v.Overrides {
			words[i] = valueOverride(o)
		}
		fmt.Fprintf(w, "  adjusted: %s\n", strings.Join(words, "; "))
	}
}

// valueOverride words one of the value score's overrides (tracevalue;
// the ids stay in --json).
func valueOverride(id string) string {
	switch id {
	case "single_thought":
		return "a single thought and nothing else: set to 0.1"
	case "multi_recovery":
		return "recovered from more than 2 errors and succeeded: +0.1"
	case "low_tool_diversity":
		return "one tool only: −0.1"
	}
	return id
}

// Integrity shows what the final answer claimed against what the
// calls showed (docs/integrity.md).
func Integrity(w io.Writer, e *query.Explain) {
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
		fmt.Fprintf(w, "  %-10s %-12s %q: %s\n", o.Claim, seen, Clip(o.Quote, 70), o.Fact)
	}
}

// Derived prints, in words, what a label makes of its execution
// (explain too): the signed score, who graded, and whether the run may be
// exported as training data (the field names stay in --json).
func Derived(w io.Writer, l *query.LabelView) {
	grader := "graded by " + l.GraderKind
	if l.GraderKind == reward.GraderUnknown {
		grader = "no rater or model named"
	}
	fmt.Fprintf(w, "  signed score %s, %s, %s\n", strconv.FormatFloat(l.SignedScore, 'f', 2, 64), grader, qualityWords(l.EvaluationLabel))
	fmt.Fprintf(w, "  as training data: %s for fine-tuning (export --format sft), %s for preference pairs (--format preference)\n",
		eligible(l.ExportableForSFT, l.SFTBlockers), eligible(l.ExportableForPreference, l.PreferenceBlockers))
}

// qualityWords says a label's tier (gold, silver, bronze, rejected in
// --json) in words.
func qualityWords(tier string) string {
	switch tier {
	case reward.Gold:
		return "top quality (0.85 or more)"
	case reward.Silver:
		return "good quality (0.65 or more)"
	case reward.Bronze:
		return "low quality (below 0.65)"
	case reward.Rejected:
		return "a failure"
	}
	return tier
}

func eligible(ok bool, blockers []string) string {
	if ok {
		return "usable"
	}
	words := make([]string, len(blockers))
	for i, b := range blockers {
		words[i] = blockerWords(b)
	}
	return "not usable (" + strings.Join(words, ", ") + ")"
}

// blockerWords says a blocker (reward.Block*, kept as is in --json) in
// words, with the flag of `sepad label` that lifts it.
func blockerWords(b string) string {
	switch b {
	case reward.BlockNoRubric:
		return "no rubric version: label with --rubric-version"
	case reward.BlockNoAttributed:
		return "no rater: label with --rater NAME or --model ID"
	}
	return b
}
