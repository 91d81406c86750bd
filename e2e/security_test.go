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

	"github.com/sepad/sepad/mutation"
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

// peakRSS is a process's peak resident memory (VmHWM), in MiB.
func peakRSS(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kb int
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb / 1024
		}
	}
	return -1
}

// bigPayload is a valid hook payload of about n bytes (one huge tool
// output, which the hook cuts to head and tail).
func bigPayload(n int) []byte {
	head := `{"session_id":"big","cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t1","tool_response":"`
	b := make([]byte, 0, n+len(head)+2)
	b = append(b, head...)
	b = append(b, bytes.Repeat([]byte("x"), n)...)
	return append(b, '"', '}')
}

// TestLargeConcurrentPOSTs drives a real `sepad run --http` with large
// hook bodies: past the cap of 4 requests in progress the next get 503,
// a body over the hook's 64 MiB limit gets 413 before it is read, the
// admitted ones are recorded, and the daemon's peak memory stays bounded
// by the cap (logged for BENCHMARKS.md; SEPAD_LARGE_POST_MB sets the body
// size, default 60 MB as in issue 14).
func TestLargeConcurrentPOSTs(t *testing.T) {
	if testing.Short() {
		t.Skip("moves a few hundred MB")
	}
	size := 60 << 20
	if v := os.Getenv("SEPAD_LARGE_POST_MB"); v != "" {
		fmt.Sscan(v, &size)
		size <<= 20
	}
	home := shortTempDir(t)
	d := startDaemon(t, home, "--http", "127.0.0.1:0")
	addr := httpAddr(t, home)
	c := tcpClient(t, home)
	url := "http://" + addr + "/v1/hook"
	payload := bigPayload(size)
	base := peakRSS(d.cmd.Process.Pid)
	post := func(body io.Reader, length int64) (int, error) {
		req, _ := http.NewRequest("POST", url, body)
		req.ContentLength = length
		resp, err := c.Do(req)
		if err != nil {
			return 0, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	// Four slow clients take the four slots: each sends 1 MB and waits.
	type slow struct {
		pw   *io.PipeWriter
		done chan int
	}
	var slows []slow
	for i := 0; i < 4; i++ {
		pr, pw := io.Pipe()
		s := slow{pw, make(chan int, 1)}
		go func() {
			code, err := post(pr, int64(len(payload)))
			if err != nil {
				t.Error(err)
			}
			s.done <- code
		}()
		if _, err := pw.Write(payload[:1<<20]); err != nil {
			t.Fatal(err)
		}
		slows = append(slows, s)
	}
	time.Sleep(200 * time.Millisecond) // all four are in the handler
	// Four more, concurrently: no slot frees up, so 503 for each.
	codes := make(chan int, 4)
	for i := 0; i < 4; i++ {
		go func() {
			code, err := post(bytes.NewReader(payload), int64(len(payload)))
			if err != nil {
				code = -1
			}
			codes <- code
		}()
	}
	for i := 0; i < 4; i++ {
		if code := <-codes; code != http.StatusServiceUnavailable {
			t.Errorf("a fifth concurrent POST: %d, want 503", code)
		}
	}
	// Over the limit: refused before it is read (413), cap or not.
	if code, err := post(io.MultiReader(bytes.NewReader(payload), bytes.NewReader(bytes.Repeat([]byte(" "), 65<<20-len(payload)+1))), 65<<20+1); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over 64 MiB: %d %v, want 413", code, err)
	}
	// The four slow ones finish together: recorded.
	start := time.Now()
	for _, s := range slows {
		go func() {
			s.pw.Write(payload[1<<20:])
			s.pw.Close()
		}()
	}
	for _, s := range slows {
		if code := <-s.done; code != http.StatusNoContent {
			t.Errorf("an admitted POST: %d, want 204", code)
		}
	}
	took := time.Since(start)
	peak := peakRSS(d.cmd.Process.Pid)
	// Then a burst of 16 at once: at most 4 are read at a time.
	var ok, busy int
	res := make(chan int, 16)
	for i := 0; i < 16; i++ {
		go func() {
			code, _ := post(bytes.NewReader(payload), int64(len(payload)))
			res <- code
		}()
	}
	for i := 0; i < 16; i++ {
		switch <-res {
		case http.StatusNoContent:
			ok++
		case http.StatusServiceUnavailable:
			busy++
		}
	}
	peak16 := peakRSS(d.cmd.Process.Pid)
	t.Logf("body %d MB: daemon peak RSS %d MiB at start, %d MiB after 4 concurrent bodies (read and recorded in %v), %d MiB after a burst of 16 (%d recorded, %d refused with 503)",
		size>>20, base, peak, took.Round(time.Millisecond), peak16, ok, busy)
	if ok+busy != 16 || ok == 0 {
		t.Errorf("burst of 16: %d recorded, %d refused", ok, busy)
	}
	// Bounded: four bodies in memory, each about twice its size at worst
	// (the body and its parsed copy), plus the daemon's own.
	if limit := base + 4*3*(size>>20) + 64; peak16 > limit {
		t.Errorf("peak RSS %d MiB over %d MiB", peak16, limit)
	}
	resp, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if v := metric(body, `sepad_hook_requests_refused_total{reason="busy"}`); v != fmt.Sprint(4+busy) {
		t.Errorf("busy refusals counted %s, want %d", v, 4+busy)
	}
	if v := metric(body, `sepad_hook_requests_refused_total{reason="too_large"}`); v != "1" {
		t.Errorf("too_large refusals counted %s, want 1", v)
	}
}

// TestRollbackSymlinkSwapDaemon: in an installed project, the prompt file
// a real daemon is about to roll back is swapped for a symbolic link to a
// file outside the project that holds exactly the version being rolled
// back (so following the link would pass the hash check). The outside
// file is unchanged, the link is left alone, and a conflict says why.
func TestRollbackSymlinkSwapDaemon(t *testing.T) {
	skipLong(t)
	p := newProject(t)
	p.config("")
	p.writeSkill("Run the checks, then make deploy.")
	d := startDaemonEnv(t, p)
	p.turns(5, 1, goodAnswer)
	p.release()
	v2 := p.edit("Deploy quickly; skip the checks.")
	p.turns(5, 2, "Deployed without checks.")
	outside := filepath.Join(t.TempDir(), "victim.md")
	writeFile(t, outside, string(v2))
	os.Chmod(outside, 0o600)
	if err := os.Remove(p.skill); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, p.skill); err != nil {
		t.Fatal(err)
	}
	p.release() // the fifth execution of v2 is released: the decision comes now
	waitFor(t, "a conflict recorded for the swapped file", func() bool {
		out, _, _ := sepad(t, p.env(), nil, "api", "/v1/decisions", "--home", p.home)
		return strings.Contains(out, `"conflict"`)
	})
	d.stop(t)
	var conflict *mutation.Record
	for _, r := range decisions(t, p.home) {
		if r.Kind == mutation.KindConflict {
			conflict = &r
		}
	}
	if b, _ := os.ReadFile(outside); !bytes.Equal(b, v2) {
		t.Fatalf("the file outside the project was written: %q", b)
	}
	if fi, err := os.Lstat(p.skill); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi, err)
	}
	if conflict.Applied || !strings.Contains(conflict.Words, p.skill) || !strings.Contains(conflict.Words, "left alone") {
		t.Fatalf("conflict %+v", conflict)
	}
}

