// Package daemon is `sepad run`'s process: it opens the long-lived
// components in order (store, file watcher, after-stop checks, mutation
// engine, evolver, team shipper, OpenTelemetry exporter, API, collector,
// retention), wires each collector commit to those that follow it,
// reloads the configuration on SIGHUP and closes them in reverse order.
// The CLI's write fallback starts an engine configured the same way
// (MutationOptions).
package daemon

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sepad/sepad/afterstop"
	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/collector"
	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/evalgate"
	"github.com/sepad/sepad/evolve"
	"github.com/sepad/sepad/internal/fswatch"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/scoring"
	"github.com/sepad/sepad/spool"
	"github.com/sepad/sepad/status"
	"github.com/sepad/sepad/store"
	"github.com/sepad/sepad/team"
	"github.com/sepad/sepad/telemetry"
	"github.com/sepad/sepad/transcript"
)

// Options are what `sepad run` (and the demo) start a daemon with.
type Options struct {
	// Home is the state directory ("": spool.Home()).
	Home string
	// Config is --config ("": $SEPA_CONFIG, then the XDG file).
	Config string
	// NoConfig ignores $SEPA_CONFIG and the XDG file: built-in defaults.
	NoConfig bool
	// HTTP is an optional loopback TCP address for the API (--http).
	HTTP string
	// UserHome overrides the directory whose ~/.claude is watched (demo).
	UserHome string
	// RollbackEdits overrides mutation.rollback_edits (demo: it plays a
	// mutator that writes the prompt files itself).
	RollbackEdits string
	Logger        *slog.Logger
	// OnCommit, if set, is called after every collector commit, after
	// the daemon's own followers (the demo counts the lines).
	OnCommit func(collector.CommitInfo)
}

// Daemon holds the long-lived components in start order; Close stops
// them in reverse.
type Daemon struct {
	home    string
	cfgPath string
	// cfgFlag and noConfig are --config and --no-config: a reload looks
	// for the default file again, which `sepad config init` may have
	// written since the start.
	cfgFlag  string
	noConfig bool
	// lastReload is what the last reload did (`sepad reload` prints it).
	lastReload atomic.Pointer[status.Reload]
	cfg        atomic.Pointer[config.Config]
	// scorer scores with the configuration in force; its weights are
	// those the daemon started with (its rubric version), so a reload
	// (SIGHUP) keeps them.
	scorer *scoring.Scorer
	db     *store.DB
	col    *collector.Collector
	mut    *mutation.Engine
	// evo runs `sepad evolve` and automatic mode (mutation.evolve: auto).
	evo *evolve.Evolver
	// team ships to the team database (nil without team.postgres).
	team *team.Shipper
	// otel exports to an OTLP receiver (nil without otel.endpoint).
	otel *telemetry.Exporter
	// api serves the socket (and --http); nil until started.
	api io.Closer
	// onCommit are called after every collector commit (metrics,
	// mutation decisions), in order, on the collector's goroutine.
	onCommit []func(collector.CommitInfo)
	// watch is the one file watcher the collector and the mutation
	// engine share (package fswatch).
	watch *fswatch.Watcher
	// retention applies collector.retention (retention.go).
	retention *retention
	// after runs outcome.after_stop's checks (afterstop.go).
	after *afterstop.Runner
	// tracker reads transcripts (nil when collector.transcripts is off);
	// a reload gives it the new prices.
	tracker *transcript.Tracker
	logger  *slog.Logger
}

