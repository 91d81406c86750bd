package main

import (
	"io"

	"github.com/sepad/sepad/demo"
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
	return demo.Run(demo.Options{Out: stdout, Stdin: stdin, Keep: *keep})
}
