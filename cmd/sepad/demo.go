package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/sepad/sepad/collector"
	"github.com/sepad/sepad/daemon"
	"github.com/sepad/sepad/demo"
	"github.com/sepad/sepad/mutation"
)

func init() {
	register("demo", "replay bundled sessions through the whole fitness loop, in a temporary project", runDemo)
}

func runDemo(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", stderr)
	keep := fs.Bool("keep", false, "keep the demo's state and project for exploring")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	return demo.Run(demo.Options{Out: stdout, Stdin: stdin, Keep: *keep, Self: selfCommand(), Open: openDemoDaemon})
}

// openDemoDaemon runs the daemon's components in the demo's process, on
// the built-in defaults. The demo edits the prompt files itself, as a
// mutator that writes files would; by default sepad never rewrites a
// version a person wrote (mutation.rollback_edits: ask), so the demo
// says auto.
func openDemoDaemon(ctx context.Context, home, user string, logger *slog.Logger, committed func(int)) (demo.Daemon, error) {
	d, err := daemon.Open(ctx, daemon.Options{Home: home, UserHome: user, NoConfig: true, RollbackEdits: mutation.RollbackEditsAuto, Logger: logger,
		OnCommit: func(ci collector.CommitInfo) { committed(ci.Lines) }})
	if err != nil {
		return nil, err
	}
	return demoDaemon{d}, nil
}

// demoDaemon is the daemon as the demo drives it.
type demoDaemon struct{ *daemon.Daemon }

func (d demoDaemon) LoginLink() (string, error) {
	srv := d.Server()
	if srv == nil {
		return "", fmt.Errorf("the demo's daemon serves no API")
	}
	l, err := srv.LoginLink()
	if err != nil {
		return "", err
	}
	return l.URL, nil
}
