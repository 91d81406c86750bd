package api

import (
	"net/http"

	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/status"
)

// version is GET /v1/skills/{skill}/versions/{version}: one version with
// its content as text (sepad show).
func (h *handler) version(r *http.Request) (any, error) {
	s, err := skillArg(r)
	if err != nil {
		return nil, err
	}
	return query.GetVersion(h.o.DB, s, r.PathValue("version"))
}

// diff is GET /v1/skills/{skill}/diff?from=A&to=B (sepad diff).
func (h *handler) diff(r *http.Request) (any, error) {
	s, err := skillArg(r)
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	return query.GetDiff(h.o.DB, s, q.Get("from"), q.Get("to"))
}

// build is GET /v1/version: what the serving binary was built from.
func (h *handler) build(r *http.Request) (any, error) {
	return status.ReadBuild(), nil
}
