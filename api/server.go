// Package api is sepad's local API: the query views of package query as
// JSON over HTTP, /metrics for Prometheus, and POST /v1/hook for Claude
// Code's HTTP hooks. The daemon serves it on a unix socket,
// $SEPA_HOME/sepad.sock (0600), and optionally on a loopback TCP address;
// the CLI uses the same Handler in process when no daemon runs, so both
// paths give the same answers. Endpoints and shapes: docs/api.md.
package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sepad/sepad/dashboard"
	"github.com/sepad/sepad/evolve"
	"github.com/sepad/sepad/hooks"
	"github.com/sepad/sepad/importer"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/status"
	"github.com/sepad/sepad/store"
)

// SocketName is the API socket's file name inside $SEPA_HOME.
const SocketName = "sepad.sock"

// SocketPath is the API socket of a state directory.
func SocketPath(home string) string { return filepath.Join(home, SocketName) }

// SocketClient is an HTTP client of the API on the unix socket sock: a
// request to any host goes there. timeout bounds a whole request (0:
// none, for a stream that takes its time); the dial is bounded by a
// second, as a socket nobody listens on refuses at once.
func SocketClient(sock string, timeout time.Duration) *http.Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			d := net.Dialer{Timeout: time.Second}
			return d.DialContext(ctx, "unix", sock)
		},
		DisableCompression: true, // the answer is read on the same machine
	}
	return &http.Client{Transport: tr, Timeout: timeout}
}

// Errors callers branch on.
var (
	// ErrNotLoopback: --http named an address other machines could reach.
	ErrNotLoopback = errors.New("the API only listens on loopback addresses (127.0.0.1, ::1, localhost)")
	// ErrSocketInUse: another process answers on the socket.
	ErrSocketInUse = errors.New("another sepad daemon answers on the socket")
)

// Server timeouts: a client that sends its request or reads its answer
// slower than this is cut, so no connection holds a goroutine forever.
const (
	readHeaderTimeout = 5 * time.Second
	// readTimeout covers the whole request, body included: 64 MiB on
	// loopback takes well under a second.
	readTimeout  = 30 * time.Second
	writeTimeout = 2 * time.Minute
	idleTimeout  = time.Minute
)

// Options configure the API.
type Options struct {
	// DB is the store the views read.
	DB *store.DB
	// Home is $SEPA_HOME: the socket, spool files and status live there.
	Home string
	// HTTPAddr, if set, is a loopback TCP address to serve too.
	HTTPAddr string
	// Daemon describes the serving daemon in /v1/status; the zero value
	// (not running) is what the CLI reports when it reads the database
	// itself.
	Daemon status.Daemon
	// Metrics serves /metrics (404 when nil).
	Metrics *Metrics
	// Engine, when set, applies the write endpoints (writes.go): the
	// daemon's own mutation engine, or the CLI's over a database it
	// opened for writing when no daemon runs.
	Engine *mutation.Engine
	// Import, when set, enables POST /v1/import (import.go): the
	// daemon's collector.Import, or the CLI's over a database it opened
	// for writing.
	Import func([]importer.Record) (importer.Report, error)
	// Evolver, when set, applies POST /v1/skills/{skill}/evolve with the
	// same engine (evolve.go).
	Evolver *evolve.Evolver
	// Hook, when set, enables POST /v1/hook with these options.
	Hook *hooks.Options
	// Cache keeps computed answers until the next write to the store
	// (the daemon turns it on; a one-shot CLI query has no use for it).
	Cache bool
	// MaxCompute bounds the views computed at once (default half the
	// CPUs, at least 1); answers from the cache are not counted. It keeps
	// a burst of queries from slowing ingestion.
	MaxCompute int
	// Now is the clock for relative times (?since=36h). Default time.Now.
	Now func() time.Time
	// Team, when set (team.postgres), reads the dashboard's team page
	// and the skill pages' team section.
	Team dashboard.Team
	// Logger receives request errors. Default: discard.
	Logger *slog.Logger
	// ShutdownGrace is how long Close lets requests in flight finish
	// before it cuts the connections. Default 5 s.
	ShutdownGrace time.Duration
	// Secret is what every request on the TCP address must carry as
	// "Authorization: Bearer <Secret>". Empty: Open reads (or creates)
	// $SEPA_HOME/http.secret when HTTPAddr is set. The unix socket needs
	// none: it is 0600 in a 0700 directory.
	Secret string
	// MaxHookPosts bounds the POST /v1/hook requests handled at once;
	// more wait up to hookWait for a slot, then get 503. Default
	// DefaultMaxHookPosts.
	MaxHookPosts int
	// MaxHookBody bounds a POST /v1/hook body; a larger one gets 413.
	// Default hooks.DefaultMaxPayload, the bound of the hook's own read.
	MaxHookBody int64
	// HookBodyTime is how long a POST /v1/hook request, once in its
	// slot, may take to send a small body; a larger one has a second
	// more per hookBodyRate bytes. Slower is 408: a slow client holds
	// its slot that long, not a whole request's 30 s. Default
	// DefaultHookBodyTime.
	HookBodyTime time.Duration

	// login issues dashboard login links (set by Server: a handler
	// without a daemon has none and answers 503).
	login func() (*Login, error)
	// addr is the TCP address served now (a listener the dashboard
	// opened on demand shows in /v1/status too).
	addr func() string
}

