package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/hooks"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/store"
)

// The version and decision commands share these helpers; each command
// lives in its own file (versions.go, show.go, diff.go, decisions.go,
// rollback.go, propose.go).

// mutFlags are the flags of the version and decision commands.
type mutFlags struct {
	home, config string
	json         bool
}

func (m *mutFlags) parse(name string, args []string, stderr io.Writer, more func(*mutFlagSet)) ([]string, error) {
	fs := newFlagSet(name, stderr)
	fs.StringVar(&m.home, "home", "", "state directory (default $SEPA_HOME, $XDG_STATE_HOME/sepa, ~/.local/state/sepa)")
	fs.StringVar(&m.config, "config", "", "configuration file")
	fs.BoolVar(&m.json, "json", false, "print JSON")
	if more != nil {
		more(&mutFlagSet{fs})
	}
	return parseFlags(fs, args)
}

type mutFlagSet struct {
	fs interface {
		StringVar(*string, string, string, string)
	}
}

func (m *mutFlags) dir() string {
	if m.home != "" {
		return m.home
	}
	return hooks.Home()
}

// openStore opens the database directly: read-only for queries, for
// writing for actions. While the daemon runs it holds the database; the
// error then says what to do.
func (m *mutFlags) openStore(write bool) (*store.DB, error) {
	db, err := store.Open(filepath.Join(m.dir(), "sepa.db"), store.Options{ReadOnly: !write, LockTimeout: 300 * time.Millisecond})
	if errors.Is(err, store.ErrLocked) {
		return nil, fmt.Errorf("the sepad daemon is running and holds %s: stop it (systemctl --user stop sepad, or Ctrl-C), run this command, and start it again", filepath.Join(m.dir(), "sepa.db"))
	}
	return db, err
}

// findSkill resolves a skill argument: a key (path or PROJECT#name), or a
// name that must match exactly one project's skill.
func findSkill(db *store.DB, arg string) (*store.Skill, error) {
	if sk, err := db.Skill(arg); err == nil {
		return sk, nil
	}
	if abs, err := filepath.Abs(arg); err == nil {
		if sk, err := db.Skill(abs); err == nil {
			return sk, nil
		}
	}
	skills, err := db.Skills()
	if err != nil {
		return nil, err
	}
	var hits []store.Skill
	for _, s := range skills {
		if s.Name == arg {
			hits = append(hits, s)
		}
	}
	switch len(hits) {
	case 0:
		return nil, fmt.Errorf("no skill %q: %w", arg, store.ErrNotFound)
	case 1:
		return db.Skill(hits[0].Key)
	}
	var keys []string
	for _, h := range hits {
		keys = append(keys, h.Key)
	}
	return nil, usageErrorf("%q names %d skills, one per project; give one of: %s", arg, len(hits), strings.Join(keys, ", "))
}

// readSkill parses a read-only command's flags (want positional
// arguments, the first a skill, possibly SKILL@VERSION), opens the database
// read-only and finds the skill. The caller closes the database.
func (m *mutFlags) readSkill(name, usage string, args []string, want int, stderr io.Writer) (*store.DB, *store.Skill, []string, error) {
	pos, err := m.parse(name, args, stderr, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(pos) != want {
		return nil, nil, nil, usageErrorf("usage: %s", usage)
	}
	db, err := m.openStore(false)
	if err != nil {
		return nil, nil, nil, err
	}
	skill, _ := splitAt(pos[0])
	sk, err := findSkill(db, skill)
	if err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	return db, sk, pos, nil
}

func splitAt(arg string) (string, string) {
	if i := strings.LastIndex(arg, "@"); i > 0 {
		return arg[:i], arg[i+1:]
	}
	return arg, ""
}

// withEngine runs an action on an engine over the database opened for
// writing (the daemon must be stopped).
func (m *mutFlags) withEngine(fn func(*mutation.Engine, *store.DB) (mutation.Record, error), stdout io.Writer) error {
	cfg, err := config.Load(config.Path(m.config))
	if err != nil {
		return err
	}
	db, err := m.openStore(true)
	if err != nil {
		return err
	}
	defer db.Close()
	uh, _ := os.UserHomeDir()
	e := mutation.NewEngine(db, mutationOptions(cfg, uh, m.dir(), nil))
	e.TrustRoots(uh)
	skills, err := db.Skills()
	if err != nil {
		return err
	}
	for _, s := range skills {
		e.TrustRoots(s.Project)
	}
	rec, err := fn(e, db)
	if err != nil {
		return err
	}
	if m.json {
		return writeJSON(stdout, rec)
	}
	fmt.Fprintln(stdout, rec.Words)
	if !rec.Applied {
		return &exitError{code: exitFail, err: errors.New("nothing was changed")}
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
