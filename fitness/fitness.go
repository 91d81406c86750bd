// Package fitness scores one execution from 0 to 100 with the SEPA rubric
// (docs/rubric.md): tool success 35%, output quality 25%, efficiency 20%,
// 1 - error rate 15%, markdown structure 5%.
//
// Score is a pure function of the execution and the limits of its
// complexity: no I/O, no clock, no state. A signal without evidence is
// absent and the other weights are renormalised, so missing telemetry
// neither inflates nor deflates a score; an execution with no evidence at
// all is unscored, never 0. Every Result carries a per-signal breakdown
// whose contributions add up to the score, and the rubric version, so a
// score can always be explained and is never mixed with another rubric's.
package fitness

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/sepad/sepad/execution"
)

// RubricVersion is the semantic version of the scoring rules. Bump it
// whenever a change could change any score (major: signal set or
// combination; minor: a weight, item or pattern; patch: wording only), so
// aggregates never mix scores computed under different rules.
const RubricVersion = "1.0.0"

// Signal names, in rubric order. They appear in JSON and CLI output and are
// parsed by other tools: do not rename them.
const (
	SignalToolSuccess   = "tool_success_rate"
	SignalOutputQuality = "output_quality"
	SignalEfficiency    = "efficiency"
	SignalErrorRate     = "error_rate"
	SignalStructure     = "structure_score"
)

// Nominal weights of the signals, in rubric order; they sum to 1.
const (
	weightToolSuccess   = 0.35
	weightOutputQuality = 0.25
	weightEfficiency    = 0.20
	weightErrorRate     = 0.15
	weightStructure     = 0.05
)

// errorsForZero is the error count at which the error_rate component
// reaches 0: error_rate = min(1, errors/errorsForZero).
const errorsForZero = 10

// Limits are the efficiency limits for an execution's complexity, read
// from config/max_expected.yaml. A zero field means "no limit known" and
// leaves that half of efficiency absent.
type Limits struct {
	MaxTime  time.Duration
	MaxTools int
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
	// SubScore is the 0-1 value that enters the weighted sum (for
	// error_rate, 1 - rate).
	SubScore float64 `json:"sub_score"`
	// Weight is the rubric's nominal weight.
	Weight float64 `json:"weight"`
	// EffectiveWeight is Weight renormalised over the present signals;
	// the effective weights of a scored Result sum to 1.
	EffectiveWeight float64 `json:"effective_weight"`
	// Contribution is the signal's share of the score in points (0-100,
	// 2 decimals); the contributions sum exactly to Result.Score.
	Contribution float64 `json:"contribution"`
	// Detail says in one line what was measured.
	Detail string `json:"detail"`
}

// ErrorCounts break down the errors behind the error_rate signal.
type ErrorCounts struct {
	// ToolFailures counts calls that did not succeed (ToolCall.OK false).
	ToolFailures int `json:"tool_failures"`
	// Retries counts calls that repeat an earlier failed call.
	Retries int `json:"retries"`
	// OutputPatterns counts distinct error patterns in the final output's
	// prose, capped at 3.
	OutputPatterns int `json:"output_patterns"`
	// Corrections counts later user prompts rejecting the answer.
	Corrections int `json:"corrections"`
	// Total is the sum of the above.
	Total int `json:"total"`
}

// Result is the score of one execution with its explanation.
type Result struct {
	// RubricVersion is the RubricVersion the score was computed under.
	RubricVersion string `json:"rubric_version"`
	// Scored is false when no signal had evidence: such an execution has
	// no score (Score is 0 and meaningless, Grade is Ungraded).
	Scored bool `json:"scored"`
	// Score is 0-100 with 2 decimals: the sum of the contributions.
	Score float64 `json:"score"`
	// Grade is GradeOf(Score), or Ungraded when not scored.
	Grade Grade `json:"grade"`
	// Signals always has 5 rows, in rubric order, absent ones included.
	Signals []Signal `json:"signals"`
	// Errors breaks down the error_rate signal's count.
	Errors ErrorCounts `json:"errors"`
}