// Server serves the API on the socket and the optional TCP address. It
// owns its listeners and goroutines from Open to Close.
type Server struct {
	o       Options
	handler http.Handler

	mu      sync.Mutex
	servers []*http.Server
	wg      sync.WaitGroup
	sock    string
	// ctx is Open's; addr the TCP address served ("" before one is);
	// closed is set by Close (no listener opens after it).
	ctx    context.Context
	addr   string
	closed bool
	// logins are the dashboard's one-time tokens and sessions (login.go).
	logins *logins
}

// New returns a Server; Open starts listening.
func New(o Options) *Server {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{o: o, logins: newLogins(o.Now)}
	s.o.login, s.o.addr = s.login, s.Addr
	s.handler = NewHandler(s.o)
	return s
}

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// CheckLoopback returns ErrNotLoopback unless addr (host:port) names a
// loopback host: an empty host (every interface), a public IP or another
// host name is refused.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: %v (want host:port, e.g. 127.0.0.1:7077)", addr, err)
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--http %q: %w; %q is not one", addr, ErrNotLoopback, host)
}

// Open listens on the socket (removing a stale one left by a crash) and
// on HTTPAddr, and serves until Close.
func (s *Server) Open(ctx context.Context) error {
	var tcp net.Listener
	if s.o.HTTPAddr != "" {
		ln, err := s.listenTCP(s.o.HTTPAddr)
		if err != nil {
			return err
		}
		tcp = ln
		s.o.Daemon.HTTP = ln.Addr().String()
	}
	sock := SocketPath(s.o.Home)
	ln, err := listenSocket(sock)
	if err != nil {
		if tcp != nil {
			tcp.Close()
		}
		return err
	}
	s.o.Daemon.Socket = sock
	s.sock = sock
	s.handler = NewHandler(s.o) // with the addresses now known
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ctx = ctx
	if tcp != nil {
		s.serveTCP(tcp)
	}
	s.serve(ln, withDebug(s.handler)) // the profiles: socket only (pprof.go)
	return nil
}

// listenTCP listens on a loopback address, after making sure the secret
// exists.
func (s *Server) listenTCP(addr string) (net.Listener, error) {
	if err := CheckLoopback(addr); err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(addr)
	if strings.EqualFold(host, "localhost") {
		host = "127.0.0.1" // never what a resolver says localhost is
	}
	if s.o.Secret == "" {
		sec, err := LoadOrCreateSecret(s.o.Home)
		if err != nil {
			return nil, err
		}
		s.o.Secret = sec
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	if a, ok := ln.Addr().(*net.TCPAddr); !ok || !a.IP.IsLoopback() {
		ln.Close()
		return nil, fmt.Errorf("listen %s: %w", addr, ErrNotLoopback)
	}
	return ln, nil
}

// serveTCP serves the guarded handler on a TCP listener (s.mu held).
func (s *Server) serveTCP(ln net.Listener) {
	s.addr = ln.Addr().String()
	var denied func()
	if s.o.Metrics != nil {
		denied = s.o.Metrics.unauthorized.Inc
	}
	s.serve(ln, loopbackOnly(s.tcpAuth(denied, s.handler)))
}

// serve serves h on l until Close (s.mu held).
func (s *Server) serve(l net.Listener, h http.Handler) {
	ctx := s.ctx
	srv := &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout,
		WriteTimeout: writeTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: 64 << 10,
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		ErrorLog:    slog.NewLogLogger(s.o.Logger.Handler(), slog.LevelDebug)}
	s.servers = append(s.servers, srv)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.o.Logger.Error("api listener stopped", "addr", l.Addr().String(), "err", err)
		}
	}()
}

