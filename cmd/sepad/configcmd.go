package main

import (
	"fmt"
	"io"
	"os"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/render"
)

func init() {
	register("config", "write a commented configuration file (init), or print the effective values and where each comes from (show)", runConfig)
}

// runConfig is `sepad config init [--force] [FILE]` and `sepad config show`.
func runConfig(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("config", stderr)
	cfgFlag := fs.String("config", "", "configuration `FILE` (default $SEPA_CONFIG, then $XDG_CONFIG_HOME/sepa/config.yaml)")
	force := fs.Bool("force", false, "init: replace an existing file")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErrorf("takes init or show")
	}
	switch pos[0] {
	case "init":
		if len(pos) > 2 {
			return usageErrorf("config init takes at most one FILE")
		}
		path := *cfgFlag
		if len(pos) == 2 {
			path = pos[1]
		}
		written, err := config.Init(path, *force)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", written)
		return nil
	case "show":
		if len(pos) != 1 {
			return usageErrorf("config show takes no arguments")
		}
		return configShow(stdout, *cfgFlag)
	}
	return usageErrorf("no action %q; want init or show", pos[0])
}

// configShow prints every key in force with its value and its source.
func configShow(w io.Writer, flagPath string) error {
	path := config.Path(flagPath)
	settings, err := config.Settings(path)
	if err != nil {
		return err
	}
	return render.ConfigShow(w, path, flagPath != "", os.Getenv("SEPA_CONFIG") != "", settings)
}
