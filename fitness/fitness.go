// Package fitness scores one execution from 0 to 100, following the SEPA
// rubric (docs/rubric.md): tool success 35%, output quality 25%, efficiency
// 20%, 1 - error rate 15%, markdown structure 5%. It is a pure function: no
// I/O, no clock. Every score carries a per-signal breakdown and the rubric
// version, so a score can always be explained and never mixed with scores
// of another rubric.
package fitness

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/outcome"
)

// RubricVersion is the version of the scoring rules with the default
// weights of the optional signals (RubricFor gives it for others). Bump it
// whenever a change could change a score: aggregates never mix rubric
// versions.
const RubricVersion = "4.2.0"

// Signal names, in rubric order. Other tools parse them: keep them.
const (
	SignalToolSuccess = "tool_success_rate"
	SignalOutput      = "output_quality"
	SignalEfficiency  = "efficiency"
	SignalErrorRate   = "error_rate"
	SignalStructure   = "structure_score"
	// The optional signals (since 2.0.0; SignalVerdict since 3.0.0):
	// rows only where present.
	SignalChecks = "checks"
	SignalLabel  = "label"
	// SignalOutcome (since 4.0.0) is in outcome.go.
)

// weights are the rubric's nominal weights, in rubric order; they sum to 1.
const (
	weightToolSuccess = 0.35
	weightOutput      = 0.25
	weightEfficiency  = 0.20
	weightErrorRate   = 0.15
	weightStructure   = 0.05
)

// Weights are the rubric's nominal weights, in rubric order, for display.
// It is a copy: Score reads the constants above, so changing Weights
// changes no score.
var Weights = [5]float64{weightToolSuccess, weightOutput, weightEfficiency, weightErrorRate, weightStructure}

// Limits are the efficiency limits of an execution's complexity
// (config/max_expected.yaml).
type Limits struct {
	// MaxTime is the expected maximum duration; 0 leaves the time half
	// of efficiency absent.
	MaxTime time.Duration
	// MaxTools is the expected maximum number of tool calls; 0 leaves the
	// tool half of efficiency absent.
	MaxTools int
	// MaxTokens, when above 0, adds the tokens the execution used (all
	// kinds, from its transcript) as a third part of efficiency; 0 (the
	// default) leaves tokens out, beside the score.
	MaxTokens int64
}

// Signal is one row of a score's breakdown.
type Signal struct {
	// Signal is one of the Signal* names.
	Signal string `json:"signal"`
	// Present is false when the execution holds no evidence for the
	// signal; an absent signal has zero effective weight and contribution.
	Present bool `json:"present"`
	// Value is the raw measure (for error_rate, the rate itself).
	Value float64 `json:"value"`
	// SubScore is what enters the weighted sum (for error_rate, 1 - rate).
	SubScore float64 `json:"sub_score"`
	// Weight is the nominal weight; EffectiveWeight the weight after
	// renormalising over the present signals.
	Weight          float64 `json:"weight"`
	EffectiveWeight float64 `json:"effective_weight"`
	// Contribution is this signal's share of the score, in points (2
	// decimals); the contributions of a Result sum exactly to its Score.
	Contribution float64 `json:"contribution"`
	// Detail says in one line what was measured.
	Detail string `json:"detail"`
}

// maxOutputPatterns caps the distinct error patterns of the final output
// that count as errors: one crash usually shows several at once (a
// traceback, a "ValueError:" line, "I was unable to"), and the final text
// alone should not be able to empty the error_rate component.
const maxOutputPatterns = 3

// ErrorCounts break down the error_rate signal.
type ErrorCounts struct {
	// ToolFailures counts calls that did not succeed (ToolCall.OK false:
	// failed, interrupted, or never answered).
	ToolFailures int `json:"tool_failures"`
	// Retries counts calls repeating an earlier failed call; a failed
	// retry is also a tool failure.
	Retries int `json:"retries"`
	// OutputPatterns counts the distinct error patterns in the final
	// output's prose, at most maxOutputPatterns.
	OutputPatterns int `json:"output_patterns"`
	// SoftFailures counts successful calls whose response shows a hard
	// error (a traceback, "command not found", …).
	SoftFailures int `json:"soft_failures"`
	// Corrections counts later user prompts rejecting the answer.
	Corrections int `json:"corrections"`
	// StopFailures is 1 when the turn ended on an API error (StopFailure)
	// instead of an answer.
	StopFailures int `json:"stop_failures"`
	// Total is the sum of the above.
	Total int `json:"total"`
	// TranscriptFailures are the ToolFailures no hook reported, found in
	// the session transcript (since 1.2.0); already in ToolFailures.
	TranscriptFailures int `json:"transcript_failures,omitempty"`
}

