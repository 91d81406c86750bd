package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/proposal"
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
			if d := h.gateTimeout(); d > 0 && strings.HasSuffix(pattern, "/propose") {
				// The eval gate runs a suite: longer than the write timeout.
				http.NewResponseController(w).SetWriteDeadline(time.Now().Add(d + time.Minute))
			}
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
		text, err := readWrite(r, MaxProposal, "the proposal")
		if err != nil {
			return mutation.Record{}, err
		}
		po := proposal.DefaultOptions()
		if r.URL.Query().Get("force") == "1" {
			po.StableWindow = 0 // a person proposes to a stable skill anyway
		}
		return h.o.Engine.ProposeContext(r.Context(), key, text, strategy, po)
	})
	// prune?before=T removes executions and quarantined lines older than
	// T (store.Prune), keeping aggregates, versions and decisions; with
	// dry_run=1 it only counts them (store.PruneCount).
	h.mux.Handle("/v1/prune", only(http.MethodPost, h.engineWrite(func(r *http.Request) (any, error) {
		before, err := query.ParseSince(r.URL.Query().Get("before"), h.o.Now())
		if err == nil && before.IsZero() {
			err = fmt.Errorf("%w: give before: a date, a time or a duration back from now (90d)", query.ErrBadRequest)
		}
		if err != nil {
			return nil, err
		}
		if r.URL.Query().Get("dry_run") == "1" {
			return h.o.DB.PruneCount(before) // what it would remove
		}
		return h.o.DB.Prune(before)
	})))
	// forget answers what was removed (store.Forgotten), not a record.
	h.mux.Handle("/v1/skills/{skill}/forget", only(http.MethodPost, h.engineWrite(func(r *http.Request) (any, error) {
		s, err := skillArg(r)
		if err != nil {
			return nil, err
		}
		ref, err := query.Resolve(h.o.DB, s)
		if err != nil {
			return nil, err
		}
		return h.o.Engine.Forget(ref.Key)
	})))
}

// errNoWrites answers a write on a server without the daemon's engine (a
// read-only CLI query).
var errNoWrites = errors.New("this server applies no writes (no mutation engine)")

// engineWrite is a write the daemon's engine applies that answers fn's
// value (200) or its error in words (errorAnswer).
func (h *handler) engineWrite(fn func(r *http.Request) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.o.Engine == nil {
			writeError(w, http.StatusServiceUnavailable, errNoWrites, nil)
			return
		}
		v, err := fn(r)
		if err != nil {
			h.answerError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, v)
	})
}

// answerError answers err with the status and words errorAnswer gives
// it, and logs it when it is the server's fault (500).
func (h *handler) answerError(w http.ResponseWriter, r *http.Request, err error) {
	status, body := errorAnswer(err)
	if status == http.StatusInternalServerError {
		h.o.Logger.Error("api write failed", "path", r.URL.Path, "err", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// readWrite reads a write's body of at most max bytes; what names it in
// the errors, which are the client's (ErrBadRequest).
func readWrite(r *http.Request, max int64, what string) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, max))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, fmt.Errorf("%w: %s is over %d bytes", query.ErrBadRequest, what, max)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: read %s: %v", query.ErrBadRequest, what, err)
	}
	return b, nil
}

// write resolves the skill, applies fn and answers with the engine's
// record (200, also when nothing was applied: "applied" says so), or an
// error: 409 when a rule refused the action, in words (refusal below).
func (h *handler) write(w http.ResponseWriter, r *http.Request, fn func(r *http.Request, key string) (mutation.Record, error)) {
	if h.o.Engine == nil {
		writeError(w, http.StatusServiceUnavailable, errNoWrites, nil)
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
	var ref *proposal.RefusalError
	switch {
	case errors.As(err, &ref):
		b, _ := json.Marshal(ErrorBody{Error: refusal(r, ref), Status: http.StatusConflict, Rule: ref.Rule})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		w.Write(append(b, '\n'))
	case errors.Is(err, promptfile.ErrOutsideRoots), errors.Is(err, promptfile.ErrConflict):
		writeError(w, http.StatusConflict, err, nil)
	case errors.Is(err, fs.ErrNotExist):
		writeError(w, http.StatusNotFound, err, nil)
	default:
		h.answerError(w, r, err)
	}
}

// refusal words a rule's refusal for a person: what was not done and
// why, without the rule's internal name (it is in "rule").
func refusal(r *http.Request, e *proposal.RefusalError) string {
	if e.Rule == "nothing_to_do" {
		return "nothing to do: " + e.Detail
	}
	what := "not done"
	switch r.Pattern {
	case "/v1/skills/{skill}/propose":
		what = "proposal refused"
		if e.Rule == mutation.RuleEvalGate {
			what = "proposal refused by the eval gate"
		}
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

// gateTimeout is how long a proposal may wait for the eval gate (0: off,
// or no engine).
func (h *handler) gateTimeout() time.Duration {
	if h.o.Engine == nil {
		return 0
	}
	return h.o.Engine.GateTimeout()
}
