package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/status"
)

// loginClient asks the server's socket for a login link.
func loginLink(t *testing.T, uc *http.Client) Login {
	t.Helper()
	resp, err := uc.Post("http://sepad/v1/dashboard/login", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var l Login
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil || resp.StatusCode != 200 {
		t.Fatalf("login: %d %v", resp.StatusCode, err)
	}
	return l
}

func fetch(t *testing.T, u string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultTransport.RoundTrip(req) // no redirects followed
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestDashboardLogin: without --http the first login link opens a
// loopback listener; the link works once and starts a session: a path
// of its own and an HttpOnly, SameSite=Lax cookie scoped to that path;
// nothing of the dashboard answers without both, and every refusal is
// counted.
func TestDashboardLogin(t *testing.T) {
	home := shortHome(t)
	db := testDB(t, home)
	m := NewMetrics(MetricsOptions{})
	now := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	s := New(Options{DB: db, Home: home, Metrics: m, Cache: true, Now: func() time.Time { return now }})
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Addr() != "" {
		t.Fatalf("a TCP listener before any login: %s", s.Addr())
	}
	sock := SocketPath(home)
	uc := SocketClient(sock, 0)
	l := loginLink(t, uc)
	if !l.Started || l.Addr == "" || s.Addr() != l.Addr || !strings.HasPrefix(l.URL, "http://"+l.Addr+"/dashboard/login?token=") {
		t.Fatalf("login %+v, addr %s", l, s.Addr())
	}
	if host, _, _ := net.SplitHostPort(l.Addr); host != "127.0.0.1" {
		t.Fatalf("listener on %s", l.Addr)
	}
	if !l.Expires.Equal(now.Add(LoginTTL)) {
		t.Errorf("expires %v", l.Expires)
	}
	var st status.Status
	getJSON(t, uc, "http://sepad/v1/status", &st)
	if st.Daemon.HTTP != l.Addr {
		t.Errorf("status shows http %q, want %q", st.Daemon.HTTP, l.Addr)
	}
	if l2 := loginLink(t, uc); l2.Started || l2.Addr != l.Addr || l2.URL == l.URL {
		t.Fatalf("second login %+v", l2)
	}
	base := "http://" + l.Addr
	refused := 0
	// Nothing of the dashboard without the cookie.
	for _, p := range []string{"/dashboard/", "/dashboard/events", "/dashboard/static/app.css", "/dashboard/skill?key=deploy",
		"/dashboard/login", "/dashboard/login?token=" + strings.Repeat("ab", 32)} {
		code, _, body := fetch(t, base+p, nil)
		refused++
		if code != 401 || strings.Contains(body, "<table") || strings.Contains(body, "deploy") {
			t.Errorf("%s without the cookie: %d %s", p, code, body)
		}
	}
	// A cross-site page may not read it either (the DNS-rebinding and
	// Origin guard).
	if code, _, _ := fetch(t, base+"/dashboard/", map[string]string{"Origin": "https://evil.example"}); code != 403 {
		t.Errorf("cross-origin: %d", code)
	}
	code, hdr, body := fetch(t, l.URL, map[string]string{"Sec-Fetch-Site": "cross-site"})
	root := hdr.Get("Location")
	if code != http.StatusSeeOther || !regexp.MustCompile(`^/dashboard/[0-9a-f]{64}/$`).MatchString(root) {
		t.Fatalf("login: %d %q %s", code, root, body)
	}
	resp := http.Response{Header: hdr}
	cs := resp.Cookies()
	if len(cs) != 1 {
		t.Fatalf("cookies %v", hdr["Set-Cookie"])
	}
	c := cs[0]
	if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != root || len(c.Value) != 64 || c.Name != cookieName(l.Addr) {
		t.Fatalf("cookie %+v", c)
	}
	if hdr.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("login page referrer policy %q", hdr.Get("Referrer-Policy"))
	}
	// The link works once.
	if code, _, _ := fetch(t, l.URL, nil); code != 401 {
		t.Errorf("second use of the link: %d", code)
	}
	refused++
	cookie := map[string]string{"Cookie": c.Name + "=" + c.Value}
	code, hdr, body = fetch(t, base+root, cookie)
	if code != 200 || !strings.Contains(body, `id="skills"`) || !strings.Contains(hdr.Get("Content-Security-Policy"), "default-src 'self'") {
		t.Fatalf("overview with the cookie: %d %v %s", code, hdr, body)
	}
	for _, p := range []string{"decisions", "static/live.js", "skill?key=nope"} {
		if code, _, _ := fetch(t, base+root+p, cookie); code != 200 && !(p == "skill?key=nope" && code == 404) {
			t.Errorf("%s under the session's path: %d", p, code)
		}
	}
	// The login's redirect continues a navigation another site or a
	// local file started (`sepad dashboard --open`): a cross-site
	// navigation to the session's pages passes, any other cross-site
	// request is refused.
	cross := map[string]string{"Cookie": cookie["Cookie"], "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}
	if code, _, _ := fetch(t, base+root, cross); code != 200 {
		t.Errorf("cross-site navigation to the session's overview: %d", code)
	}
	cross["Sec-Fetch-Mode"] = "no-cors"
	if code, _, _ := fetch(t, base+root, cross); code != 403 {
		t.Errorf("cross-site subresource request to the session's overview: %d", code)
	}
	cross["Sec-Fetch-Mode"] = "navigate"
	if code, _, _ := fetch(t, base+"/dashboard/", cross); code != 403 {
		t.Errorf("cross-site navigation outside a session's path: %d", code)
	}
	// A cookie of the same name set by a page on another port of the
	// host (cookies have no port) does not hide the session's.
	if code, _, _ := fetch(t, base+root, map[string]string{"Cookie": c.Name + "=" + strings.Repeat("0", 64) + "; " + cookie["Cookie"]}); code != 200 {
		t.Errorf("the session's cookie after another of its name: %d", code)
	}
	// The dashboard's own same-origin requests (with Origin) pass.
	if code, _, _ := fetch(t, base+root, map[string]string{"Cookie": cookie["Cookie"], "Origin": base}); code != 200 {
		t.Errorf("same-origin request: %d", code)
	}
	// Neither half of the session opens anything alone: the cookie
	// outside its path (another local user's server on another port of
	// 127.0.0.1 receives the host's cookies, never this path), the path
	// without the cookie or with the cookie of another session.
	for _, try := range []struct{ path, cookie string }{
		{"/dashboard/", cookie["Cookie"]},
		{"/dashboard/events", cookie["Cookie"]},
		{root, ""},
		{root + "events", ""},
		{"/dashboard/" + strings.Repeat("ab", 32) + "/", cookie["Cookie"]},
	} {
		h := map[string]string{}
		if try.cookie != "" {
			h["Cookie"] = try.cookie
		}
		code, _, body := fetch(t, base+try.path, h)
		refused++
		if code != 401 || strings.Contains(body, "<table") {
			t.Errorf("%s with cookie %q: %d", try.path, try.cookie, code)
		}
	}
	// The cookie opens the dashboard only, not the JSON API.
	if code, _, _ := fetch(t, base+"/v1/skills", cookie); code != 401 {
		t.Errorf("API with the cookie: %d", code)
	}
	refused++
	// Another cookie value is refused; so is a token past its 15 minutes.
	if code, _, _ := fetch(t, base+root, map[string]string{"Cookie": c.Name + "=" + strings.Repeat("0", 64)}); code != 401 {
		t.Errorf("forged cookie: %d", code)
	}
	refused++
	late := loginLink(t, uc)
	now = now.Add(LoginTTL + time.Second)
	if code, _, _ := fetch(t, late.URL, nil); code != 401 {
		t.Errorf("expired link: %d", code)
	}
	refused++
	// The bearer secret opens the dashboard too (scripts, curl).
	secret, err := LoadSecret(home)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, _ := fetch(t, base+"/dashboard/decisions", map[string]string{"Authorization": "Bearer " + secret}); code != 200 {
		t.Errorf("dashboard with the secret: %d", code)
	}
	_, mb, _ := get(t, m.Handler(), http.MethodGet, "/metrics")
	want := []byte("sepad_http_unauthorized_total " + itoa(refused) + "\n")
	if !bytes.Contains(mb, want) {
		t.Errorf("want %s in metrics:\n%s", want, mb)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestDashboardLoginNeedsADaemon: the CLI's in-process handler has no
// login to give.
func TestDashboardLoginNeedsADaemon(t *testing.T) {
	db := testDB(t, t.TempDir())
	code, body, _ := get(t, NewHandler(Options{DB: db}), http.MethodPost, "/v1/dashboard/login")
	if code != 503 || !strings.Contains(string(body), "sepad run") {
		t.Fatalf("%d %s", code, body)
	}
}