// Result is the score of one execution.
type Result struct {
	// RubricVersion is the RubricVersion the score was computed under.
	RubricVersion string `json:"rubric_version"`
	// Scored is false when no signal had evidence: such an execution has
	// no score at all (never 0).
	Scored bool `json:"scored"`
	// Score is 0-100 with 2 decimals; 0 and meaningless when !Scored.
	Score float64 `json:"score"`
	// Grade is GradeOf(Score), Ungraded when !Scored.
	Grade Grade `json:"grade"`
	// Signals has the 5 SEPA rows, in rubric order, absent ones included,
	// then a verdict row when the person corrected or accepted the
	// answer, a checks row when the skill has checks and a label row when
	// the execution is labelled (the optional signals are rows only when
	// present).
	Signals []Signal `json:"signals"`
	// Errors breaks down the error count of the error_rate signal.
	Errors ErrorCounts `json:"errors"`
	// Outcome is what the work came to (since 4.0.0): the verification
	// runs, the state after the last edit, the answer's claims checked
	// against them; nil when there was nothing to read. It is not stored
	// with the result (the outcome row's detail says it in one line, and
	// outcome.Analyze gives it again from the stored execution): a report
	// per execution doubled the database.
	Outcome *outcome.Report `json:"-"`
}

// Score scores one execution with the limits of its complexity, without
// the optional signals. It never panics: a nil execution is unscored.
func Score(x *execution.Execution, lim Limits) Result {
	return ScoreWith(x, lim, Extra{Weights: DefaultWeights})
}

// ScoreWith scores one execution with the evidence of the optional
// signals in ex (docs/rubric.md): an absent one leaves the score exactly
// what Score gives.
func ScoreWith(x *execution.Execution, lim Limits, ex Extra) Result {
	if x == nil {
		x = &execution.Execution{}
	}
	// The outcome is read once, on the calls as stored, so that its call
	// numbers are those explain lists and integrity.Check can reuse it.
	rep := outcome.Analyze(x, ex.Verify)
	own := ownCalls(x)
	j := judgeCalls(own, rep, len(x.Calls)-len(own.Calls))
	x = own
	var out *analysis
	if x.HasOutput && strings.TrimSpace(x.Output) != "" {
		out = analyze(x.Output)
	}
	sigs := []Signal{
		toolSuccess(x, j),
		outputQuality(x, out, contradicted(j.rep)),
		efficiency(x, lim),
	}
	ec := countErrors(x, out, j)
	sigs = append(sigs, errorRate(x, ec, out), structure(out))
	for i := range sigs {
		sigs[i].Weight = [...]float64{weightToolSuccess, weightOutput, weightEfficiency, weightErrorRate, weightStructure}[i]
	}
	if v, ok := verdict(x); ok {
		sigs = append(sigs, v)
	}
	if o, ok := outcomeSignal(j.rep, ex.Weights.Outcome); ok {
		sigs = append(sigs, o)
	}
	if ex.Checks != nil {
		sigs = append(sigs, optional(SignalChecks, ex.Checks, ex.Weights.Checks))
	}
	if ex.Label != nil {
		sigs = append(sigs, optional(SignalLabel, ex.Label, ex.Weights.Label))
	}
	res := Result{RubricVersion: RubricFor(ex.Weights), Signals: sigs, Errors: ec}
	if j.rep.Any() {
		res.Outcome = j.rep
	}
	combine(&res)
	return res
}

// combine renormalises the weights over the present signals and computes
// the score and contributions so that the contributions sum to the score
// exactly: the score is round(Σ w·s ×100, 2) as in the rubric, and the
// rounded contributions are adjusted by whole cents (largest remainder).
func combine(r *Result) {
	total := 0.0
	for _, s := range r.Signals {
		if s.Present {
			total += s.Weight
		}
	}
	if total == 0 {
		return // unscored
	}
	r.Scored = true
	exact := make([]float64, len(r.Signals))
	sum := 0.0
	for i := range r.Signals {
		s := &r.Signals[i]
		if !s.Present {
			continue
		}
		s.EffectiveWeight = round(s.Weight/total, 4)
		exact[i] = s.SubScore * s.Weight / total * 100
		sum += exact[i]
	}
	r.Score = round(sum, 2)
	// Largest remainder: floor every contribution to a cent, then hand the
	// missing cents to the largest remainders.
	cents := int(math.Round(r.Score * 100))
	type rem struct {
		i int
		f float64
	}
	var rems []rem
	used := 0
	for i := range r.Signals {
		if !r.Signals[i].Present {
			continue
		}
		c := int(math.Floor(exact[i]*100 + 1e-9))
		r.Signals[i].Contribution = float64(c) / 100
		used += c
		rems = append(rems, rem{i, exact[i]*100 - float64(c)})
	}
	for k := 0; used < cents && k < 10*len(rems); k++ {
		best := 0
		for j := range rems {
			if rems[j].f > rems[best].f {
				best = j
			}
		}
		i := rems[best].i
		r.Signals[i].Contribution = round(r.Signals[i].Contribution+0.01, 2)
		rems[best].f = -1
		used++
	}
	r.Grade = GradeOf(r.Score)
}

