package daemon

import (
	"log/slog"
	"time"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/evolve"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/proposal"
	"github.com/sepad/sepad/spool"
	"github.com/sepad/sepad/store"
)

// NewEvolver wires the evolver to the configuration in force (cfg is
// read at each attempt: SIGHUP applies), the store and the engine.
func NewEvolver(cfg func() *config.Config, db *store.DB, e *mutation.Engine, home string, logger *slog.Logger) *evolve.Evolver {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return evolve.New(evolve.Options{DB: db, Engine: e, Proposal: proposal.DefaultOptions(), Notify: NoticeWriter(home),
		Logger: logger, Timeout: func() time.Duration { return cfg().Mutation.MutatorTimeout },
		EditBudget: func() float64 { return cfg().Mutation.EditBudget },
		Mutator: func(skill string) evolve.Mutator {
			m := cfg().Mutation
			if len(m.Mutator) > 0 {
				return evolve.Command{Argv: m.Mutator, Timeout: m.MutatorTimeout}
			}
			return evolve.Claude{Bin: m.Claude, Timeout: m.MutatorTimeout}
		}})
}

// AutoOptions is automatic mode as configured (mutation.evolve and
// evolve_below, per skill).
func AutoOptions(cfg func() *config.Config) evolve.AutoOptions {
	return evolve.AutoOptions{MinSamples: cfg().Mutation.MinSamples, Mode: func(skill string) (bool, fitness.Grade) {
		m := cfg().MutationFor(skill)
		return m.Evolve == "auto", fitness.Grade(m.EvolveBelow)
	}}
}

// NoticeWriter hands the engine's notices to the hook through home's
// pending notices file.
func NoticeWriter(home string) mutation.Notify {
	return func(project, text string, at time.Time) error {
		return spool.AppendNotice(home, project, text, at, time.Second)
	}
}
