package api

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The dashboard's login (docs/api.md, "Dashboard"; docs/security.md).
// `sepad dashboard` asks the daemon on the unix socket for a one-time
// login link (POST /v1/dashboard/login); opening it on the loopback
// listener trades the token for a session of two secrets: a path,
// /dashboard/<path secret>/, under which the session's pages are served,
// and a cookie (HttpOnly, SameSite=Lax) scoped to that path. A request
// needs both. Browsers send a host's cookies to every port of it, so a
// cookie scoped to /dashboard/ alone reached any other local user's
// server on 127.0.0.1; scoped to the session's path, a browser sends it
// only to that path, which no other port knows (the pages send no
// referrer), and neither secret alone opens anything. Tokens and
// sessions live in the daemon's memory only: a restart logs everyone out.

const (
	// LoginTTL is how long a login link can be used (once).
	LoginTTL = 15 * time.Minute
	// sessionTTL is how long a dashboard session lasts.
	sessionTTL = 7 * 24 * time.Hour
	// maxTokens and maxSessions bound what the daemon keeps; the oldest
	// go first.
	maxTokens   = 64
	maxSessions = 64
	// DashboardPath is where the dashboard is served.
	DashboardPath = "/dashboard/"
	loginPath     = "/dashboard/login"
)

// ErrNoDaemon: the dashboard's login links come from a daemon, and the
// server answering has none (the CLI's in-process handler).
var ErrNoDaemon = errors.New("the dashboard is served by the daemon: start it with `sepad run` (or `sepad install --service`)")

// Login is the answer of POST /v1/dashboard/login.
type Login struct {
	// URL opens the dashboard once: it starts a session.
	URL     string    `json:"url"`
	Expires time.Time `json:"expires"`
	// Addr is the loopback listener serving the dashboard; Started is
	// set when this request opened it (the daemon ran without --http).
	Addr    string `json:"addr"`
	Started bool   `json:"started"`
}

// logins holds the one-time tokens and the sessions, by the SHA-256 of
// their value (a map lookup then reveals nothing about a secret value); a
// session's value is its path secret and its cookie together.
type logins struct {
	mu       sync.Mutex
	now      func() time.Time
	tokens   map[[32]byte]time.Time
	sessions map[[32]byte]time.Time
}

func newLogins(now func() time.Time) *logins {
	if now == nil {
		now = time.Now
	}
	return &logins{now: now, tokens: map[[32]byte]time.Time{}, sessions: map[[32]byte]time.Time{}}
}

