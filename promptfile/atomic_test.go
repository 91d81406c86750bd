package promptfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/internal/treetest"
)

// onlyFiles fails if dir holds anything but the named entries (a temporary
// file left behind).
func onlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Fatalf("%s holds %v, want %v", dir, got, names)
	}
}

func TestWriteFileAtomicKeepsMode(t *testing.T) {
	root := t.TempDir()
	for _, mode := range []fs.FileMode{0o600, 0o640, 0o755, 0o444} {
		t.Run(mode.String(), func(t *testing.T) {
			p := treetest.Skill(t, root, "m"+strings.ReplaceAll(mode.String(), "-", ""), "old", mode)
			if err := WriteFileAtomic(p, []byte("new content"), []string{root}); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(p)
			fi, _ := os.Stat(p)
			if string(b) != "new content" || fi.Mode() != mode {
				t.Fatalf("content %q mode %v, want mode %v", b, fi.Mode(), mode)
			}
			onlyFiles(t, filepath.Dir(p), "SKILL.md")
		})
	}
	// A new file gets 0644.
	p := filepath.Join(root, ".claude", "skills", "mrw", "NEW.md")
	if err := WriteFileAtomic(p, []byte("x"), []string{root}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode() != 0o644 {
		t.Fatalf("new file mode %v", fi.Mode())
	}
}

func TestWriteFileAtomicSymlinkedFile(t *testing.T) {
	// Skills kept in a dotfiles folder under the root and linked in: the
	// write goes to the real file and the link stays a link.
	root := t.TempDir()
	real := treetest.Skill(t, root, "real", "v1", 0o640)
	link := filepath.Join(root, ".claude", "skills", "linked", "SKILL.md")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(link, []byte("v2"), []string{root}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
	if b, _ := os.ReadFile(real); string(b) != "v2" {
		t.Fatalf("target holds %q", b)
	}
	onlyFiles(t, filepath.Dir(real), "SKILL.md")
	onlyFiles(t, filepath.Dir(link), "SKILL.md")
}

func TestWritesOutsideRootsRefused(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	victim := filepath.Join(other, "victim.md")
	os.WriteFile(victim, []byte("precious"), 0o644)
	os.MkdirAll(filepath.Join(root, ".claude", "skills", "x"), 0o755)
	// A link to a folder outside, and a skill file linking outside.
	os.Symlink(other, filepath.Join(root, ".claude", "skills", "evil"))
	os.MkdirAll(filepath.Join(root, ".claude", "agents"), 0o755)
	os.Symlink(victim, filepath.Join(root, ".claude", "agents", "evil.md"))
	rel, _ := filepath.Rel(filepath.Join(root, ".claude", "skills", "x"), victim)
	cases := map[string]string{
		"outside":                 victim,
		"dot_dot":                 filepath.Join(root, "..", filepath.Base(other), "victim.md"),
		"dot_dot_from_inside":     filepath.Join(root, ".claude", "skills", "x", rel),
		"dir_link_outside":        filepath.Join(root, ".claude", "skills", "evil", "victim.md"),
		"file_link_outside":       filepath.Join(root, ".claude", "agents", "evil.md"),
		"the_root_itself":         root,
		"relative_escape":         "../../../../../../../../../../" + strings.TrimPrefix(victim, "/"),
		"empty_roots_never_write": "",
	}
	for name, path := range cases {
		t.Run(name, func(t *testing.T) {
			roots := []string{root}
			if path == "" {
				path, roots = filepath.Join(root, ".claude", "skills", "x", "SKILL.md"), nil
			}
			if err := WriteFileAtomic(path, []byte("pwned"), roots); !errors.Is(err, ErrOutsideRoots) {
				t.Errorf("WriteFileAtomic: err = %v, want ErrOutsideRoots", err)
			}
			if err := Rollback(path, Hash([]byte("precious")), []byte("pwned"), roots); !errors.Is(err, ErrOutsideRoots) {
				t.Errorf("Rollback: err = %v, want ErrOutsideRoots", err)
			}
			if WithinRoots(path, roots) {
				t.Errorf("WithinRoots says yes")
			}
		})
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Fatalf("victim holds %q", b)
	}
	onlyFiles(t, other, "victim.md")
}

func TestRootGivenThroughLink(t *testing.T) {
	// The root is named through a link (macOS /tmp, a linked home): writes
	// under it are fine.
	base := t.TempDir()
	real := filepath.Join(base, "real")
	p := treetest.Skill(t, real, "x", "v1", 0o644)
	os.Symlink(real, filepath.Join(base, "alias"))
	if err := WriteFileAtomic(p, []byte("v2"), []string{filepath.Join(base, "alias")}); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(filepath.Join(base, "alias", ".claude", "skills", "x", "SKILL.md"), []byte("v3"), []string{real}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "v3" {
		t.Fatalf("holds %q", b)
	}
}

func TestWriteFileAtomicNotRegular(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".claude", "skills", "x", "SKILL.md")
	os.MkdirAll(dir, 0o755)
	if err := WriteFileAtomic(dir, []byte("x"), []string{root}); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("err = %v, want ErrNotRegular", err)
	}
	onlyFiles(t, filepath.Dir(dir), "SKILL.md")
}

func TestRollback(t *testing.T) {
	v1, v2, human := "# Deploy\n\nv1 text\n", "# Deploy\n\nv2 text, worse\n", "# Deploy\n\nfixed by hand\n"
	type result struct {
		err     error
		content string
	}
	cases := []struct {
		name    string
		setup   func(t *testing.T, p string) // the file holds v2 before setup
		expect  string
		want    result
		unmoved bool // the file must be byte for byte and mtime as before
	}{
		{"restores", func(t *testing.T, p string) {}, Hash([]byte(v2)), result{nil, v1}, false},
		{"edited_is_conflict", func(t *testing.T, p string) { os.WriteFile(p, []byte(human), 0o640) }, Hash([]byte(v2)), result{ErrConflict, human}, true},
		{"already_restored", func(t *testing.T, p string) { os.WriteFile(p, []byte(v1), 0o640) }, Hash([]byte(v1)), result{nil, v1}, true},
		{"deleted_is_conflict", func(t *testing.T, p string) { os.Remove(p) }, Hash([]byte(v2)), result{ErrConflict, ""}, false},
		{"expect_absent_creates", func(t *testing.T, p string) { os.Remove(p) }, "", result{nil, v1}, false},
		{"expect_absent_but_there", func(t *testing.T, p string) {}, "", result{ErrConflict, v2}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			p := treetest.Skill(t, root, "deploy", v2, 0o640)
			c.setup(t, p)
			old := time.Now().Add(-time.Hour).Truncate(time.Second)
			os.Chtimes(p, old, old)
			before, _ := os.ReadFile(p)
			err := Rollback(p, c.expect, []byte(v1), []string{root})
			if !errors.Is(err, c.want.err) || (err == nil) != (c.want.err == nil) {
				t.Fatalf("err = %v, want %v", err, c.want.err)
			}
			got, rerr := os.ReadFile(p)
			if c.want.content == "" {
				if !errors.Is(rerr, fs.ErrNotExist) {
					t.Fatalf("a deleted file was recreated: %q", got)
				}
			} else if string(got) != c.want.content {
				t.Fatalf("file holds %q, want %q", got, c.want.content)
			}
			if c.unmoved {
				fi, _ := os.Stat(p)
				if !bytes.Equal(got, before) || !fi.ModTime().Equal(old) || fi.Mode() != 0o640 {
					t.Fatalf("the file was touched: %q mtime %v mode %v", got, fi.ModTime(), fi.Mode())
				}
			}
			if c.want.err == nil && c.want.content != "" && c.name == "restores" {
				if fi, _ := os.Stat(p); fi.Mode() != 0o640 {
					t.Fatalf("mode %v", fi.Mode())
				}
			}
			if c.want.content == "" {
				onlyFiles(t, filepath.Dir(p))
			} else {
				onlyFiles(t, filepath.Dir(p), "SKILL.md")
			}
			if errors.Is(err, ErrConflict) && !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestHashIsTwelveHex(t *testing.T) {
	// sha256("abc") = ba7816bf8f01cfea414140de5dae2223…
	if h := Hash([]byte("abc")); h != "ba7816bf8f01" {
		t.Fatalf("Hash(abc) = %s", h)
	}
}

// TestRollbackSymlinkSwap: the prompt file is swapped for a link to a file
// outside the root after the rollback located it (the race a path check
// loses): the file descriptor check refuses it, the outside file is
// unchanged, and nothing is left behind.
func TestRollbackSymlinkSwap(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	v1, v2 := "v1 good\n", "v2 bad\n"
	p := treetest.Skill(t, root, "deploy", v2, 0o644)
	victim := filepath.Join(outside, "secret")
	// The worst case: the outside file holds exactly the expected version,
	// so a rollback that followed the link would pass the hash check.
	os.WriteFile(victim, []byte(v2), 0o600)
	for _, when := range []string{"before", "during"} {
		t.Run(when, func(t *testing.T) {
			os.Remove(p)
			os.WriteFile(p, []byte(v2), 0o644)
			swap := func(string) {
				os.Remove(p)
				if err := os.Symlink(victim, p); err != nil {
					t.Fatal(err)
				}
			}
			if when == "before" {
				swap("")
			} else {
				testHookLocated = swap
				defer func() { testHookLocated = nil }()
			}
			err := Rollback(p, Hash([]byte(v2)), []byte(v1), []string{root})
			if !errors.Is(err, ErrOutsideRoots) && !errors.Is(err, ErrNotRegular) {
				t.Fatalf("err = %v, want a refusal", err)
			}
			if b, _ := os.ReadFile(victim); string(b) != v2 {
				t.Fatalf("the outside file was written: %q", b)
			}
			if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("the link was replaced: %v %v", fi, err)
			}
			onlyFiles(t, filepath.Dir(p), "SKILL.md")
			onlyFiles(t, outside, "secret")
		})
	}
}
