package mutation

import "github.com/sepad/sepad/decide"

// Who may be rolled back automatically (mutation.rollback_edits).
const (
	// RollbackEditsAsk: a version a person wrote is never rewritten by a
	// rule or a decision; sepad records "would roll back" and tells the
	// person, who runs `sepad rollback SKILL`. The default.
	RollbackEditsAsk = "ask"
	// RollbackEditsAuto: a person's version rolls back like a mutator's.
	RollbackEditsAuto = "auto"
)

// Override is a skill's own mutation settings (skills.<name>.mutation in
// the configuration): each set field replaces the global one.
type Override struct {
	Method           *decide.Method
	MinSamples       *int
	MaxSamples       *int
	Confidence       *float64
	Exploration      *float64
	AutoRollback     *bool
	RollbackOnF      *bool
	RollbackRatio    *float64
	RollbackFailRate *float64
	Cooldown         *int
	RollbackEdits    *string
}

// apply returns o with the override's fields set.
func (ov Override) apply(o EngineOptions) EngineOptions {
	set := func(dst, src any) {
		switch d := dst.(type) {
		case *int:
			if s := src.(*int); s != nil {
				*d = *s
			}
		case *float64:
			if s := src.(*float64); s != nil {
				*d = *s
			}
		case *bool:
			if s := src.(*bool); s != nil {
				*d = *s
			}
		case *string:
			if s := src.(*string); s != nil {
				*d = *s
			}
		}
	}
	if ov.Method != nil {
		o.Decide.Method = *ov.Method
	}
	set(&o.Decide.MinSamples, ov.MinSamples)
	set(&o.Decide.MaxSamples, ov.MaxSamples)
	set(&o.Decide.Confidence, ov.Confidence)
	set(&o.Decide.Exploration, ov.Exploration)
	set(&o.AutoRollback, ov.AutoRollback)
	set(&o.RollbackOnF, ov.RollbackOnF)
	set(&o.RollbackRatio, ov.RollbackRatio)
	set(&o.RollbackFailRate, ov.RollbackFailRate)
	set(&o.Cooldown, ov.Cooldown)
	set(&o.RollbackEdits, ov.RollbackEdits)
	return o
}

// optsFor returns the options for a skill name: the global ones with the
// skill's override applied.
func (e *Engine) optsFor(name string) EngineOptions {
	if ov, ok := e.opts.Skills[name]; ok {
		return ov.apply(e.opts)
	}
	return e.opts
}

// personal reports whether a version was written by a person (an edit
// sepad saw, or content only known from executions), not by a mutator
// (a proposal) or by sepad (a rollback).
func personal(source string) bool {
	return source != "proposal" && source != "rollback"
}