func randomToken() (string, error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("dashboard login: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// add keeps a hashed value until exp, dropping expired ones and, past
// limit, the one expiring first.
func (l *logins) add(m map[[32]byte]time.Time, v string, exp time.Time, limit int) {
	now := l.now()
	for k, e := range m {
		if !now.Before(e) {
			delete(m, k)
		}
	}
	for len(m) >= limit {
		var first [32]byte
		var fe time.Time
		for k, e := range m {
			if fe.IsZero() || e.Before(fe) {
				first, fe = k, e
			}
		}
		delete(m, first)
	}
	m[sha256.Sum256([]byte(v))] = exp
}

// issue returns a new one-time token and when it expires.
func (l *logins) issue() (string, time.Time, error) {
	t, err := randomToken()
	if err != nil {
		return "", time.Time{}, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	exp := l.now().Add(LoginTTL)
	l.add(l.tokens, t, exp, maxTokens)
	return t, exp, nil
}

// redeem uses a token up and returns a new session's path secret and
// cookie ("" when the token is unknown, used or expired).
func (l *logins) redeem(token string) (path, cookie string, err error) {
	if token == "" {
		return "", "", nil
	}
	h := sha256.Sum256([]byte(token))
	l.mu.Lock()
	exp, ok := l.tokens[h]
	delete(l.tokens, h)
	l.mu.Unlock()
	if !ok || !l.now().Before(exp) {
		return "", "", nil
	}
	if path, err = randomToken(); err != nil {
		return "", "", err
	}
	if cookie, err = randomToken(); err != nil {
		return "", "", err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.add(l.sessions, path+"/"+cookie, l.now().Add(sessionTTL), maxSessions)
	return path, cookie, nil
}

// valid reports whether a path secret and a cookie are a live session's.
func (l *logins) valid(path, cookie string) bool {
	if path == "" || cookie == "" {
		return false
	}
	h := sha256.Sum256([]byte(path + "/" + cookie))
	l.mu.Lock()
	defer l.mu.Unlock()
	exp, ok := l.sessions[h]
	return ok && l.now().Before(exp)
}

// sessionPath splits a dashboard path of a session,
// /dashboard/<path secret>/rest, into the secret and the page's path
// /dashboard/rest (ok false for a path of no session's shape).
func sessionPath(p string) (secret, page string, ok bool) {
	rest, found := strings.CutPrefix(p, DashboardPath)
	if !found {
		return "", "", false
	}
	secret, rest, found = strings.Cut(rest, "/")
	if !found || len(secret) != 2*secretBytes || strings.Trim(secret, "0123456789abcdef") != "" {
		return "", "", false
	}
	return secret, DashboardPath + rest, true
}

// sessionNavigation reports whether r is a browser's navigation to a
// page of a session's path.
func sessionNavigation(r *http.Request) bool {
	_, _, ok := sessionPath(r.URL.Path)
	return ok && r.Method == http.MethodGet && r.Header.Get("Sec-Fetch-Mode") == "navigate"
}

// withPath is r for another path (the page under a session's path).
func withPath(r *http.Request, path string) *http.Request {
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.Path, u.RawPath = path, ""
	r2.URL = &u
	return r2
}

// cookieName is the session cookie of the listener on addr: cookies are
// shared by every port of a host, so two daemons (two state directories)
// on one machine keep a cookie each.
func cookieName(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return "sepad_session_" + port
}

// isDashboard reports whether a path is the dashboard's.
func isDashboard(path string) bool {
	return path == strings.TrimSuffix(DashboardPath, "/") || strings.HasPrefix(path, DashboardPath)
}

// tcpAuth guards the TCP listener: the dashboard's pages need a session
// (its path and its cookie) or the bearer secret, its login link a live
// one-time token, everything else the bearer secret. Every refusal is a
// 401 counted by onDenied (sepad_http_unauthorized_total).
func (s *Server) tcpAuth(onDenied func(), h http.Handler) http.Handler {
	api := requireSecret(s.o.Secret, onDenied, h)
	deny := func(w http.ResponseWriter, msg string) {
		if onDenied != nil {
			onDenied()
		}
		writeLoginPage(w, http.StatusUnauthorized, msg)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == loginPath:
			s.redeemLogin(w, r, deny)
		case isDashboard(r.URL.Path):
			if secret, page, ok := sessionPath(r.URL.Path); ok {
				// Every cookie of the name counts: a page on another
				// port may set one for this host too (cookies have no
				// port), and must not hide the session's.
				for _, c := range r.CookiesNamed(cookieName(s.Addr())) {
					if s.logins.valid(secret, c.Value) {
						h.ServeHTTP(w, withPath(r, page))
						return
					}
				}
			} else if secretMatches(s.o.Secret, BearerToken(r)) {
				h.ServeHTTP(w, r)
				return
			}
			deny(w, "This page needs a login: run `sepad dashboard` and open the link it prints.")
		default:
			api.ServeHTTP(w, r)
		}
	})
}

// redeemLogin trades a one-time token for a session: the cookie, scoped
// to the session's path, and a redirect there. The cookie is
// SameSite=Lax, not Strict: a Strict cookie is not sent along a redirect
// chain that a cross-site page or a local file (`sepad dashboard --open`)
// started, and the redirect, unlike a page moving on by itself, lets a
// plain `chromium --headless --screenshot <link>` draw the dashboard.
// Lax lets other sites link to the session's pages, which they cannot
// name: the path is the session's secret.
func (s *Server) redeemLogin(w http.ResponseWriter, r *http.Request, deny func(http.ResponseWriter, string)) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", http.MethodGet)
		writeError(w, http.StatusMethodNotAllowed, fmt.Errorf("%s %s: use GET", r.Method, r.URL.Path), nil)
		return
	}
	secret, cookie, err := s.logins.redeem(r.URL.Query().Get("token"))
	if err != nil {
		writeError(w, http.StatusInternalServerError, err, nil)
		return
	}
	if secret == "" {
		deny(w, "This login link is unknown, used or expired (links work once, for 15 minutes): run `sepad dashboard` for a new one.")
		return
	}
	root := DashboardPath + secret + "/"
	http.SetCookie(w, &http.Cookie{Name: cookieName(s.Addr()), Value: cookie, Path: root,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, MaxAge: int(sessionTTL / time.Second)})
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, root, http.StatusSeeOther)
}

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>sepad dashboard</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem">
<h1>sepad dashboard</h1><p id="message">{{.Message}}</p>
</body></html>
`))

// writeLoginPage answers a browser with a short HTML page (no scripts,
// no outside resources, the token never passed on as a referrer).
func writeLoginPage(w http.ResponseWriter, status int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'")
	if status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="sepad"`)
	}
	w.WriteHeader(status)
	loginPage.Execute(w, struct{ Message string }{msg})
}

// LoginLink is what POST /v1/dashboard/login answers: a one-time link
// to the dashboard, opening a loopback listener first when the daemon
// has none.
func (s *Server) LoginLink() (*Login, error) { return s.login() }

func (s *Server) login() (*Login, error) {
	started, err := s.ensureTCP()
	if err != nil {
		return nil, err
	}
	tok, exp, err := s.logins.issue()
	if err != nil {
		return nil, err
	}
	addr := s.Addr()
	return &Login{URL: "http://" + addr + loginPath + "?token=" + tok, Expires: exp.UTC(), Addr: addr, Started: started}, nil
}
