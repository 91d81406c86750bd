// Package dashboard is sepad's web dashboard: server-rendered HTML pages
// over the query views the CLI shows (grades, history, explain,
// decisions, notices), SVG charts drawn on the server, every asset
// embedded, live updates by server-sent events. Package api mounts it on
// the loopback listener behind the login (docs/api.md, "Dashboard");
// this package does no authentication of its own.
package dashboard

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/store"
)

// Prefix is the path the dashboard is served under.
const Prefix = "/dashboard/"

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Options configure the dashboard.
type Options struct {
	// DB is the store the views read.
	DB *store.DB
	// Home is $SEPA_HOME (the pending notices live there).
	Home string
	// Now is the clock for relative times. Default time.Now.
	Now func() time.Time
	// Logger receives errors. Default: discard.
	Logger *slog.Logger
	// Cache keeps rendered pages until the store's next write.
	Cache bool
	// Poll is how often the live stream looks for a new write. Default
	// 250 ms: a new execution shows within about half a second.
	Poll time.Duration
	// Gate, when set, admits a page computation (it returns the release):
	// the API's bound on concurrent views.
	Gate func() (release func())
	// Team, when set (team.postgres), reads the team's views for the
	// team page and the skill pages' team section (team.go); nil: none.
	Team Team
}

// Dashboard serves the pages. Stop ends its live streams.
type Dashboard struct {
	o    Options
	mux  *http.ServeMux
	stop chan struct{}
	once sync.Once

	mu    sync.Mutex
	cache map[string]cached

	// rows are the overview's rows drawn, by skill key (overview.go).
	rowsMu sync.Mutex
	rows   map[string]drawnRow
}

type cached struct {
	tx     uint64
	status int
	body   []byte
}

// maxCached bounds the pages kept.
const maxCached = 256

// New returns the dashboard's handler.
func New(o Options) *Dashboard {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Poll <= 0 {
		o.Poll = 250 * time.Millisecond
	}
	d := &Dashboard{o: o, mux: http.NewServeMux(), stop: make(chan struct{}),
		cache: map[string]cached{}}
	static, _ := fs.Sub(staticFS, "static")
	d.mux.Handle("GET "+Prefix+"static/", http.StripPrefix(Prefix+"static/", http.FileServerFS(static)))
	d.mux.Handle("GET "+Prefix+"events", http.HandlerFunc(d.events))
	d.page("GET "+Prefix+"{$}", "overview", d.overview)
	if o.Team != nil {
		// Its team section changes with other machines' runs.
		d.pageUncached("GET "+Prefix+"skill", "skill", d.skill)
	} else {
		d.page("GET "+Prefix+"skill", "skill", d.skill)
	}
	d.page("GET "+Prefix+"execution/{id}", "execution", d.execution)
	if o.Team != nil {
		d.pageUncached("GET "+Prefix+"team", "team", d.team)
	}
	d.page("GET "+Prefix+"decisions", "decisions", d.decisions)
	d.mux.Handle(Prefix, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.write(w, r, http.StatusNotFound, d.render("error", errorPage{base: d.base(r, "Not found"), Message: "There is no page " + r.URL.Path + "."}))
	}))
	return d
}

// Warm computes the overview ahead of a visit (with the cache on, it is
// kept until the next write): the first overview after the daemon starts
// decodes every skill's versions and recent runs, which takes seconds
// with a thousand skills. The login calls it when it gives a link.
func (d *Dashboard) Warm() {
	if !d.o.Cache || d.o.DB == nil {
		return
	}
	r, err := http.NewRequest(http.MethodGet, Prefix, nil)
	if err == nil {
		d.Render(r)
	}
}

// Stop ends the live streams (the server is shutting down).
func (d *Dashboard) Stop() { d.once.Do(func() { close(d.stop) }) }

// ServeHTTP serves the dashboard with its security headers: no outside
// resources, no inline scripts, no framing, no referrer.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	if d.o.DB == nil {
		http.Error(w, "sepad has no database yet: the dashboard has nothing to show", http.StatusServiceUnavailable)
		return
	}
	d.mux.ServeHTTP(w, r)
}

// base is what every page shows around its content.
type base struct {
	Title string
	// Root is the overview relative to the page ("./", "../"): every
	// link is relative, so the pages work under whatever path the API
	// serves them (a session's own path, docs/security.md).
	Root string
	// Tx is the store's write generation the page was computed at: the
	// live script reloads the content when it changes.
	Tx  uint64
	Now time.Time
	Nav string
	// Team shows the team page's link (team.postgres set).
	Team bool
}

func (d *Dashboard) base(r *http.Request, title string) base {
	tx, _ := d.o.DB.TxID()
	return base{Title: title, Root: root(r.URL.Path), Tx: tx, Now: d.o.Now().UTC(), Team: d.o.Team != nil}
}

