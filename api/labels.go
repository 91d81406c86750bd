package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/reward"
)

// MaxLabel bounds a POST /v1/executions/{id}/label body.
const MaxLabel = 64 << 10

// registerLabels adds POST /v1/executions/{id}/label (sepad label): {id}
// is an execution ID, a unique prefix, or "last" (the newest, of ?skill=
// when given); the body is a reward.Input. Like the other writes it is
// applied by the daemon's engine, in its order (Engine.Label).
func (h *handler) registerLabels() {
	h.mux.Handle("/v1/executions/{id}/label", only(http.MethodPost, h.engineWrite(func(r *http.Request) (any, error) {
		return h.applyLabel(r)
	})))
}

func (h *handler) applyLabel(r *http.Request) (*query.LabelAnswer, error) {
	skill := r.URL.Query().Get("skill")
	if skill != "" {
		if err := query.ValidateName(skill); err != nil {
			return nil, err
		}
	}
	body, err := readWrite(r, MaxLabel, "the label")
	if err != nil {
		return nil, err
	}
	var in reward.Input
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("%w: the label is not a JSON object of outcome, score, note, rater, model, rubric_version, source: %v", query.ErrBadRequest, err)
	}
	id, err := query.ResolveExecution(h.o.DB, r.PathValue("id"), skill)
	if err != nil {
		return nil, err
	}
	l, err := reward.New(id, in, h.o.Now())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", query.ErrBadRequest, err)
	}
	ap, err := h.o.Engine.Label(l)
	if err != nil {
		return nil, err
	}
	st, err := mutation.Statuses(h.o.DB, ap.Execution.SkillKey)
	if err != nil {
		return nil, err
	}
	return query.AnswerOf(h.o.DB, ap, st[ap.Execution.Version]), nil
}
