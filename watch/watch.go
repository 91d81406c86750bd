// Package watch follows Claude Code prompt files for new versions: every
// directory that can hold one watched with fsnotify (through the daemon's
// shared watcher, internal/fswatch, when there is one), a burst of events on
// a file merged into one read after a quiet period (debounce.go), and a
// Change reported only when the content's hash differs. The mutation engine
// turns each Change into a version.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/sepad/sepad/internal/fswatch"
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/promptfile"
)

// Change is a prompt file's new version, or its removal, after the
// debounce.
type Change struct {
	prompt.File
	// Hash is promptfile.Hash(Content); "" when Removed.
	Hash    string
	Content []byte
	Removed bool
	Time    time.Time
}

// Stats count what a Watcher did, for diagnostics and tests.
type Stats struct {
	Events  int // fsnotify events handled
	Changes int // changes queued for delivery
	Rescans int // full rescans after the kernel's queue overflowed
	Errors  int // watch and read errors (the last is in LastError)
	// LastError is the last watch or read error, "" if none.
	LastError string
	// Watched is the number of directories watched now.
	Watched int
}

// ErrClosed is returned by AddRoot after Close.
var ErrClosed = errors.New("watcher closed")

// Watcher follows the prompt files under a set of roots with fsnotify. It
// watches each directory that can hold prompt files (fsnotify is not
// recursive) and adds watches as such directories appear; it merges a
// burst of events on one file (an editor's save: write in place, write a
// temporary file and rename it over, delete and create) into one read
// after a quiet period, and reports a Change only when the content's hash
// differs from the last one reported. A Change waiting for delivery is
// replaced by a newer one for the same file, never dropped.
type Watcher struct {
	quiet time.Duration
	out   chan Change

	// shared is the daemon's file watcher (SetShared); own is the one
	// Open starts when there is none.
	shared, own *fswatch.Watcher

	mu      sync.Mutex
	fw      *fswatch.Sub
	roots   map[string]prompt.RootKind
	watched map[string]bool
	last    map[string]string // path -> hash last reported ("" = absent)
	stats   Stats
	state   int // 0 new, 1 open, 2 closed
	cancel  context.CancelFunc
	done    chan struct{}

	// Owned by the run goroutine.
	deb    *Debouncer
	outbox []Change
}

// New returns a Watcher with the given quiet period (300 ms when
// zero or negative); call Open, then AddRoot (or AddRoot first: roots are
// watched from Open on).
func New(quiet time.Duration) *Watcher {
	if quiet <= 0 {
		quiet = 300 * time.Millisecond
	}
	return &Watcher{quiet: quiet, out: make(chan Change), roots: map[string]prompt.RootKind{},
		watched: map[string]bool{}, last: map[string]string{}, deb: NewDebouncer(quiet)}
}

// SetShared makes Open subscribe to the daemon's file watcher instead of
// starting one of its own (package fswatch says why). Call it before Open.
func (w *Watcher) SetShared(sw *fswatch.Watcher) { w.shared = sw }

// Changes delivers changes in the order they settled. It is never closed:
// consumers stop on their own context.
func (w *Watcher) Changes() <-chan Change { return w.out }

// Open starts watching, in a goroutine of the Watcher's own that runs
// until Close or until ctx is done.
func (w *Watcher) Open(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.state != 0 {
		return fmt.Errorf("open watcher: %w", ErrClosed)
	}
	sw := w.shared
	if sw == nil {
		var err error
		if sw, err = fswatch.Open(ctx); err != nil {
			return fmt.Errorf("open watcher: %w", err)
		}
		w.own = sw
	}
	fw := sw.Subscribe()
	w.fw, w.state = fw, 1
	for root := range w.roots {
		w.watchRootLocked(root)
	}
	ctx, w.cancel = context.WithCancel(ctx)
	w.done = make(chan struct{})
	go w.run(ctx, fw)
	return nil
}

// Close stops the goroutine and releases the watches. Changes not yet
// delivered are dropped; the next Scan or AddRoot sees the files as they
// are. Close is idempotent.
func (w *Watcher) Close() error {
	w.mu.Lock()
	if w.state != 1 {
		w.state = 2
		w.mu.Unlock()
		return nil
	}
	w.state = 2
	cancel, done, fw := w.cancel, w.done, w.fw
	w.mu.Unlock()
	cancel()
	<-done
	fw.Close()
	if w.own != nil {
		return w.own.Close()
	}
	return nil
}