// ensureTCP opens a loopback listener on a port the system chooses when
// the daemon serves none (started reports it did): `sepad dashboard`
// works with a daemon started without --http. It serves the same guarded
// handler as --http until the daemon stops.
func (s *Server) ensureTCP() (started bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.addr != "" {
		return false, nil
	}
	if s.closed || s.ctx == nil {
		return false, ErrNoDaemon
	}
	ln, err := s.listenTCP("127.0.0.1:0")
	if err != nil {
		return false, err
	}
	s.serveTCP(ln)
	s.o.Logger.Info("dashboard listener opened", "addr", s.addr)
	return true, nil
}

// Addr is the TCP address served ("" without HTTPAddr, until the
// dashboard asks for one), with the port chosen when HTTPAddr asked for
// port 0.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// Close stops accepting, lets requests in flight finish (up to
// ShutdownGrace, then cuts them), waits for the goroutines and removes the
// socket. Cutting a slow or silent client is how a shutdown ends, not an
// error of the daemon: only other failures are returned.
func (s *Server) Close() error {
	s.mu.Lock()
	srvs := s.servers
	s.servers = nil
	s.closed = true
	s.mu.Unlock()
	if h, ok := s.handler.(*handler); ok {
		h.dash.Stop() // live streams end, so the shutdown need not wait for them
	}
	grace := s.o.ShutdownGrace
	if grace <= 0 {
		grace = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	var errs []error
	for _, srv := range srvs {
		if err := srv.Shutdown(ctx); err != nil {
			srv.Close()
			if !errors.Is(err, context.DeadlineExceeded) {
				errs = append(errs, err)
			}
		}
	}
	s.wg.Wait()
	if s.sock != "" {
		if err := os.Remove(s.sock); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
		s.sock = ""
	}
	return errors.Join(errs...)
}

// listenSocket listens on a unix socket at path, 0600. A socket file left
// by a crashed daemon is removed; a live one (something answers) is
// ErrSocketInUse; a file that is not a socket is left alone and refused.
func listenSocket(path string) (net.Listener, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("listen %s: the file exists and is not a socket; move it away", path)
		}
		c, err := net.DialTimeout("unix", path, 500*time.Millisecond)
		if err == nil {
			c.Close()
			return nil, fmt.Errorf("listen %s: %w", path, ErrSocketInUse)
		}
		if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, syscall.ENOENT) {
			return nil, fmt.Errorf("listen %s: probe the existing socket: %w", path, err)
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("remove stale socket %s: %w", path, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("listen %s: %w", path, err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", path, err)
	}
	// The directory is 0700 already; the socket itself is 0600 too.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("listen %s: %w", path, err)
	}
	return ln, nil
}

// loopbackOnly guards the TCP listener against browsers: a page on any
// site can send requests to 127.0.0.1, and with DNS rebinding read the
// answers. Requests must name a loopback host and carry no Origin.
func loopbackOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if hh, _, err := net.SplitHostPort(host); err == nil {
			host = hh
		}
		host = strings.Trim(host, "[]")
		ip := net.ParseIP(host)
		if !strings.EqualFold(host, "localhost") && (ip == nil || !ip.IsLoopback()) {
			writeError(w, http.StatusForbidden, fmt.Errorf("host %q is not a loopback name", r.Host), nil)
			return
		}
		// The dashboard's own scripts may send their origin (it is this
		// host's); its login link may be opened from anywhere (a terminal,
		// a local file): its one-time token is what protects it. The
		// login's redirect to a session's pages then continues that
		// cross-site navigation: the session's path and cookie protect
		// those pages.
		if o := r.Header.Get("Origin"); (o != "" && (o != "http://"+r.Host || !isDashboard(r.URL.Path))) ||
			(r.Header.Get("Sec-Fetch-Site") == "cross-site" && r.URL.Path != loginPath && !sessionNavigation(r)) {
			writeError(w, http.StatusForbidden, errors.New("cross-origin requests are refused"), nil)
			return
		}
		h.ServeHTTP(w, r)
	})
}