func round(f float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(f*p) / p
}

func clamp01(f float64) float64 {
	switch {
	case f < 0 || math.IsNaN(f):
		return 0
	case f > 1:
		return 1
	}
	return f
}

func toolSuccess(x *execution.Execution, v *judgement) Signal {
	s := Signal{Signal: SignalToolSuccess}
	n := len(x.Calls)
	if n == 0 {
		s.Detail = "no tool calls"
		return s
	}
	// Calls of unknown outcome (an imported log without their post
	// events) count neither way.
	unknown := x.UnknownOutcomes()
	if n == unknown {
		s.Detail = fmt.Sprintf("the outcome of all %d tool calls is unknown (the log has no post events for them)", n)
		return s
	}
	// A log that records failures but no success (rubric 4.2.0) knows the
	// outcome of its failed calls alone: a rate over them would be 0 by
	// construction, whatever the calls of unknown outcome did.
	if unknown > 0 && x.FailuresOnly {
		f := v.failures()
		s.Detail = fmt.Sprintf("the log records failures only: tool success unknown (%d failed %s, %d of unknown outcome)",
			f, plural(f, "call", "calls"), unknown)
		return s
	}
	// Calls the permission layer refused (PermissionDenied) are not the
	// prompt's successes or failures either (rubric 4.1.0).
	denied := x.Denials()
	if n == unknown+denied {
		s.Detail = fmt.Sprintf("all %d tool calls were refused by the permission rules or of unknown outcome", n)
		return s
	}
	n -= unknown + denied
	ok := n - v.failures()
	s.Present = true
	s.Value = float64(ok) / float64(n)
	s.SubScore = s.Value
	s.Detail = fmt.Sprintf("%d/%d tool calls succeeded", ok, n)
	if unknown > 0 {
		s.Detail += fmt.Sprintf(" (%d more of unknown outcome)", unknown)
	}
	if denied > 0 {
		s.Detail += fmt.Sprintf(" (%d refused by the permission rules, not counted)", denied)
	}
	if v.fixed > 0 {
		s.Detail += fmt.Sprintf(" (%d failed %s fixed later, not counted)", v.fixed, plural(v.fixed, "verification", "verifications"))
	}
	if v.hidden > 0 {
		s.Detail += fmt.Sprintf(" (%d %s failed by its output though the exit status was 0)", v.hidden, plural(v.hidden, "verification", "verifications"))
	}
	if h := transcriptFailures(x); h > 0 {
		s.Detail += fmt.Sprintf(" (%d refused before any hook, seen in the transcript)", h)
	}
	return s
}

func efficiency(x *execution.Execution, lim Limits) Signal {
	s := Signal{Signal: SignalEfficiency}
	var parts []float64
	var detail []string
	if d, ok := x.Duration(); ok && lim.MaxTime > 0 {
		v := clamp01(1 - float64(d)/float64(lim.MaxTime.Milliseconds()))
		parts = append(parts, v)
		detail = append(detail, fmt.Sprintf("%s of %s (%.2f)", fmtDur(d), fmtDur(lim.MaxTime.Milliseconds()), v))
	}
	if n := len(x.Calls); n > 0 && lim.MaxTools > 0 {
		v := clamp01(1 - float64(n)/float64(lim.MaxTools))
		parts = append(parts, v)
		detail = append(detail, fmt.Sprintf("%d of %d tools (%.2f)", n, lim.MaxTools, v))
	}
	if x.Usage != nil && lim.MaxTokens > 0 {
		n := x.Usage.Tokens()
		v := clamp01(1 - float64(n)/float64(lim.MaxTokens))
		parts = append(parts, v)
		detail = append(detail, fmt.Sprintf("%d of %d tokens (%.2f)", n, lim.MaxTokens, v))
	}
	if len(parts) == 0 {
		s.Detail = "no timing and no tool calls"
		return s
	}
	sum := 0.0
	for _, p := range parts {
		sum += p
	}
	s.Present = true
	s.Value = sum / float64(len(parts))
	s.SubScore = s.Value
	s.Detail = joinDetail(detail)
	if len(parts) > 1 {
		s.Detail += ", mean"
	}
	return s
}

