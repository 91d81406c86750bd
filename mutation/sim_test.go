package mutation

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var simulate = flag.Bool("simulate", false, "run 1,000 evaluations per cell and rewrite the table in docs/decisions.md")

// TestSimulation checks the sequential method's targets on a small run and,
// with -simulate, regenerates docs/decisions.md's table at full size:
//
//	go test ./mutation -run TestSimulation -simulate
func TestSimulation(t *testing.T) {
	runs := 200
	if *simulate {
		runs = 1000
	}
	var buf bytes.Buffer
	rows := WriteSimTable(&buf, runs, DefaultOptions())
	t.Logf("\n%s", buf.String())
	for _, r := range rows {
		if r.Method != MethodSequential {
			continue
		}
		if r.TrueDelta <= 0 && r.Improvement > 0.05 {
			t.Errorf("sequential accepts %.1f%% as improvement at Δ=%v (target ≤ 5%%)", r.Improvement*100, r.TrueDelta)
		}
		if r.TrueDelta == 5 && r.Improvement < 0.80 {
			t.Errorf("sequential accepts only %.1f%% at Δ=+5 (target ≥ 80%%)", r.Improvement*100)
		}
	}
	if *simulate {
		doc, err := os.ReadFile("../docs/decisions.md")
		if err != nil {
			t.Fatal(err)
		}
		const begin, end = "<!-- simulation:begin -->\n", "<!-- simulation:end -->"
		s := string(doc)
		i, j := strings.Index(s, begin), strings.Index(s, end)
		if i < 0 || j < i {
			t.Fatal("docs/decisions.md lacks the simulation markers")
		}
		s = s[:i+len(begin)] + buf.String() + s[j:]
		if err := os.WriteFile("../docs/decisions.md", []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
