package daemon

import (
	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/mutation"
)

// skillOverrides maps the configuration's skills.<name>.mutation to the
// engine's per-skill overrides.
func skillOverrides(cfg *config.Config) map[string]mutation.Override {
	if len(cfg.SkillMutation) == 0 {
		return nil
	}
	out := make(map[string]mutation.Override, len(cfg.SkillMutation))
	for name, o := range cfg.SkillMutation {
		ov := mutation.Override{MinSamples: o.MinSamples, MaxSamples: o.MaxSamples, Confidence: o.Confidence,
			Exploration: o.Exploration, AutoRollback: o.AutoRollback, RollbackOnF: o.RollbackOnF, RollbackRatio: o.RollbackRatio,
			RollbackFailRate: o.RollbackFailRate, Cooldown: o.CooldownExecutions, RollbackEdits: o.RollbackEdits}
		if o.Method != nil {
			m := decide.Method(*o.Method)
			ov.Method = &m
		}
		out[name] = ov
	}
	return out
}
