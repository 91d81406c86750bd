package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/internal/tmpfs"
)

// Faults of issue 14: rotation by a real logrotate during ingestion with
// restarts, a full disk under the daemon and under the hook. Every line
// has its own hook_event_name, so the store's event counts say exactly
// which lines were lost (count 0) or doubled (count 2).

// uniqueLine is line i of a test: its own event name, a few sessions.
func uniqueLine(prefix string, i int) []byte {
	return fmt.Appendf(nil, `{"session_id":"s-%s-%d","hook_event_name":"%s%07d","cwd":"/p","pad":"%0100d"}`+"\n", prefix, i%13, prefix, i, i)
}

// allNames writes a configuration under which the store counts every
// event name apart (collector.event_names): the tests that give each line
// its own name count the lines in the store with it. It returns the
// daemon's arguments for it.
func allNames(t *testing.T, home string) []string {
	t.Helper()
	p := filepath.Join(home, "all-names.yaml")
	writeFile(t, p, "collector:\n  event_names: 1048576\n")
	return []string{"--config", p}
}

// statusJSON runs `sepad status --json` (through the daemon's socket when it
// runs, else on the database).
func statusJSON(t *testing.T, home string) map[string]any {
	t.Helper()
	out, errOut, code := sepad(t, []string{"SEPA_CONFIG="}, nil, "status", "--json", "--home", home)
	if code != 0 {
		t.Fatalf("sepad status: exit %d: %s", code, errOut)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status: %v: %s", err, out)
	}
	return st
}

// lostDoubled counts, among lines prefix0..prefix(n-1), those the store
// does not have and the extra copies it has.
func lostDoubled(t *testing.T, home, prefix string, n int) (lost, doubled int) {
	t.Helper()
	evs, _ := statusJSON(t, home)["events"].(map[string]any)
	for i := 0; i < n; i++ {
		c, _ := evs[fmt.Sprintf("%s%07d", prefix, i)].(float64)
		switch {
		case c == 0:
			lost++
		case c > 1:
			doubled += int(c) - 1
		}
	}
	return lost, doubled
}

// committedAll waits until the store holds at least n events of prefix.
func committedAll(t *testing.T, home, prefix string, n int, timeout time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		evs, _ := statusJSON(t, home)["events"].(map[string]any)
		got := 0
		for k, v := range evs {
			if strings.HasPrefix(k, prefix) {
				got += int(v.(float64))
			}
		}
		if got >= n {
			return true
		}
		time.Sleep(200 * time.Millisecond)
	}
	return false
}

