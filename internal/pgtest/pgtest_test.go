package pgtest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A cluster starts, answers psql, survives kill -9 and a restart with its
// data, and is gone after the test.
func TestStartKillRestart(t *testing.T) {
	c := Start(t)
	psql := func(sql string) string {
		t.Helper()
		out, err := exec.Command(filepath.Join(c.bin, "psql"), "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", c.DSN, "-c", sql).CombinedOutput()
		if err != nil {
			t.Fatalf("psql %q: %v: %s", sql, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	psql("CREATE TABLE t (x int)")
	psql("INSERT INTO t VALUES (1), (2)")
	c.Kill9()
	c.Restart()
	if got := psql("SELECT sum(x) FROM t"); got != "3" {
		t.Fatalf("after kill -9 and restart: sum = %q, want 3", got)
	}
}
