package fswatch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

func open(t *testing.T) *Watcher {
	t.Helper()
	w, err := Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func write(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// next waits for an event of sub about path, ignoring others.
func next(t *testing.T, s *Sub, path string) bool {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev := <-s.Events():
			if ev.Name == path {
				return true
			}
		case err := <-s.Errors():
			t.Fatalf("error %v", err)
		case <-deadline:
			return false
		}
	}
}

// none reports whether sub gets no event about a path in dir for a while.
func none(s *Sub, dir string) (fsnotify.Event, bool) {
	deadline := time.After(200 * time.Millisecond)
	for {
		select {
		case ev := <-s.Events():
			if filepath.Dir(ev.Name) == dir || ev.Name == dir {
				return ev, false
			}
		case <-deadline:
			return fsnotify.Event{}, true
		}
	}
}

func TestEachSubscriberGetsItsPaths(t *testing.T) {
	w := open(t)
	da, db := t.TempDir(), t.TempDir()
	a, b := w.Subscribe(), w.Subscribe()
	if err := a.Add(da); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(db); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(da, "one"))
	if !next(t, a, filepath.Join(da, "one")) {
		t.Fatal("a got no event for its directory")
	}
	if ev, ok := none(b, da); !ok {
		t.Fatalf("b got %v, an event of a's directory", ev)
	}
	write(t, filepath.Join(db, "two"))
	if !next(t, b, filepath.Join(db, "two")) {
		t.Fatal("b got no event for its directory")
	}
	if ev, ok := none(a, db); !ok {
		t.Fatalf("a got %v, an event of b's directory", ev)
	}
}

// Two subscribers of one directory share its watch: when one removes it,
// the other goes on receiving its events.
func TestSharedPathOutlivesOneSubscriber(t *testing.T) {
	w := open(t)
	dir := t.TempDir()
	a, b := w.Subscribe(), w.Subscribe()
	for _, s := range []*Sub{a, b, a} { // a twice: still one reference
		if err := s.Add(dir); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(dir, "one"))
	if !next(t, a, filepath.Join(dir, "one")) || !next(t, b, filepath.Join(dir, "one")) {
		t.Fatal("both subscribers should get the event")
	}
	a.Remove(dir)
	write(t, filepath.Join(dir, "two"))
	if !next(t, b, filepath.Join(dir, "two")) {
		t.Fatal("b lost its watch when a removed the shared path")
	}
	for deadline := time.After(200 * time.Millisecond); ; { // a may still hold events of "one"
		var ev fsnotify.Event
		select {
		case ev = <-a.Events():
		case <-deadline:
		}
		if ev.Name == "" {
			break
		}
		if ev.Name == filepath.Join(dir, "two") {
			t.Fatalf("a got %v after removing the path", ev)
		}
	}
	b.Close()
	if got := len(w.refs); got != 0 {
		t.Fatalf("%d paths still referenced after both let go", got)
	}
	if got := len(w.fw.WatchList()); got != 0 {
		t.Fatalf("fsnotify still watches %v", w.fw.WatchList())
	}
}

// A subscriber that does not read is told it missed events, and never
// holds up the others.
func TestSlowSubscriberOverflowsAlone(t *testing.T) {
	w := open(t)
	dir := t.TempDir()
	slow, fast := w.Subscribe(), w.Subscribe()
	for _, s := range []*Sub{slow, fast} {
		if err := s.Add(dir); err != nil {
			t.Fatal(err)
		}
	}
	const files = eventBuffer + 64
	got := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for got < files {
			select {
			case ev := <-fast.Events():
				if ev.Has(fsnotify.Create) {
					got++
				}
			case <-time.After(5 * time.Second):
				return
			}
		}
	}()
	for i := range files {
		f, err := os.Create(filepath.Join(dir, "f"+strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	<-done
	if got != files {
		t.Fatalf("the reading subscriber got %d of %d creations", got, files)
	}
	select {
	case err := <-slow.Errors():
		if !errors.Is(err, fsnotify.ErrEventOverflow) {
			t.Fatalf("slow subscriber: %v, want ErrEventOverflow", err)
		}
	default:
		t.Fatal("the slow subscriber was not told it missed events")
	}
	if n := len(slow.Events()); n != eventBuffer {
		t.Fatalf("slow subscriber holds %d events, want a full buffer (%d)", n, eventBuffer)
	}
}

func TestAddAfterClose(t *testing.T) {
	w := open(t)
	s := w.Subscribe()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(t.TempDir()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Add after Close: %v, want ErrClosed", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	s.Close() // harmless
}
