package spool

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestHome(t *testing.T) {
	t.Setenv("HOME", "/home/ana")
	t.Setenv("SEPA_HOME", "/x/sepa")
	t.Setenv("XDG_STATE_HOME", "/xdg")
	if h := Home(); h != "/x/sepa" {
		t.Errorf("SEPA_HOME: %q", h)
	}
	t.Setenv("SEPA_HOME", "")
	if h := Home(); h != "/xdg/sepa" {
		t.Errorf("XDG_STATE_HOME: %q", h)
	}
	t.Setenv("XDG_STATE_HOME", "relative/state")
	if h := Home(); h != "/home/ana/.local/state/sepa" {
		t.Errorf("relative XDG_STATE_HOME must be ignored: %q", h)
	}
	t.Setenv("XDG_STATE_HOME", "")
	if h := Home(); h != "/home/ana/.local/state/sepa" {
		t.Errorf("default: %q", h)
	}
	if Path("/h") != "/h/events.jsonl" || FallbackPath("/h") != "/h/events.fallback.jsonl" || LockPath("/h") != "/h/spool.lock" {
		t.Error("paths changed: they are a contract with the collector and post-execution.sh")
	}
}

func TestAppendCreatesPrivateFiles(t *testing.T) {
	home := filepath.Join(t.TempDir(), "a", "sepa")
	wrote, err := Append(home, []byte(`{"x":1}`), time.Second)
	if err != nil || wrote != Path(home) {
		t.Fatalf("Append = %q, %v", wrote, err)
	}
	if _, err := Append(home, []byte(`{"x":2}`+"\n"), time.Second); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(Path(home))
	if string(b) != "{\"x\":1}\n{\"x\":2}\n" {
		t.Fatalf("spool = %q", b)
	}
	for p, want := range map[string]os.FileMode{home: 0o700, Path(home): 0o600, LockPath(home): 0o600} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", p, fi.Mode().Perm(), err, want)
		}
	}
	if _, err := Append(home, []byte("a\nb"), time.Second); !errors.Is(err, ErrBadLine) {
		t.Fatalf("a line with a newline: %v", err)
	}
}

