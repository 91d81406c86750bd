// Package client is how the CLI asks sepad: the daemon's API through its
// socket when a daemon answers, else the same API handler over the
// database opened in this process (read-only for queries; for writes, a
// mutation engine of the CLI's own, configured as the daemon's), so both
// paths give the same answer. It also asks the socket whether a daemon
// runs at all (Status, AlreadyRunning).
package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/daemon"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/scoring"
	"github.com/sepad/sepad/spool"
	"github.com/sepad/sepad/store"
)

// DirectLockTimeout bounds the wait for the database lock when no daemon
// answers: the daemon holds the lock for as long as it runs.
const DirectLockTimeout = 200 * time.Millisecond

// Client answers API requests: from the daemon through its socket when
// one answers, else from the database opened read-only in this process
// and served by the same handler, so both give the same answer.
type Client struct {
	home string
	// config is the configuration file the direct path reads ("": the
	// default), as the daemon would.
	config string
	sock   *http.Client
	local  http.Handler
	db     *store.DB
	// noDB is set when no database exists yet: only status can answer.
	noDB bool
}

// New returns a client of the daemon of home ("": spool.Home()); config
// is the configuration file the direct path reads ("": the default).
func New(home, config string) *Client {
	if home == "" {
		home = spool.Home()
	}
	if abs, err := filepath.Abs(home); err == nil {
		home = abs // the daemon records absolute paths
	}
	sock := api.SocketPath(home)
	return &Client{home: home, config: config, sock: api.SocketClient(sock, 5*time.Minute)}
}

// SetTimeout bounds a request to the daemon (default 5 minutes):
// `sepad evolve` waits for a mutator.
func (c *Client) SetTimeout(d time.Duration) { c.sock.Timeout = d }

// Home is the state directory asked, absolute.
func (c *Client) Home() string { return c.home }

// ErrEmptyDB: the database file exists and is empty: a daemon is creating
// it (reading it now would try to initialise it).
var ErrEmptyDB = errors.New("the database is empty: a daemon is starting, or stopped before it initialised the file")

// ErrNoAnswer marks a socket nobody listens on (absent, stale, refused).
var ErrNoAnswer = errors.New("no daemon answers on the socket")

// Get fetches path (with its query) and returns the body; an error
// answer becomes an error carrying its message.
func (c *Client) Get(path string) ([]byte, error) {
	body, _, err := c.GetTyped(path)
	return body, err
}

// GetTyped is Get, with the answer's media type (text/plain for a table
// the API rendered, application/json otherwise).
func (c *Client) GetTyped(path string) ([]byte, string, error) {
	if c.local == nil {
		r, err := c.viaSocket(path)
		if err == nil {
			return r.answer()
		}
		if !errors.Is(err, ErrNoAnswer) {
			return nil, "", err
		}
		if err := c.openDirect(); err != nil {
			if !errors.Is(err, store.ErrLocked) && !errors.Is(err, ErrEmptyDB) {
				return nil, "", err
			}
			// Locked and no socket: a daemon may be starting (it takes the
			// lock just before it opens the socket). Ask again briefly: 1 s
			// when the lock may be held by a process that serves no API, 5 s
			// when the file is still empty (a daemon is initialising it,
			// which takes seconds on a loaded machine).
			tries := 10
			if errors.Is(err, ErrEmptyDB) {
				tries = 50
			}
			for i := 0; i < tries; i++ {
				time.Sleep(100 * time.Millisecond)
				if r, serr := c.viaSocket(path); serr == nil {
					return r.answer()
				} else if !errors.Is(serr, ErrNoAnswer) {
					return nil, "", serr
				}
			}
			return nil, "", err
		}
	}
	if c.noDB && !strings.HasPrefix(path, "/v1/status") {
		return nil, "", fmt.Errorf("no database at %s yet: the daemon has not run; start it (sepad run) and it will read the spool", filepath.Join(c.home, "sepa.db"))
	}
	req, err := http.NewRequest(http.MethodGet, "http://local"+path, nil)
	if err != nil {
		return nil, "", err
	}
	// The standard library's recorder is the direct path's ResponseWriter:
	// it keeps the status, headers and body as a server would send them.
	rec := httptest.NewRecorder()
	c.local.ServeHTTP(rec, req)
	return reply{status: rec.Code, ctype: rec.Header().Get("Content-Type"), body: rec.Body.Bytes()}.answer()
}

