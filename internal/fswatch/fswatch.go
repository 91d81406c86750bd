// Package fswatch shares one fsnotify watcher among the parts of the
// daemon that watch files (the collector follows $SEPA_HOME, the mutation
// engine the prompt directories), each part receiving the events of the
// paths it added.
//
// One watcher rather than one each: fsnotify's Linux reader keeps a
// 64 KiB buffer on its goroutine's stack, and the Go runtime sizes every
// new goroutine's stack by the average stack it scanned at the last
// collection. Two such readers among the daemon's twenty-odd goroutines
// made that average 16 KiB, so every goroutine an API request starts got
// 16 KiB, and the finished ones the runtime keeps for reuse (up to 64 a
// processor) added up under load; with one reader new goroutines start
// with 8 KiB (docs/store.md). It also spends one
// inotify instance of the user's 128 instead of two.
package fswatch

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// ErrClosed is returned by Add after the watcher was closed.
var ErrClosed = errors.New("fswatch: watcher closed")

// eventBuffer is how many events a subscriber may fall behind before it
// is told it missed some (fsnotify.ErrEventOverflow on Errors).
const eventBuffer = 256

// Watcher is one fsnotify watcher whose events are delivered to its
// subscribers. Its goroutine runs from Open to Close.
type Watcher struct {
	fw     *fsnotify.Watcher
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	closed bool
	subs   map[*Sub]bool
	// refs counts the subscribers that added each path: the watch is
	// removed when the last one does.
	refs map[string]int
}

// Sub receives the events of the paths it added: an event whose path is
// one of them or directly inside one. When it falls behind by more than
// a buffer, later events are dropped and fsnotify.ErrEventOverflow is
// sent on Errors instead, as fsnotify itself does when the kernel's
// queue overflows: look at everything again.
type Sub struct {
	w      *Watcher
	events chan fsnotify.Event
	errs   chan error
	// paths are guarded by w.mu.
	paths map[string]bool
}

// Open starts a watcher. Close stops it.
func Open(ctx context.Context) (*Watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("open file watcher: %w", err)
	}
	w := &Watcher{fw: fw, done: make(chan struct{}), subs: map[*Sub]bool{}, refs: map[string]int{}}
	ctx, w.cancel = context.WithCancel(ctx)
	go w.run(ctx)
	return w, nil
}

// Close stops delivering and releases every watch. The subscribers'
// channels are not closed: their owners stop on their own.
func (w *Watcher) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	w.cancel()
	<-w.done
	return w.fw.Close()
}

// Subscribe returns a subscriber with no paths yet.
func (w *Watcher) Subscribe() *Sub {
	s := &Sub{w: w, events: make(chan fsnotify.Event, eventBuffer), errs: make(chan error, 1), paths: map[string]bool{}}
	w.mu.Lock()
	w.subs[s] = true
	w.mu.Unlock()
	return s
}

// Events are the events of the subscriber's paths.
func (s *Sub) Events() <-chan fsnotify.Event { return s.events }

// Errors are the watcher's errors, and fsnotify.ErrEventOverflow when
// the subscriber missed events.
func (s *Sub) Errors() <-chan error { return s.errs }

// Add watches path (a directory: its entries' events; or a file) for
// this subscriber. Adding a path twice is harmless.
func (s *Sub) Add(path string) error {
	path = filepath.Clean(path)
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("watch %s: %w", path, ErrClosed)
	}
	if s.paths[path] {
		return nil
	}
	if w.refs[path] == 0 {
		if err := w.fw.Add(path); err != nil {
			return err
		}
	}
	w.refs[path]++
	s.paths[path] = true
	return nil
}

// Remove stops watching path for this subscriber; the watch itself goes
// when no other subscriber holds it. Removing a path not added, or one
// whose directory was deleted (the kernel dropped its watch), is harmless.
func (s *Sub) Remove(path string) {
	path = filepath.Clean(path)
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	s.removeLocked(path)
}

func (s *Sub) removeLocked(path string) {
	w := s.w
	if !s.paths[path] {
		return
	}
	delete(s.paths, path)
	if w.refs[path]--; w.refs[path] <= 0 {
		delete(w.refs, path)
		if !w.closed {
			_ = w.fw.Remove(path) // already gone when the directory was deleted
		}
	}
}

// Close stops the subscriber's delivery and removes the watches no other
// subscriber holds.
func (s *Sub) Close() {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	delete(s.w.subs, s)
	for p := range s.paths {
		s.removeLocked(p)
	}
}

func (w *Watcher) run(ctx context.Context) {
	defer close(w.done)
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			w.deliver(ev)
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			w.broadcast(err)
		}
	}
}

// deliver sends ev to every subscriber that added its path or the
// directory holding it, without ever waiting for one.
func (w *Watcher) deliver(ev fsnotify.Event) {
	name := filepath.Clean(ev.Name)
	dir := filepath.Dir(name)
	w.mu.Lock()
	defer w.mu.Unlock()
	for s := range w.subs {
		if !s.paths[name] && !s.paths[dir] {
			continue
		}
		select {
		case s.events <- ev:
		default:
			s.sendErr(fsnotify.ErrEventOverflow)
		}
	}
}

func (w *Watcher) broadcast(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for s := range w.subs {
		s.sendErr(err)
	}
}

// sendErr queues err unless an error is already waiting: the owner reads
// one and looks at everything again, which covers the rest.
func (s *Sub) sendErr(err error) {
	select {
	case s.errs <- err:
	default:
	}
}
