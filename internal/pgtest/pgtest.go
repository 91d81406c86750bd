// Package pgtest starts a throwaway PostgreSQL cluster for a test: initdb
// into a temporary directory, the server on a unix socket in a directory
// of its own (no TCP), trust authentication, stopped and removed when the
// test ends. Tests run as root start it as the unprivileged user nobody,
// because PostgreSQL refuses to run as root. Without PostgreSQL's binaries
// the test skips with one line, unless SEPAD_REQUIRE_POSTGRES=1 (CI), when
// it fails.
package pgtest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// Cluster is one running throwaway cluster.
type Cluster struct {
	// DSN is a key=value connection string for the superuser "sepad" on
	// the database "postgres", through the unix socket.
	DSN string
	// Socket is the directory of the unix socket, Port its port number.
	Socket string
	Port   int

	t    testing.TB
	bin  string
	data string
	cmd  *exec.Cmd
	done chan struct{}
	log  *os.File
}

// BinDir finds PostgreSQL's server binaries: $SEPAD_PG_BIN, the newest
// /usr/lib/postgresql/N/bin (Debian, Ubuntu), or initdb on PATH. It
// returns "" when there are none.
func BinDir() string {
	if d := os.Getenv("SEPAD_PG_BIN"); d != "" {
		return d
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	if len(dirs) > 0 {
		return filepath.Dir(dirs[0])
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p)
	}
	return ""
}

func version(initdb string) int {
	var n int
	fmt.Sscanf(filepath.Base(filepath.Dir(filepath.Dir(initdb))), "%d", &n)
	return n
}

// Start initialises and starts a cluster, or skips the test (fails it
// when SEPAD_REQUIRE_POSTGRES=1) when PostgreSQL is not installed or
// cannot run here.
func Start(t testing.TB) *Cluster { t.Helper(); return start(t, "") }

// StartWithPassword starts a cluster whose user "sepad" must give
// password (scram-sha-256); DSN then holds no password.
func StartWithPassword(t testing.TB, password string) *Cluster {
	t.Helper()
	return start(t, password)
}

func start(t testing.TB, password string) *Cluster {
	t.Helper()
	bin := BinDir()
	if bin == "" {
		unavailable(t, "PostgreSQL is not installed (apt install postgresql, or set SEPAD_PG_BIN)")
	}
	base, err := os.MkdirTemp("", "sepad-pg-")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{t: t, bin: bin, data: filepath.Join(base, "data"), Socket: filepath.Join(base, "sock"), Port: 20000 + rand.IntN(30000)}
	t.Cleanup(func() {
		c.stop()
		os.RemoveAll(base)
	})
	for _, d := range []string{c.data, c.Socket} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := ownByServerUser(base, c.data, c.Socket); err != nil {
		unavailable(t, err.Error())
	}
	if c.log, err = os.Create(filepath.Join(base, "server.log")); err != nil {
		t.Fatal(err)
	}
	args := []string{"-D", c.data, "-U", "sepad", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"}
	if password != "" {
		pw := filepath.Join(base, "pwfile")
		if err := os.WriteFile(pw, []byte(password+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := ownByServerUser(pw); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--auth=scram-sha-256", "--pwfile="+pw)
	}
	init := c.command("initdb", args...)
	if out, err := init.CombinedOutput(); err != nil {
		unavailable(t, fmt.Sprintf("initdb failed: %v: %s", err, out))
	}
	c.DSN = fmt.Sprintf("host=%s port=%d user=sepad dbname=postgres sslmode=disable", c.Socket, c.Port)
	c.Restart()
	return c
}

func unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("SEPAD_REQUIRE_POSTGRES") == "1" {
		t.Fatalf("SEPAD_REQUIRE_POSTGRES=1 but %s", why)
	}
	t.Skip("skipped: " + why)
}

func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.Dir = filepath.Dir(c.data)
	asServerUser(cmd)
	return cmd
}

// Restart starts the server (again, after Kill9 or Stop) and waits until
// it accepts connections.
func (c *Cluster) Restart() {
	c.t.Helper()
	if c.cmd != nil {
		c.t.Fatal("pgtest: Restart while the server runs")
	}
	c.cmd = c.command("postgres", "-D", c.data, "-k", c.Socket, "-p", fmt.Sprint(c.Port),
		"-c", "listen_addresses=", "-c", "fsync=off", "-c", "max_connections=200", "-c", "shared_buffers=16MB")
	c.cmd.Stdout, c.cmd.Stderr = c.log, c.log
	if err := c.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { cmd.Wait(); close(done) }(c.cmd, c.done)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-c.done:
			c.cmd = nil
			c.t.Fatalf("pgtest: postgres exited at start: %s", c.Log())
		default:
		}
		if out, err := c.command("pg_isready", "-q", "-h", c.Socket, "-p", fmt.Sprint(c.Port), "-U", "sepad", "-d", "postgres").CombinedOutput(); err == nil {
			return
		} else if len(out) > 0 {
			c.t.Logf("pg_isready: %s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("pgtest: postgres not ready after 60s: %s", c.Log())
}

// Kill9 kills the server and every backend at once with SIGKILL, as a
// crash would, and waits for the postmaster to be gone.
func (c *Cluster) Kill9() {
	c.t.Helper()
	if c.cmd == nil {
		return
	}
	killGroup(c.cmd)
	<-c.done
	waitGroupGone(c.cmd.Process.Pid)
	c.cmd = nil
}

// Stop shuts the server down cleanly (fast mode).
func (c *Cluster) Stop() { c.stop() }

func (c *Cluster) stop() {
	if c.cmd == nil {
		return
	}
	interrupt(c.cmd)
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		killGroup(c.cmd)
		<-c.done
	}
	waitGroupGone(c.cmd.Process.Pid)
	c.cmd = nil
}

// Log returns the end of the server's log.
func (c *Cluster) Log() string {
	b, _ := os.ReadFile(c.log.Name())
	s := string(b)
	if len(s) > 4000 {
		s = s[len(s)-4000:]
	}
	return strings.TrimSpace(s)
}

var errNoUser = errors.New("running as root and no unprivileged user (nobody) to run PostgreSQL as")