// reply is an API answer as it came.
type reply struct {
	status int
	ctype  string
	body   []byte
}

func (r reply) answer() ([]byte, string, error) {
	body, err := Answer(r.status, r.body)
	return body, r.ctype, err
}

func (c *Client) viaSocket(path string) (reply, error) {
	resp, err := c.sock.Get("http://sepad" + path)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return reply{}, fmt.Errorf("%w: %v", ErrNoAnswer, err)
		}
		return reply{}, fmt.Errorf("ask the daemon on %s: %w", api.SocketPath(c.home), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, fmt.Errorf("read the daemon's answer: %w", err)
	}
	return reply{status: resp.StatusCode, ctype: resp.Header.Get("Content-Type"), body: body}, nil
}

// openDirect opens the database read-only, with the aggregate options of
// the configuration, as the daemon would compute them.
func (c *Client) openDirect() error {
	cfg, err := config.Load(config.Path(c.config))
	if err != nil {
		return err
	}
	path := filepath.Join(c.home, "sepa.db")
	opts := api.Options{Home: c.home}
	if fi, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		c.noDB = true
	} else if err == nil && fi.Size() == 0 {
		return fmt.Errorf("%s: %w", path, ErrEmptyDB)
	} else {
		db, err := store.Open(path, store.Options{ReadOnly: true, LockTimeout: DirectLockTimeout, Aggregate: daemon.AggregateOptions(cfg), Rubric: scoring.Rubric(cfg)})
		if errors.Is(err, store.ErrLocked) {
			return &lockedError{db: path, sock: api.SocketPath(c.home)}
		}
		if err != nil {
			return err
		}
		c.db = db
		opts.DB = db
	}
	c.local = api.NewHandler(opts)
	return nil
}

// lockedError explains a database locked by a process that serves no API.
type lockedError struct{ db, sock string }

func (e *lockedError) Error() string {
	return fmt.Sprintf("the database %s is locked by another process, but no sepad daemon answers on %s.\n"+
		"Either a daemon is starting or stopping (try again in a few seconds), or the process holding the lock "+
		"serves no API (an older sepad, or a daemon started with another --home).\n"+
		"Find it with `fuser -v %s` (or `lsof %s`), stop it, and start `sepad run` again", e.db, e.sock, e.db, e.db)
}

func (e *lockedError) Unwrap() error { return store.ErrLocked }

// Close releases the database when it was opened.
func (c *Client) Close() error {
	if c.db != nil {
		return c.db.Close()
	}
	return nil
}

// BadRequest is a 400 answer: the API's words without their "bad
// request: " label. The CLI exits 2 for it, as for its own usage errors.
type BadRequest struct{ Msg string }

func (e *BadRequest) Error() string { return e.Msg }

// Answer turns an API answer into the body or an error: 400 is a
// *BadRequest, others an *APIError.
func Answer(status int, body []byte) ([]byte, error) {
	if status == http.StatusOK {
		return body, nil
	}
	var e api.ErrorBody
	if json.Unmarshal(body, &e) != nil || e.Error == "" {
		e.Error = fmt.Sprintf("HTTP %d: %s", status, bytes.TrimSpace(body))
	}
	if status == http.StatusBadRequest {
		// The API's words without its "bad request: " label.
		return nil, &BadRequest{Msg: strings.TrimPrefix(e.Error, query.ErrBadRequest.Error()+": ")}
	}
	return nil, &APIError{Status: status, Msg: e.Error, Candidates: e.Candidates}
}

// Fetch runs one query, asking the daemon of home or else its database,
// decodes the answer into v and returns the raw JSON document.
func Fetch(home, config, path string, v any) ([]byte, error) {
	c := New(home, config)
	defer c.Close()
	body, err := c.Get(path)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return body, nil // the caller decodes what it needs
	}
	if err := json.Unmarshal(body, v); err != nil {
		return nil, fmt.Errorf("malformed answer: %w", err)
	}
	return body, nil
}

// APIError is an error answer of the API other than 400.
type APIError struct {
	Status int
	Msg    string
	// Candidates are the skills an ambiguous name matched (409).
	Candidates []query.SkillRef
}

func (e *APIError) Error() string { return e.Msg }

// IsNotFound reports a 404 answer (no such skill, version, execution).
func IsNotFound(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == http.StatusNotFound
}
