package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/sepad/sepad/evolve"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/proposal"
	"github.com/sepad/sepad/query"
)

// registerEvolve adds POST /v1/skills/{skill}/evolve (sepad evolve) and
// GET /v1/strategies (sepad strategies).
func (h *handler) registerEvolve() {
	h.mux.Handle("/v1/skills/{skill}/evolve", only(http.MethodPost, http.HandlerFunc(h.evolve)))
	h.mux.Handle("/v1/strategies", only(http.MethodGet, h.view(h.strategies, true)))
}

// StrategiesView is GET /v1/strategies' answer.
type StrategiesView struct {
	// Skill is the skill asked about ("" for every skill).
	Skill      string                `json:"skill,omitempty"`
	Strategies []evolve.StrategyStat `json:"strategies"`
}

func (h *handler) strategies(r *http.Request) (any, error) {
	v := StrategiesView{}
	key := ""
	if s := r.URL.Query().Get("skill"); s != "" {
		if err := query.ValidateName(s); err != nil {
			return nil, err
		}
		ref, err := query.Resolve(h.o.DB, s)
		if err != nil {
			return nil, err
		}
		key, v.Skill = ref.Key, ref.Name
	}
	st, err := evolve.Stats(h.o.DB, key)
	if err != nil {
		return nil, err
	}
	v.Strategies = st
	return v, nil
}

// evolve runs one evolution attempt with the daemon's evolver and
// answers with the attempt (200, also when the mutator failed or a rule
// refused its answer: "applied" says so), or an error: 409 when a limit
// refused the attempt before the mutator was asked, or another
// evolution of the skill is running.
func (h *handler) evolve(w http.ResponseWriter, r *http.Request) {
	if h.o.Evolver == nil {
		writeError(w, http.StatusServiceUnavailable, errNoWrites, nil)
		return
	}
	ro := evolve.RunOptions{Strategy: r.URL.Query().Get("strategy"), Force: r.URL.Query().Get("force") == "1"}
	dry, err := boolParam(r, "dry_run")
	ro.DryRun = dry
	if err == nil && len(ro.Strategy) > 200 {
		err = fmt.Errorf("%w: strategy name too long", query.ErrBadRequest)
	}
	var ref query.SkillRef
	if err == nil {
		var s string
		if s, err = skillArg(r); err == nil {
			ref, err = query.Resolve(h.o.DB, s)
		}
	}
	if err == nil {
		// A mutator may take longer than the server's write timeout.
		http.NewResponseController(w).SetWriteDeadline(time.Now().Add(h.o.Evolver.MaxDuration() + time.Minute))
		var a evolve.Attempt
		if a, err = h.o.Evolver.Run(r.Context(), ref.Key, ro); err == nil {
			writeJSON(w, http.StatusOK, a)
			return
		}
	}
	var refused *proposal.RefusalError
	switch {
	case errors.As(err, &refused):
		// Words for a person; the rule's name is in "rule".
		b, _ := json.Marshal(ErrorBody{Error: "nothing evolved: " + refused.Detail, Status: http.StatusConflict, Rule: refused.Rule})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		w.Write(append(b, '\n'))
	case errors.Is(err, evolve.ErrUnknownStrategy):
		writeError(w, http.StatusBadRequest, fmt.Errorf("%w: %v", query.ErrBadRequest, err), nil)
	case errors.Is(err, evolve.ErrBusy), errors.Is(err, evolve.ErrTooLarge), errors.Is(err, promptfile.ErrOutsideRoots):
		writeError(w, http.StatusConflict, err, nil)
	default:
		h.answerError(w, r, err)
	}
}
