package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// OutboxName is the team shipper's cursor in the store's outbox.
const OutboxName = "team"

// StatusFile is where the daemon's shipper writes its status, in
// $SEPA_HOME, for `sepad team status` and `sepad doctor`.
const StatusFile = "team-status.json"

// Clock is the time the shipper waits on: its retries and polls step on
// an injected clock in tests.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// ShipperOptions configure a Shipper.
type ShipperOptions struct {
	Config Config
	// Home is $SEPA_HOME: the machine ID and the status file live there.
	Home string
	// ClaudeDir is the user's Claude Code directory (user-level prompts).
	ClaudeDir string
	// Batch is the most executions one PostgreSQL transaction holds
	// (default 500).
	Batch int
	// Poll is how often the outbox is looked at without a Kick (default 1s).
	Poll time.Duration
	// RetryMin and RetryMax bound the wait after a failure: it starts at
	// RetryMin and doubles up to RetryMax (defaults 1s, 1m).
	RetryMin, RetryMax time.Duration
	Clock              Clock
	Logger             *slog.Logger
	// Decide, when set, makes this machine one of the team's deciders:
	// after each batch it looks at the prompts the batch ran (decide.go),
	// with these options, on the scores of rubric Rubric.
	Decide *decide.Options
	Rubric string
	// Notify, when set, tells this machine's person (at their next
	// session) of a team rejection of the version their file holds.
	Notify func(project, text string, at time.Time) error
}

// Status is what the shipper says about itself (`sepad team status`).
type Status struct {
	Configured bool   `json:"configured"`
	Machine    string `json:"machine"`
	// Pending counts the executions stored and not yet shipped; Shipped
	// those shipped (by this home, ever).
	Pending uint64 `json:"pending"`
	Shipped uint64 `json:"shipped"`
	// Connected is true after a batch (or an empty look) succeeded and
	// until a failure.
	Connected bool `json:"connected"`
	// Schema is the team database's schema version, as last seen.
	Schema int `json:"schema_version"`
	// LastError is the last failure, cleared by the next success.
	LastError     string     `json:"last_error,omitempty"`
	LastErrorTime *time.Time `json:"last_error_time,omitempty"`
	LastShipped   *time.Time `json:"last_shipped,omitempty"`
	// LagSeconds is how long the oldest pending execution has waited
	// since it was stored (0 when none waits).
	LagSeconds float64   `json:"lag_seconds"`
	Updated    time.Time `json:"updated"`
	// Refused is set when the shipper stopped for good (a newer schema).
	Refused bool `json:"refused,omitempty"`
	// Failures counts failed attempts since the shipper started.
	Failures uint64 `json:"failures"`
}

// Shipper copies the store's outbox to the team database on a goroutine
// of its own: exactly once (the outbox cursor moves only after
// PostgreSQL committed the batch, and the rows are keyed by machine and
// execution ID), retrying with backoff while the database is away.
type Shipper struct {
	db  *store.DB
	o   ShipperOptions
	src *source

	kick   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	status Status
	conn   *pgx.Conn
	// noticed is when the team's rejections were last looked at;
	// written is the status file's content last written (Updated aside).
	noticed time.Time
	written []byte
}

// NewShipper returns a shipper of db's outbox; Open starts it.
func NewShipper(db *store.DB, o ShipperOptions) *Shipper {
	if o.Batch <= 0 {
		o.Batch = 500
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.RetryMin <= 0 {
		o.RetryMin = time.Second
	}
	if o.RetryMax < o.RetryMin {
		o.RetryMax = max(time.Minute, o.RetryMin)
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Shipper{db: db, o: o, kick: make(chan struct{}, 1)}
}

// Open makes or reads the machine ID and starts shipping.
func (s *Shipper) Open(ctx context.Context) error {
	id, err := MachineID(s.o.Home)
	if err != nil {
		return fmt.Errorf("team: machine ID: %w", err)
	}
	s.src = &source{db: s.db, machine: id, person: Person(s.o.Config.Person), shareText: s.o.Config.ShareText,
		resolve: &Resolver{ClaudeDir: s.o.ClaudeDir}}
	s.status = Status{Configured: true, Machine: id}
	s.refresh()
	ctx, s.cancel = context.WithCancel(ctx)
	s.done = make(chan struct{})
	go s.run(ctx)
	return nil
}

// Close stops shipping (a batch in flight is abandoned: not committed on
// one side or the other, it is shipped again at the next start).
func (s *Shipper) Close() error {
	if s == nil || s.cancel == nil {
		return nil
	}
	s.cancel()
	<-s.done
	s.cancel = nil
	if s.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), timeoutClose)
		s.conn.Close(ctx)
		cancel()
		s.conn = nil
	}
	return s.writeStatus()
}

