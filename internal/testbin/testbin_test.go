package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBuildOnceAndShare: the second Build of the same command, from
// another directory (another test package), finds the shared binary up
// to date and does not link again; each caller gets its own file, which
// runs. sepad-hook is the small command, so the first link is quick.
func TestBuildOnceAndShare(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	pa, err := Build(a, "sepad-hook")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	pb, err := Build(b, "sepad-hook")
	if err != nil {
		t.Fatal(err)
	}
	again := time.Since(start)
	if pa[0] == pb[0] || filepath.Dir(pa[0]) != a || filepath.Dir(pb[0]) != b {
		t.Fatalf("paths %s and %s", pa[0], pb[0])
	}
	fa, _ := os.Stat(pa[0])
	fb, _ := os.Stat(pb[0])
	if !os.SameFile(fa, fb) && fa.Size() != fb.Size() {
		t.Errorf("the second build is not the first's binary")
	}
	t.Logf("second Build (up to date): %v", again)
	// The binary runs: sepad-hook with an empty payload exits 0.
	home := t.TempDir()
	cmd := exec.Command(pb[0], "hook", "--home", home)
	cmd.Stdin = strings.NewReader("")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sepad-hook: %v\n%s", err, out)
	}
}

func TestModuleRoot(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "cmd", "sepad")); err != nil {
		t.Errorf("module root %s has no cmd/sepad: %v", root, err)
	}
}

// TestSources: the files a result depends on include the commands' own
// sources, a package they import, a file one embeds, and go.mod.
func TestSources(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, err := sources(root, []string{"sepad", "sepad-hook"})
	if err != nil {
		t.Fatal(err)
	}
	has := map[string]bool{}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		has[filepath.ToSlash(rel)] = true
		if _, err := os.Stat(f); err != nil {
			t.Errorf("listed %s: %v", f, err)
		}
	}
	for _, want := range []string{"go.mod", "cmd/sepad/main.go", "cmd/sepad-hook/main.go", "render/grades.go", "spool/spool.go"} {
		if !has[want] {
			t.Errorf("%s is not among the %d files", want, len(files))
		}
	}
	embedded := false
	for f := range has {
		if !strings.HasSuffix(f, ".go") && f != "go.mod" && f != "go.sum" {
			embedded = true
		}
	}
	if !embedded {
		t.Error("no embedded file listed (config defaults, dashboard templates)")
	}
}
