// Package fastquery prints `sepad grades`'s table from a package init,
// before the rest of the sepad binary initialises, when a daemon answers
// on the socket, and exits.
//
// The daemon draws the table (GET /v1/skills?format=text), so the client's
// whole work is one request; what a fresh process cost was then Go's
// package initialisation: 7.3 M instructions for the daemon's
// dependencies (goldmark's regexps, protobuf, client_golang), against
// about a tenth of that for this path (BENCHMARKS.md, "sepad grades
// through the door"). It works as fasthook does for `sepad hook`: Go
// initialises packages in import-path order as soon as their imports are
// ready, so this package, imported by main and needing only hooks and the
// standard library's net, runs before most of them.
//
// Only the plain forms are served here: `sepad grades [SKILL]
// [--all-versions] [--json] [--home DIR]`, the daemon answering 200 with
// the table drawn (format=text) or the document indented (indent=true).
// Anything else (--fail-under, --config, help, a SKILL given as a path,
// no daemon, an error answer, a daemon without those parameters) returns
// from init and the command runs as usual, which asks again and says what
// went wrong in its own words.
package fastquery

import (
	"bufio"
	"io"
	"net"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sepad/sepad/hooks"
)

// socketName is api.SocketName (a test keeps them equal): importing api
// would initialise what this package exists to skip.
const socketName = "sepad.sock"

func init() {
	if len(os.Args) < 2 || os.Args[1] != "grades" {
		return
	}
	if Run(os.Args[2:], os.Stdout) {
		os.Exit(0)
	}
}

// Run serves `sepad grades ARGS` from the daemon's drawn table and
// reports whether it did; when it did not, it wrote nothing. A failed
// write to w counts as served (exit 0 would hide it): it exits 1 with
// main's words instead.
func Run(args []string, w io.Writer) bool {
	home, query, ok := parse(args)
	if !ok {
		return false
	}
	if home == "" {
		home = hooks.Home()
	}
	if abs, err := filepath.Abs(home); err == nil {
		home = abs // as the client does: the daemon records absolute paths
	}
	body, ok := get(filepath.Join(home, socketName), "/v1/skills?"+query, !hasJSON(args))
	if !ok {
		return false
	}
	if _, err := w.Write(body); err != nil {
		os.Stderr.WriteString("sepad grades: write the output: " + err.Error() + "\n")
		os.Exit(1)
	}
	return true
}

// parse accepts the plain forms of grades's arguments, as package flag
// reads them with flags and the one SKILL in any order: --home DIR (or
// -home, or =DIR), --all-versions (or -all-versions), --json (or -json),
// and SKILL when it is not a path (the client resolves an existing prompt
// file's path).
// It returns the home flag and the request's query.
func parse(args []string) (home, query string, ok bool) {
	v := url.Values{"format": {"text"}}
	skill := false
	if hasJSON(args) {
		v = url.Values{"indent": {"true"}} // the document, indented by the daemon
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-all-versions" || a == "--all-versions":
			v.Set("all_versions", "true")
		case a == "-home" || a == "--home":
			if i+1 == len(args) {
				return "", "", false
			}
			i++
			home = args[i]
		case strings.HasPrefix(a, "-home=") || strings.HasPrefix(a, "--home="):
			_, home, _ = strings.Cut(a, "=")
		case a == "-json" || a == "--json":
		case a == "" || strings.HasPrefix(a, "-"):
			return "", "", false // --json, --fail-under, --config, help, --, -
		case skill || (strings.ContainsRune(a, os.PathSeparator) && !strings.Contains(a, "#")):
			return "", "", false // a second SKILL (an error), or a path
		default:
			skill = true
			v.Set("match", a)
		}
	}
	return home, v.Encode(), true
}

func hasJSON(args []string) bool {
	for _, a := range args {
		if a == "-json" || a == "--json" {
			return true
		}
	}
	return false
}

// get asks the socket for path and returns the body of a 200 answer
// with its length stated: text/plain when wantText, else JSON the daemon
// indented. The request is one fixed line; the answer's header is read
// by net/textproto, the standard library's reader of HTTP headers.
//
// Not net/http: Go initialises a package only when everything it imports
// is, in import-path order, and net/http imports vendor/golang.org/x/net
// packages that sort after github.com/yuin/goldmark, so with net/http
// this init ran after goldmark's and the rest, and the path cost what
// main costs (7.2 M instructions against 2.5 M, measured with callgrind;
// BENCHMARKS.md). Anything unexpected is left to main's net/http client.
func get(sock, path string, wantText bool) ([]byte, bool) {
	c, err := net.DialTimeout("unix", sock, time.Second)
	if err != nil {
		return nil, false
	}
	defer c.Close()
	// The daemon may compute the answer first (seconds on a big store
	// after a write); the usual client waits as long.
	c.SetDeadline(time.Now().Add(5 * time.Minute))
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: sepad\r\nConnection: close\r\n\r\n"); err != nil {
		return nil, false
	}
	r := textproto.NewReader(bufio.NewReaderSize(c, 64<<10))
	status, err := r.ReadLine()
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 200 ") {
		return nil, false
	}
	h, err := r.ReadMIMEHeader()
	if err != nil || h.Get("Transfer-Encoding") != "" {
		return nil, false
	}
	ct := h.Get("Content-Type")
	text, json := strings.HasPrefix(ct, "text/plain"), ct == "application/json"
	n, err := strconv.Atoi(h.Get("Content-Length"))
	if err != nil || n < 0 || text != wantText || json == wantText {
		return nil, false
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r.R, body); err != nil {
		return nil, false
	}
	if json && !strings.HasPrefix(string(body[:min(len(body), 2)]), "{\n") {
		return nil, false // not indented: a daemon without indent=true
	}
	return body, true
}