// root is the dashboard's root relative to a page's path: "./" for the
// pages directly under Prefix, one "../" more per directory below.
func root(path string) string {
	rest, _ := strings.CutPrefix(path, Prefix)
	if n := strings.Count(rest, "/"); n > 0 {
		return strings.Repeat("../", n)
	}
	return "./"
}

type errorPage struct {
	base
	Message string
}

// page registers a page: fn computes its data, rendered with the named
// template; with the cache on, a page is computed once per store write.
func (d *Dashboard) page(pattern, name string, fn func(r *http.Request) (any, error)) {
	d.register(pattern, name, fn, d.o.Cache)
}

// pageUncached registers a page computed at every request.
func (d *Dashboard) pageUncached(pattern, name string, fn func(r *http.Request) (any, error)) {
	d.register(pattern, name, fn, false)
}

func (d *Dashboard) register(pattern, name string, fn func(r *http.Request) (any, error), cache bool) {
	d.mux.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		compute := func() (int, []byte) {
			if d.o.Gate != nil {
				defer d.o.Gate()()
			}
			v, err := fn(r)
			if err != nil {
				status := http.StatusInternalServerError
				var amb *query.AmbiguousError
				switch {
				case errors.Is(err, query.ErrNotFound), errors.Is(err, store.ErrNotFound):
					status = http.StatusNotFound
				case errors.Is(err, query.ErrBadRequest), errors.As(err, &amb):
					status = http.StatusBadRequest
				default:
					d.o.Logger.Error("dashboard page failed", "path", r.URL.Path, "err", err)
				}
				return status, d.render("error", errorPage{base: d.base(r, http.StatusText(status)), Message: err.Error()})
			}
			return http.StatusOK, d.render(name, v)
		}
		if !cache {
			status, body := compute()
			d.write(w, r, status, body)
			return
		}
		tx, err := d.o.DB.TxID()
		key := r.URL.Path + "?" + r.URL.Query().Encode()
		d.mu.Lock()
		c, ok := d.cache[key]
		d.mu.Unlock()
		if err == nil && ok && c.tx == tx {
			d.write(w, r, c.status, c.body)
			return
		}
		status, body := compute()
		if err == nil {
			d.mu.Lock()
			if len(d.cache) >= maxCached {
				clear(d.cache)
			}
			d.cache[key] = cached{tx: tx, status: status, body: body}
			d.mu.Unlock()
		}
		d.write(w, r, status, body)
	}))
}

// Render computes one page as a request for it would (for benchmarks and
// tests): its status and HTML.
func (d *Dashboard) Render(r *http.Request) (int, []byte) {
	rec := httptest.NewRecorder()
	d.ServeHTTP(rec, r)
	return rec.Code, rec.Body.Bytes()
}

// parsePages parses the templates once, on the first page drawn (a CLI
// command that builds the API's handler to answer one JSON query never
// pays for them).
var parsePages = sync.OnceValue(func() map[string]*template.Template {
	pages := map[string]*template.Template{}
	for _, p := range []string{"overview", "skill", "execution", "decisions", "team", "error"} {
		pages[p] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+p+".html"))
	}
	return pages
})

func (d *Dashboard) render(name string, v any) []byte {
	var b bytes.Buffer
	if err := parsePages()[name].Execute(&b, v); err != nil {
		d.o.Logger.Error("dashboard template failed", "page", name, "err", err)
		return []byte("<!doctype html><title>sepad</title><p>The page could not be drawn: " + template.HTMLEscapeString(err.Error()))
	}
	return b.Bytes()
}

func (d *Dashboard) write(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// events streams "change" events (server-sent events) carrying the
// store's write generation whenever it changes, so an open page reloads
// its content within about Poll of a new execution. A comment every 15 s
// keeps the connection alive; the stream ends with the server.
func (d *Dashboard) events(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	var last uint64
	send := func(format string, a ...any) bool {
		rc.SetWriteDeadline(time.Now().Add(time.Minute))
		if _, err := fmt.Fprintf(w, format, a...); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	tx, err := d.o.DB.TxID()
	if err != nil || !send("retry: 1000\nevent: change\ndata: %d\n\n", tx) {
		return
	}
	last = tx
	tick := time.NewTicker(d.o.Poll)
	defer tick.Stop()
	idle := 0
	for {
		select {
		case <-r.Context().Done():
			return
		case <-d.stop:
			return
		case <-tick.C:
		}
		tx, err := d.o.DB.TxID()
		switch {
		case err != nil:
			return // the store closed: the daemon is stopping
		case tx != last:
			last, idle = tx, 0
			if !send("event: change\ndata: %d\n\n", tx) {
				return
			}
		default:
			idle++
			if time.Duration(idle)*d.o.Poll >= 15*time.Second {
				idle = 0
				if !send(": keep-alive\n\n") {
					return
				}
			}
		}
	}
}
