// Command sepad is the fitness loop around Claude Code prompt files: it
// captures hook events, scores every execution of a skill version, grades
// versions and rolls back the changes that made them worse.
//
// main only parses the subcommand, wires packages together and turns errors
// into exit codes; the work lives in the packages.
//
// The go:debug line keeps the runtime from starting its GOMAXPROCS updater
// (Go 1.25): `sepad hook`, started on every tool call, saves a goroutine
// and usually a thread, and the daemon, a user's local process, keeps the
// GOMAXPROCS it started with (still set from the container's CPU limit).
//
//go:debug updatemaxprocs=0
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/render"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // the command ran and failed (unreadable file, gate failed)
	exitUsage = 2 // bad flags or arguments
	// exitNothingToGate: a --fail-under gate had nothing to judge (no
	// skill matched, or none is graded): a CI job must not pass because
	// nothing was measured.
	exitNothingToGate = 3
)

// errUsage marks errors caused by how the command was called.
var errUsage = errors.New("usage error")

// exitError carries a specific exit code (for example a failed
// --fail-under gate, which is not an error of sepad itself).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageErrorf returns an error that maps to exit code 2 (errUsage), in
// its own words.
func usageErrorf(format string, a ...any) error {
	return &usageError{fmt.Sprintf(format, a...)}
}

type usageError struct{ msg string }

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == errUsage }

// command is one subcommand. run gets the arguments after the subcommand
// name; stdout and stderr are injected so tests can capture them.
type command struct {
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

// commands is filled by each subcommand's file (one file per subcommand).
// Registration is a map insert: keep init light, the hook path runs it.
var commands = map[string]command{}

func register(name, summary string, run func(args []string, stdin io.Reader, stdout, stderr io.Writer) error) {
	commands[name] = command{summary: summary, run: run}
}

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func runMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		render.Commands(stderr, summaries())
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		args = []string{"help"}
	case "-version", "--version", "-V":
		args = []string{"version"}
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "sepad: %v\n", unknownCommand(args[0]))
		return exitUsage
	}
	err := runBuffered(args[0], cmd, args[1:], stdin, stdout, stderr)
	var hr *helpRequest
	if errors.As(err, &hr) {
		render.CommandHelp(stdout, args[0], cmd.summary, hr.fs)
		return exitOK
	}
	return exitCode(stderr, args[0], err)
}

// streaming are the commands whose output is progress to be seen as it
// comes (the daemon, the demo, install's service manager steps, doctor's
// checks); every other command's output is buffered and written at its
// end. Unbuffered, a table of 1,000 rows cost some 23,000 write system
// calls (tabwriter writes cell by cell): most of `sepad grades`'s time
// through the socket on a big store (BENCHMARKS.md).
var streaming = map[string]bool{"run": true, "demo": true, "hook": true, "import": true, "doctor": true, "install": true, "uninstall": true}

// runBuffered runs cmd with its stdout buffered unless it streams, and
// writes the buffer out before the error, if any, is printed.
func runBuffered(name string, cmd command, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if streaming[name] {
		return cmd.run(args, stdin, stdout, stderr)
	}
	bw := bufio.NewWriterSize(stdout, 64<<10)
	err := cmd.run(args, stdin, bw, stderr)
	if ferr := bw.Flush(); ferr != nil && err == nil {
		err = fmt.Errorf("write the output: %w", ferr)
	}
	return err
}

// exitCode decides the process's exit status from a subcommand's error.
func exitCode(stderr io.Writer, name string, err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintf(stderr, "sepad %s: %v\n", name, ee.err)
		}
		return ee.code
	}
	var bad *client.BadRequest // the API's 400: how the command was called
	if errors.Is(err, errUsage) || errors.As(err, &bad) {
		fmt.Fprintf(stderr, "sepad %s: %v (see `sepad help %s`)\n", name, err, name)
		return exitUsage
	}
	fmt.Fprintf(stderr, "sepad %s: %v\n", name, err)
	return exitFail
}
