package main

import (
	"errors"
	"flag"
	"io"
	"strings"

	"github.com/sepad/sepad/render"
)

func init() {
	register("help", "print the commands, or one command's usage, flags and an example", runHelp)
}

// helpRequest is returned by parseFlags for -h/--help: runMain prints the
// command's help to stdout and exits 0.
type helpRequest struct{ fs *flag.FlagSet }

func (h *helpRequest) Error() string { return "help requested" }

// runHelp is `sepad help [COMMAND]`.
func runHelp(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		render.Commands(stdout, summaries())
		return nil
	}
	name := args[0]
	c, ok := commands[name]
	if !ok {
		return unknownCommand(name)
	}
	var fs *flag.FlagSet
	// hook reads stdin unless asked for help, and its help goes to stderr
	// (a hook's stdout is Claude Code's): its page is printed from here.
	if name != "hook" && name != "help" {
		var hr *helpRequest
		if errors.As(c.run([]string{"--help"}, strings.NewReader(""), io.Discard, io.Discard), &hr) {
			fs = hr.fs
		}
	}
	render.CommandHelp(stdout, name, c.summary, fs)
	return nil
}

// unknownCommand is a usage error naming the nearest commands.
func unknownCommand(name string) error {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	return usageErrorf("%s", render.UnknownCommand(name, names))
}

// summaries are the commands' summaries by name.
func summaries() map[string]string {
	m := make(map[string]string, len(commands))
	for n, c := range commands {
		m[n] = c.summary
	}
	return m
}