// Open starts the daemon's components in order: what fails to start
// closes those started before it.
func Open(ctx context.Context, f Options) (*Daemon, error) {
	logger := f.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	d := &Daemon{home: f.Home, cfgPath: config.Path(f.Config), cfgFlag: f.Config, noConfig: f.NoConfig, logger: logger}
	if f.NoConfig {
		d.cfgPath = ""
	}
	if d.home == "" {
		d.home = spool.Home()
	}
	cfg, err := config.Load(d.cfgPath)
	if err != nil {
		return nil, err
	}
	d.cfg.Store(cfg)
	d.scorer = scoring.New(cfg)
	if err := prepareHome(d.home); err != nil {
		return nil, err
	}
	dbPath := filepath.Join(d.home, "sepa.db")
	// A CLI query reading the database directly holds a shared lock for
	// up to about a second on a large store: wait that out, but fail fast
	// enough when another daemon holds it for good.
	d.db, err = openStoreWaiting(ctx, d, dbPath, store.Options{LockTimeout: 3 * time.Second,
		QuarantineMax: cfg.Collector.QuarantineMax, EventNames: cfg.Collector.EventNames, Aggregate: AggregateOptions(cfg), Rubric: d.scorer.Rubric()})
	if err != nil {
		return nil, err
	}
	logger.Info("sepad started", "home", d.home, "db", dbPath, "config", cfgName(d.cfgPath), "rubric", d.scorer.Rubric(), "pid", os.Getpid())
	d.tracker = scoring.Tracker(cfg, f.UserHome)
	if d.watch, err = fswatch.Open(ctx); err != nil {
		d.db.Close()
		return nil, err
	}
	d.after = newAfterStop(d, logger)
	if err := d.after.Open(ctx); err != nil {
		d.watch.Close()
		d.db.Close()
		return nil, err
	}
	d.col = collector.New(d.db, collector.Options{
		Home:          d.home,
		ExtraFiles:    cfg.Collector.ExtraFiles,
		Watch:         d.watch,
		BatchLines:    cfg.Collector.BatchLines,
		BatchInterval: cfg.Collector.BatchInterval,
		IdleTimeout:   cfg.Collector.IdleTimeout,
		RotateBytes:   cfg.Collector.RotateBytes,
		Scorer:        d.scorer,
		OnStop:        d.afterStopped,
		Checked:       d.afterStopCheck,
		Logger:        logger,
		Transcripts:   d.tracker,
		OnCommit: func(ci collector.CommitInfo) {
			for _, fn := range d.onCommit {
				fn(ci)
			}
		},
	})
	// Start order: store, file watcher, mutation engine, team shipper,
	// API (so commit hooks and queries exist before the first commit),
	// collector. Close stops the API, then the collector (committing its
	// batch), then the shipper, the engine, the file watcher and the store.
	uh := f.UserHome
	if uh == "" {
		uh, _ = os.UserHomeDir()
	}
	mo := MutationOptions(cfg, uh, d.home, logger)
	if f.UserHome != "" {
		mo.ClaudeDir = filepath.Join(f.UserHome, ".claude") // the demo's own user, whatever $CLAUDE_CONFIG_DIR says
	}
	if f.RollbackEdits != "" {
		mo.RollbackEdits = f.RollbackEdits
	}
	mo.EvalGate = evalgate.New(d.cfg.Load, d.home) // the configuration in force
	mo.GateTimeout = func() time.Duration { return d.cfg.Load().EvalGateTimeout() }
	mo.Watch = d.watch
	d.mut = mutation.NewEngine(d.db, mo)
	if err := d.mut.Open(ctx); err != nil {
		d.watch.Close()
		d.db.Close()
		return nil, err
	}
	d.evo = NewEvolver(d.cfg.Load, d.db, d.mut, d.home, logger)
	d.evo.StartAuto(AutoOptions(d.cfg.Load))
	d.onCommit = append(d.onCommit, func(ci collector.CommitInfo) {
		if len(ci.Executions) > 0 {
			d.mut.Observe(ci.Executions)
			d.evo.Observe(ci.Executions) // after the engine: it decides first
		}
	})
	if d.team, err = openShipper(ctx, d, cfg); err != nil {
		d.mut.Close()
		d.watch.Close()
		d.db.Close()
		return nil, err
	}
	if d.team != nil {
		d.onCommit = append(d.onCommit, func(ci collector.CommitInfo) {
			if len(ci.Executions) > 0 {
				d.team.Kick()
			}
		})
	}
	if d.otel, err = openExporter(ctx, d, cfg); err != nil {
		d.team.Close()
		d.mut.Close()
		d.watch.Close()
		d.db.Close()
		return nil, err
	}
	if d.api, err = openAPI(ctx, d, f); err != nil {
		d.otel.Close()
		d.team.Close()
		d.mut.Close()
		d.watch.Close()
		d.db.Close()
		return nil, err
	}
	if f.OnCommit != nil {
		d.onCommit = append(d.onCommit, f.OnCommit)
	}
	if err := d.col.Open(ctx); err != nil {
		d.api.Close()
		d.otel.Close()
		d.team.Close()
		d.mut.Close()
		d.watch.Close()
		d.db.Close()
		return nil, err
	}
	d.retention = startRetention(ctx, d)
	return d, nil
}

// DB is the daemon's store.
func (d *Daemon) DB() *store.DB { return d.db }

// Server is the daemon's API server.
func (d *Daemon) Server() *api.Server {
	s, _ := d.api.(*api.Server)
	return s
}

// Done is closed when the collector stopped on its own (Err says why).
func (d *Daemon) Done() <-chan struct{} { return d.col.Done() }

// Err is why the collector stopped.
func (d *Daemon) Err() error { return d.col.Err() }

// Reload reads the configuration again (SIGHUP). What the daemon reads
// as it goes takes effect at once (liveKeys); the rest was given to its
// components when they started, so the log names those keys as waiting
// for a restart rather than pretend they changed.
func (d *Daemon) Reload() {
	logger := d.logger
	path := ""
	if !d.noConfig {
		path = config.Path(d.cfgFlag)
	}
	r := &status.Reload{Time: time.Now().UTC(), Config: path, Applied: []string{}, Restart: []string{}}
	if prev := d.lastReload.Load(); prev != nil {
		r.Seq = prev.Seq
	}
	r.Seq++
	defer d.lastReload.Store(r)
	cfg, err := config.Load(path)
	if err != nil {
		r.Error = err.Error()
		logger.Error("config reload failed; keeping the previous configuration", "err", err)
		return
	}
	d.cfgPath = path
	old := d.cfg.Swap(cfg)
	d.scorer.Reload(cfg)
	if d.tracker != nil {
		d.tracker.SetPrices(scoring.Prices(cfg))
	}
	live, restart := splitReload(config.Changed(old, cfg))
	r.Applied, r.Restart = append(r.Applied, live...), append(r.Restart, restart...)
	logger.Info("config reloaded", "config", cfgName(path), "applied", strings.Join(live, ","))
	if len(restart) > 0 {
		logger.Warn("config reloaded, but these settings take effect only when the daemon starts again", "keys", strings.Join(restart, ","))
	}
}

