package render

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/sepad/sepad/config"
)

// ConfigShow is `sepad config show`: the configuration file in force
// (path, "" for none; named by --config when byFlag, by $SEPA_CONFIG
// when byEnv, else found at the default location), then every key with
// its value and its source: "default", or FILE:LINE of the file that sets
// it.
func ConfigShow(w io.Writer, path string, byFlag, byEnv bool, settings []config.Setting) error {
	how := "none: built-in defaults only"
	switch {
	case byFlag:
		how = path + " (from --config)"
	case byEnv:
		how = path + " (from $SEPA_CONFIG)"
	case path != "":
		how = path + " (the default location)"
	}
	fmt.Fprintf(w, "config file  %s\n\n", how)
	tw := tabwriter.NewWriter(TrimTrailing(w), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tFROM")
	for _, s := range settings {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Key, s.Value, s.From)
	}
	return tw.Flush()
}
