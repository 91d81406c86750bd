package transcript

import (
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
)

// TestApplyPlacesFailuresWhereTheyHappened: an Edit refused before any
// hook (found only in the transcript) goes before the Edit that then
// succeeded, not after it, so the failure reads as recovered.
func TestApplyPlacesFailuresWhereTheyHappened(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 4, 0, 0, 0, time.UTC)
	x := &execution.Execution{Calls: []execution.ToolCall{
		{ID: "a", Name: "Read", Done: true, Start: t0, End: t0.Add(time.Second)},
		{ID: "c", Name: "Edit", Done: true, Start: t0.Add(3 * time.Second), End: t0.Add(4 * time.Second)},
	}}
	w := Window{Failures: []Failure{
		{ToolUseID: "b", Tool: "Edit", Kind: "input_validation", Time: t0.Add(2 * time.Second)},
		{ToolUseID: "d", Tool: "Bash", Kind: "error"}, // no time: last
	}}
	Apply(x, w, nil)
	var order string
	for _, c := range x.Calls {
		order += c.ID
	}
	if order != "abcd" {
		t.Fatalf("calls in order %q, want abcd", order)
	}
	if c := x.Calls[1]; !c.Failed || c.Source != "transcript" || !c.Start.Equal(t0.Add(2*time.Second)) {
		t.Errorf("refused call %+v", c)
	}
}