func TestLockTimeout(t *testing.T) {
	home := t.TempDir()
	unlock, err := Lock(home, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(home, 20*time.Millisecond); !errors.Is(err, ErrLockTimeout) {
		t.Fatalf("second lock: %v, want ErrLockTimeout", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if err := unlock(); err != nil {
		t.Fatalf("second unlock: %v", err)
	}
	u2, err := Lock(home, 20*time.Millisecond)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	u2()
}

func TestAppendFallsBackWhenLocked(t *testing.T) {
	home := t.TempDir()
	unlock, err := Lock(home, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	wrote, err := Append(home, []byte(`{"n":1}`), 50*time.Millisecond)
	if err != nil || wrote != FallbackPath(home) {
		t.Fatalf("Append = %q, %v; want the fallback file", wrote, err)
	}
	if b, _ := os.ReadFile(FallbackPath(home)); string(b) != "{\"n\":1}\n" {
		t.Fatalf("fallback = %q", b)
	}
	if _, err := os.Stat(Path(home)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the spool was written without the lock")
	}
	n, err := FallbackCount(home)
	log, _ := os.ReadFile(FallbackLogPath(home))
	if n != 1 || err != nil || !strings.Contains(string(log), " lock-timeout\n") {
		t.Fatalf("fallback count %d (%v), log %q", n, err, log)
	}
}

func TestAppendFallsBackWhenSpoolUnwritable(t *testing.T) {
	home := t.TempDir()
	// A directory where the spool should be: every open for writing fails,
	// as it would on a full or read-only disk.
	if err := os.Mkdir(Path(home), 0o700); err != nil {
		t.Fatal(err)
	}
	wrote, err := Append(home, []byte(`{"n":2}`), time.Second)
	if err != nil || wrote != FallbackPath(home) {
		t.Fatalf("Append = %q, %v", wrote, err)
	}
	log, _ := os.ReadFile(FallbackLogPath(home))
	if !strings.Contains(string(log), " write-failed\n") {
		t.Fatalf("log %q", log)
	}
	// Nowhere to write at all: an error, and the line is reported lost.
	os.Remove(FallbackPath(home))
	os.Mkdir(FallbackPath(home), 0o700)
	noRuntimeDirs(t)
	if _, err := Append(home, []byte(`{"n":3}`), time.Second); err == nil || !strings.Contains(err.Error(), "line lost") {
		t.Fatalf("Append with no writable file: %v", err)
	}
}

// noRuntimeDirs makes RuntimeFallbackPaths find nothing for the rest of
// the test.
func noRuntimeDirs(t *testing.T) {
	old := runtimeBases
	runtimeBases = func() []string { return nil }
	t.Cleanup(func() { runtimeBases = old })
}

// runtimeDirs makes RuntimeFallbackPaths look only in dirs.
func runtimeDirs(t *testing.T, dirs ...string) {
	old := runtimeBases
	runtimeBases = func() []string { return dirs }
	t.Cleanup(func() { runtimeBases = old })
}

// TestAppendFallsBackToRuntimeDir: when neither the spool nor the fallback
// file in home can be written (a full disk), the line goes to the runtime
// fallback file on another file system, in a private directory, within
// its size bound.
func TestAppendFallsBackToRuntimeDir(t *testing.T) {
	if len(RuntimeFallbackPaths(t.TempDir())) == 0 {
		t.Skip("no runtime fallback on this platform")
	}
	home, rt, rt2 := t.TempDir(), t.TempDir(), t.TempDir()
	runtimeDirs(t, rt, rt2)
	os.Mkdir(Path(home), 0o700)
	os.Mkdir(FallbackPath(home), 0o700)
	paths := RuntimeFallbackPaths(home)
	if len(paths) != 2 || !strings.HasPrefix(paths[0], rt+"/sepa-") || !strings.HasPrefix(paths[1], rt2+"/sepa-") {
		t.Fatalf("runtime fallback paths %q", paths)
	}
	wrote, err := Append(home, []byte(`{"n":1}`), time.Second)
	if err != nil || wrote != paths[0] {
		t.Fatalf("Append = %q, %v; want %s", wrote, err, paths[0])
	}
	if b, _ := os.ReadFile(paths[0]); string(b) != "{\"n\":1}\n" {
		t.Fatalf("runtime fallback = %q", b)
	}
	fi, _ := os.Stat(filepath.Dir(paths[0]))
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("runtime fallback directory mode %v", fi.Mode().Perm())
	}
	// Bounded: a line that would pass RuntimeFallbackMax goes to the next
	// directory, and is lost when there is none.
	if err := os.Truncate(paths[0], RuntimeFallbackMax-4); err != nil {
		t.Fatal(err)
	}
	if wrote, err := Append(home, []byte(`{"n":2}`), time.Second); err != nil || wrote != paths[1] {
		t.Fatalf("Append past the bound = %q, %v; want %s", wrote, err, paths[1])
	}
	if fi, _ := os.Stat(paths[0]); fi.Size() != RuntimeFallbackMax-4 {
		t.Fatalf("full runtime fallback grew to %d", fi.Size())
	}
	runtimeDirs(t, rt)
	if _, err := Append(home, []byte(`{"n":3}`), time.Second); err == nil || !strings.Contains(err.Error(), "line lost") || !strings.Contains(err.Error(), ErrFallbackFull.Error()) {
		t.Fatalf("Append with the runtime fallback full: %v", err)
	}
}

// TestRuntimeDirMustBePrivate: a directory another user could have made in
// a shared place (/dev/shm), or a link, is never written through.
func TestRuntimeDirMustBePrivate(t *testing.T) {
	if len(RuntimeFallbackPaths(t.TempDir())) == 0 {
		t.Skip("no runtime fallback on this platform")
	}
	home, rt := t.TempDir(), t.TempDir()
	runtimeDirs(t, rt)
	os.Mkdir(Path(home), 0o700)
	os.Mkdir(FallbackPath(home), 0o700)
	p := RuntimeFallbackPaths(home)[0]
	if err := os.Mkdir(filepath.Dir(p), 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Dir(p), 0o777)
	if _, err := Append(home, []byte(`{"n":1}`), time.Second); err == nil {
		t.Fatal("wrote into a directory others can write")
	}
	os.Remove(filepath.Dir(p))
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Dir(p)); err != nil {
		t.Fatal(err)
	}
	if _, err := Append(home, []byte(`{"n":1}`), time.Second); err == nil {
		t.Fatal("wrote through a link")
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Fatalf("files written through the link: %v", ents)
	}
}

// TestAppendDuringRotation: appends racing with a rotator that renames the
// spool under the lock, as the collector does. Every line ends up whole in
// exactly one file.
func TestAppendDuringRotation(t *testing.T) {
	home := t.TempDir()
	const writers, each = 4, 300
	stop := make(chan struct{})
	var rot sync.WaitGroup
	rot.Add(1)
	go func() {
		defer rot.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			unlock, err := Lock(home, time.Second)
			if err != nil {
				continue
			}
			os.Rename(Path(home), fmt.Sprintf("%s.%06d", Path(home), i))
			unlock()
			time.Sleep(time.Millisecond)
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				line := fmt.Sprintf(`{"w":%d,"i":%d,"pad":"%s"}`, w, i, strings.Repeat("p", i*7))
				if _, err := Append(home, []byte(line), 5*time.Second); err != nil {
					t.Error(err)
				}
			}
		}(w)
	}
	wg.Wait()
	close(stop)
	rot.Wait()
	files, _ := filepath.Glob(filepath.Join(home, "events.*"))
	seen := map[string]bool{}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if len(b) > 0 && b[len(b)-1] != '\n' {
			t.Fatalf("%s ends in a partial line", f)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if seen[sc.Text()] {
				t.Fatalf("duplicate line %q", sc.Text())
			}
			seen[sc.Text()] = true
		}
	}
	if len(seen) != writers*each {
		t.Fatalf("%d lines, want %d", len(seen), writers*each)
	}
}
