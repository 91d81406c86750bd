package fitness

import (
	"math"
	"strings"
	"testing"

	"github.com/sepad/sepad/execution"
)

// FuzzStructure feeds arbitrary text to the markdown analysis behind
// structure_score. It must never panic, the signal must be present with
// one of the values the rubric allows, and a leading ATX heading must
// always be seen (a '#' line is a heading wherever the rest goes).
// Seeds: testdata/fuzz/FuzzStructure.
func FuzzStructure(f *testing.F) {
	for _, s := range []string{"# h\n- a\n```go\nx\n```", "```sh\n# not a heading\n```", "1. item", "> ```\n> x", "\x00\xff"} {
		f.Add(s)
	}
	allowed := map[float64]bool{0: true, 0.3: true, 0.4: true, 0.6: true, 0.7: true, 1: true}
	f.Fuzz(func(t *testing.T, out string) {
		a := analyze(out)
		s := structure(a)
		if !s.Present || !allowed[s.Value] || s.SubScore != s.Value {
			t.Fatalf("structure %+v", s)
		}
		if (a.headings > 0) != (s.Value == 0.4 || s.Value == 0.7 || s.Value == 1) {
			t.Fatalf("headings %d but value %v", a.headings, s.Value)
		}
		if len(a.fences) > 0 && !(s.Value == 0.3 || s.Value == 0.6 || s.Value == 0.7 || s.Value == 1) {
			t.Fatalf("fences %d but value %v", len(a.fences), s.Value)
		}
		if h := analyze("# Heading\n\n" + out); h.headings == 0 {
			t.Fatalf("leading heading not seen before %q", out)
		}
	})
}

// FuzzOutputQuality feeds an arbitrary prompt and final output through
// Score. It must never panic; output_quality and structure_score are
// present exactly when the output has non-blank text, and every value stays
// in range. Seeds: testdata/fuzz/FuzzOutputQuality.
func FuzzOutputQuality(f *testing.F) {
	f.Add("fix the bug", "The test failed because of an off-by-one.\n\n```go\nx := 1\n```\n\nNext steps: add a test.")
	f.Add("", "```json\n{")
	f.Add("```go\nx\n```", "```yaml\na: [\n```")
	f.Fuzz(func(t *testing.T, prompt, out string) {
		x := execution.Execution{Prompt: prompt, HasOutput: true, Output: out, Calls: calls(1, 1)}
		r := Score(&x, medium)
		q := signal(r, SignalOutput)
		blank := strings.TrimSpace(out) == ""
		if q.Present == blank || signal(r, SignalStructure).Present == blank {
			t.Fatalf("blank=%v but output_quality present=%v", blank, q.Present)
		}
		if q.Present && (q.Value < 0 || q.Value > 1 || math.IsNaN(q.Value)) {
			t.Fatalf("output_quality %v", q.Value)
		}
		if !r.Scored || r.Score < 0 || r.Score > 100 {
			t.Fatalf("score %+v", r)
		}
		sum := 0.0
		for _, s := range r.Signals {
			sum += s.Contribution
		}
		if math.Abs(sum-r.Score) > 0.01 {
			t.Fatalf("contributions %v, score %v", sum, r.Score)
		}
	})
}