// liveKeys are the settings the daemon reads as it goes, by key or key
// prefix: limits and checks when it scores, prices when it reads a
// transcript, retention at its daily pass, and automatic evolution's
// settings when it considers a skill. docs/install.md lists them.
var liveKeys = []string{"max_expected", "default_complexity", "skills", "pricing.", "outcome.after_stop.",
	"collector.retention", "mutation.evolve", "mutation.evolve_below", "mutation.mutator", "mutation.claude", "mutation.mutator_timeout", "mutation.edit_budget"}

// splitReload sorts changed keys into those a reload applies and those
// that wait for a restart.
func splitReload(changed []string) (live, restart []string) {
	for _, k := range changed {
		if isLive(k) {
			live = append(live, k)
		} else {
			restart = append(restart, k)
		}
	}
	return live, restart
}

func isLive(key string) bool {
	if strings.HasPrefix(key, "skills.") {
		return strings.HasSuffix(key, ".checks") // a skill's mutation settings are the engine's
	}
	for _, l := range liveKeys {
		if key == l || (strings.HasSuffix(l, ".") && strings.HasPrefix(key, l)) {
			return true
		}
	}
	return false
}

// Close stops the components in reverse start order: the API first (no new
// queries), then the collector commits its last batch, then the engine,
// the file watcher and the store close.
func (d *Daemon) Close() error {
	var errs []error
	d.retention.stop()
	if d.api != nil {
		errs = append(errs, d.api.Close())
	}
	// The checks still running are killed first: the collector, scoring
	// their executions as it commits, does not wait for them.
	errs = append(errs, d.after.Close())
	if d.col != nil {
		errs = append(errs, d.col.Close())
	}
	if d.evo != nil {
		d.evo.Close() // stops the automatic evolutions' mutators
	}
	if d.otel != nil {
		errs = append(errs, d.otel.Close())
	}
	if d.team != nil {
		errs = append(errs, d.team.Close())
	}
	if d.mut != nil {
		errs = append(errs, d.mut.Close())
	}
	if d.watch != nil {
		errs = append(errs, d.watch.Close())
	}
	if d.db != nil {
		errs = append(errs, d.db.Close())
	}
	return errors.Join(errs...)
}

// MutationOptions maps the configuration to the engine's options. Writes
// go only to the user's Claude Code directory ($CLAUDE_CONFIG_DIR, else
// ~/.claude), mutation.extra_roots and the projects `sepad install`
// recorded in home.
func MutationOptions(cfg *config.Config, userHome, home string, logger *slog.Logger) mutation.EngineOptions {
	m := cfg.Mutation
	d := decide.DefaultOptions()
	d.Method = decide.Method(m.Method)
	d.MinSamples, d.MaxSamples, d.Confidence, d.Exploration = m.MinSamples, m.MaxSamples, m.Confidence, m.Exploration
	return mutation.EngineOptions{
		Decide: d, AutoRollback: m.AutoRollback, RollbackOnF: m.RollbackOnF, RollbackRatio: m.RollbackRatio,
		RollbackFailRate: m.RollbackFailRate, Cooldown: m.CooldownExecutions, GradeMin: cfg.Aggregate.MinSamples,
		UserHome: userHome, ClaudeDir: prompt.ConfigDirFrom(os.Getenv, userHome), ExtraRoots: m.ExtraRoots, Debounce: m.Debounce, Logger: logger,
		InstalledRoots: func() []string { return promptfile.InstalledRoots(home) },
		RollbackEdits:  m.RollbackEdits, Skills: skillOverrides(cfg), Notify: NoticeWriter(home), Home: home,
		Rescore:     scoring.New(cfg).Relabel,
		EvalGate:    evalgate.New(func() *config.Config { return cfg }, home),
		GateTimeout: cfg.EvalGateTimeout,
	}
}

// AggregateOptions maps the configuration to the aggregate's options.
func AggregateOptions(cfg *config.Config) aggregate.Options {
	o := aggregate.DefaultOptions()
	o.Weights = cfg.Aggregate.Weights
	o.Trim = cfg.Aggregate.Trim
	o.MinSamples = cfg.Aggregate.MinSamples
	return o
}

func cfgName(p string) string {
	if p == "" {
		return "built-in defaults"
	}
	return p
}
