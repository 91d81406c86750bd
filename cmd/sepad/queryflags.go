package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/query"
)

// queryFlags are the flags of every query command.
type queryFlags struct {
	home, config string
	json         bool
	// stderr takes the command's notes (the project a name was read in).
	stderr io.Writer
}

func (q *queryFlags) add(fs *flag.FlagSet) {
	q.stderr = io.Discard
	if o, ok := fs.Output().(flagOutput); ok && o.stderr != nil {
		q.stderr = o.stderr
	}
	fs.StringVar(&q.home, "home", "", "state directory `DIR` (default $SEPA_HOME, $XDG_STATE_HOME/sepa, ~/.local/state/sepa)")
	fs.StringVar(&q.config, "config", "", "configuration `FILE`, when reading the database directly (default $SEPA_CONFIG, then $XDG_CONFIG_HOME/sepa/config.yaml)")
	fs.BoolVar(&q.json, "json", false, "print the API's JSON document (docs/api.md)")
}

// fetch runs one query with the command's --home and --config
// (client.Fetch).
func fetch(f queryFlags, path string, v any) ([]byte, error) {
	b, err := client.Fetch(f.home, f.config, path, v)
	if here, ok := f.here(path, err); ok {
		return client.Fetch(f.home, f.config, here, v)
	}
	return b, err
}

// here answers a skill name that several projects use (409 with the
// candidates) with the skill of the project the command runs in: path
// with the name replaced by that skill's key, and a note naming the
// project on stderr. Outside all of them (or when two projects hold the
// working directory equally) the name stays ambiguous and the error lists
// the choices. Only a bare name is read so: PROJECT#name and a path say
// which skill already.
func (f queryFlags) here(path string, err error) (string, bool) {
	wd, werr := os.Getwd()
	if werr != nil {
		return "", false
	}
	here, ref, others, ok := client.Here(path, err, wd)
	if ok {
		fmt.Fprintf(f.stderr, "sepad: %s is this project's (%s); also in: %s\n", query.DisplayName(ref.Name), ref.Project, strings.Join(others, ", "))
	}
	return here, ok
}

// printJSON prints an API document indented, for --json.
func printJSON(w io.Writer, body []byte) error {
	var b bytes.Buffer
	if err := json.Indent(&b, body, "", "  "); err != nil {
		return fmt.Errorf("malformed answer: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// skillArgument turns a path to an existing prompt file into the absolute
// path skills are keyed by; names and PROJECT#name pass unchanged.
func skillArgument(s string) string {
	if strings.ContainsRune(s, os.PathSeparator) && !strings.Contains(s, "#") {
		if fi, err := os.Stat(s); err == nil && fi.Mode().IsRegular() {
			if abs, err := filepath.Abs(s); err == nil {
				return abs
			}
		}
	}
	return s
}

// write runs one write command: it posts to path (with body, for
// propose) and prints the engine's record: its words, or with --json the
// endpoint's document. Nothing applied (a conflict, auto_rollback off for
// an automatic action) exits 1.
func write(f queryFlags, path string, body []byte, stdout io.Writer) error {
	c := client.New(f.home, f.config)
	defer c.Close()
	b, err := c.Post(path, body)
	if here, ok := f.here(path, err); ok {
		b, err = c.Post(here, body)
	}
	if err != nil {
		return err
	}
	var rec mutation.Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return fmt.Errorf("malformed answer: %w", err)
	}
	if f.json {
		if err := printJSON(stdout, b); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(stdout, rec.Words)
	}
	if !rec.Applied {
		return &exitError{code: exitFail, err: errors.New("nothing was changed")}
	}
	return nil
}