// TestLogrotate rotates the spool with the real logrotate (Debian package
// logrotate) while lines are appended at about 2,000 a second, restarting
// the daemon (SIGKILL and SIGTERM) between rotations, in both of
// logrotate's modes with its default names (.1 .. .3): rename and create
// (also with compress: .gz files are ignored), and copytruncate. No line
// is ever doubled; with rename and create none is lost; with copytruncate
// only lines written between logrotate's copy and its truncation can be
// lost, and only when the daemon had not read them yet (docs): checked
// line by line (after the copy's last line and before the truncated
// spool's first), not as a share of the lines, so a slow machine, which
// widens that race, makes no difference to the verdict.
func TestLogrotate(t *testing.T) {
	skipLong(t)
	lr, err := exec.LookPath("logrotate")
	if err != nil {
		for _, p := range []string{"/usr/sbin/logrotate", "/sbin/logrotate"} {
			if _, err := os.Stat(p); err == nil {
				lr = p
			}
		}
	}
	if lr == "" {
		t.Skip("skipped: logrotate is not installed (apt-get install -y logrotate; .ci/run installs it)")
	}
	rotations := 6
	if testing.Short() {
		rotations = 3
	}
	modes := []string{"create", "create compress delaycompress", "copytruncate", "copytruncate compress delaycompress"}
	if m := os.Getenv("SEPAD_LOGROTATE_MODE"); m != "" {
		modes = []string{m}
	}
	for _, mode := range modes {
		t.Run(strings.ReplaceAll(mode, " ", "_"), func(t *testing.T) {
			home := t.TempDir()
			conf := filepath.Join(home, "logrotate.conf")
			writeFile(t, conf, fmt.Sprintf("%s {\n  rotate 3\n  missingok\n  notifempty\n  %s\n}\n",
				filepath.Join(home, "events.jsonl"), strings.ReplaceAll(mode, " ", "\n  ")))
			state := filepath.Join(home, "logrotate.state")
			logs := os.Getenv("SEPAD_LOGROTATE_LOGS") != ""
			start := func() *daemon {
				if logs {
					return startDaemon(t, home, append(allNames(t, home), "--log-level", "info")...)
				}
				return startDaemon(t, home, allNames(t, home)...)
			}
			d := start()
			var mu sync.Mutex
			n, stop := 0, make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				tick := time.NewTicker(5 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
					}
					mu.Lock()
					var b bytes.Buffer
					for j := 0; j < 10; j++ {
						b.Write(uniqueLine("L", n+j))
					}
					if err := appendLocked(home, b.Bytes()); err != nil {
						t.Error(err)
					}
					n += 10
					mu.Unlock()
				}
			}()
			// races are, per copytruncate rotation, the lines its race can
			// lose: written after logrotate's copy and before its
			// truncation, so after the copy's last complete line and
			// before the truncated spool's first line. Any other line is
			// read exactly once, however slow the machine.
			var races [][2]int
			from := 0 // the first line of the spool being rotated
			rotate := func() {
				t.Helper()
				if out, err := exec.Command(lr, "-f", "-s", state, conf).CombinedOutput(); err != nil {
					t.Fatalf("logrotate: %v: %s", err, out)
				}
				if !strings.HasPrefix(mode, "copytruncate") {
					return
				}
				spool := filepath.Join(home, "events.jsonl")
				mu.Lock() // no line is being written
				next := n
				if i, ok := lineIndex(t, spool, true); ok {
					next = i
				}
				mu.Unlock()
				last := from - 1
				if i, ok := lineIndex(t, spool+".1", false); ok {
					last = i
				}
				races = append(races, [2]int{last + 1, next})
				from = next
			}
			for r := 0; r < rotations; r++ {
				time.Sleep(400 * time.Millisecond)
				rotate()
				time.Sleep(300 * time.Millisecond)
				switch r % 3 {
				case 1:
					d.kill() // SIGKILL: resumes from the last commit
					if logs {
						t.Logf("daemon (killed):\n%s", d.stderr)
					}
					d = start()
				case 2:
					d.stop(t)
					if logs {
						t.Logf("daemon (stopped):\n%s", d.stderr)
					}
					time.Sleep(200 * time.Millisecond) // rotated while down
					rotate()
					d = start()
				}
			}
			close(stop)
			wg.Wait()
			settle(t, home, "L", n)
			lost, doubled := lostDoubled(t, home, "L", n)
			gz, _ := filepath.Glob(filepath.Join(home, "events.jsonl.*.gz"))
			inRace := 0
			for _, r := range races {
				inRace += r[1] - r[0]
			}
			t.Logf("logrotate %s: %d rotations, %d lines: %d lost, %d doubled (%d .gz files); %d lines written between logrotate's copy and its truncation",
				mode, rotations+rotations/3, n, lost, doubled, len(gz), inRace)
			if doubled != 0 {
				t.Errorf("%d lines doubled", doubled)
			}
			if outside := lostOutside(t, home, "L", n, races); len(outside) != 0 {
				t.Errorf("%d lines lost with %s outside logrotate's copy-to-truncate race %v: %v", len(outside), mode, races, outside)
			}
			d.stop(t)
			if logs {
				t.Logf("daemon:\n%s", d.stderr)
			}
			if strings.Contains(d.stderr.String(), "level=ERROR") {
				t.Errorf("daemon errors:\n%s", d.stderr)
			}
		})
	}
}

// lineIndex returns the number of the first (or last) complete line of
// the test's lines in path.
func lineIndex(t *testing.T, path string, first bool) (int, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	end := bytes.LastIndexByte(b, '\n')
	if err != nil || end < 0 {
		return 0, false
	}
	if first {
		b = b[:bytes.IndexByte(b, '\n')]
	} else {
		b = b[:end]
		b = b[bytes.LastIndexByte(b, '\n')+1:]
	}
	const key = `"hook_event_name":"L`
	k := bytes.Index(b, []byte(key))
	if k < 0 || len(b) < k+len(key)+7 {
		t.Fatalf("%s: not a test line: %q", path, b)
	}
	num, err := strconv.Atoi(string(b[k+len(key) : k+len(key)+7]))
	if err != nil {
		t.Fatalf("%s: %v: %q", path, err, b)
	}
	return num, true
}

// lostOutside lists the lines prefix0..prefix(n-1) the store does not have
// that no race range [from, to) explains.
func lostOutside(t *testing.T, home, prefix string, n int, races [][2]int) []int {
	t.Helper()
	evs, _ := statusJSON(t, home)["events"].(map[string]any)
	var out []int
	for i := 0; i < n; i++ {
		if c, _ := evs[fmt.Sprintf("%s%07d", prefix, i)].(float64); c != 0 {
			continue
		}
		explained := false
		for _, r := range races {
			explained = explained || i >= r[0] && i < r[1]
		}
		if !explained {
			out = append(out, i)
		}
	}
	return out
}

