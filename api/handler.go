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

	"github.com/sepad/sepad/dashboard"
	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/hooks"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/render"
	"github.com/sepad/sepad/status"
	"github.com/sepad/sepad/store"
)

// ErrorBody is the JSON body of every error answer.
type ErrorBody struct {
	Error  string `json:"error"`
	Status int    `json:"status"`
	// Candidates lists the skills an ambiguous name matched (409).
	Candidates []query.SkillRef `json:"candidates,omitempty"`
	// Rule names the rule that refused a write (409), e.g. too_soon.
	Rule string `json:"rule,omitempty"`
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
	// hookSlots admits MaxHookPosts hook requests at a time: each may
	// hold its whole body in memory.
	hookSlots chan struct{}
	// big lets one large body at a time be walked (hook).
	big sync.Mutex
	// dash is the web dashboard under /dashboard/ (login.go guards it on
	// TCP).
	dash *dashboard.Dashboard
}

// DefaultMaxHookPosts is the default cap on POST /v1/hook requests
// handled at once. Claude Code posts one event at a time per session and
// each takes about a millisecond, so four is plenty for a person's
// sessions; it bounds the daemon's memory to about four bodies.
const DefaultMaxHookPosts = 4

// bigBody is the body size past which the hook handler walks one body
// at a time and collects garbage when it is done (handleBig): rare (a
// tool output of megabytes).
const bigBody = 8 << 20

// hookWait is how long a hook request waits for a slot before 503.
const hookWait = 250 * time.Millisecond

// DefaultHookBodyTime is the default Options.HookBodyTime, and
// hookBodyRate the slowest a hook body may arrive, in bytes a second,
// beyond it: on loopback a body arrives at hundreds of MB a second, so
// this is far from what a working client needs (a 60 MiB body has 17 s, a
// small one 2 s), and a stalled one keeps its slot that long only.
const (
	DefaultHookBodyTime = 2 * time.Second
	hookBodyRate        = 4 << 20
)

// Refusal reasons of sepad_hook_requests_refused_total.
const (
	refusedBusy     = "busy"
	refusedTooLarge = "too_large"
	refusedSlow     = "slow"
)

