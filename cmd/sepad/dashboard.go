package main

import (
	"fmt"
	"io"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/client"
)

func init() {
	register("dashboard", "print a one-time login link to the web dashboard the daemon serves (--open: open it)", runDashboard)
}

func runDashboard(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("dashboard", stderr)
	var qf queryFlags
	fs.StringVar(&qf.home, "home", "", "state directory `DIR` (default $SEPA_HOME, $XDG_STATE_HOME/sepa, ~/.local/state/sepa)")
	fs.BoolVar(&qf.json, "json", false, "print the API's JSON document (docs/api.md)")
	open := fs.Bool("open", false, "also open the link in the browser")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("takes no arguments")
	}
	l, body, err := client.New(qf.home, qf.config).DashboardLogin()
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
		return client.OpenBrowser(l, client.New(qf.home, qf.config).Home())
	}
	return nil
}
