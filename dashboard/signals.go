package dashboard

import (
	"errors"
	"fmt"
	"math"

	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/store"
)

// Views only the dashboard draws, read from the store directly: a
// version's per-signal means (the skill page's columns) and an
// execution's final output (the execution page). They are not API
// endpoints.

// signalMean is one signal's mean sub-score (0-1) over a version's
// executions where it was present.
type signalMean struct {
	Signal string  `json:"signal"`
	Mean   float64 `json:"mean"`
	N      int     `json:"n"`
}

// signalMeans returns, per version hash of the skill key names, the mean
// sub-score of each signal over its perVersion most recently recorded
// executions (signals in the rubric's order).
func signalMeans(db *store.DB, key string, perVersion int) (map[string][]signalMean, error) {
	if perVersion <= 0 {
		perVersion = 50
	}
	ss, err := db.SkillsByKey([]string{key})
	if err != nil {
		return nil, err
	}
	if len(ss) == 0 {
		return nil, fmt.Errorf("no skill %q: %w", key, query.ErrNotFound)
	}
	out := map[string][]signalMean{}
	for _, v := range ss[0].Versions {
		var ids []string
		if err := db.WalkExecutionIDs(key, v.Hash, perVersion, func(id string, _ uint64) bool {
			ids = append(ids, id)
			return len(ids) < perVersion
		}); err != nil {
			return nil, err
		}
		var order []string
		sums := map[string]*signalMean{}
		for _, id := range ids {
			s, err := db.Execution(id)
			if errors.Is(err, store.ErrNotFound) {
				continue // pruned since the index was read
			}
			if err != nil {
				return nil, err
			}
			for _, sig := range s.Result.Signals {
				if !sig.Present {
					continue
				}
				m := sums[sig.Signal]
				if m == nil {
					m = &signalMean{Signal: sig.Signal}
					sums[sig.Signal] = m
					order = append(order, sig.Signal)
				}
				m.Mean += sig.SubScore
				m.N++
			}
		}
		var ms []signalMean
		for _, name := range order {
			m := *sums[name]
			m.Mean = math.Round(m.Mean/float64(m.N)*1e4) / 1e4
			ms = append(ms, m)
		}
		out[v.Hash] = ms
	}
	return out, nil
}

// executionOutput returns an execution's final assistant message (ok
// false when its closing event carried none).
func executionOutput(db *store.DB, id string) (output string, ok bool, err error) {
	s, err := db.Execution(id)
	if errors.Is(err, store.ErrNotFound) {
		return "", false, &query.NotFoundError{Msg: fmt.Sprintf("no execution %q", id)}
	}
	if err != nil {
		return "", false, err
	}
	return s.Exec.Output, s.Exec.HasOutput, nil
}
