package mutation

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Change is a prompt file's new content, after the debounce.
type Change struct {
	File    PromptFile
	Hash    string
	Content []byte
	Removed bool
	Time    time.Time
}

// Watcher follows the prompt files under a set of roots with fsnotify. It
// watches the directories that can hold prompt files (fsnotify is not
// recursive), adds watches as such directories appear, and merges a burst
// of writes to one file (an editor's save) into one Change after a quiet
// period.
type Watcher struct {
	debounce time.Duration
	out      chan Change

	mu      sync.Mutex
	fw      *fsnotify.Watcher
	roots   map[string]bool // root -> user
	timers  map[string]*time.Timer
	closed  bool
	done    chan struct{}
	cancel  context.CancelFunc
	watched map[string]bool
}

// NewWatcher returns a Watcher; call Open, then AddRoot.
func NewWatcher(debounce time.Duration) *Watcher {
	return &Watcher{debounce: debounce, out: make(chan Change, 256), roots: map[string]bool{},
		timers: map[string]*time.Timer{}, watched: map[string]bool{}}
}

// Changes delivers debounced changes until Close.
func (w *Watcher) Changes() <-chan Change { return w.out }

// Open starts the watcher's goroutine.
func (w *Watcher) Open(ctx context.Context) error {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	w.fw = fw
	ctx, w.cancel = context.WithCancel(ctx)
	w.done = make(chan struct{})
	go w.run(ctx)
	return nil
}

// Close stops the goroutine and pending debounces.
func (w *Watcher) Close() error {
	if w.cancel == nil {
		return nil
	}
	w.cancel()
	<-w.done
	w.mu.Lock()
	w.closed = true
	for _, t := range w.timers {
		t.Stop()
	}
	w.mu.Unlock()
	return w.fw.Close()
}

// AddRoot watches a project root (user=false: its .claude/ and CLAUDE.md)
// or the user's home (user=true: ~/.claude/ only). It returns the prompt
// files found there now.
func (w *Watcher) AddRoot(root string, user bool) []PromptFile {
	root = filepath.Clean(root)
	w.mu.Lock()
	if _, ok := w.roots[root]; ok {
		w.mu.Unlock()
		return nil
	}
	w.roots[root] = user
	w.mu.Unlock()
	w.watchTree(root, user)
	return scanRoot(root, user)
}

// watchTree adds watches on the directories that can hold prompt files.
func (w *Watcher) watchTree(root string, user bool) {
	dirs := []string{filepath.Join(root, ".claude"), filepath.Join(root, ".claude", "skills"),
		filepath.Join(root, ".claude", "agents"), filepath.Join(root, ".claude", "commands")}
	if !user {
		dirs = append(dirs, root)
	}
	skills, _ := filepath.Glob(filepath.Join(root, ".claude", "skills", "*"))
	dirs = append(dirs, skills...)
	for _, d := range dirs {
		w.watch(d)
	}
}

func (w *Watcher) watch(dir string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watched[dir] || w.fw == nil {
		return
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return
	}
	if err := w.fw.Add(dir); err == nil {
		w.watched[dir] = true
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
			w.handle(ev)
		case <-w.fw.Errors:
		}
	}
}

func (w *Watcher) handle(ev fsnotify.Event) {
	if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
		// A new directory: .claude, skills/, a skill's folder.
		if root, user, ok := w.rootOf(ev.Name); ok {
			w.watchTree(root, user)
			for _, pf := range scanRoot(root, user) {
				w.schedule(pf)
			}
		}
		return
	}
	root, user, ok := w.rootOf(ev.Name)
	if !ok {
		return
	}
	if pf, ok := classify(root, ev.Name, user); ok {
		w.schedule(pf)
	}
}

// rootOf finds the watched root a path belongs to.
func (w *Watcher) rootOf(p string) (string, bool, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	best := ""
	for r := range w.roots {
		if rel, err := filepath.Rel(r, p); err == nil && rel != ".." && (len(rel) < 3 || rel[:3] != "../") && len(r) > len(best) {
			best = r
		}
	}
	if best == "" {
		return "", false, false
	}
	return best, w.roots[best], true
}

// schedule (re)starts the file's quiet-period timer.
func (w *Watcher) schedule(pf PromptFile) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if t, ok := w.timers[pf.Path]; ok {
		t.Stop()
	}
	w.timers[pf.Path] = time.AfterFunc(w.debounce, func() { w.fire(pf) })
}

func (w *Watcher) fire(pf PromptFile) {
	w.mu.Lock()
	delete(w.timers, pf.Path)
	closed := w.closed
	w.mu.Unlock()
	if closed {
		return
	}
	c := Change{File: pf, Time: time.Now().UTC()}
	b, err := os.ReadFile(pf.Path)
	if err != nil {
		c.Removed = true
	} else {
		c.Content, c.Hash = b, Hash(b)
	}
	select {
	case w.out <- c:
	default:
		// The engine is far behind: the next write re-delivers the file.
	}
}
