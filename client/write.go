package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/collector"
	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/daemon"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/scoring"
	"github.com/sepad/sepad/store"
)

// Post sends a write (accept, reject, rollback, propose) to the daemon
// through its socket: the daemon applies it with its own mutation engine,
// in its order, so there is never a second writer. When no daemon
// answers, the CLI does what a daemon would: it opens the database for
// writing, starts an engine over it (which first records the prompt files
// as they are now, as a daemon does when it starts), and applies the
// write with the same handler. Both paths give the same answer and leave
// the same state.
func (c *Client) Post(path string, body []byte) ([]byte, error) {
	b, status, err := c.PostSocket(path, body)
	if err == nil {
		return Answer(status, b)
	}
	if !errors.Is(err, ErrNoAnswer) {
		return nil, err
	}
	h, done, err := c.openWrite()
	if err != nil {
		if !errors.Is(err, store.ErrLocked) && !errors.Is(err, ErrEmptyDB) {
			return nil, err
		}
		// Locked and no socket: a daemon may be starting. A refused
		// connection sent nothing, so asking again is safe.
		for i := 0; i < 10; i++ {
			time.Sleep(100 * time.Millisecond)
			if b, status, serr := c.PostSocket(path, body); serr == nil {
				return Answer(status, b)
			} else if !errors.Is(serr, ErrNoAnswer) {
				return nil, serr
			}
		}
		return nil, err
	}
	defer done()
	req, err := http.NewRequest(http.MethodPost, "http://local"+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return Answer(rec.Code, rec.Body.Bytes())
}

// PostSocket sends a write to the daemon only: ErrNoAnswer when none
// answers.
func (c *Client) PostSocket(path string, body []byte) ([]byte, int, error) {
	resp, err := c.sock.Post("http://sepad"+path, "application/octet-stream", bytes.NewReader(body))
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return nil, 0, fmt.Errorf("%w: %v", ErrNoAnswer, err)
		}
		return nil, 0, fmt.Errorf("ask the daemon on %s: %w", api.SocketPath(c.home), err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, 0, fmt.Errorf("read the daemon's answer: %w", err)
	}
	return b, resp.StatusCode, nil
}

// openWrite opens the database for writing with a mutation engine of the
// CLI's own, configured as the daemon's (the same configuration file and
// write roots), and returns the API handler that applies writes with it.
// done closes the engine and the database.
func (c *Client) openWrite() (http.Handler, func(), error) {
	cfg, err := config.Load(config.Path(c.config))
	if err != nil {
		return nil, nil, err
	}
	path := filepath.Join(c.home, "sepa.db")
	if fi, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("no database at %s yet: the daemon has not run; start it (sepad run) and it will read the spool", path)
	} else if err == nil && fi.Size() == 0 {
		return nil, nil, fmt.Errorf("%s: %w", path, ErrEmptyDB)
	}
	db, err := store.Open(path, store.Options{LockTimeout: DirectLockTimeout, QuarantineMax: cfg.Collector.QuarantineMax, EventNames: cfg.Collector.EventNames, Aggregate: daemon.AggregateOptions(cfg), Rubric: scoring.Rubric(cfg)})
	if errors.Is(err, store.ErrLocked) {
		return nil, nil, &lockedError{db: path, sock: api.SocketPath(c.home)}
	}
	if err != nil {
		return nil, nil, err
	}
	uh, _ := os.UserHomeDir()
	mo := daemon.MutationOptions(cfg, uh, c.home, nil)
	// This engine lives for one command: it claims a root only when the
	// command writes a prompt file there, never at Open as a daemon does
	// (an import or a label writes none).
	mo.ClaimAtWriteOnly = true
	e := mutation.NewEngine(db, mo)
	ctx, cancel := context.WithCancel(context.Background())
	if err := e.Open(ctx); err != nil {
		cancel()
		db.Close()
		return nil, nil, err
	}
	done := func() {
		cancel()
		e.Close()
		db.Close()
	}
	// An import runs through a collector of the CLI's own, which follows
	// nothing: the same pipeline as the daemon's, its executions shown to
	// the engine as the daemon's commits are.
	col := collector.New(db, collector.Options{Home: c.home, Scorer: scoring.New(cfg), QuarantineRaw: 4096,
		OnCommit: func(ci collector.CommitInfo) {
			if len(ci.Executions) > 0 {
				e.Observe(ci.Executions)
			}
		}})
	evo := daemon.NewEvolver(func() *config.Config { return cfg }, db, e, c.home, nil)
	return api.NewHandler(api.Options{DB: db, Home: c.home, Engine: e, Import: col.Import, Evolver: evo}), done, nil
}