// Score scores one execution with the limits of its complexity. It never
// panics and does not modify x.
func Score(x *execution.Execution, lim Limits) Result {
	if x == nil {
		x = &execution.Execution{}
	}
	var d *doc
	var prose string
	var hits []string
	if x.HasOutput && strings.TrimSpace(x.Output) != "" {
		d = parseMarkdown(x.Output)
		prose = d.proseText()
		hits = ErrorPatterns(prose)
	}
	ec := countErrors(x, hits)
	res := Result{
		RubricVersion: RubricVersion,
		Signals: []Signal{
			toolSuccess(x),
			outputQuality(x, d, prose, hits),
			efficiency(x, lim),
			errorRate(x, d != nil, ec, hits),
			structure(d),
		},
		Errors: ec,
	}
	weights := [...]float64{weightToolSuccess, weightOutputQuality, weightEfficiency, weightErrorRate, weightStructure}
	for i := range res.Signals {
		res.Signals[i].Weight = weights[i]
	}
	combine(&res)
	return res
}

// combine renormalises the weights over the present signals and sets the
// contributions and the score. It works in integer hundredths of a point:
// the score is round(100 × Σ effective_weight × sub_score, 2) as the rubric
// says; each contribution is its exact value rounded down to a hundredth,
// and the hundredths still missing go to the largest remainders. So the
// contributions sum exactly to the score, and each is within 0.01 of its
// exact value.
func combine(r *Result) {
	total := 0.0
	for _, s := range r.Signals {
		if s.Present {
			total += s.Weight
		}
	}
	if total == 0 {
		r.Scored, r.Score, r.Grade = false, 0, Ungraded
		return
	}
	exact := make([]float64, len(r.Signals)) // in hundredths of a point
	sum := 0.0
	for i := range r.Signals {
		s := &r.Signals[i]
		if !s.Present {
			continue
		}
		s.SubScore = clamp01(s.SubScore)
		s.EffectiveWeight = s.Weight / total
		exact[i] = s.SubScore * s.EffectiveWeight * 10000
		sum += exact[i]
	}
	want := int64(math.Round(sum))
	cents := make([]int64, len(r.Signals))
	var got int64
	for i, e := range exact {
		if r.Signals[i].Present {
			cents[i] = int64(math.Floor(e))
			got += cents[i]
		}
	}
	// got <= want, and want - got < number of present signals; loop bounds
	// guard against float surprises all the same.
	for k := 0; got < want && k < len(r.Signals); k++ {
		best, bestRem := -1, -1.0
		for i, e := range exact {
			if rem := e - float64(cents[i]); r.Signals[i].Present && rem > bestRem && float64(cents[i]) < e {
				best, bestRem = i, rem
			}
		}
		if best < 0 {
			break
		}
		cents[best]++
		got++
	}
	for i := range r.Signals {
		r.Signals[i].Contribution = float64(cents[i]) / 100
	}
	r.Scored = true
	r.Score = float64(got) / 100
	r.Grade = GradeOf(r.Score)
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

// toolSuccess: succeeded / total calls; absent without calls.
func toolSuccess(x *execution.Execution) Signal {
	s := Signal{Signal: SignalToolSuccess}
	n := len(x.Calls)
	if n == 0 {
		s.Detail = "no tool calls"
		return s
	}
	ok := n - x.Failures()
	s.Present = true
	s.Value = float64(ok) / float64(n)
	s.SubScore = s.Value
	s.Detail = fmt.Sprintf("%d/%d tool calls succeeded", ok, n)
	return s
}

// efficiency: the mean of the time part (1 - duration/MaxTime) and the
// tool part (1 - calls/MaxTools), each clamped to [0,1], over the parts
// with evidence and a limit.
func efficiency(x *execution.Execution, lim Limits) Signal {
	s := Signal{Signal: SignalEfficiency}
	var sum float64
	var parts []string
	if ms, ok := x.Duration(); ok && lim.MaxTime > 0 {
		v := clamp01(1 - float64(ms)/float64(lim.MaxTime.Milliseconds()))
		sum += v
		parts = append(parts, fmt.Sprintf("%s of %s (%.2f)", fmtDur(ms), fmtDur(lim.MaxTime.Milliseconds()), v))
	}
	if n := len(x.Calls); n > 0 && lim.MaxTools > 0 {
		v := clamp01(1 - float64(n)/float64(lim.MaxTools))
		sum += v
		parts = append(parts, fmt.Sprintf("%d of %d tools (%.2f)", n, lim.MaxTools, v))
	}
	if len(parts) == 0 {
		s.Detail = "no timing and no tool calls"
		if lim.MaxTime <= 0 && lim.MaxTools <= 0 {
			s.Detail = "no limits for this complexity"
		}
		return s
	}
	s.Present = true
	s.Value = sum / float64(len(parts))
	s.SubScore = s.Value
	s.Detail = strings.Join(parts, ", ")
	if len(parts) == 2 {
		s.Detail += fmt.Sprintf(": mean %.2f", s.Value)
	}
	return s
}

// fmtDur prints milliseconds the way people read durations: 850ms, 1.5s,
// 60s, 125s.
func fmtDur(ms int64) string {
	switch {
	case ms < 1000:
		return fmt.Sprintf("%dms", ms)
	case ms%1000 == 0 || ms >= 10000:
		return fmt.Sprintf("%ds", int64(math.Round(float64(ms)/1000)))
	}
	return fmt.Sprintf("%.1fs", float64(ms)/1000)
}

// countErrors adds up the errors of the error_rate signal.
func countErrors(x *execution.Execution, hits []string) ErrorCounts {
	ec := ErrorCounts{
		ToolFailures:   x.Failures(),
		Retries:        x.Retries(),
		OutputPatterns: min(len(hits), maxOutputPatterns),
		Corrections:    max(x.Corrections, 0),
	}
	ec.Total = ec.ToolFailures + ec.Retries + ec.OutputPatterns + ec.Corrections
	return ec
}

// errorRate: min(1, errors/10), sub-score 1 - rate. Present when there is
// anything that could have shown an error: a tool call, a final output or
// a user correction.
func errorRate(x *execution.Execution, hasOutput bool, ec ErrorCounts, hits []string) Signal {
	s := Signal{Signal: SignalErrorRate}
	if len(x.Calls) == 0 && !hasOutput && ec.Corrections == 0 {
		s.Detail = "no tool calls, output or corrections"
		return s
	}
	s.Present = true
	s.Value = math.Min(1, float64(ec.Total)/errorsForZero)
	s.SubScore = 1 - s.Value
	if ec.Total == 0 {
		s.Detail = "no errors"
		return s
	}
	var parts []string
	add := func(n int, one, many string) {
		switch {
		case n == 1:
			parts = append(parts, "1 "+one)
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(ec.ToolFailures, "failed call", "failed calls")
	add(ec.Retries, "retry", "retries")
	if ec.OutputPatterns > 0 {
		add(ec.OutputPatterns, "error pattern in the output", "error patterns in the output")
		capped := ""
		if len(hits) > ec.OutputPatterns {
			capped = fmt.Sprintf("; capped at %d", maxOutputPatterns)
		}
		parts[len(parts)-1] += " (" + strings.Join(hits, ", ") + capped + ")"
	}
	add(ec.Corrections, "user correction", "user corrections")
	noun := "errors"
	if ec.Total == 1 {
		noun = "error"
	}
	s.Detail = fmt.Sprintf("%d %s: %s", ec.Total, noun, strings.Join(parts, ", "))
	return s
}

// structure: headings 0.4 + lists 0.3 + fenced code blocks 0.3, from the
// goldmark AST of the final output.
func structure(d *doc) Signal {
	s := Signal{Signal: SignalStructure}
	if d == nil {
		s.Detail = "no final output"
		return s
	}
	s.Present = true
	var have, lack []string
	check := func(ok bool, w float64, name string) {
		if ok {
			s.Value += w
			have = append(have, name)
		} else {
			lack = append(lack, name)
		}
	}
	check(d.headings > 0, 0.4, "headings")
	check(d.lists > 0, 0.3, "lists")
	check(len(d.fences) > 0, 0.3, "code blocks")
	s.Value = math.Round(s.Value*10) / 10 // 0.4+0.3+0.3 is 0.9999999999999999 in floating point
	s.SubScore = s.Value
	switch {
	case len(lack) == 0:
		s.Detail = "has headings, lists and code blocks"
	case len(have) == 0:
		s.Detail = "plain text: no headings, lists or code blocks"
	default:
		s.Detail = "has " + strings.Join(have, ", ") + "; no " + strings.Join(lack, ", ")
	}
	return s
}