// settle waits until the store holds n events of prefix, or its count has
// not changed for two seconds (lines lost in copytruncate's race never
// come).
func settle(t *testing.T, home, prefix string, n int) {
	t.Helper()
	last, since := -1, time.Now()
	for time.Since(since) < 2*time.Second {
		evs, _ := statusJSON(t, home)["events"].(map[string]any)
		got := 0
		for k, v := range evs {
			if strings.HasPrefix(k, prefix) {
				got += int(v.(float64))
			}
		}
		if got >= n {
			time.Sleep(300 * time.Millisecond) // a doubled copy would arrive now
			return
		}
		if got != last {
			last, since = got, time.Now()
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestDiskFull fills the tmpfs holding $SEPA_HOME under the running
// daemon, runs 500 hook processes meanwhile, then frees the space. The
// hooks exit 0 and print nothing; their lines go to the runtime fallback
// file on another file system (0 lost); the daemon does not exit, reports
// the stall in status, doctor and /metrics, and once space is back every
// event is in the store, once, and the runtime fallback file is gone.
func TestDiskFull(t *testing.T) {
	skipLong(t)
	home := tmpfs.Mount(t, "2m")
	rt := t.TempDir() // $XDG_RUNTIME_DIR: another file system than home's
	t.Setenv("XDG_RUNTIME_DIR", rt)
	d := startDaemon(t, home, allNames(t, home)...)
	const before, during = 300, 500
	var b bytes.Buffer
	for i := 0; i < before; i++ {
		b.Write(uniqueLine("B", i))
	}
	if err := appendLocked(home, b.Bytes()); err != nil {
		t.Fatal(err)
	}
	if !committedAll(t, home, "B", before, 20*time.Second) {
		t.Fatal("first lines never committed")
	}
	filler := tmpfs.Fill(t, home)
	env := []string{"SEPA_HOME=" + home, "XDG_RUNTIME_DIR=" + rt}
	for i := 0; i < during; i++ {
		out, errOut, code := sepad(t, env, uniqueLine("F", i), "hook")
		if code != 0 || out != "" {
			t.Fatalf("hook %d: exit %d, stdout %q, stderr %q", i, code, out, errOut)
		}
	}
	fbs, _ := filepath.Glob(filepath.Join(rt, "sepa-*", "fallback-*.jsonl*"))
	inFallback := 0
	for _, p := range fbs {
		c, _ := os.ReadFile(p)
		inFallback += bytes.Count(c, []byte("\n"))
	}
	spool, _ := os.ReadFile(filepath.Join(home, "events.jsonl"))
	inSpool := bytes.Count(spool, []byte(`"F0`))
	t.Logf("disk full: %d hook events, %d in the runtime fallback file, %d in the spool", during, inFallback, inSpool)
	// The daemon reads the fallback file and cannot commit: stalled.
	deadline := time.Now().Add(20 * time.Second)
	var in map[string]any
	for time.Now().Before(deadline) {
		in = ingestOf(statusJSON(t, home))
		if in != nil && in["stalled"] == true {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if in == nil || in["stalled"] != true {
		t.Fatalf("status never said stalled: %v\n%s", in, d.stderr)
	}
	out, _, _ := sepad(t, nil, nil, "status", "--home", home)
	contains(t, out, "STALLED")
	out, _, code := sepad(t, nil, nil, "doctor", "--home", home)
	contains(t, out, "the daemon cannot commit")
	if code == 0 {
		t.Error("doctor exited 0 with a stalled daemon")
	}
	metrics := scrape(t, home)
	contains(t, metrics, "sepad_ingest_stalled 1")
	if d.cmd.ProcessState != nil {
		t.Fatalf("daemon exited on a full disk: %s", d.stderr)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if !committedAll(t, home, "F", during, 30*time.Second) {
		t.Fatalf("hook events not all committed after space came back\n%s", d.stderr)
	}
	lostB, dupB := lostDoubled(t, home, "B", before)
	lostF, dupF := lostDoubled(t, home, "F", during)
	t.Logf("after space came back: before %d lost %d doubled; during %d lost %d doubled", lostB, dupB, lostF, dupF)
	if lostB+dupB+lostF+dupF != 0 || inFallback+inSpool != during {
		t.Fatalf("lost or doubled lines; the daemon's log:\n%s", d.stderr)
	}
	if in := ingestOf(statusJSON(t, home)); in["stalled"] != false || in["stalls"].(float64) < 1 {
		t.Fatalf("after recovery: %v", in)
	}
	contains(t, scrape(t, home), "sepad_ingest_stalled 0")
	deadline = time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if fbs, _ := filepath.Glob(filepath.Join(rt, "sepa-*", "fallback-*")); len(fbs) == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if fbs, _ := filepath.Glob(filepath.Join(rt, "sepa-*", "fallback-*")); len(fbs) != 0 {
		t.Errorf("runtime fallback files left after draining: %v", fbs)
	}
	d.stop(t)
}

// ingestOf is status.daemon.ingest.
func ingestOf(st map[string]any) map[string]any {
	d, _ := st["daemon"].(map[string]any)
	in, _ := d["ingest"].(map[string]any)
	return in
}

// scrape reads /metrics from the daemon's socket.
func scrape(t *testing.T, home string) string {
	t.Helper()
	c := api.SocketClient(api.SocketPath(home), 5*time.Second)
	resp, err := c.Get("http://sepad/metrics")
	if err != nil {
		t.Fatalf("scrape /metrics: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
