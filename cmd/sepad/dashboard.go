package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/client"
)

func init() {
	register("dashboard", "print a one-time login link to the web dashboard the daemon serves (--open: open it)", runDashboard)
}

// dashboardFile is the local page `sepad dashboard --open` hands to the
// browser: it moves on to the login link, so the link's token is never
// on a command line (other users can read those).
const dashboardFile = "dashboard-login.html"

func runDashboard(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("dashboard", stderr)
	var qf queryFlags
	fs.StringVar(&qf.home, "home", "", "state directory (default $SEPA_HOME, $XDG_STATE_HOME/sepa, ~/.local/state/sepa)")
	fs.BoolVar(&qf.json, "json", false, "print the API's JSON document (docs/api.md)")
	open := fs.Bool("open", false, "also open the link in the browser")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("dashboard takes no arguments")
	}
	l, body, err := dashboardLogin(qf)
	if err != nil {
		return err
	}
	if qf.json {
		if err := printJSON(stdout, body); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(stdout, l.URL)
	}
	if l.Started {
		fmt.Fprintf(stderr, "The daemon ran without --http: it now serves the dashboard on %s until it stops (give `sepad run --http 127.0.0.1:PORT` for a fixed port).\n", l.Addr)
	}
	fmt.Fprintf(stderr, "The link logs one browser in, once, within %d minutes; run `sepad dashboard` again for another.\n", int(api.LoginTTL.Minutes()))
	if *open {
		return openBrowser(l, client.New(qf.home, qf.config).Home())
	}
	return nil
}

// dashboardLogin asks the daemon on the socket for a login link. Without
// a daemon there is no dashboard: the error says how to start one.
func dashboardLogin(qf queryFlags) (*api.Login, []byte, error) {
	c := client.New(qf.home, qf.config)
	body, status, err := c.PostSocket("/v1/dashboard/login", nil)
	if errors.Is(err, client.ErrNoAnswer) {
		return nil, nil, fmt.Errorf("no sepad daemon answers on %s: the dashboard is served by the daemon.\nStart it with `sepad run` (or `sepad install --service`), then run `sepad dashboard` again", api.SocketPath(c.Home()))
	}
	if err != nil {
		return nil, nil, err
	}
	if _, err := client.Answer(status, body); err != nil {
		return nil, nil, err
	}
	var l api.Login
	if err := json.Unmarshal(body, &l); err != nil || l.URL == "" {
		return nil, nil, fmt.Errorf("the daemon's answer holds no login link: %.200s", body)
	}
	return &l, body, nil
}

var redirectPage = template.Must(template.New("r").Parse(`<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url={{.}}"><title>sepad dashboard</title><p><a href="{{.}}">Open the sepad dashboard</a></p>
`))

// openBrowser writes the login link into a private local page and opens
// that page with the desktop's opener.
func openBrowser(l *api.Login, home string) error {
	p := filepath.Join(home, dashboardFile)
	os.Remove(p) // a new file, created 0600 below
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	err = redirectPage.Execute(f, l.URL)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", p)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", p)
	default:
		cmd = exec.Command("xdg-open", p)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("open the browser (%s): %v %s; open the link above yourself", strings.Join(cmd.Args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
