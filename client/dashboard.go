package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/sepad/sepad/api"
)

// dashboardFile is the local page `sepad dashboard --open` hands to the
// browser: it moves on to the login link, so the link's token is never
// on a command line (other users can read those).
const dashboardFile = "dashboard-login.html"

// DashboardLogin asks the daemon on the socket for a login link, and
// returns it with the answer's document. Without a daemon there is no
// dashboard: the error says how to start one.
func (c *Client) DashboardLogin() (*api.Login, []byte, error) {
	body, status, err := c.PostSocket("/v1/dashboard/login", nil)
	if errors.Is(err, ErrNoAnswer) {
		return nil, nil, fmt.Errorf("no sepad daemon answers on %s: the dashboard is served by the daemon.\nStart it with `sepad run` (or `sepad install --service`), then run `sepad dashboard` again", api.SocketPath(c.Home()))
	}
	if err != nil {
		return nil, nil, err
	}
	if _, err := Answer(status, body); err != nil {
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

// OpenBrowser writes the login link into a private local page and opens
// that page with the desktop's opener.
func OpenBrowser(l *api.Login, home string) error {
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
