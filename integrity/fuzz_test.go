package integrity

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/outcome"
)

// FuzzCheck: any output gives a report whose over-claim flag agrees with
// its deltas, the same whether the outcome report is given or read, and every observation quotes a sentence of at most 160
// bytes (plus the ellipsis).
func FuzzCheck(f *testing.F) {
	for _, c := range cases {
		f.Add(c.output, c.calls[0].Failed)
	}
	f.Add("Done.\n- All tests pass!\n- Deployed", true)
	for _, s := range []string{"All checks are green.", "The test suite is green.", "Works now.", "Live on staging.", "Error-free.", "No remaining failures.",
		"It compiles fine.", "Build succeeded.", "All set.", "The task is finished.", "I have completed it."} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, out string, failed bool) {
		x := &execution.Execution{Output: out, HasOutput: true, Calls: []execution.ToolCall{
			{Name: "Bash", Kind: execution.KindTest, Done: true, Failed: failed}}}
		// The words before each claim pattern keep every match.
		lower := strings.ToLower(out)
		for _, p := range claimPatterns() {
			if p.re.MatchString(lower) && !p.admits(lower) {
				t.Fatalf("%s's pattern matches %q, its words do not", p.claim, out)
			}
		}
		r := Check(x, nil)
		if given := Check(x, outcome.Analyze(x, nil)); !reflect.DeepEqual(given, r) {
			t.Fatalf("with the outcome report given %+v, read by Check %+v", given, r)
		}
		if r == nil {
			return
		}
		over := false
		for _, o := range r.Observations {
			if o.Delta < 0 {
				over = true
			}
			if o.Delta != 0 && o.Observed == nil && !o.Unsupported {
				t.Fatalf("delta %v without an observation", o.Delta)
			}
			if len(o.Quote) > 160+len("…") {
				t.Fatalf("quote of %d bytes", len(o.Quote))
			}
		}
		if over != r.OverClaim {
			t.Fatalf("over_claim %v, deltas say %v", r.OverClaim, over)
		}
	})
}
