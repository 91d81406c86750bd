package mutation

import (
	"strings"

	"github.com/sepad/sepad/store"
)

// Forget removes a skill and everything recorded of it (store.ForgetSkill)
// and drops the engine's caches of it, so nothing decided before is
// remembered. Its prompt file is left as it is: a later edit, or an
// execution, starts the skill again from scratch.
func (e *Engine) Forget(key string) (store.Forgotten, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	f, err := e.db.ForgetSkill(key)
	if err != nil {
		return f, err
	}
	delete(e.states, key)
	delete(e.saved, key)
	delete(e.bestOther, key)
	for k := range e.samples {
		if strings.HasPrefix(k, key+"\x00") {
			delete(e.samples, k)
		}
	}
	e.log.Info("skill forgotten", "skill", key, "executions", f.Executions, "versions", f.Versions, "decisions", f.Decisions)
	return f, nil
}
