package claudecode

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/internal/testbin"
)

// replayed is a real `sepad run` reading recorded spools from a home of
// its own, without the Claude Code CLI: the daemon's side of the goldens
// (TestDaemonMatchesScore, TestOutcomeValidity, decideBetween).
type replayed struct {
	t    *testing.T
	home string
	// env is the environment of the daemon and of the CLI commands run
	// on its home (run, executions).
	env  []string
	log  *bytes.Buffer
	cmd  *exec.Cmd
	done chan struct{}
}

// replay writes spool as the events file of a fresh home and starts a
// real `sepad run` on it with the default configuration, but for the
// collector's idle timeout of 1 s: a session that never ended (2.1.197
// sends no SessionEnd on Ctrl-C) closes there, as `sepad score` closes it
// at the end of its input. The daemon is killed when the test ends, if
// stop did not end it before.
func replay(t *testing.T, spool []byte) *replayed {
	t.Helper()
	testbin.Consult() // the result depends on the binary's sources
	home := filepath.Join(t.TempDir(), "state")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "events.jsonl"), spool, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(home, "..", "config.yaml")
	if err := os.WriteFile(cfg, []byte("collector:\n  idle_timeout: 1s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &replayed{t: t, home: home, log: &bytes.Buffer{}, done: make(chan struct{}),
		env: append(os.Environ(), "SEPA_CONFIG="+cfg, "XDG_CONFIG_HOME="+filepath.Join(home, "noconfig"), "SEPA_HOME="+home, "HOME="+filepath.Join(home, "nohome"))}
	r.cmd = exec.Command(sepadBin, "run", "--home", home, "--log-level", "info")
	r.cmd.Env = r.env
	r.cmd.Stderr = r.log
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			r.cmd.Process.Kill()
			<-r.done
		}
	})
	return r
}

// replayFiles is replay of the spool files given, one after the other.
func replayFiles(t *testing.T, files ...string) *replayed {
	t.Helper()
	var all []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return replay(t, all)
}

// executions is the daemon's stored executions (none while its socket is
// not up).
func (r *replayed) executions() []daemonExec { return daemonExecutions(r.t, r.env, r.home) }

// waitStored polls the stored executions until all says they are all
// there or limit passes; it returns the last list read and whether all
// said so.
func (r *replayed) waitStored(limit time.Duration, all func([]daemonExec) bool) ([]daemonExec, bool) {
	r.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		xs := r.executions()
		if all(xs) {
			return xs, true
		}
		if time.Now().After(deadline) {
			return xs, false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// run runs a CLI command on the daemon's home and returns its output; a
// failing command fails the test.
func (r *replayed) run(args ...string) string {
	r.t.Helper()
	c := exec.Command(sepadBin, append(args, "--home", r.home)...)
	c.Env = r.env
	var o, e bytes.Buffer
	c.Stdout, c.Stderr = &o, &e
	if err := c.Run(); err != nil {
		r.t.Fatalf("sepad %v: %v\n%s", args, err, e.String())
	}
	return o.String()
}

// stop interrupts the daemon, gives it 10 s to end, and fails the test
// when its log holds an error.
func (r *replayed) stop() {
	r.t.Helper()
	r.cmd.Process.Signal(os.Interrupt)
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		r.cmd.Process.Kill()
		<-r.done
	}
	if strings.Contains(r.log.String(), "level=ERROR") {
		r.t.Errorf("the daemon logged an error:\n%s", r.log.String())
	}
}

type daemonExec struct {
	ID    string   `json:"id"`
	Skill string   `json:"skill"`
	Score *float64 `json:"score"`
}

func daemonExecutions(t *testing.T, env []string, home string) []daemonExec {
	t.Helper()
	cmd := exec.Command(sepadBin, "executions", "--json", "--limit", "10000", "--home", home)
	cmd.Env = env
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		if strings.Contains(errOut.String(), "usage") {
			t.Fatalf("sepad executions: %v: %s", err, errOut.String())
		}
		return nil // the socket is not up yet
	}
	var doc struct {
		Executions []daemonExec `json:"executions"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("sepad executions --json: %v\n%s", err, out)
	}
	return doc.Executions
}
