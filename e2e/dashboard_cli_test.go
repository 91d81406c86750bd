package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/api"
)

// TestDashboardCommand: `sepad dashboard` without a daemon says how to
// start one; with a daemon started without --http it opens a loopback
// listener, prints a one-time link and returns; the link logs a client
// in once, and the daemon's shutdown is not held up by an open live
// stream.
func TestDashboardCommand(t *testing.T) {
	skipLong(t)
	home := shortTempDir(t)
	env := []string{"HOME=" + t.TempDir()}
	out, errOut, code := sepad(t, env, nil, "dashboard", "--home", home)
	if code != 1 || out != "" || !strings.Contains(errOut, "no sepad daemon answers on "+api.SocketPath(home)) || !strings.Contains(errOut, "sepad run") {
		t.Fatalf("without a daemon: exit %d, %q %q", code, out, errOut)
	}
	d := startDaemon(t, home)
	var link string
	for deadline := time.Now().Add(30 * time.Second); ; {
		out, errOut, code = sepad(t, env, nil, "dashboard", "--home", home)
		if code == 0 {
			link = strings.TrimSpace(out)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("dashboard: exit %d %s", code, errOut)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !loginLine.MatchString(link) || !strings.Contains(errOut, "ran without --http") || !strings.Contains(errOut, "once, within 15 minutes") {
		t.Fatalf("link %q, stderr %q", link, errOut)
	}
	// The second asks the same listener, and --json gives the document.
	out, errOut, code = sepad(t, env, nil, "dashboard", "--home", home, "--json")
	var l api.Login
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil || l.Started || !strings.HasPrefix(link, "http://"+l.Addr+"/") || l.URL == link ||
		strings.Contains(errOut, "ran without --http") {
		t.Fatalf("second: exit %d %q %q", code, out, errOut)
	}
	out, _, _ = sepad(t, env, nil, "status", "--home", home, "--json")
	if !strings.Contains(out, `"http": "`+l.Addr+`"`) {
		t.Errorf("status does not show the listener %s:\n%s", l.Addr, out)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("login: %d %s", resp.StatusCode, body)
	}
	// The link leads on to the session's overview.
	root := resp.Request.URL.String()
	if !regexp.MustCompile(`/dashboard/[0-9a-f]{64}/$`).MatchString(root) || !strings.Contains(string(body), "No skill has run yet.") {
		t.Fatalf("the login led to %s: %s", root, body)
	}
	// The link was used: another client cannot log in with it.
	if resp, err := http.Get(link); err != nil || resp.StatusCode != 401 {
		t.Fatalf("second use: %v %v", resp.StatusCode, err)
	}
	// An open live stream ends cleanly with the daemon (the stream is
	// closed by the dashboard, not cut after the shutdown's grace).
	resp, err = c.Get(root + "events")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("events: %v", err)
	}
	streamed := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		streamed <- err
	}()
	d.stop(t)
	if err := <-streamed; err != nil {
		t.Errorf("the live stream was cut, not ended: %v", err)
	}
	if _, err := os.Stat(api.SocketPath(home)); !os.IsNotExist(err) {
		t.Errorf("socket left: %v", err)
	}
}
