package claudecode

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// daemon is a `sepad run` on an env's state directory, for the scenarios
// whose live sessions the daemon reads as they happen.
type daemon struct {
	e    *env
	cmd  *exec.Cmd
	log  *lockedBuffer // its stderr: the log
	done chan struct{} // closed when it exited
	err  error         // its exit, once done is closed
}

// startDaemon starts `sepad run` with the env's environment in its
// project, with args after the state directory and the log level (e.g.
// "--http", addr), and waits (a minute at most: the machine may be
// loaded) until its socket answers, by when its API, TCP included, is up.
// It is killed when the test ends, if still running; its log is shown
// when the test failed.
func (e *env) startDaemon(args ...string) *daemon {
	e.t.Helper()
	d := &daemon{e: e, log: &lockedBuffer{}, done: make(chan struct{})}
	d.cmd = exec.Command(sepadBin, append([]string{"run", "--home", e.State, "--log-level", "info"}, args...)...)
	d.cmd.Env = e.baseEnv()
	d.cmd.Dir = e.Project
	d.cmd.Stderr = d.log
	if err := d.cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() { d.err = d.cmd.Wait(); close(d.done) }()
	e.t.Cleanup(func() {
		select {
		case <-d.done:
		default:
			d.cmd.Process.Kill()
			<-d.done
		}
		if e.t.Failed() {
			e.t.Logf("daemon log:\n%s", d.log.String())
		}
	})
	sock := filepath.Join(e.State, "sepad.sock")
	deadline := time.Now().Add(time.Minute)
	for {
		if c, err := net.DialTimeout("unix", sock, time.Second); err == nil {
			c.Close()
			return d
		}
		select {
		case <-d.done:
			e.t.Fatalf("sepad run exited: %v\n%s", d.err, d.log.String())
		default:
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("sepad run does not answer on %s after a minute:\n%s", sock, d.log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop interrupts the daemon, waits for it to end (a minute at most),
// fails the test if it exited with an error, and returns its log. Once
// stopped, it only returns the log.
func (d *daemon) stop() string {
	select {
	case <-d.done:
		return d.log.String()
	default:
	}
	d.cmd.Process.Signal(os.Interrupt)
	select {
	case <-d.done:
		if d.err != nil {
			d.e.t.Errorf("sepad run on SIGINT: %v\n%s", d.err, d.log.String())
		}
	case <-time.After(time.Minute):
		d.e.t.Errorf("sepad run did not stop on SIGINT within a minute:\n%s", d.log.String())
		d.cmd.Process.Kill()
		<-d.done
	}
	return d.log.String()
}

// waitExecutions returns the daemon's stored executions once it holds n
// (or after 30 s).
func (d *daemon) waitExecutions(n int) []daemonExec {
	d.e.t.Helper()
	env := d.e.baseEnv()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := daemonExecutions(d.e.t, env, d.e.State)
		if len(got) >= n || time.Now().After(deadline) {
			time.Sleep(200 * time.Millisecond) // nothing more may arrive
			return daemonExecutions(d.e.t, env, d.e.State)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// freeAddr is a loopback address nothing listens on, for `sepad run
// --http`.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// lockedBuffer is a bytes.Buffer the daemon's stderr is copied into while
// the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
