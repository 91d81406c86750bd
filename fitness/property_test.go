package fitness

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
)

// Markdown fragments the generator strings together: every structure the
// heuristics look at, valid and broken.
var fragments = []string{
	"# Heading\n", "## Fix\n", "Title\n=====\n", "- item one\n- item two\n", "1. first\n2. second\n",
	"The change works because the total now includes the discount.\n",
	"I moved the check. Each item is validated once now.\n",
	"Next steps: run the migration.\n", "You could also cache it.\n",
	"```go\nx := 1\n```\n", "```go\nfunc f( {\n```\n", "```json\n{\"a\": 1}\n```\n", "```json\n{a: 1}\n```\n",
	"```yaml\na: [1, 2\n```\n", "```python\ndef f(:\n```\n", "```go\nfunc main() {\n", "~~~\nls\n~~~\n",
	"> quoted text\n", "    indented code\n", "Error: build failed\n", "panic: boom\n", "I was unable to finish.\n",
	"Traceback (most recent call last):\n", "Hello {{name}}\n", "It stopped at...\n", "`code span` here\n",
	"<your name>\n", "---\n", "\n", "Done.\n", "\x00\xff\xfe", "***\n", "| a | b |\n|---|---|\n",
}

var responses = []string{"", "ok", "Traceback (most recent call last):\n", "sh: rg: command not found", "Error: lint", "panic: x"}

// randomExecution builds an execution from r covering every kind of
// evidence, including none.
func randomExecutionRich(r *rand.Rand) (execution.Execution, Limits) {
	x := execution.Execution{}
	prompts := []string{"", "fix the failing test", "what time zone is the server in?", "summarise the Claude Code notes", "```go\nx\n```"}
	x.Prompt = prompts[r.IntN(len(prompts))]
	for range r.IntN(25) {
		c := execution.ToolCall{Name: []string{"Read", "Bash", "Edit", "Write", "Grep"}[r.IntN(5)], Done: true}
		switch r.IntN(8) {
		case 0:
			c.Failed = true
		case 1:
			c.Retry = true
		case 2:
			c.Interrupted = true
		case 3:
			c.NoPost, c.Done = true, false
		}
		if r.IntN(3) == 0 {
			c.HasDuration, c.DurationMS = true, r.Int64N(200000)
		}
		c.Response = responses[r.IntN(len(responses))]
		x.Calls = append(x.Calls, c)
	}
	if r.IntN(2) == 0 {
		x.StartedAt = epoch
		x.EndedAt = epoch.Add(time.Duration(r.Int64N(int64(10 * time.Minute))))
	}
	if r.IntN(3) > 0 {
		x.HasOutput = true
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(fragments[r.IntN(len(fragments))])
			if r.IntN(2) == 0 {
				b.WriteByte('\n')
			}
		}
		x.Output = b.String()
	}
	x.Corrections = r.IntN(5) - 1
	if r.IntN(3) == 0 {
		x.Acceptances = r.IntN(3)
	}
	lims := []Limits{medium, {MaxTime: 30 * time.Second, MaxTools: 5}, {MaxTime: 5 * time.Minute, MaxTools: 30}, {}, {MaxTools: 15}, {MaxTime: time.Minute}}
	return x, lims[r.IntN(len(lims))]
}

// checkInvariants asserts what must hold for every Result.
func checkInvariants(t *testing.T, r Result) {
	t.Helper()
	names := []string{SignalToolSuccess, SignalOutput, SignalEfficiency, SignalErrorRate, SignalStructure}
	weights := Weights[:]
	if n := len(r.Signals); n < 5 || n > 7 || r.RubricVersion != RubricVersion {
		t.Fatalf("shape: %+v", r)
	}
	// Then the optional rows the execution itself gives, in this order,
	// each only when present.
	for _, s := range r.Signals[5:] {
		switch {
		case s.Signal == SignalVerdict && len(names) == 5:
			names, weights = append(names, SignalVerdict), append(weights, weightVerdict)
		case s.Signal == SignalOutcome && len(names) <= 6 && names[len(names)-1] != SignalOutcome:
			names, weights = append(names, SignalOutcome), append(weights, DefaultWeights.Outcome)
		default:
			t.Fatalf("shape: row %s out of place: %+v", s.Signal, r)
		}
		if !s.Present {
			t.Fatalf("optional row %s absent", s.Signal)
		}
	}
	anyPresent := false
	var sum, wsum, exact, total float64
	for i, s := range r.Signals {
		if s.Signal != names[i] || s.Weight != weights[i] {
			t.Fatalf("row %d is %s/%v", i, s.Signal, s.Weight)
		}
		if !s.Present {
			if s.EffectiveWeight != 0 || s.Contribution != 0 {
				t.Fatalf("absent %s weighs %v, contributes %v", s.Signal, s.EffectiveWeight, s.Contribution)
			}
			continue
		}
		anyPresent = true
		if s.SubScore < 0 || s.SubScore > 1 || math.IsNaN(s.SubScore) || s.Contribution < 0 {
			t.Fatalf("%s sub-score %v, contribution %v", s.Signal, s.SubScore, s.Contribution)
		}
		if strings.Contains(s.Detail, "\n") || s.Detail == "" {
			t.Fatalf("%s detail %q is not one line", s.Signal, s.Detail)
		}
		sum += s.Contribution
		wsum += s.EffectiveWeight
		exact += s.Weight * s.SubScore
		total += s.Weight
	}
	if r.Scored != anyPresent {
		t.Fatalf("scored %v with present signals %v", r.Scored, anyPresent)
	}
	if !r.Scored {
		if r.Score != 0 || r.Grade != Ungraded {
			t.Fatalf("unscored result has score %v grade %q", r.Score, r.Grade)
		}
		return
	}
	if r.Score < 0 || r.Score > 100 || r.Score != math.Round(r.Score*100)/100 {
		t.Fatalf("score %v", r.Score)
	}
	if math.Abs(sum-r.Score) > 0.01 {
		t.Fatalf("contributions sum to %v, score %v", sum, r.Score)
	}
	if math.Abs(wsum-1) > 0.0005 {
		t.Fatalf("effective weights sum to %v", wsum)
	}
	if want := exact / total * 100; math.Abs(want-r.Score) > 0.005+1e-9 {
		t.Fatalf("score %v, renormalised weighted mean %v", r.Score, want)
	}
	if r.Grade != GradeOf(r.Score) {
		t.Fatalf("grade %q for %v", r.Grade, r.Score)
	}
}

func TestPropertiesGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(20261122, 1))
	unscored := 0
	for i := range 3000 {
		x, lim := randomExecutionRich(r)
		res := Score(&x, lim)
		checkInvariants(t, res)
		if !res.Scored {
			unscored++
		}
		if i%10 == 0 {
			a, _ := json.Marshal(res)
			b, _ := json.Marshal(Score(&x, lim))
			if string(a) != string(b) {
				t.Fatalf("not deterministic for %+v", x)
			}
		}

		// One more failed call never raises tool_success_rate or the
		// error_rate component, and never lowers the error count.
		y := x
		y.Calls = append(append([]execution.ToolCall(nil), x.Calls...), execution.ToolCall{Name: "Bash", Failed: true, Done: true})
		ry := Score(&y, lim)
		checkInvariants(t, ry)
		if ts := signal(res, SignalToolSuccess); ts.Present && signal(ry, SignalToolSuccess).Value > ts.Value {
			t.Fatalf("failed call raised tool_success_rate %v -> %v", ts.Value, signal(ry, SignalToolSuccess).Value)
		}
		if ry.Errors.Total != res.Errors.Total+1 {
			t.Fatalf("failed call: errors %d -> %d", res.Errors.Total, ry.Errors.Total)
		}
		if e := signal(res, SignalErrorRate); e.Present && signal(ry, SignalErrorRate).SubScore > e.SubScore {
			t.Fatalf("failed call raised the error component %v -> %v", e.SubScore, signal(ry, SignalErrorRate).SubScore)
		}

		// One more user correction never raises the error component nor
		// the verdict, never raises the score, and changes nothing else.
		z := x
		z.Corrections = max(x.Corrections, 0) + 1
		rz := Score(&z, lim)
		checkInvariants(t, rz)
		if e := signal(res, SignalErrorRate); e.Present && signal(rz, SignalErrorRate).SubScore > e.SubScore {
			t.Fatalf("correction raised the error component")
		}
		if v, ok := find(res, SignalVerdict); ok && signal(rz, SignalVerdict).SubScore > v.SubScore {
			t.Fatalf("correction raised the verdict")
		}
		if signal(res, SignalErrorRate).Present && rz.Score > res.Score+0.005 {
			t.Fatalf("correction raised the score %v -> %v", res.Score, rz.Score)
		}
		// One more acceptance never lowers the verdict.
		a := x
		a.Acceptances++
		ra := Score(&a, lim)
		checkInvariants(t, ra)
		if v, ok := find(res, SignalVerdict); ok && signal(ra, SignalVerdict).SubScore < v.SubScore {
			t.Fatalf("acceptance lowered the verdict")
		}
		for _, name := range []string{SignalToolSuccess, SignalOutput, SignalEfficiency, SignalStructure} {
			if signal(rz, name).SubScore != signal(res, name).SubScore {
				t.Fatalf("correction changed %s", name)
			}
		}
	}
	if unscored == 0 {
		t.Error("the generator never produced an execution without evidence")
	}
}

// TestAllAbsentNeverZero: whatever the limits, an execution without
// evidence is unscored, not scored 0.
// (A StopError alone is evidence since rubric 1.1.0: the turn failed.)
func TestAllAbsentNeverZero(t *testing.T) {
	for _, lim := range []Limits{{}, medium, {MaxTime: time.Nanosecond, MaxTools: 1}} {
		for _, x := range []execution.Execution{{}, {Prompt: "fix it"}, {HasOutput: true}, {Output: "text"}, {Complete: true, Events: 3}} {
			r := Score(&x, lim)
			checkInvariants(t, r)
			if r.Scored {
				t.Errorf("%+v with %+v scored %v", x, lim, r.Score)
			}
		}
	}
}