// Kick wakes the shipper (after a commit) without waiting for the poll.
func (s *Shipper) Kick() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Status returns the shipper's status now.
func (s *Shipper) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

func (s *Shipper) run(ctx context.Context) {
	defer close(s.done)
	wait := s.o.RetryMin
	for ctx.Err() == nil {
		full, err := s.shipOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			s.failed(err)
			if errors.Is(err, ErrSchemaNewer) {
				// Refused for good: no more shipping, but the counts
				// people read still follow the commits.
				s.o.Logger.Error("team shipping stopped", "err", err)
				for {
					select {
					case <-ctx.Done():
						return
					case <-s.kick:
						s.refresh()
					case <-s.o.Clock.After(s.o.Poll):
						s.refresh()
					}
				}
			}
			s.o.Logger.Warn("team shipping failed; grading goes on locally, retrying", "err", err, "retry_in", wait)
			// While waiting, a commit still updates the counts people read.
			for timer := s.o.Clock.After(wait); timer != nil; {
				select {
				case <-ctx.Done():
					return
				case <-timer:
					timer = nil
				case <-s.kick:
					s.refresh()
				}
			}
			wait = min(2*wait, s.o.RetryMax)
			continue
		}
		wait = s.o.RetryMin
		if full {
			continue // more waiting: no pause
		}
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
		case <-s.o.Clock.After(s.o.Poll):
		}
	}
}

// shipOnce ships one batch of executions (and the decisions waiting); full
// is true when the batch was full, so more may wait.
func (s *Shipper) shipOnce(ctx context.Context) (full bool, err error) {
	if s.conn == nil {
		if err := s.connect(ctx); err != nil {
			return false, err
		}
	}
	now := s.o.Clock.Now()
	prompts := map[string]bool{}
	// PostgreSQL commits each batch before the outbox's cursor moves: a
	// crash between the two ships the batch again, and ON CONFLICT DO
	// NOTHING keeps each row once.
	n, err := s.db.OutboxSend(OutboxName, s.o.Batch, func(xs []record.Scored) error {
		b := &pgx.Batch{}
		if err := s.src.queueExecutions(b, xs, now, prompts); err != nil {
			return err
		}
		return s.send(ctx, b, now)
	}, func(ds []record.Decision) error {
		b := &pgx.Batch{}
		if err := s.src.queueDecisions(b, ds, now); err != nil {
			return err
		}
		return s.send(ctx, b, now)
	})
	if err != nil {
		return false, err
	}
	if s.o.Decide != nil {
		s.decide(ctx, prompts, now)
	}
	// The team's rejections are looked at after a batch, else once a
	// minute: an idle machine's poll costs PostgreSQL nothing.
	if s.o.Notify != nil && (n > 0 || now.Sub(s.noticed) >= time.Minute) {
		s.noticed = now
		if err := s.notifyRejections(ctx); err != nil {
			s.o.Logger.Warn("team notices failed", "err", err)
		}
	}
	s.mu.Lock()
	s.status.Connected, s.status.LastError, s.status.LastErrorTime = true, "", nil
	if n > 0 {
		t := now.UTC()
		s.status.LastShipped = &t
	}
	s.mu.Unlock()
	s.refresh()
	return n == s.o.Batch, nil
}

func (s *Shipper) send(ctx context.Context, b *pgx.Batch, now time.Time) error {
	err := sendBatch(ctx, s.conn, s.src.machine, s.src.person, now, b)
	if err != nil {
		s.dropConn()
	}
	return err
}

func (s *Shipper) connect(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	db, err := Connect(cctx, s.o.Config)
	if err != nil {
		return err
	}
	v, err := db.Schema(cctx)
	if err == nil && v < SchemaVersion {
		// sepad runs its own migrations: a daemon that finds an older
		// schema upgrades it, as `sepad team init` would.
		_, v, err = db.Migrate(cctx)
	}
	if err == nil && v > SchemaVersion {
		err = fmt.Errorf("%w (it is version %d, this sepad knows %d)", ErrSchemaNewer, v, SchemaVersion)
	}
	s.mu.Lock()
	s.status.Schema = v
	s.mu.Unlock()
	if err != nil {
		db.Close()
		return err
	}
	s.conn = db.conn
	s.o.Logger.Info("team database connected", "schema", v, "machine", s.src.machine)
	return nil
}

func (s *Shipper) dropConn() {
	if s.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		s.conn.Close(ctx)
		cancel()
		s.conn = nil
	}
}

