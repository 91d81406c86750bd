package api

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/sepad/sepad/query"
)

// validity is GET /v1/validity[?skill=S&min_labels=N&min_each=N]: each
// signal's and the score's agreement with the verdicts sepad holds
// (sepad validity; docs/rubric.md, "Validity").
func (h *handler) validity(r *http.Request) (any, error) {
	q := r.URL.Query()
	req := query.ValidityRequest{Skill: q.Get("skill")}
	if req.Skill != "" {
		if err := query.ValidateName(req.Skill); err != nil {
			return nil, err
		}
	}
	for _, p := range []struct {
		name string
		to   *int
	}{{"min_labels", &req.MinLabels}, {"min_each", &req.MinEach}} {
		v := q.Get(p.name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1_000_000 {
			return nil, fmt.Errorf("%w: %s=%q: want a whole number from 1", query.ErrBadRequest, p.name, v)
		}
		*p.to = n
	}
	return query.Validity(h.o.DB, h.o.Home, req)
}
