package api

import (
	"fmt"
	"net/http"

	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/query"
)

// registerPins adds POST /v1/skills/{skill}/pin?version=V (V: vN or a
// hash; none for the file's content now) and /unpin: a pinned skill's
// file is never written and nothing is decided about it (sepad pin).
func (h *handler) registerPins() {
	h.mux.Handle("/v1/skills/{skill}/pin", only(http.MethodPost, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.write(w, r, func(r *http.Request, key string) (mutation.Record, error) {
			v := r.URL.Query().Get("version")
			if len(v) > 200 {
				return mutation.Record{}, fmt.Errorf("%w: version too long", query.ErrBadRequest)
			}
			return h.o.Engine.Pin(key, v)
		})
	})))
	h.mux.Handle("/v1/skills/{skill}/unpin", only(http.MethodPost, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.write(w, r, func(r *http.Request, key string) (mutation.Record, error) {
			return h.o.Engine.Unpin(key)
		})
	})))
}