func (s *Shipper) failed(err error) {
	s.dropConn()
	t := s.o.Clock.Now().UTC()
	s.mu.Lock()
	s.status.Connected, s.status.LastError, s.status.LastErrorTime = false, err.Error(), &t
	s.status.Refused = errors.Is(err, ErrSchemaNewer)
	s.status.Failures++
	s.mu.Unlock()
	s.refresh()
}

// refresh reads the outbox's counts and the lag into the status and
// writes the status file.
func (s *Shipper) refresh() {
	st, err := s.db.Outbox(OutboxName)
	if err != nil {
		return
	}
	var lag float64
	if st.Pending > 0 {
		if xs, err := s.db.OutboxNext(st.Cursor, 1); err == nil && len(xs) > 0 {
			lag = max(0, s.o.Clock.Now().Sub(xs[0].Stored).Seconds())
		}
	}
	s.mu.Lock()
	s.status.Pending, s.status.Shipped, s.status.LagSeconds = st.Pending, st.Shipped, lag
	s.status.Updated = s.o.Clock.Now().UTC()
	s.mu.Unlock()
	s.writeStatus()
}

// writeStatus writes the status file when something in it changed (its
// time aside): an idle daemon does not write it every poll.
func (s *Shipper) writeStatus() error {
	st := s.Status()
	st.Updated = time.Time{}
	key, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if string(key) == string(s.written) {
		return nil
	}
	b, err := json.MarshalIndent(s.Status(), "", "  ")
	if err != nil {
		return err
	}
	s.written = key
	p := filepath.Join(s.o.Home, StatusFile)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// ReadStatus reads the status the daemon's shipper last wrote in home.
func ReadStatus(home string) (*Status, error) {
	b, err := os.ReadFile(filepath.Join(home, StatusFile))
	if err != nil {
		return nil, err
	}
	var st Status
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", StatusFile, err)
	}
	return &st, nil
}

// decide looks at each prompt a batch ran; a prompt another machine is
// deciding is left to it, and a failure is logged (shipping goes on: the
// next batch of that prompt looks again).
func (s *Shipper) decide(ctx context.Context, prompts map[string]bool, now time.Time) {
	db := &DB{conn: s.conn}
	for id := range prompts {
		if s.conn == nil {
			return
		}
		d, err := db.Decide(ctx, id, s.o.Rubric, *s.o.Decide, s.src.machine, now)
		switch {
		case errors.Is(err, ErrBusy):
		case err != nil:
			s.o.Logger.Warn("team decision failed", "prompt", id, "err", err)
		case d != nil && d.DecidedBy == s.src.machine && d.Time.Equal(now.UTC()):
			s.o.Logger.Info("team decision", "prompt", id, "candidate", d.Candidate, "baseline", d.Baseline, "outcome", d.Outcome, "machines", d.Machines)
		}
	}
}

// noticesCursor is the outbox consumer whose cursor is the time (unix
// nanoseconds) of the newest team decision this machine has looked at
// for notices: a cursor that never moves back, as the outbox's.
const noticesCursor = "team-notices"

// notifyRejections tells this machine's person of each team rejection,
// made since the last look, of a version their prompt file holds now:
// the team's decision never writes anyone's file, it says which version
// is better and the command to go back.
func (s *Shipper) notifyRejections(ctx context.Context) error {
	st, err := s.db.Outbox(noticesCursor)
	if err != nil {
		return err
	}
	rows, err := s.conn.Query(ctx, sqlTeamDecisions+` WHERE outcome = 'reject' AND time > $1 ORDER BY time LIMIT 100`,
		time.Unix(0, int64(st.Cursor)).UTC())
	ds, err := scanDecisions(rows, err)
	if err != nil || len(ds) == 0 {
		return err
	}
	skills, err := s.db.Skills()
	if err != nil {
		return err
	}
	for _, d := range ds {
		for _, sk := range skills {
			if sk.Current != d.Candidate || s.src.resolve.Prompt(sk.Kind, sk.Name, sk.Path, sk.Project).ID != d.PromptID {
				continue
			}
			text := fmt.Sprintf("sepad: your team rejected %s version %s: on the pooled runs of %d machines version %s is better by %.1f points. To go back: sepad rollback %s --to %s",
				sk.Name, short(d.Candidate), d.Machines, short(d.Baseline), -d.Delta, sk.Name, short(d.Baseline))
			if err := s.o.Notify(sk.Project, text, s.o.Clock.Now().UTC()); err != nil {
				return err
			}
		}
		if err := s.db.OutboxAdvance(noticesCursor, uint64(d.Time.UnixNano()), 0); err != nil {
			return err
		}
	}
	return nil
}

func short(hash string) string { return hash[:min(12, len(hash))] }
