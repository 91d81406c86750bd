package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestDashboardSessionOtherUser is the attack of issue 33 item 1: a
// second local user runs a web server on another port of 127.0.0.1 and
// lures the person's browser there, logged in to the dashboard, in three
// ways: the person opens a link to that port, a page there loads
// /dashboard/… (from its own port and from the daemon's), a link from
// another site leads there. Browsers send a host's cookies to all of its
// ports, so whatever the lure receives is replayed on the daemon's port:
// it must get 401 or 403, and the lure must receive no session at all,
// while the person's browser still sees the pages. In chromium, and in
// Firefox when installed.
func TestDashboardSessionOtherUser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: not in -short")
	}
	uid, gid := otherLocalUser(t)
	d := startDemoServer(t)
	daemon := strings.TrimPrefix(d.base, "http://")
	l := startLure(t, uid, gid, daemon)
	t.Run("chromium", func(t *testing.T) {
		attackDashboard(t, d, l, chromiumTab(t, browser(t)), d.url)
	})
	t.Run("firefox", func(t *testing.T) {
		attackDashboard(t, d, l, firefoxTab(firefox(t)), loginLink(t, d))
	})
}

// tab is what the attack needs of a browser.
type tab struct {
	name     string
	open     func(url string) // navigate and wait for the load
	run      func(js string)
	waitFor  func(what, js string)
	location func() string
}

func chromiumTab(t *testing.T, ctx context.Context) tab {
	return tab{name: "chromium",
		open: func(url string) { browse(t, ctx, "open "+url, chromedp.Navigate(url)) },
		run:  func(js string) { browseValue(t, ctx, js, chromedp.Evaluate[bool]("("+js+", true)")) },
		waitFor: func(what, js string) {
			// Evaluated until true; errors count as false (the page
			// may be between two documents).
			deadline := time.Now().Add(time.Minute)
			for {
				c, cancel := context.WithTimeout(ctx, 10*time.Second)
				ok, err := chromedp.Run(c, chromedp.Evaluate[bool](js))
				cancel()
				if err == nil && ok {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: not true after a minute (%s; last error %v)", what, js, err)
				}
				time.Sleep(20 * time.Millisecond)
			}
		},
		location: func() string { return browseValue(t, ctx, "location", chromedp.Location()) },
	}
}

func firefoxTab(ff *bidi) tab {
	return tab{name: "firefox",
		open:     ff.navigate,
		run:      func(js string) { ff.eval("("+js+", true)", new(bool)) },
		waitFor:  func(what, js string) { ff.waitFor(what, js, time.Minute) },
		location: func() string { var s string; ff.eval("location.href", &s); return s },
	}
}

func attackDashboard(t *testing.T, d *demoServer, l *lure, b tab, link string) {
	// The person logs in.
	b.open(link)
	b.waitFor("the overview", `document.querySelector("#skills") !== null`)
	root := b.location()
	from := l.count()

	// 1. The person opens a link to the other user's port.
	open := b.name + "-open"
	b.open("http://" + l.addr + "/dashboard/?way=" + open)
	l.waitDone(t, open)
	// 2. A page there loads /dashboard/… (its own and the daemon's).
	page := b.name + "-page"
	b.open("http://" + l.addr + "/?way=" + page)
	l.waitDone(t, page)
	// 3. A link from another site (localhost is another site than
	// 127.0.0.1) leads there.
	link3 := b.name + "-link"
	_, port, _ := net.SplitHostPort(l.addr)
	b.open("http://localhost:" + port + "/site?way=" + link3)
	b.run(`document.getElementById("go").click()`)
	l.waitDone(t, link3)

	got := l.since(from)
	cookies := map[string]bool{}
	var withCookie, withReferrer []string
	for _, r := range got {
		if strings.Contains(r.Cookie, "sepad") {
			withCookie = append(withCookie, r.URI)
		}
		if strings.Contains(r.Referer, daemonHost(d)) {
			withReferrer = append(withReferrer, r.URI+" from "+r.Referer)
		}
		if r.Cookie != "" {
			cookies[r.Cookie] = true
		}
	}
	if len(withCookie) > 0 {
		t.Errorf("%s: the other user's server received a sepad cookie with %d requests: %s", b.name, len(withCookie), strings.Join(withCookie, " "))
	}
	if len(withReferrer) > 0 {
		t.Errorf("%s: the other user's server received the dashboard's address as referrer: %s", b.name, strings.Join(withReferrer, " "))
	}
	t.Logf("%s: the other user's server received %d requests, %d distinct cookie headers", b.name, len(got), len(cookies))
	// Whatever it received, replayed on the daemon's port, opens nothing.
	for c := range cookies {
		for _, p := range []string{"/dashboard/", "/dashboard/events", root, root + "events"} {
			if !strings.HasPrefix(p, "http") {
				p = d.base + p
			}
			if status := replay(t, p, c); status != http.StatusUnauthorized && status != http.StatusForbidden {
				t.Errorf("%s: replaying %q on %s: %d, want 401 or 403", b.name, c, p, status)
			}
		}
	}
	// The dashboard's own address, without the browser's cookie, opens
	// nothing either.
	if status := replay(t, root, ""); status != http.StatusUnauthorized {
		t.Errorf("%s: %s without the cookie: %d, want 401", b.name, root, status)
	}

	// The person's browser still sees the pages, live stream included.
	b.open(root)
	b.waitFor("the overview after the lures", `document.querySelector("#skills") !== null && document.getElementById("live-state").textContent == "Updated"`)
}

func daemonHost(d *demoServer) string { return strings.TrimPrefix(d.base, "http://") }

// replay sends one GET with a Cookie header and returns the status.
func replay(t *testing.T, url, cookie string) int {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	c := &http.Client{Timeout: time.Minute}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close() // the live stream too: only its status counts
	return resp.StatusCode
}

// lure is the other user's server (lure_test.go), run as that user.
type lure struct {
	addr string
	mu   sync.Mutex
	reqs []lureRequest
}

func startLure(t *testing.T, uid, gid int, daemon string) *lure {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The test binary, copied where the other user may run it.
	dir, err := os.MkdirTemp("", "sepad-lure-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "lure")
	if err := copyFile(self, bin); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir = "/"
	cmd.Env = []string{lureEnv + "=" + daemon, "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Skipf("run the lure as the other user (is %s reachable to it?): %v", dir, err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "lure ") {
		cancel()
		cmd.Wait()
		t.Fatalf("the lure did not start: %q %s", sc.Text(), errOut.String())
	}
	l := &lure{addr: strings.TrimPrefix(sc.Text(), "lure ")}
	go func() {
		for sc.Scan() {
			var r lureRequest
			if json.Unmarshal(sc.Bytes(), &r) == nil {
				l.mu.Lock()
				l.reqs = append(l.reqs, r)
				l.mu.Unlock()
			}
		}
	}()
	return l
}

func (l *lure) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.reqs)
}

func (l *lure) since(i int) []lureRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]lureRequest(nil), l.reqs[i:]...)
}

// waitDone waits until a lure page of way reported it had loaded all.
func (l *lure) waitDone(t *testing.T, way string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		for _, r := range l.since(0) {
			if r.URI == "/done?way="+way {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the lure page %s did not finish loading: %+v", way, l.since(0))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
