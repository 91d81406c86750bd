package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bearer adds the API secret to every request.
type bearer struct{ secret string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.secret)
	return http.DefaultTransport.RoundTrip(r)
}

// tcpClient is a client of the TCP API of the daemon on home, with the
// secret the daemon created there.
func tcpClient(t testing.TB, home string) *http.Client {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "http.secret"))
	if err != nil {
		t.Fatalf("the daemon's secret: %v", err)
	}
	return &http.Client{Timeout: time.Minute, Transport: bearer{strings.TrimSpace(string(b))}}
}

// httpAddr waits for the daemon on home to report its TCP address.
func httpAddr(t *testing.T, home string) string {
	t.Helper()
	for i := 0; i < 200; i++ {
		if _, err := os.Stat(filepath.Join(home, "sepad.sock")); err == nil {
			if st := status(t, home); st.Daemon.HTTP != "" {
				return st.Daemon.HTTP
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the daemon did not report its TCP address")
	return ""
}

// metric returns the value of one series in a /metrics text ("" if absent).
func metric(text []byte, series string) string {
	for _, l := range strings.Split(string(text), "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			return v
		}
	}
	return ""
}

// TestTCPNeedsTheSecret: a client without the secret gets 401 from every
// endpoint of a real `sepad run --http`, nothing it posts reaches the
// spool, and /metrics counts the refusals.
func TestTCPNeedsTheSecret(t *testing.T) {
	home := shortTempDir(t)
	startDaemon(t, home, "--http", "127.0.0.1:0")
	addr := httpAddr(t, home)
	fi, err := os.Stat(filepath.Join(home, "http.secret"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("secret file: %v %v", fi, err)
	}
	paths := []string{"/healthz", "/v1/status", "/v1/skills", "/v1/decisions", "/metrics"}
	for _, auth := range []string{"", "Bearer wrong", "Bearer "} {
		for _, p := range paths {
			req, _ := http.NewRequest("GET", "http://"+addr+p, nil)
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("GET %s with %q: %d, want 401", p, auth, resp.StatusCode)
			}
		}
	}
	payload := `{"session_id":"intruder","cwd":"/","hook_event_name":"SessionStart","source":"startup"}`
	resp, err := http.Post("http://"+addr+"/v1/hook", "application/json", strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("POST /v1/hook without the secret: %d", resp.StatusCode)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "events.jsonl")); bytes.Contains(b, []byte("intruder")) {
		t.Fatal("an unauthenticated event reached the spool")
	}
	want := 3*len(paths) + 1
	c := tcpClient(t, home)
	resp, err = c.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || metric(body, "sepad_http_unauthorized_total") != fmt.Sprint(want) {
		t.Fatalf("/metrics with the secret: %d, sepad_http_unauthorized_total %q, want %d", resp.StatusCode, metric(body, "sepad_http_unauthorized_total"), want)
	}
	// With the secret, the hook is recorded.
	resp, err = c.Post("http://"+addr+"/v1/hook", "application/json", strings.NewReader(strings.Replace(payload, "intruder", "friend", 1)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("POST /v1/hook with the secret: %d", resp.StatusCode)
	}
}
