package e2e

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pills are payloads whose one identity field is over bbolt's 32 KiB key
// limit and under the hook's 64 KiB cut, so the hook keeps it whole
// (issue 33 item 2): before the bound, the commit failed with "key too
// large", `sepad run` exited 1, and every restart read the line again.
func pills(home string) map[string]string {
	big := strings.Repeat("x", 40_000)
	base := func(field, value string) string {
		m := map[string]any{"session_id": "pill-s", "hook_event_name": "Stop", "cwd": home, "agent_id": "a1",
			"last_assistant_message": "done"}
		m[field] = value
		b, _ := json.Marshal(m)
		return string(b)
	}
	return map[string]string{
		"hook_event_name": base("hook_event_name", big),
		"session_id":      base("session_id", big),
		"cwd":             base("cwd", "/"+big),
		"agent_id":        base("agent_id", big),
	}
}

// quarantineReasons lists the reasons of the quarantined lines.
func quarantineReasons(t *testing.T, home string) []string {
	t.Helper()
	out, errOut, code := sepad(t, queryEnv(home), nil, "quarantine", "--json", "--limit", "100", "--home", home)
	if code != 0 {
		t.Fatalf("sepad quarantine: exit %d %s", code, errOut)
	}
	var doc struct {
		Lines []struct {
			Reason string `json:"reason"`
		} `json:"lines"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("quarantine JSON: %v\n%.2000s", err, out)
	}
	var rs []string
	for _, e := range doc.Lines {
		rs = append(rs, e.Reason)
	}
	return rs
}

// waitQuarantined waits until the store holds n quarantined lines.
func waitQuarantined(t *testing.T, home string, n int64, d *daemon) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	var st statusDoc
	for time.Now().Before(deadline) {
		select {
		case err := <-d.done:
			t.Fatalf("the daemon exited (%v) with %d of %d lines quarantined:\n%s", err, st.Quarantined, n, d.stderr)
		default:
		}
		if st = status(t, home); st.Quarantined >= n {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%d lines quarantined, want %d\n%s", st.Quarantined, n, d.stderr)
}

// TestPoisonPill sends a payload with each identity field over 32 KiB
// through the hook binary and through POST /v1/hook: each is quarantined
// with its reason, the daemon goes on storing the sessions around them,
// and restarts neither stop on the lines nor quarantine them twice.
func TestPoisonPill(t *testing.T) {
	skipLong(t)
	home := shortTempDir(t)
	cfg := filepath.Join(home, "config.yaml")
	writeFile(t, cfg, "collector:\n  idle_timeout: 1s\n")
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	fields := []string{"hook_event_name", "session_id", "cwd", "agent_id"}
	ps := pills(home)
	// Through the hook binary, before the daemon runs.
	for _, f := range fields {
		out, errOut, code := sepad(t, queryEnv(home), []byte(ps[f]), "hook")
		if code != 0 || out != "" {
			t.Fatalf("sepad hook with a long %s: exit %d, stdout %q, stderr %s", f, code, out, errOut)
		}
	}
	var b []byte
	for _, l := range turnLines("good-1", "first", 2, t0) {
		b = append(append(b, l...), '\n')
	}
	if err := appendLocked(home, b); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, home, "--config", cfg)
	waitQuarantined(t, home, 4, d)
	waitExecutions(t, home, 1)

	// Through POST /v1/hook, the daemon running.
	c := socketClient(home)
	for _, f := range fields {
		resp, err := c.Post("http://sepad/v1/hook", "application/json", strings.NewReader(ps[f]))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("POST /v1/hook with a long %s: %s", f, resp.Status)
		}
	}
	b = nil
	for _, l := range turnLines("good-2", "second", 2, t0.Add(time.Hour)) {
		b = append(append(b, l...), '\n')
	}
	if err := appendLocked(home, b); err != nil {
		t.Fatal(err)
	}
	waitQuarantined(t, home, 8, d)
	waitExecutions(t, home, 2)
	reasons := strings.Join(quarantineReasons(t, home), "\n")
	for _, f := range fields {
		if strings.Count(reasons, f) < 2 {
			t.Errorf("the quarantine does not name %s twice (hook and POST):\n%.3000s", f, reasons)
		}
	}

	// Restarts neither stop on the lines nor quarantine them again: each
	// runs until its status says it has read the whole spool.
	for i := 0; i < 3; i++ {
		d.stop(t)
		d = startDaemon(t, home, "--config", cfg)
		deadline := time.Now().Add(90 * time.Second)
		for {
			select {
			case err := <-d.done:
				t.Fatalf("restart %d: the daemon exited: %v\n%s", i+1, err, d.stderr)
			default:
			}
			st := status(t, home)
			if st.Daemon.Running && st.LagEvents == 0 {
				if st.Quarantined != 8 || st.Executions != 2 {
					t.Fatalf("restart %d: %d quarantined, %d executions, want 8 and 2", i+1, st.Quarantined, st.Executions)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("restart %d: not caught up: %+v\n%s", i+1, st, d.stderr)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	d.stop(t)
}

// TestEventNamesBounded: payloads choose hook_event_name, so the daemon
// keeps at most collector.event_names (64) unknown names apart and counts
// the events of the others under "other", none lost (issue 33 item 9: a
// fuzz run left 394 names in the store).
func TestEventNamesBounded(t *testing.T) {
	skipLong(t)
	home := shortTempDir(t)
	const n = 100
	var lines [][]byte
	for i := 0; i < n; i++ {
		lines = append(lines, []byte(strings.TrimSuffix(string(uniqueLine("N", i)), "\n")))
	}
	lines = append(lines, []byte(`{"session_id":"s","hook_event_name":"Stop","cwd":"/p"}`))
	writeSpool(t, home, lines)
	d := startDaemon(t, home)
	deadline := time.Now().Add(90 * time.Second)
	for {
		evs, _ := statusJSON(t, home)["events"].(map[string]any)
		var sum float64
		for _, v := range evs {
			sum += v.(float64)
		}
		if sum >= n+1 {
			if len(evs) != 64+2 || evs["other"] != float64(n-64) || evs["Stop"] != float64(1) {
				t.Fatalf("%d names, other %v, Stop %v", len(evs), evs["other"], evs["Stop"])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v of %d events counted\n%s", sum, n+1, d.stderr)
		}
		time.Sleep(200 * time.Millisecond)
	}
	d.stop(t)
}
