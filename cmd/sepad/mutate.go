package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/hooks"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/store"
)

func init() {
	register("versions", "list a skill's versions with their aggregates and status", runVersions)
	register("show", "print a version's content: SKILL[@VERSION]", runShow)
	register("diff", "compare two versions of a skill: SKILL A B", runDiff)
	register("decisions", "list decisions, rollbacks and conflicts [SKILL]", runDecisions)
	register("rollback", "restore an earlier version of a skill's file [--to VERSION]", runRollback)
	register("accept", "accept a skill's current version as its baseline", func(a []string, in io.Reader, o, e io.Writer) error { return runManual(a, o, e, true) })
	register("reject", "reject a skill's current version and roll back to the baseline", func(a []string, in io.Reader, o, e io.Writer) error { return runManual(a, o, e, false) })
	register("propose", "hand in a mutator's new text for a skill: SKILL FILE", runPropose)
}

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

func runVersions(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var m mutFlags
	db, sk, _, err := m.readSkill("versions", "sepad versions SKILL [--json]", args, 1, stderr)
	if err != nil {
		return err
	}
	defer db.Close()
	st, err := mutation.Statuses(db, sk.Key)
	if err != nil {
		return err
	}
	type row struct {
		Version   string  `json:"version"`
		Hash      string  `json:"hash"`
		Status    string  `json:"status"`
		Source    string  `json:"source"`
		Parent    string  `json:"parent,omitempty"`
		FirstSeen string  `json:"first_seen,omitempty"`
		N         int     `json:"n"`
		Aggregate float64 `json:"aggregate"`
		Grade     string  `json:"grade"`
		Current   bool    `json:"current"`
		Content   bool    `json:"content_known"`
	}
	var rows []row
	inFile := sk.Current
	if h, ok := query.InForce(sk); ok {
		inFile = h // the file's content now, not the version that ran last
	}
	for _, v := range sk.Versions {
		g := "-"
		if v.Aggregate.Graded {
			g = string(fitness.GradeOf(v.Aggregate.Value))
		}
		r := row{Version: fmt.Sprintf("v%d", v.Seq), Hash: v.Hash, Status: st[v.Hash], Source: v.Source, Parent: v.Parent,
			N: v.Aggregate.N, Aggregate: v.Aggregate.Value, Grade: g, Current: v.Hash == inFile, Content: v.ContentKnown}
		if !v.FirstSeen.IsZero() {
			r.FirstSeen = v.FirstSeen.Format(time.RFC3339)
		}
		rows = append(rows, r)
	}
	if m.json {
		return writeJSON(stdout, map[string]any{"skill": sk.Key, "name": sk.Name, "versions": rows})
	}
	fmt.Fprintf(stdout, "%s (%s)\n", sk.Name, sk.Key)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tHASH\tSTATUS\tSOURCE\tN\tAGGREGATE\tGRADE\tFIRST SEEN\t")
	for _, r := range rows {
		cur := ""
		if r.Current {
			cur = " *"
		}
		status := r.Status
		if status == "" {
			status = "-"
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%d\t%.2f\t%s\t%s\t\n", r.Version, cur, r.Hash, status, r.Source, r.N, r.Aggregate, r.Grade, r.FirstSeen)
	}
	tw.Flush()
	fmt.Fprintln(stdout, "* = the version in the file now")
	return nil
}

func splitAt(arg string) (string, string) {
	if i := strings.LastIndex(arg, "@"); i > 0 {
		return arg[:i], arg[i+1:]
	}
	return arg, ""
}

func runShow(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var m mutFlags
	db, sk, pos, err := m.readSkill("show", "sepad show SKILL[@VERSION]", args, 1, stderr)
	if err != nil {
		return err
	}
	defer db.Close()
	_, ver := splitAt(pos[0])
	if ver == "" {
		ver = sk.Current
	}
	v, err := db.Version(sk.Key, ver)
	if err != nil {
		return err
	}
	if m.json {
		return writeJSON(stdout, v)
	}
	if !v.ContentKnown {
		return fmt.Errorf("v%d (%s) of %s was attributed by executions, but its content was never seen", v.Seq, v.Hash, sk.Name)
	}
	_, err = stdout.Write(v.Content)
	return err
}

func runDiff(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var m mutFlags
	db, sk, pos, err := m.readSkill("diff", "sepad diff SKILL A B (versions as vN or hash)", args, 3, stderr)
	if err != nil {
		return err
	}
	defer db.Close()
	a, err := db.Version(sk.Key, pos[1])
	if err != nil {
		return err
	}
	b, err := db.Version(sk.Key, pos[2])
	if err != nil {
		return err
	}
	if !a.ContentKnown || !b.ContentKnown {
		return fmt.Errorf("the content of v%d or v%d was never seen", a.Seq, b.Seq)
	}
	fmt.Fprintf(stdout, "--- %s v%d (%s)\n+++ %s v%d (%s)\n", sk.Name, a.Seq, a.Hash, sk.Name, b.Seq, b.Hash)
	for _, l := range lineDiff(strings.Split(string(a.Content), "\n"), strings.Split(string(b.Content), "\n")) {
		fmt.Fprintln(stdout, l)
	}
	return nil
}

// lineDiff is a longest-common-subsequence line diff (prompt files are
// small).
func lineDiff(a, b []string) []string {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, " "+a[i])
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			out = append(out, "+"+b[j])
			j++
		default:
			out = append(out, "-"+a[i])
			i++
		}
	}
	return out
}

