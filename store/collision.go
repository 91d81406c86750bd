package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/record"
)

// ErrIDCollision is wrapped by CollisionError: a different execution
// already holds an execution's ID. Execution IDs are meant to be unique for
// ever (docs/executions.md); if two ever meet, the second is quarantined,
// never dropped.
var ErrIDCollision = errors.New("execution ID collision")

// CollisionError describes an execution that was not stored because its ID
// was taken.
type CollisionError struct {
	ID string
	// Held and New describe the stored and the refused execution.
	Held, New string
	// Raw is the refused execution as JSON, for the quarantine.
	Raw []byte
}

func (e *CollisionError) Error() string {
	return fmt.Sprintf("%s: %s already holds %s; refused %s", ErrIDCollision, e.ID, e.Held, e.New)
}

func (e *CollisionError) Unwrap() error { return ErrIDCollision }

// storedIdentity is what tells two executions apart: where they ran and
// when they started, and, for executions without a start time (raw
// payloads, whose IDs number the session's parts), what grouping gave
// them: a replayed batch gives exactly the same, another turn does not.
type storedIdentity struct {
	Exec struct {
		SessionID string    `json:"session_id"`
		AgentID   string    `json:"agent_id"`
		Skill     string    `json:"skill"`
		StartedAt time.Time `json:"started_at"`
		EndedAt   time.Time `json:"ended_at"`
		Prompt    string    `json:"prompt"`
		Events    int       `json:"events"`
		Complete  bool      `json:"complete"`
		Calls     []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"calls"`
	} `json:"execution"`
}

func describe(session, agent, skill string, started time.Time) string {
	d := fmt.Sprintf("%s of session %s", skill, session)
	if agent != "" {
		d += " agent " + agent
	}
	if !started.IsZero() {
		d += " started " + started.UTC().Format(time.RFC3339Nano)
	}
	return d
}

// sameExecution reports whether a stored record is x itself, delivered
// again (a replayed batch), rather than another execution with its ID.
func sameExecution(stored []byte, x *execution.Execution) bool {
	var id storedIdentity
	if decodeExec(stored, &id) != nil {
		return false
	}
	e := &id.Exec
	if e.SessionID != x.SessionID || e.AgentID != x.AgentID || e.Skill != x.Skill || !e.StartedAt.Equal(x.StartedAt) {
		return false
	}
	if !x.StartedAt.IsZero() {
		return true // a start to the nanosecond (sepa.ts) names one turn
	}
	if !e.EndedAt.Equal(x.EndedAt) || e.Prompt != x.Prompt || e.Events != x.Events || e.Complete != x.Complete ||
		len(e.Calls) != len(x.Calls) {
		return false
	}
	for i, c := range e.Calls {
		if c.ID != x.Calls[i].ID || c.Name != x.Calls[i].Name {
			return false
		}
	}
	return true
}

func collision(stored []byte, s *record.Scored) *CollisionError {
	var id storedIdentity
	_ = decodeExec(stored, &id)
	raw, _ := json.Marshal(s)
	x := &s.Exec
	return &CollisionError{ID: x.ID,
		Held: describe(id.Exec.SessionID, id.Exec.AgentID, id.Exec.Skill, id.Exec.StartedAt),
		New:  describe(x.SessionID, x.AgentID, x.Skill, x.StartedAt), Raw: raw}
}
