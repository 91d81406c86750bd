package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/sepad/sepad/hooks"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/store"
)

// ErrorBody is the JSON body of every error answer.
type ErrorBody struct {
	Error  string `json:"error"`
	Status int    `json:"status"`
	// Candidates lists the skills an ambiguous name matched (409).
	Candidates []query.SkillRef `json:"candidates,omitempty"`
}

// handler routes the API. Views are computed with no store transaction
// held while the answer is written: each is encoded into memory first.
type handler struct {
	o     Options
	mux   *http.ServeMux
	cache *cache
	// compute admits MaxCompute view computations at a time: the rest
	// queue, so queries never take the CPU the collector needs.
	compute chan struct{}
}

// NewHandler returns the API's HTTP handler over o.DB.
func NewHandler(o Options) http.Handler {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxCompute <= 0 {
		o.MaxCompute = max(1, runtime.GOMAXPROCS(0)/2)
	}
	h := &handler{o: o, mux: http.NewServeMux(), compute: make(chan struct{}, o.MaxCompute)}
	if o.Cache {
		h.cache = &cache{m: map[string]*entry{}}
	}
	get := func(pattern string, fn func(r *http.Request) (any, error), cached bool) {
		h.mux.Handle(pattern, only(http.MethodGet, h.view(fn, cached)))
	}
	h.mux.Handle("/healthz", only(http.MethodGet, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	})))
	get("/v1/status", h.status, false)
	get("/v1/skills", h.skills, true)
	get("/v1/skills/{skill}", h.skill, true)
	get("/v1/skills/{skill}/versions", h.versions, true)
	get("/v1/skills/{skill}/history", h.history, true)
	get("/v1/executions", h.executions, true)
	get("/v1/executions/{id}", h.explain, true)
	get("/v1/sessions", h.sessions, true)
	get("/v1/quarantine", h.quarantine, true)
	get("/v1/decisions", h.decisions, true)
	if o.Hook != nil {
		h.mux.Handle("/v1/hook", only(http.MethodPost, http.HandlerFunc(h.hook)))
	}
	if o.Metrics != nil {
		h.mux.Handle("/metrics", only(http.MethodGet, o.Metrics.Handler()))
	}
	h.mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Errorf("no endpoint %s (see docs/api.md)", r.URL.Path), nil)
	}))
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// only answers 405 (JSON) to other methods.
func only(method string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method && !(method == http.MethodGet && r.Method == http.MethodHead) {
			w.Header().Set("Allow", method)
			writeError(w, http.StatusMethodNotAllowed, fmt.Errorf("%s %s: use %s", r.Method, r.URL.Path, method), nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// view computes a view, encodes it, and writes it. With the cache on,
// an answer is shared by every identical request until the store's next
// write transaction, and concurrent identical requests compute it once.
func (h *handler) view(fn func(r *http.Request) (any, error), cacheable bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		compute := func() (status int, body []byte) {
			defer func() {
				if p := recover(); p != nil {
					h.o.Logger.Error("api request panicked", "path", r.URL.Path, "panic", fmt.Sprint(p))
					status, body = errorAnswer(fmt.Errorf("internal error: %v", p))
				}
			}()
			h.compute <- struct{}{}
			defer func() { <-h.compute }()
			v, err := fn(r)
			if err != nil {
				status, body := errorAnswer(err)
				if status == http.StatusInternalServerError {
					h.o.Logger.Error("api request failed", "path", r.URL.Path, "err", err)
				}
				return status, body
			}
			return http.StatusOK, encode(v)
		}
		var status int
		var body []byte
		if h.cache != nil && cacheable {
			gen, err := h.o.DB.TxID()
			if err != nil {
				status, body = errorAnswer(err)
			} else {
				status, body = h.cache.get(r.Pattern+" "+r.URL.EscapedPath()+"?"+r.URL.Query().Encode(), gen, compute)
			}
		} else {
			status, body = compute()
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			w.Write(body)
		}
	})
}

func encode(v any) []byte {
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(v); err != nil {
		_, body := errorAnswer(err)
		return body
	}
	return b.Bytes()
}

// errorAnswer maps an error to its status and JSON body.
func errorAnswer(err error) (int, []byte) {
	var amb *query.AmbiguousError
	status := http.StatusInternalServerError
	var cands []query.SkillRef
	switch {
	case errors.As(err, &amb):
		status, cands = http.StatusConflict, amb.Candidates
	case errors.Is(err, query.ErrNotFound), errors.Is(err, store.ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, query.ErrBadRequest):
		status = http.StatusBadRequest
	case errors.Is(err, store.ErrLocked):
		status = http.StatusServiceUnavailable
	}
	b, _ := json.Marshal(ErrorBody{Error: err.Error(), Status: status, Candidates: cands})
	return status, append(b, '\n')
}

func writeError(w http.ResponseWriter, status int, err error, cands []query.SkillRef) {
	writeJSON(w, status, ErrorBody{Error: err.Error(), Status: status, Candidates: cands})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body := encode(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// skillArg is the {skill} path segment, unescaped by the router and
// validated.
func skillArg(r *http.Request) (string, error) {
	s := r.PathValue("skill")
	return s, query.ValidateName(s)
}

func boolParam(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%w: %s=%q: want true or false", query.ErrBadRequest, name, v)
	}
	return b, nil
}

func (h *handler) status(r *http.Request) (any, error) {
	return query.GetStatus(h.o.DB, h.o.Home, h.o.Daemon)
}

func (h *handler) skills(r *http.Request) (any, error) {
	all, err := boolParam(r, "all_versions")
	if err != nil {
		return nil, err
	}
	m := r.URL.Query().Get("match")
	if m != "" {
		if err := query.ValidateName(m); err != nil {
			return nil, err
		}
	}
	return query.ListGrades(h.o.DB, query.GradesRequest{Match: m, AllVersions: all})
}

func (h *handler) skill(r *http.Request) (any, error) {
	s, err := skillArg(r)
	if err != nil {
		return nil, err
	}
	return query.GetSkill(h.o.DB, s)
}

func (h *handler) versions(r *http.Request) (any, error) {
	s, err := skillArg(r)
	if err != nil {
		return nil, err
	}
	return query.ListVersions(h.o.DB, s)
}

func (h *handler) history(r *http.Request) (any, error) {
	s, err := skillArg(r)
	if err != nil {
		return nil, err
	}
	lim, err := query.ParseLimit(r.URL.Query().Get("limit"), query.DefaultLimit)
	if err != nil {
		return nil, err
	}
	return query.SkillHistory(h.o.DB, query.HistoryRequest{Skill: s, Limit: lim})
}

func (h *handler) executions(r *http.Request) (any, error) {
	q := r.URL.Query()
	var req query.ExecutionsRequest
	var err error
	if req.Limit, err = query.ParseLimit(q.Get("limit"), query.DefaultLimit); err != nil {
		return nil, err
	}
	if req.Grade, err = query.ParseGradeArg(q.Get("grade")); err != nil {
		return nil, err
	}
	if req.Since, err = query.ParseSince(q.Get("since"), h.o.Now()); err != nil {
		return nil, err
	}
	if req.Skill = q.Get("skill"); req.Skill != "" {
		if err := query.ValidateName(req.Skill); err != nil {
			return nil, err
		}
	}
	req.Version = q.Get("version")
	if len(req.Version) > 200 {
		return nil, fmt.Errorf("%w: version too long", query.ErrBadRequest)
	}
	return query.ListExecutions(h.o.DB, req)
}

func (h *handler) explain(r *http.Request) (any, error) {
	return query.ExplainExecution(h.o.DB, r.PathValue("id"))
}

func (h *handler) sessions(r *http.Request) (any, error) {
	lim, err := query.ParseLimit(r.URL.Query().Get("limit"), query.DefaultLimit)
	if err != nil {
		return nil, err
	}
	return query.ListSessions(h.o.DB, lim)
}

func (h *handler) quarantine(r *http.Request) (any, error) {
	lim, err := query.ParseLimit(r.URL.Query().Get("limit"), query.DefaultLimit)
	if err != nil {
		return nil, err
	}
	return query.ListQuarantine(h.o.DB, lim)
}

func (h *handler) decisions(r *http.Request) (any, error) {
	lim, err := query.ParseLimit(r.URL.Query().Get("limit"), query.DefaultLimit)
	if err != nil {
		return nil, err
	}
	s := r.URL.Query().Get("skill")
	if s != "" {
		if err := query.ValidateName(s); err != nil {
			return nil, err
		}
	}
	return query.ListDecisions(h.o.DB, s, lim)
}

// maxHookBody bounds the bytes read from one POST /v1/hook.
const maxHookBody = 64 << 20

// hook is Claude Code's HTTP hook: the payload is enriched and appended
// to the spool before the answer. Success is 204 with no body (a body
// would be read by Claude Code as hook output); where the line went is in
// the X-Sepad-Wrote header (spool or fallback).
func (h *handler) hook(w http.ResponseWriter, r *http.Request) {
	opts := *h.o.Hook
	// The hook keeps a bounded head of a huge payload and drains the rest
	// to hash it; past maxHookBody the read fails and what was read is
	// kept, quarantined, so no client can make the daemon read forever.
	res, err := hooks.HandleReader(http.MaxBytesReader(w, r.Body, maxHookBody), opts)
	if err != nil {
		writeError(w, http.StatusInternalServerError, fmt.Errorf("hook event not recorded: %w", err), nil)
		return
	}
	where := "spool"
	if res.Fallback {
		where = "fallback"
	}
	w.Header().Set("X-Sepad-Wrote", where)
	if res.Quarantined {
		w.Header().Set("X-Sepad-Quarantined", "true")
	}
	w.WriteHeader(http.StatusNoContent)
}

// cache holds encoded answers computed at one store generation (the
// ID of the last write transaction). Entries of older generations are
// dropped when a newer one is seen.
type cache struct {
	mu  sync.Mutex
	gen uint64
	m   map[string]*entry
}

type entry struct {
	done   chan struct{}
	status int
	body   []byte
}

// maxCacheEntries bounds the answers kept per generation; past it,
// answers are computed and not kept.
const maxCacheEntries = 256

func (c *cache) get(key string, gen uint64, compute func() (int, []byte)) (int, []byte) {
	c.mu.Lock()
	if gen > c.gen {
		c.gen, c.m = gen, map[string]*entry{}
	}
	if gen < c.gen || (len(c.m) >= maxCacheEntries && c.m[key] == nil) {
		c.mu.Unlock()
		return compute()
	}
	if e := c.m[key]; e != nil {
		c.mu.Unlock()
		<-e.done
		return e.status, e.body
	}
	e := &entry{done: make(chan struct{})}
	c.m[key] = e
	c.mu.Unlock()
	defer close(e.done)
	e.status, e.body = compute()
	if e.status >= 500 {
		// Not kept: the next request tries again.
		c.mu.Lock()
		if c.m[key] == e {
			delete(c.m, key)
		}
		c.mu.Unlock()
	}
	return e.status, e.body
}
