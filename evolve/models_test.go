package evolve

import (
	"testing"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/mutation"
)

// TestSettledOnAnotherModelTeachesNothing (issue 37 item 3): a candidate
// settled as the baseline because it never ran on its baseline's model
// was not compared: its strategy is neither credited nor blamed.
func TestSettledOnAnotherModelTeachesNothing(t *testing.T) {
	l := skillLog{records: []mutation.Record{{Kind: mutation.KindDecision, To: "c", Applied: true,
		Decision: &decide.Decision{Outcome: decide.Accept, Reason: decide.ReasonModelsSettled, Delta: 9}}}}
	if decided, accepted, delta := l.outcome("c"); decided || accepted || delta != 0 {
		t.Fatalf("settled on another model: decided %v accepted %v delta %v", decided, accepted, delta)
	}
	l.records[0].Decision.Reason = decide.ReasonBetter
	if decided, accepted, delta := l.outcome("c"); !decided || !accepted || delta != 9 {
		t.Fatalf("better: decided %v accepted %v delta %v", decided, accepted, delta)
	}
}