// AddRoot watches dir as a root of the given kind and returns the current
// version of every prompt file under it (a root added again with no new
// kind returns nothing). It may be called at any time, from any goroutine,
// as new projects appear. A watch that cannot be added (the kernel's
// limit) is reported in the error; the changes are valid even then.
func (w *Watcher) AddRoot(dir string, kind prompt.RootKind) ([]Change, error) {
	if !filepath.IsAbs(dir) {
		// Never joined to the working directory: a relative name (or
		// another system's path) would watch whatever lies there.
		return nil, fmt.Errorf("watch %s: not an absolute path on this system", dir)
	}
	dir = filepath.Clean(dir)
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("watch %s: not a directory", dir)
	}
	w.mu.Lock()
	if w.state == 2 {
		w.mu.Unlock()
		return nil, fmt.Errorf("watch %s: %w", dir, ErrClosed)
	}
	old, had := w.roots[dir]
	w.roots[dir] = old | kind
	var werr error
	if w.state == 1 {
		werr = w.watchRootLocked(dir) // before scanning: no edit falls in between
	}
	w.mu.Unlock()
	if had && old|kind == old {
		return nil, werr
	}
	return w.scan(dir, old|kind), werr
}

// Roots returns the watched roots and their kinds.
func (w *Watcher) Roots() map[string]prompt.RootKind {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]prompt.RootKind, len(w.roots))
	for r, k := range w.roots {
		out[r] = k
	}
	return out
}

// Scan returns the current version of every prompt file under the roots,
// sorted by path (used at startup).
func (w *Watcher) Scan() []Change {
	var out []Change
	for root, kind := range w.Roots() {
		out = append(out, w.scan(root, kind)...)
	}
	sortChanges(out)
	return out
}

// Stats returns the counters.
func (w *Watcher) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.stats
	s.Watched = len(w.watched)
	return s
}

func sortChanges(cs []Change) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].Path < cs[j-1].Path; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

// scan reads the prompt files under root and records them as reported.
func (w *Watcher) scan(root string, kind prompt.RootKind) []Change {
	var out []Change
	for _, pf := range prompt.ScanRoot(root, kind) {
		b, err := readPrompt(root, pf.Path)
		if err != nil {
			w.noteErr(err)
			continue
		}
		c := Change{File: pf, Hash: promptfile.Hash(b), Content: b, Time: time.Now().UTC()}
		w.mu.Lock()
		w.last[pf.Path] = c.Hash
		w.mu.Unlock()
		out = append(out, c)
	}
	return out
}

// readPrompt reads a prompt file found under root, refusing anything but
// a regular file of at most promptfile.MaxPromptSize bytes reached without leaving
// root (a link to a file outside is never read, so its hash never
// reaches the store).
func readPrompt(root, path string) ([]byte, error) {
	return promptfile.ReadInRoots(path, []string{root})
}

func (w *Watcher) noteErr(err error) {
	w.mu.Lock()
	w.stats.Errors++
	w.stats.LastError = err.Error()
	w.mu.Unlock()
}

// watchRootLocked adds watches on root's prompt directories. w.mu held.
func (w *Watcher) watchRootLocked(root string) error {
	var errs []error
	for _, d := range prompt.Dirs(root) {
		if w.watched[d] {
			continue
		}
		if err := w.fw.Add(d); err != nil {
			w.stats.Errors++
			w.stats.LastError = err.Error()
			errs = append(errs, fmt.Errorf("watch %s: %w", d, err))
			continue
		}
		w.watched[d] = true
	}
	return errors.Join(errs...)
}

// rootOf finds the innermost watched root holding p (or equal to it).
func (w *Watcher) rootOf(p string) (string, prompt.RootKind, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	best, kind := "", prompt.RootKind(0)
	for r, k := range w.roots {
		if (p == r || promptfile.Under(p, []string{r})) && len(r) > len(best) {
			best, kind = r, k
		}
	}
	return best, kind, best != ""
}