func fmtDur(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%dms", ms)
	}
	if ms%1000 == 0 || ms >= 10000 {
		return fmt.Sprintf("%ds", int64(math.Round(float64(ms)/1000)))
	}
	return fmt.Sprintf("%.1fs", float64(ms)/1000)
}

func joinDetail(parts []string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += ", "
		}
		out += p
	}
	return out
}

func errorRate(x *execution.Execution, ec ErrorCounts, out *analysis) Signal {
	s := Signal{Signal: SignalErrorRate}
	if len(x.Calls) == 0 && out == nil && ec.Corrections == 0 && ec.StopFailures == 0 {
		s.Detail = "no tool calls, output or corrections to judge"
		return s
	}
	s.Present = true
	s.Value = math.Min(1, float64(ec.Total)/10)
	s.SubScore = 1 - s.Value
	if ec.Total == 0 {
		s.Detail = "no errors"
		return s
	}
	var parts []string
	add := func(n int, one, many string) {
		if n == 1 {
			parts = append(parts, "1 "+one)
		} else if n > 1 {
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(ec.ToolFailures, "failed call", "failed calls")
	if ec.TranscriptFailures > 0 {
		parts[len(parts)-1] += fmt.Sprintf(" (%d seen only in the transcript)", ec.TranscriptFailures)
	}
	add(ec.Retries, "retry", "retries")
	add(ec.OutputPatterns, "error pattern in the output", "error patterns in the output")
	if ec.OutputPatterns > 0 {
		hits := ErrorPatterns(out.prose)
		capped := ""
		if len(hits) > ec.OutputPatterns {
			capped = fmt.Sprintf("; %d found, capped", len(hits))
		}
		parts[len(parts)-1] += " (" + joinDetail(hits) + capped + ")"
	}
	add(ec.SoftFailures, "error in a tool's output", "errors in tools' output")
	add(ec.Corrections, "user correction", "user corrections")
	if ec.StopFailures > 0 {
		parts = append(parts, "ended on an API error ("+x.StopError+")")
	}
	s.Detail = fmt.Sprintf("%d errors: %s", ec.Total, joinDetail(parts))
	if ec.Total == 1 {
		s.Detail = "1 error: " + joinDetail(parts)
	}
	return s
}

func countErrors(x *execution.Execution, out *analysis, v *judgement) ErrorCounts {
	ec := ErrorCounts{ToolFailures: v.failures(), Retries: x.Retries(), Corrections: max(x.Corrections, 0), TranscriptFailures: transcriptFailures(x)}
	if x.StopError != "" {
		ec.StopFailures = 1
	}
	if out != nil {
		ec.OutputPatterns = min(len(ErrorPatterns(out.prose)), maxOutputPatterns)
	}
	for i := range x.Calls {
		if c := &x.Calls[i]; c.OK() && !v.failed[i] && !v.rep.IsFixed(v.off+i) && c.Response != "" && softFailure(c.Response) {
			ec.SoftFailures++
		}
	}
	ec.Total = ec.ToolFailures + ec.Retries + ec.OutputPatterns + ec.SoftFailures + ec.Corrections + ec.StopFailures
	return ec
}

func structure(out *analysis) Signal {
	s := Signal{Signal: SignalStructure}
	if out == nil {
		s.Detail = "no final output"
		return s
	}
	s.Present = true
	var have []string
	if out.headings > 0 {
		s.Value += 0.4
		have = append(have, "headings")
	}
	if out.lists > 0 {
		s.Value += 0.3
		have = append(have, "lists")
	}
	if len(out.fences) > 0 {
		s.Value += 0.3
		have = append(have, "code blocks")
	}
	s.Value = round(s.Value, 4)
	s.SubScore = s.Value
	if len(have) == 0 {
		s.Detail = "plain text: no headings, lists or code blocks"
	} else {
		s.Detail = "has " + joinDetail(have)
	}
	return s
}

// transcriptFailures counts the failed calls found only in the session
// transcript (ToolCall.Source "transcript"): refused before any hook fired.
func transcriptFailures(x *execution.Execution) int {
	n := 0
	for i := range x.Calls {
		if x.Calls[i].Source == "transcript" && !x.Calls[i].OK() {
			n++
		}
	}
	return n
}
