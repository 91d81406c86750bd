package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
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

// post sends a write (accept, reject, rollback, propose) to the daemon
// through its socket: the daemon applies it with its own mutation engine,
// in its order, so there is never a second writer. When no daemon
// answers, the CLI does what a daemon would: it opens the database for
// writing, starts an engine over it (which first records the prompt files
// as they are now, as a daemon does when it starts), and applies the
// write with the same handler. Both paths give the same answer and leave
// the same state.
func (c *client) post(f queryFlags, path string, body []byte) ([]byte, error) {
	b, status, err := c.postSocket(path, body)
	if err == nil {
		return answer(status, b)
	}
	if !errors.Is(err, errNoAnswer) {
		return nil, err
	}
	h, done, err := c.openWrite(f)
	if err != nil {
		if !errors.Is(err, store.ErrLocked) && !errors.Is(err, errEmptyDB) {
			return nil, err
		}
		// Locked and no socket: a daemon may be starting. A refused
		// connection sent nothing, so asking again is safe.
		for i := 0; i < 10; i++ {
			time.Sleep(100 * time.Millisecond)
			if b, status, serr := c.postSocket(path, body); serr == nil {
				return answer(status, b)
			} else if !errors.Is(serr, errNoAnswer) {
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
	rec := &recorder{header: http.Header{}}
	h.ServeHTTP(rec, req)
	return answer(rec.status, rec.body.Bytes())
}

func (c *client) postSocket(path string, body []byte) ([]byte, int, error) {
	resp, err := c.sock.Post("http://sepad"+path, "application/octet-stream", bytes.NewReader(body))
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return nil, 0, fmt.Errorf("%w: %v", errNoAnswer, err)
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
func (c *client) openWrite(f queryFlags) (http.Handler, func(), error) {
	cfg, err := config.Load(config.Path(f.config))
	if err != nil {
		return nil, nil, err
	}
	path := filepath.Join(c.home, "sepa.db")
	if fi, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("no database at %s yet: the daemon has not run; start it (sepad run) and it will read the spool", path)
	} else if err == nil && fi.Size() == 0 {
		return nil, nil, fmt.Errorf("%s: %w", path, errEmptyDB)
	}
	db, err := store.Open(path, store.Options{LockTimeout: directLockTimeout, QuarantineMax: cfg.Collector.QuarantineMax, EventNames: cfg.Collector.EventNames, Aggregate: daemon.AggregateOptions(cfg), Rubric: scoring.Rubric(cfg)})
	if errors.Is(err, store.ErrLocked) {
		return nil, nil, &lockedError{db: path, sock: api.SocketPath(c.home)}
	}
	if err != nil {
		return nil, nil, err
	}
	uh, _ := os.UserHomeDir()
	e := mutation.NewEngine(db, daemon.MutationOptions(cfg, uh, c.home, nil))
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

// write runs one write command: it posts to path (with body, for
// propose) and prints the engine's record: its words, or with --json the
// endpoint's document. Nothing applied (a conflict, auto_rollback off for
// an automatic action) exits 1.
func write(f queryFlags, path string, body []byte, stdout io.Writer) error {
	c := newClient(f)
	defer c.Close()
	b, err := c.post(f, path, body)
	if err != nil {
		return err
	}
	var rec mutation.Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return fmt.Errorf("malformed answer: %w", err)
	}
	if f.json {
		if err := printJSON(stdout, b); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(stdout, rec.Words)
	}
	if !rec.Applied {
		return &exitError{code: exitFail, err: errors.New("nothing was changed")}
	}
	return nil
}
