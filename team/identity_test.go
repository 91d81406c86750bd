package team

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestNormaliseRemote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"git@github.com:Org/Repo.git", "github.com/Org/Repo"},
		{"https://github.com/Org/Repo", "github.com/Org/Repo"},
		{"https://user:secret@GitHub.com:443/Org/Repo.git/", "github.com/Org/Repo"},
		{"ssh://git@gitlab.example.com:2222/team/x.git", "gitlab.example.com/team/x"},
		{"/srv/git/x.git", "file:///srv/git/x"},
		{"file:///srv/git/x.git", "file:///srv/git/x"},
		{"", ""},
	} {
		if got := NormaliseRemote(c.in); got != c.want {
			t.Errorf("NormaliseRemote(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// The machine ID is made once, kept 0600, and read back the same.
func TestMachineID(t *testing.T) {
	home := t.TempDir()
	a, err := MachineID(home)
	if err != nil || len(a) != 32 {
		t.Fatalf("MachineID: %q %v", a, err)
	}
	b, err := MachineID(home)
	if err != nil || a != b {
		t.Fatalf("second MachineID: %q %v, want %q", b, err, a)
	}
	fi, err := os.Stat(filepath.Join(home, MachineIDFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("machine-id file: %v %v", fi, err)
	}
	if c, _ := MachineID(t.TempDir()); c == a {
		t.Fatal("two homes share a machine ID")
	}
}

// Two clones of one repository, in different directories, name a prompt
// file the same; a user-level prompt is kind and name.
func TestPromptIdentityAcrossClones(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("skipped: git is not installed")
	}
	base := t.TempDir()
	origin := filepath.Join(base, "origin.git")
	run(t, "", "git", "init", "-q", "--bare", origin)
	var ids []string
	for _, c := range []string{"a", "b"} {
		dir := filepath.Join(base, c, "work")
		run(t, "", "git", "clone", "-q", origin, dir)
		f := filepath.Join(dir, ".claude", "skills", "deploy", "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		r := &Resolver{ClaudeDir: filepath.Join(base, c, "home", ".claude")}
		p := r.Prompt("skill", "deploy", f, dir)
		if p.Path != ".claude/skills/deploy/SKILL.md" || p.Repository != NormaliseRemote(origin) {
			t.Fatalf("clone %s: %+v", c, p)
		}
		ids = append(ids, p.ID)
		user := r.Prompt("skill", "notes", filepath.Join(r.ClaudeDir, "skills", "notes", "SKILL.md"), dir)
		if user.ID != "skill/notes" || user.Repository != "" {
			t.Fatalf("user-level prompt: %+v", user)
		}
	}
	if ids[0] != ids[1] {
		t.Fatalf("two clones: %q and %q", ids[0], ids[1])
	}
}

func TestPerson(t *testing.T) {
	if Person("off") != "" {
		t.Fatal("off is no person")
	}
	if Person("alice") != "alice" {
		t.Fatal("a configured person is used as written")
	}
	if HashPerson(" Alice@Example.com ") != HashPerson("alice@example.com") || len(HashPerson("x")) != 32 {
		t.Fatal("HashPerson")
	}
}

func run(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v: %s", name, args, err, out)
	}
}
