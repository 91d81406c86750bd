package e2e

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"os"
	"sync"
)

// The lure is another local user's web server on another loopback port
// (TestDashboardSessionOtherUser): the test binary, copied where that
// user can run it, serves it when lureEnv names the daemon's address.
// It prints its address, then one JSON line per request it receives:
// everything a browser gave it (cookies, referrer), which the test then
// replays on the daemon's port.
const lureEnv = "SEPAD_E2E_LURE_DAEMON"

// lureRequest is what the lure saw of one request.
type lureRequest struct {
	Host    string `json:"host"`
	URI     string `json:"uri"`
	Cookie  string `json:"cookie"`
	Referer string `json:"referer"`
}

// lurePage is served for any path with ?way=: it loads the dashboard's
// paths from its own port (where a cookie scoped to the host is sent)
// and from the daemon's (as an image, by fetch), fetches
// /dashboard/events with credentials, then reports done.
var lurePage = template.Must(template.New("lure").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>lure</title>
<link rel="stylesheet" href="/dashboard/static/app.css"></head>
<body><h1 id="lure">nothing to see</h1>
<img src="/dashboard/static/live.js" alt="">
<iframe src="/dashboard/"></iframe>
<img src="http://{{.Daemon}}/dashboard/static/app.css" alt="">
<script>
window.addEventListener("load", function () {
  Promise.all([
    fetch("/dashboard/events", {credentials: "include"}),
    fetch("http://{{.Daemon}}/dashboard/", {mode: "no-cors", credentials: "include"})
  ]).catch(function () {}).then(function () {
    return fetch("/done?way={{.Way}}");
  }).then(function () { document.title = "done"; });
});
</script>
</body></html>
`))

// otherSite is a page of another site (host localhost, not 127.0.0.1)
// linking to the lure.
var otherSite = template.Must(template.New("site").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>another site</title></head>
<body><a id="go" href="http://{{.Lure}}/dashboard/?way={{.Way}}">a link</a></body></html>
`))

// runLure serves the lure until killed; it returns the exit code.
func runLure(daemon string) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	addr := ln.Addr().String()
	lns := []net.Listener{ln}
	_, port, _ := net.SplitHostPort(addr)
	if ln6, err := net.Listen("tcp", "[::1]:"+port); err == nil {
		lns = append(lns, ln6) // "localhost" may be ::1 first
	}
	var mu sync.Mutex
	enc := json.NewEncoder(os.Stdout)
	fmt.Printf("lure %s\n", addr)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		enc.Encode(lureRequest{Host: r.Host, URI: r.URL.RequestURI(), Cookie: r.Header.Get("Cookie"), Referer: r.Referer()})
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		way := r.URL.Query().Get("way")
		switch {
		case r.URL.Path == "/site":
			otherSite.Execute(w, map[string]string{"Lure": addr, "Way": way})
		case way != "" && r.URL.Path != "/done":
			lurePage.Execute(w, map[string]string{"Daemon": daemon, "Way": way})
		default:
			fmt.Fprintln(w, "<!doctype html><title>nothing</title>")
		}
	})
	errc := make(chan error, len(lns))
	for _, l := range lns {
		go func() { errc <- http.Serve(l, h) }()
	}
	fmt.Fprintln(os.Stderr, <-errc)
	return 1
}