func runDecisions(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var m mutFlags
	pos, err := m.parse("decisions", args, stderr, nil)
	if err != nil {
		return err
	}
	db, err := m.openStore(false)
	if err != nil {
		return err
	}
	defer db.Close()
	key := ""
	if len(pos) > 0 {
		sk, err := findSkill(db, pos[0])
		if err != nil {
			return err
		}
		key = sk.Key
	}
	ds, err := db.Decisions(key, 0)
	if err != nil {
		return err
	}
	var recs []mutation.Record
	for _, d := range ds {
		var r mutation.Record
		if err := json.Unmarshal(d.Payload, &r); err == nil {
			recs = append(recs, r)
		}
	}
	if m.json {
		return writeJSON(stdout, map[string]any{"decisions": recs})
	}
	if len(recs) == 0 {
		fmt.Fprintln(stdout, "no decisions yet")
		return nil
	}
	for _, r := range recs {
		applied := ""
		if !r.Applied {
			applied = " (not applied)"
		}
		fmt.Fprintf(stdout, "%s  %-8s %-10s %-26s%s\n    %s\n", r.Time.Format("2006-01-02 15:04:05"), r.Skill, r.Kind, r.Rule, applied, r.Words)
	}
	return nil
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

func runRollback(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var m mutFlags
	var to string
	pos, err := m.parse("rollback", args, stderr, func(f *mutFlagSet) {
		f.fs.StringVar(&to, "to", "", "version to restore (vN or hash; default the baseline)")
	})
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("usage: sepad rollback SKILL [--to VERSION]")
	}
	return m.withEngine(func(e *mutation.Engine, db *store.DB) (mutation.Record, error) {
		sk, err := findSkill(db, pos[0])
		if err != nil {
			return mutation.Record{}, err
		}
		return e.ManualRollback(sk.Key, to)
	}, stdout)
}

func runManual(args []string, stdout, stderr io.Writer, accept bool) error {
	var m mutFlags
	name := "reject"
	if accept {
		name = "accept"
	}
	pos, err := m.parse(name, args, stderr, nil)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("usage: sepad %s SKILL", name)
	}
	return m.withEngine(func(e *mutation.Engine, db *store.DB) (mutation.Record, error) {
		sk, err := findSkill(db, pos[0])
		if err != nil {
			return mutation.Record{}, err
		}
		return e.ManualDecision(sk.Key, accept)
	}, stdout)
}

func runPropose(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var m mutFlags
	var strategy string
	pos, err := m.parse("propose", args, stderr, func(f *mutFlagSet) {
		f.fs.StringVar(&strategy, "strategy", "", "name of the mutation strategy, recorded")
	})
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usageErrorf("usage: sepad propose SKILL FILE (- for stdin) [--strategy NAME]")
	}
	var text []byte
	if pos[1] == "-" {
		text, err = io.ReadAll(bufio.NewReader(stdin))
	} else {
		text, err = os.ReadFile(pos[1])
	}
	if err != nil {
		return fmt.Errorf("read proposal: %w", err)
	}
	return m.withEngine(func(e *mutation.Engine, db *store.DB) (mutation.Record, error) {
		sk, err := findSkill(db, pos[0])
		if err != nil {
			return mutation.Record{}, err
		}
		return e.Propose(sk.Key, text, strategy, mutation.DefaultProposalOptions())
	}, stdout)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
