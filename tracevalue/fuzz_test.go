package tracevalue

import (
	"math"
	"testing"
)

// FuzzValue: any task and step text gives dimensions and a score in
// [0, 1], and a trace compared with itself has novelty 0.
func FuzzValue(f *testing.F) {
	f.Add("deploy the shop", "All tests pass.", 3, true, 0.8)
	f.Add("", "", 0, false, 0.0)
	f.Add("日本語のタスク", "\x00\xff", 25, true, 2.0)
	f.Fuzz(func(t *testing.T, task, thought string, calls int, success bool, conf float64) {
		tr := Trace{Task: task, Success: success, Confidence: conf}
		for i := 0; i < calls%40; i++ {
			tr.Steps = append(tr.Steps, Step{Type: ToolCall, Tool: []string{"Bash", "Read"}[i%2]}, Step{Type: Observation, Content: "ok"})
		}
		tr.Steps = append(tr.Steps, Step{Type: Thought, Content: thought})
		v := Vectorize(Text(tr))
		c := NewCache(0)
		c.Add(v)
		val := Evaluate(tr, v, c)
		for _, d := range []float64{val.Score, val.Complexity, val.Novelty, val.ToolDiversity, val.OutcomeConfidence} {
			if d < 0 || d > 1 || math.IsNaN(d) {
				t.Fatalf("value out of [0, 1]: %+v", val)
			}
		}
		if sumSquares(&v) > 0 && val.Novelty > 1e-4 {
			t.Fatalf("a trace against itself: novelty %v", val.Novelty)
		}
	})
}
