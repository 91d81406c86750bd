package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/spool"
)

func init() {
	register("trust", "let sepad write prompt files (evolve, rollback) in a project used through the plugin: [DIR] [--remove] [--list]", runTrust)
}

// runTrust is `sepad trust [DIR]`: it records DIR (default the current
// directory) in $SEPA_HOME's list of projects sepad may write in, the
// list `sepad install --project` adds to. The plugin path writes no
// settings file, so without this a project is read-only to sepad. Only
// a person running this command decides it: nothing in an event does.
func runTrust(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("trust", stderr)
	home := fs.String("home", "", "state directory `DIR` (default $SEPA_HOME, $XDG_STATE_HOME/sepa, ~/.local/state/sepa)")
	remove := fs.Bool("remove", false, "take DIR off the list: sepad no longer writes in it")
	list := fs.Bool("list", false, "print the projects sepad may write in, one a line")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	h := *home
	if h == "" {
		h = spool.Home()
	}
	if *list {
		if len(pos) > 0 || *remove {
			return usageErrorf("--list takes no DIR and no --remove")
		}
		for _, r := range promptfile.InstalledRoots(h) {
			fmt.Fprintln(stdout, r)
		}
		return nil
	}
	if len(pos) > 1 {
		return usageErrorf("takes at most one DIR")
	}
	dir := "."
	if len(pos) == 1 {
		dir = pos[0]
	}
	abs, err := promptfile.TrustedDir(dir)
	if errors.Is(err, promptfile.ErrNotDirectory) {
		return usageErrorf("%v", err)
	}
	if err != nil {
		return err
	}
	if *remove {
		if err := promptfile.ForgetInstalledRoot(h, abs); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "sepad no longer writes prompt files in %s (it still records their runs)\n", abs)
		// The claim this home's daemon made on the project goes with
		// the right to write there, as with `sepad uninstall`.
		claudeDir := filepath.Join(abs, ".claude")
		released, err := promptfile.ReleaseClaim(claudeDir, h, false)
		if err != nil {
			return err
		}
		if released {
			fmt.Fprintf(stdout, "removed %s (it named this sepad home as the one that writes here)\n", filepath.Join(claudeDir, promptfile.ClaimName))
		}
		return nil
	}
	if err := promptfile.RecordInstalledRoot(h, abs); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "sepad may now write prompt files in %s (evolve, rollback, propose); undo with `sepad trust --remove %s`\n", abs, abs)
	return nil
}
