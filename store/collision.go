package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sepad/sepad/execution"
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

// storedIdentity is what tells two executions apart.
type storedIdentity struct {
	Exec struct {
		SessionID string    `json:"session_id"`
		AgentID   string    `json:"agent_id"`
		Skill     string    `json:"skill"`
		StartedAt time.Time `json:"started_at"`
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
	return id.Exec.SessionID == x.SessionID && id.Exec.AgentID == x.AgentID &&
		id.Exec.Skill == x.Skill && id.Exec.StartedAt.Equal(x.StartedAt)
}

func collision(stored []byte, s *Scored) *CollisionError {
	var id storedIdentity
	_ = decodeExec(stored, &id)
	raw, _ := json.Marshal(s)
	x := &s.Exec
	return &CollisionError{ID: x.ID,
		Held: describe(id.Exec.SessionID, id.Exec.AgentID, id.Exec.Skill, id.Exec.StartedAt),
		New:  describe(x.SessionID, x.AgentID, x.Skill, x.StartedAt), Raw: raw}
}
