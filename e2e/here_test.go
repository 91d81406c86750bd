package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sepad/sepad/internal/testbin"
)

// sepadIn runs sepad with dir as its working directory.
func sepadIn(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	testbin.Consult()
	cmd := exec.Command(sepadBin, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("sepad %v: %v", args, err)
	}
	return o.String(), e.String(), code
}

// TestNameInsideProject: two projects have a skill "deploy". Inside
// one of them (or a directory below it), `sepad versions deploy` means
// that project's and says so; outside both, the name stays ambiguous and
// the error lists the choices (the new-user walk found "ambiguous" inside
// a project).
func TestNameInsideProject(t *testing.T) {
	skipLong(t)
	p := newProject(t)
	p.config("")
	p.writeSkill("Run the checks, then make deploy.")
	q := *p
	q.dir = filepath.Join(filepath.Dir(p.dir), "blog")
	q.skill = filepath.Join(q.dir, ".claude", "skills", "deploy", "SKILL.md")
	q.session = "e2e00000-0000-4000-8000-000000000002"
	os.MkdirAll(filepath.Join(q.dir, ".git"), 0o755)
	os.MkdirAll(filepath.Join(q.dir, "src", "posts"), 0o755)
	if _, errOut, code := sepad(t, p.env(), nil, "install", "--project", q.dir); code != 0 {
		t.Fatalf("install: %s", errOut)
	}
	q.writeSkill("Build the blog, then publish it.")
	d := startDaemonEnv(t, p)
	p.turns(1, 0, goodAnswer)
	p.release()
	q.turns(1, 0, goodAnswer)
	q.release()
	for _, k := range []string{p.skill, q.skill} {
		waitFor(t, "executions of "+k, func() bool {
			out, _, code := sepad(t, p.env(), nil, "versions", k, "--home", p.home)
			return code == 0 && strings.Contains(out, "v1")
		})
	}
	d.stop(t)

	out, errOut, code := sepadIn(t, filepath.Join(q.dir, "src", "posts"), p.env(), "versions", "deploy", "--home", p.home)
	if code != 0 || !strings.HasPrefix(out, "deploy ("+q.dir+")") || !strings.Contains(errOut, "deploy is this project's ("+q.dir+"); also in: ") {
		t.Fatalf("versions deploy inside %s: exit %d\n%s%s", q.dir, code, out, errOut)
	}
	out, errOut, code = sepadIn(t, p.dir, p.env(), "history", "deploy", "--home", p.home)
	if code != 0 || !strings.HasPrefix(out, "deploy ("+p.dir+")") {
		t.Fatalf("history deploy inside %s: exit %d\n%s%s", p.dir, code, out, errOut)
	}
	out, errOut, code = sepadIn(t, t.TempDir(), p.env(), "versions", "deploy", "--home", p.home)
	if code == 0 || !strings.Contains(errOut, `skill "deploy" is ambiguous`) || !strings.Contains(errOut, p.skill) || !strings.Contains(errOut, q.skill) {
		t.Fatalf("versions deploy outside both projects: exit %d\n%s%s", code, out, errOut)
	}
}
