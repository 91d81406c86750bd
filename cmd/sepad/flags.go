package main

import (
	"errors"
	"flag"
	"io"
	"strings"
)

// newFlagSet returns a FlagSet that reports errors instead of exiting.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("sepad "+name, flag.ContinueOnError)
	// Errors are returned and printed once by main; help goes to stdout
	// (help.go).
	fs.SetOutput(flagOutput{stderr})
	return fs
}

// flagOutput is a flag set's output: it prints nothing (errors are
// returned and printed once by main) but keeps the command's stderr for
// the notes a query prints (queryFlags.add).
type flagOutput struct{ stderr io.Writer }

func (flagOutput) Write(p []byte) (int, error) { return len(p), nil }

// parseFlags parses args allowing flags after positional arguments
// (`sepad score FILE --json`), and returns the positional arguments.
// "--" ends flag parsing.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, &helpRequest{fs: fs}
			}
			msg := err.Error()
			if f, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
				// As the user spells flags (and help prints them): --name.
				msg = "unknown flag -" + f
			}
			return nil, usageErrorf("%s", msg)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