func (w *Watcher) run(ctx context.Context, fw *fswatch.Sub) {
	defer close(w.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		var out chan<- Change
		var head Change
		if len(w.outbox) > 0 {
			out, head = w.out, w.outbox[0]
		}
		if next, ok := w.deb.Next(); ok {
			timer.Reset(max(time.Until(next), 0))
		} else {
			timer.Stop()
		}
		select {
		case <-ctx.Done():
			return
		case ev := <-fw.Events(): // never closed (fswatch): ctx ends the loop
			w.handle(ev)
		case err := <-fw.Errors():
			w.noteErr(err)
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.rescan() // events were lost: look at everything
			}
		case <-timer.C:
			w.flush(time.Now())
		case out <- head:
			w.outbox = w.outbox[1:]
		}
	}
}

func (w *Watcher) handle(ev fsnotify.Event) {
	w.mu.Lock()
	w.stats.Events++
	w.mu.Unlock()
	if ev.Op == fsnotify.Chmod {
		return // content unchanged
	}
	name := filepath.Clean(ev.Name)
	root, kind, ok := w.rootOf(name)
	if !ok {
		return
	}
	now := time.Now()
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Stat(name); err == nil && fi.IsDir() {
			if prompt.HoldsPrompts(root, name) {
				// A new .claude, skills/, agents/ or skill folder: watch it
				// and look at what was written there before the watch.
				w.mu.Lock()
				w.watchRootLocked(root)
				w.mu.Unlock()
				for _, pf := range prompt.ScanRoot(root, kind) {
					w.deb.Touch(pf.Path, now)
				}
			}
			return
		}
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		if w.dropDir(name) {
			// A watched folder went away (or was moved: its watch would
			// go on reporting under the old name). Its files are gone
			// from here: read them again, which reports removals.
			w.mu.Lock()
			var gone []string
			for p := range w.last {
				if strings.HasPrefix(p, name+string(filepath.Separator)) {
					gone = append(gone, p)
				}
			}
			w.mu.Unlock()
			for _, p := range gone {
				w.deb.Touch(p, now)
			}
			return
		}
	}
	if _, ok := prompt.Classify(root, name, kind); ok {
		w.deb.Touch(name, now)
	}
}

// dropDir forgets the watches on dir and below; it reports whether dir was
// watched.
func (w *Watcher) dropDir(dir string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.watched[dir] {
		return false
	}
	for d := range w.watched {
		if d == dir || strings.HasPrefix(d, dir+string(filepath.Separator)) {
			delete(w.watched, d)
			w.fw.Remove(d) // harmless when already gone
		}
	}
	return true
}

// rescan touches every prompt file and every file reported before.
func (w *Watcher) rescan() {
	now := time.Now()
	w.mu.Lock()
	w.stats.Rescans++
	var known []string
	for p := range w.last {
		known = append(known, p)
	}
	roots := make(map[string]prompt.RootKind, len(w.roots))
	for r, k := range w.roots {
		roots[r] = k
		w.watchRootLocked(r)
	}
	w.mu.Unlock()
	for _, p := range known {
		w.deb.Touch(p, now)
	}
	for r, k := range roots {
		for _, pf := range prompt.ScanRoot(r, k) {
			w.deb.Touch(pf.Path, now)
		}
	}
}

// flush reads the files whose bursts settled and queues their changes.
func (w *Watcher) flush(now time.Time) {
	for _, p := range w.deb.Pop(now) {
		root, kind, ok := w.rootOf(p)
		if !ok {
			continue
		}
		pf, ok := prompt.Classify(root, p, kind)
		if !ok {
			continue
		}
		c := Change{File: pf, Time: now.UTC()}
		b, err := readPrompt(root, p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			c.Removed = true
		case err != nil:
			w.noteErr(err)
			continue
		default:
			c.Content, c.Hash = b, promptfile.Hash(b)
		}
		w.mu.Lock()
		prev, seen := w.last[p]
		report := c.Hash != prev && (seen || !c.Removed)
		if report {
			w.last[p] = c.Hash
			if c.Removed {
				delete(w.last, p)
			}
			w.stats.Changes++
		}
		w.mu.Unlock()
		if report {
			w.enqueue(c)
		}
	}
}

// enqueue adds c to the outbox, replacing a waiting change of the same
// file: consumers want the file's current version, not its history.
func (w *Watcher) enqueue(c Change) {
	for i := range w.outbox {
		if w.outbox[i].Path == c.Path {
			w.outbox[i] = c
			return
		}
	}
	w.outbox = append(w.outbox, c)
}
