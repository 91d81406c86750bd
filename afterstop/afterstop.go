// Package afterstop runs a project's own check when an execution that
// changed its files ends (outcome.after_stop, docs/outcome.md "Checking
// for yourself"): the configured command, in the configured project
// directory, only when that directory is a project `sepad install`
// recorded, bounded in time (the command and its children are killed at
// the bound) and in output. The command and the directory come from the
// configuration alone; an event only says which execution ended where.
//
// A check starts at the Stop that ends the execution's turn, while the
// person reads the answer, so it sees the project as the execution left
// it; the daemon takes its result when it scores the execution (Take),
// waiting for a check still running at most until its bound.
package afterstop

import (
	"context"
	"errors"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sepad/sepad/execution"
)

// Plan is what the configuration says for one project.
type Plan struct {
	// Dir is the configured project directory the command runs in;
	// Command its words (Command[0] the program, no shell).
	Dir     string
	Command []string
	// Timeout and MaxOutput bound one run.
	Timeout   time.Duration
	MaxOutput int
}

// Options configure a Runner.
type Options struct {
	// Plan returns the check configured for a project directory (an
	// execution's project), ok false when none: read at every Stop, so a
	// reload applies at once.
	Plan func(project string) (Plan, bool)
	// Installed returns the projects `sepad install` recorded: a check
	// runs only in one of them (or below one).
	Installed func() []string
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger receives a line per check (default: discard).
	Logger *slog.Logger
	// MaxPending bounds the results kept for executions not scored yet
	// (default 256): the oldest go first.
	MaxPending int
}

// Runner starts checks and hands their results to the scorer.
type Runner struct {
	opts   Options
	mu     sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// byID are the checks of executions not scored yet; running the one
	// per project directory still running.
	byID    map[string]*job
	order   []string
	running map[string]*job
}

type job struct {
	id     string
	done   chan struct{}
	cancel context.CancelFunc
	chk    *execution.Check
	// superseded: a later Stop in the same directory cancelled it; its
	// result says nothing of the project as the execution left it.
	superseded bool
}

// New returns a Runner; Open starts it.
func New(o Options) *Runner {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxPending <= 0 {
		o.MaxPending = 256
	}
	return &Runner{opts: o, byID: map[string]*job{}, running: map[string]*job{}}
}

// Open makes the runner take Stops; the checks it starts run until their
// bound or Close.
func (r *Runner) Open(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ctx, r.cancel = context.WithCancel(ctx)
	return nil
}

// Close kills the checks still running and waits for them.
func (r *Runner) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	if r.cancel != nil {
		r.cancel()
	}
	r.mu.Unlock()
	r.wg.Wait()
	return nil
}

// Why a Stop starts no check (Stopped's answer).
var (
	ErrNoEdits      = errors.New("the execution changed no file")
	ErrNotOpen      = errors.New("the runner is not open")
	ErrNotPlanned   = errors.New("no outcome.after_stop command for the project")
	ErrNotInstalled = errors.New("the project is not one sepad install recorded")
	ErrStale        = errors.New("the Stop is older than the check's bound (a backlog read again)")
)

