package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"

	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/query"
)

// MaxProposal bounds a POST /v1/skills/{skill}/propose body: a prompt file
// is a few kilobytes.
const MaxProposal = 1 << 20

// registerWrites adds the write endpoints: the mutation engine's manual
// actions (sepad accept, reject, rollback, propose). They are applied by
// o.Engine, the daemon's own engine (no second writer), in the order they
// arrive, between its automatic decisions. Without an engine (a read-only
// CLI query) they answer 503. On TCP they need the secret like every
// request.
func (h *handler) registerWrites() {
	h.registerPins() // pin.go
	post := func(pattern string, fn func(r *http.Request, key string) (mutation.Record, error)) {
		h.mux.Handle(pattern, only(http.MethodPost, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.write(w, r, fn)
		})))
	}
	post("/v1/skills/{skill}/rollback", func(r *http.Request, key string) (mutation.Record, error) {
		to := r.URL.Query().Get("to")
		if len(to) > 200 {
			return mutation.Record{}, fmt.Errorf("%w: version too long", query.ErrBadRequest)
		}
		return h.o.Engine.ManualRollback(key, to)
	})
	post("/v1/skills/{skill}/accept", func(r *http.Request, key string) (mutation.Record, error) {
		return h.o.Engine.ManualDecision(key, true)
	})
	post("/v1/skills/{skill}/reject", func(r *http.Request, key string) (mutation.Record, error) {
		return h.o.Engine.ManualDecision(key, false)
	})
	post("/v1/skills/{skill}/propose", func(r *http.Request, key string) (mutation.Record, error) {
		strategy := r.URL.Query().Get("strategy")
		if len(strategy) > 200 {
			return mutation.Record{}, fmt.Errorf("%w: strategy name too long", query.ErrBadRequest)
		}
		text, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, MaxProposal))
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return mutation.Record{}, fmt.Errorf("%w: the proposal is over %d bytes", query.ErrBadRequest, MaxProposal)
		}
		if err != nil {
			return mutation.Record{}, fmt.Errorf("%w: read the proposal: %v", query.ErrBadRequest, err)
		}
		return h.o.Engine.Propose(key, text, strategy, mutation.DefaultProposalOptions())
	})
	// prune?before=T removes executions and quarantined lines older than
	// T (store.Prune), keeping aggregates, versions and decisions.
	h.mux.Handle("/v1/prune", only(http.MethodPost, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.o.Engine == nil {
			writeError(w, http.StatusServiceUnavailable, errors.New("this server applies no writes (no mutation engine)"), nil)
			return
		}
		before, err := query.ParseSince(r.URL.Query().Get("before"), h.o.Now())
		if err == nil && before.IsZero() {
			err = fmt.Errorf("%w: give before: a date, a time or a duration back from now (90d)", query.ErrBadRequest)
		}
		if err == nil {
			p, perr := h.o.DB.Prune(before)
			if perr == nil {
				writeJSON(w, http.StatusOK, p)
				return
			}
			err = perr
		}
		status, body := errorAnswer(err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
	})))
	// forget answers what was removed (store.Forgotten), not a record.
	h.mux.Handle("/v1/skills/{skill}/forget", only(http.MethodPost, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.o.Engine == nil {
			writeError(w, http.StatusServiceUnavailable, errors.New("this server applies no writes (no mutation engine)"), nil)
			return
		}
		s, err := skillArg(r)
		if err == nil {
			var ref query.SkillRef
			if ref, err = query.Resolve(h.o.DB, s); err == nil {
				f, ferr := h.o.Engine.Forget(ref.Key)
				if ferr == nil {
					writeJSON(w, http.StatusOK, f)
					return
				}
				err = ferr
			}
		}
		status, body := errorAnswer(err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
	})))
}

// write resolves the skill, applies fn and answers with the engine's
// record (200, also when nothing was applied: "applied" says so), or an
// error: 409 when a rule refused the action, in words (refusal below).
func (h *handler) write(w http.ResponseWriter, r *http.Request, fn func(r *http.Request, key string) (mutation.Record, error)) {
	if h.o.Engine == nil {
		writeError(w, http.StatusServiceUnavailable, errors.New("this server applies no writes (no mutation engine)"), nil)
		return
	}
	s, err := skillArg(r)
	if err == nil {
		var ref query.SkillRef
		if ref, err = query.Resolve(h.o.DB, s); err == nil {
			var rec mutation.Record
			if rec, err = fn(r, ref.Key); err == nil {
				writeJSON(w, http.StatusOK, h.stored(ref.Key, rec))
				return
			}
		}
	}
	var ref *mutation.RefusalError
	switch {
	case errors.As(err, &ref):
		b, _ := json.Marshal(ErrorBody{Error: refusal(r, ref), Status: http.StatusConflict, Rule: ref.Rule})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		w.Write(append(b, '\n'))
	case errors.Is(err, mutation.ErrOutsideRoots), errors.Is(err, mutation.ErrConflict):
		writeError(w, http.StatusConflict, err, nil)
	case errors.Is(err, fs.ErrNotExist):
		writeError(w, http.StatusNotFound, err, nil)
	default:
		status, body := errorAnswer(err)
		if status == http.StatusInternalServerError {
			h.o.Logger.Error("api write failed", "path", r.URL.Path, "err", err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
	}
}

// refusal words a rule's refusal for a person: what was not done and
// why, without the rule's internal name (it is in "rule").
func refusal(r *http.Request, e *mutation.RefusalError) string {
	if e.Rule == "nothing_to_do" {
		return "nothing to do: " + e.Detail
	}
	what := "not done"
	switch r.Pattern {
	case "/v1/skills/{skill}/propose":
		what = "proposal refused"
	case "/v1/skills/{skill}/rollback", "/v1/skills/{skill}/reject":
		what = "nothing rolled back"
	case "/v1/skills/{skill}/accept":
		what = "nothing accepted"
	}
	return what + ": " + e.Detail
}

// stored returns the record as the store keeps it (with its time) when
// the engine returned it before stamping it.
func (h *handler) stored(key string, rec mutation.Record) mutation.Record {
	if !rec.Time.IsZero() {
		return rec
	}
	ds, err := h.o.DB.Decisions(key, 1)
	if err != nil || len(ds) == 0 {
		return rec
	}
	var last mutation.Record
	if json.Unmarshal(ds[0].Payload, &last) == nil && last.Words == rec.Words && last.Rule == rec.Rule {
		return last
	}
	return rec
}