// TestEventCwdSlashDoesNotWidenWrites: events whose cwd is "/" make the
// daemon watch "/" (its CLAUDE.md and .claude), but a rollback there is
// refused with a conflict naming the roots sepad may write, and the file
// keeps its content. It writes /.claude, so it runs only as root and only
// when /.claude does not exist (it is removed afterwards).
func TestEventCwdSlashDoesNotWidenWrites(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to create /.claude/skills/deploy/SKILL.md, a prompt file of the project \"/\"")
	}
	if _, err := os.Lstat("/.claude"); err == nil {
		t.Skip("/.claude exists already: not touching it")
	}
	p := newProject(t) // installed in its own directory: a write root
	p.config("")
	p.dir = "/"
	p.skill = "/.claude/skills/deploy/SKILL.md"
	t.Cleanup(func() { os.RemoveAll("/.claude") })
	p.writeSkill("Run the checks, then make deploy.")
	d := startDaemonEnv(t, p)
	p.turns(5, 1, goodAnswer)
	p.release()
	v2 := p.edit("Deploy quickly; skip the checks.")
	p.turns(5, 2, "Deployed without checks.")
	p.release()
	waitFor(t, "a conflict recorded for the rollback in /", func() bool {
		out, _, _ := sepad(t, p.env(), nil, "api", "/v1/decisions", "--home", p.home)
		return strings.Contains(out, `"conflict"`)
	})
	d.stop(t)
	if b, _ := os.ReadFile(p.skill); !bytes.Equal(b, v2) {
		t.Fatalf("the rollback wrote in /: %q", b)
	}
	var words string
	for _, r := range decisions(t, p.home) {
		if r.Kind == mutation.KindConflict {
			words = r.Words
		}
	}
	if !strings.Contains(words, "outside the roots sepad may write") || strings.Contains(words, "rolled back v") && !strings.Contains(words, "would have") {
		t.Fatalf("conflict: %q", words)
	}
}