// Stopped is told that x's turn ended at the Stop of time at (zero: now):
// when x changed files in a project with an after_stop command, the
// project is installed and the Stop is recent, the check starts (a check
// still running in the same directory is cancelled: the project has moved
// on). It never blocks; the error says why no check started.
func (r *Runner) Stopped(x *execution.Execution, at time.Time) error {
	if x == nil || !x.Edited() {
		return ErrNoEdits
	}
	p, ok := r.opts.Plan(x.Project)
	if !ok || len(p.Command) == 0 {
		return ErrNotPlanned
	}
	if !installed(p.Dir, r.opts.Installed) {
		return ErrNotInstalled
	}
	now := r.opts.Now()
	if !at.IsZero() && now.Sub(at) > p.Timeout {
		return ErrStale
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctx == nil || r.ctx.Err() != nil {
		return ErrNotOpen
	}
	if old := r.running[p.Dir]; old != nil {
		old.superseded = true
		old.cancel()
	}
	if old := r.byID[x.ID]; old != nil {
		old.superseded = true
		old.cancel()
	}
	ctx, cancel := context.WithTimeout(r.ctx, p.Timeout)
	j := &job{id: x.ID, done: make(chan struct{}), cancel: cancel}
	r.running[p.Dir] = j
	if r.byID[x.ID] == nil {
		r.order = append(r.order, x.ID)
	}
	r.byID[x.ID] = j
	for len(r.order) > r.opts.MaxPending {
		old := r.order[0]
		r.order = r.order[1:]
		if oj := r.byID[old]; oj != nil {
			oj.cancel()
			delete(r.byID, old)
		}
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer cancel()
		chk := run(ctx, p, now)
		r.mu.Lock()
		j.chk = chk
		if r.running[p.Dir] == j {
			delete(r.running, p.Dir)
		}
		superseded := j.superseded
		r.mu.Unlock()
		close(j.done)
		r.opts.Logger.Info("after_stop check", "execution", x.ID, "dir", p.Dir, "command", chk.Command,
			"exit_code", chk.ExitCode, "timed_out", chk.TimedOut, "truncated", chk.Truncated, "error", chk.Error,
			"duration_ms", chk.DurationMS, "superseded", superseded)
	}()
	return nil
}

// Take returns the check of execution id and forgets it: nil when none
// started or a later Stop superseded it; its output cut to the excerpt
// kept with an execution (execution.MaxCheckOutput). A check still
// running is waited for, at most until its bound (or Close, or ctx).
func (r *Runner) Take(ctx context.Context, id string) *execution.Check {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	j := r.byID[id]
	r.mu.Unlock()
	if j == nil {
		return nil
	}
	select {
	case <-j.done:
	case <-ctx.Done():
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byID[id] == j {
		delete(r.byID, id)
		for i, o := range r.order {
			if o == id {
				r.order = append(r.order[:i:i], r.order[i+1:]...)
				break
			}
		}
	}
	if j.superseded || j.chk == nil {
		return nil
	}
	chk := *j.chk
	if len(chk.Output) > execution.MaxCheckOutput {
		chk.Output, chk.Truncated = excerpt(chk.Output, execution.MaxCheckOutput), true
	}
	return &chk
}

// excerpt keeps the first quarter and the last three quarters of n bytes
// of s, where runners print their summaries, "\n…\n" between.
func excerpt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head := n / 4
	tail := n - head - len("\n…\n")
	return strings.ToValidUTF8(s[:head], "") + "\n…\n" + strings.ToValidUTF8(s[len(s)-tail:], "")
}

// installed reports whether dir is an installed project or below one.
func installed(dir string, roots func() []string) bool {
	if roots == nil || !filepath.IsAbs(dir) {
		return false
	}
	dir = filepath.Clean(dir)
	for _, r := range roots() {
		r = filepath.Clean(r)
		if dir == r || strings.HasPrefix(dir, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// waitDelay is how long a killed command's pipes may stay open (a child
// that escaped the kill still holding them) before Wait gives up.
const waitDelay = 2 * time.Second

// run runs p's command in p.Dir until it exits or ctx ends.
func run(ctx context.Context, p Plan, now time.Time) *execution.Check {
	chk := &execution.Check{Command: strings.Join(p.Command, " "), Dir: p.Dir, ExitCode: -1, Started: now.UTC()}
	out := newBounded(p.MaxOutput)
	cmd := exec.CommandContext(ctx, p.Command[0], p.Command[1:]...)
	cmd.Dir = p.Dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = waitDelay
	killGroup(cmd)
	start := time.Now()
	err := cmd.Run()
	chk.DurationMS = time.Since(start).Milliseconds()
	chk.Output, chk.Truncated = out.String()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		chk.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
		if !chk.TimedOut {
			chk.Error = "stopped: " + ctx.Err().Error()
		}
	case err == nil:
		chk.ExitCode = 0
	case errors.As(err, &ee) && ee.Exited():
		chk.ExitCode = ee.ExitCode()
	case errors.Is(err, exec.ErrWaitDelay):
		chk.ExitCode = cmd.ProcessState.ExitCode()
	default:
		chk.Error = err.Error()
	}
	return chk
}