// NewHandler returns the API's HTTP handler over o.DB.
func NewHandler(o Options) http.Handler {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxCompute <= 0 {
		o.MaxCompute = max(1, runtime.GOMAXPROCS(0)/2)
	}
	if o.MaxHookPosts <= 0 {
		o.MaxHookPosts = DefaultMaxHookPosts
	}
	if o.MaxHookBody <= 0 && o.Hook != nil {
		o.MaxHookBody = o.Hook.MaxPayload
	}
	if o.MaxHookBody <= 0 {
		o.MaxHookBody = hooks.DefaultMaxPayload
	}
	if o.HookBodyTime <= 0 {
		o.HookBodyTime = DefaultHookBodyTime
	}
	h := &handler{o: o, mux: http.NewServeMux(), compute: make(chan struct{}, o.MaxCompute),
		hookSlots: make(chan struct{}, o.MaxHookPosts)}
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
	get("/v1/skills/{skill}/versions/{version}", h.version, true)
	get("/v1/skills/{skill}/diff", h.diff, true)
	get("/v1/version", h.build, false)
	h.registerWrites() // POST: accept, reject, rollback, propose (writes.go)
	h.registerLabels() // POST: label an execution (labels.go)
	h.registerEvolve() // POST evolve, GET strategies (evolve.go)
	get("/v1/executions", h.executions, true)
	get("/v1/executions/{id}", h.explain, true)
	get("/v1/sessions", h.sessions, true)
	get("/v1/quarantine", h.quarantine, true)
	get("/v1/decisions", h.decisions, true)
	get("/v1/validity", h.validity, true)
	h.mux.Handle("/v1/import", only(http.MethodPost, http.HandlerFunc(h.importHandler)))
	h.mux.Handle("/v1/export", only(http.MethodGet, http.HandlerFunc(h.exportHandler)))
	if o.Hook != nil {
		h.mux.Handle("/v1/hook", only(http.MethodPost, http.HandlerFunc(h.hook)))
	}
	if o.Metrics != nil {
		h.mux.Handle("/metrics", only(http.MethodGet, o.Metrics.Handler()))
	}
	h.mux.Handle("/v1/dashboard/login", only(http.MethodPost, http.HandlerFunc(h.dashboardLogin)))
	h.dash = dashboard.New(dashboard.Options{DB: o.DB, Home: o.Home, Now: o.Now, Logger: o.Logger, Cache: o.Cache, Team: o.Team,
		Gate: func() func() {
			h.compute <- struct{}{}
			return func() { <-h.compute }
		}})
	h.mux.Handle(dashboard.Prefix, h.dash)
	h.mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Errorf("no endpoint %s (see docs/api.md)", r.URL.Path), nil)
	}))
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// dashboardLogin is POST /v1/dashboard/login: a one-time login link to
// the dashboard (login.go). Only a daemon gives one.
func (h *handler) dashboardLogin(w http.ResponseWriter, r *http.Request) {
	if h.o.login == nil {
		writeError(w, http.StatusServiceUnavailable, ErrNoDaemon, nil)
		return
	}
	l, err := h.o.login()
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, ErrNoDaemon) {
			status = http.StatusServiceUnavailable
		}
		writeError(w, status, err, nil)
		return
	}
	go h.dash.Warm() // the overview is ready when the browser asks
	writeJSON(w, http.StatusOK, l)
}

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
		compute := func() (a answer) {
			defer func() {
				if p := recover(); p != nil {
					h.o.Logger.Error("api request panicked", "path", r.URL.Path, "panic", fmt.Sprint(p))
					a = jsonAnswer(errorAnswer(fmt.Errorf("internal error: %v", p)))
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
				return jsonAnswer(status, body)
			}
			if t, ok := v.(text); ok {
				return answer{status: http.StatusOK, ctype: textType, body: t}
			}
			body := encode(v)
			if r.URL.Query().Get("indent") == "true" {
				// As `--json` prints it: a client copies it out instead of
				// indenting 450 KB itself (cached like the rest).
				var b bytes.Buffer
				if json.Indent(&b, body, "", "  ") == nil {
					body = b.Bytes()
				}
			}
			return jsonAnswer(http.StatusOK, body)
		}
		var a answer
		if h.cache != nil && cacheable {
			gen, err := h.o.DB.TxID()
			if err != nil {
				a = jsonAnswer(errorAnswer(err))
			} else {
				// Eval evidence is a file beside the database: a new
				// suite run changes the answer too.
				a = h.cache.get(r.Pattern+" "+r.URL.EscapedPath()+"?"+r.URL.Query().Encode()+" evals "+evals.Stamp(h.o.Home), gen, compute)
			}
		} else {
			a = compute()
		}
		w.Header().Set("Content-Type", a.ctype)
		w.Header().Set("Content-Length", strconv.Itoa(len(a.body)))
		w.WriteHeader(a.status)
		if r.Method != http.MethodHead {
			w.Write(a.body)
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
	d := h.o.Daemon
	if d.HTTP == "" && h.o.addr != nil {
		d.HTTP = h.o.addr()
	}
	return status.Get(h.o.DB, h.o.Home, d)
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
	format := r.URL.Query().Get("format")
	if format != "" && format != "json" && format != "text" {
		return nil, fmt.Errorf("%w: format=%q: want json or text", query.ErrBadRequest, format)
	}
	doc, err := query.ListGrades(h.o.DB, query.GradesRequest{Match: m, AllVersions: all})
	if err != nil {
		return nil, err
	}
	if err := query.AttachEvals(h.o.Home, doc.Grades); err != nil {
		return nil, err
	}
	if format == "text" {
		var b bytes.Buffer
		render.Grades(&b, doc, all)
		return text(b.Bytes()), nil
	}
	return doc, nil
}

func (h *handler) skill(r *http.Request) (any, error) {
	s, err := skillArg(r)
	if err != nil {
		return nil, err
	}
	doc, err := query.GetSkill(h.o.DB, s)
	if err != nil || doc.Skill.Current == nil {
		return doc, err
	}
	rows := []query.GradeRow{*doc.Skill.Current}
	err = query.AttachEvals(h.o.Home, rows)
	doc.Skill.Current = &rows[0]
	return doc, err
}

func (h *handler) versions(r *http.Request) (any, error) {
	s, err := skillArg(r)
	if err != nil {
		return nil, err
	}
	doc, err := query.ListVersions(h.o.DB, s)
	if err != nil {
		return nil, err
	}
	return doc, query.AttachEvals(h.o.Home, doc.Versions)
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
