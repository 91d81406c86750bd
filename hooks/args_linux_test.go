package hooks

import (
	"bytes"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestStartupGetenv runs the test binary again with an environment that
// exec.Cmd would have cleaned up (a duplicate key, an entry without '=',
// empty values) and checks, in that child, that startupGetenv finds what
// syscall.Getenv finds for each key.
func TestStartupGetenv(t *testing.T) {
	if os.Getenv("SEPAD_TEST_ENV_CHILD") == "1" {
		for _, k := range []string{"DUP", "EMPTY", "NOEQ", "A", "A=b", "", "MISSING", "HOME", "PATH", "SEPAD_TEST_ENV_CHILD", "=x"} {
			want, _ := syscall.Getenv(k)
			if got := startupGetenv(k); got != want {
				t.Errorf("startupGetenv(%q) = %q, syscall.Getenv %q", k, got, want)
			}
		}
		return
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"SEPAD_TEST_ENV_CHILD=1", "DUP=first", "DUP=second", "EMPTY=", "NOEQ", "A=b=c", "=x", "HOME=/home/ana", "PATH=" + os.Getenv("PATH")}
	p, err := os.StartProcess(os.Args[0], []string{os.Args[0], "-test.run=^TestStartupGetenv$", "-test.v"},
		&os.ProcAttr{Env: env, Files: []*os.File{nil, w, w}})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	out.ReadFrom(r)
	st, err := p.Wait()
	if err != nil || !st.Success() || !strings.Contains(out.String(), "--- PASS: TestStartupGetenv") {
		t.Fatalf("child: %v %v\n%s", err, st, out.String())
	}
	if startupGetenv("DUP") != "" || startupGetenv("PATH") == "" {
		t.Fatal("the parent sees its own environment")
	}
}
