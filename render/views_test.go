package render

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/evolve"
	"github.com/sepad/sepad/export"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/hooks/settings"
	"github.com/sepad/sepad/importer"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/status"
	"github.com/sepad/sepad/store"
	"github.com/sepad/sepad/team"
	"github.com/sepad/sepad/validity"
)

var update = flag.Bool("update", false, "rewrite testdata/views from the tables drawn now")

// view is one table of the CLI drawn from a literal document.
type view struct {
	name string
	draw func(io.Writer)
}

// views are the CLI's tables, each from documents with every field set
// (filled, varied by k) and from the few values that take other branches.
// testdata/views/NAME.txt holds each table as `sepad` printed it when
// the tables were drawn in cmd/sepad: the move changed no byte.
func views(t *testing.T) []view {
	var (
		grades     = query.Grades{RubricVersion: "4.1.0", MinSamples: 5, Grades: []query.GradeRow{filled[query.GradeRow](t, 1), filled[query.GradeRow](t, 2), {Skill: "review", Project: "/q/shop", Version: 1, Hash: "unknown"}}}
		versions   = filled[query.SkillVersions](t, 1)
		history    = filled[query.History](t, 1)
		execs      = []query.ExecRow{filled[query.ExecRow](t, 1), filled[query.ExecRow](t, 2)}
		sessions   = []query.Session{filled[query.Session](t, 1), filled[query.Session](t, 2)}
		st         = filled[status.Status](t, 1)
		quarantine = filled[query.Quarantine](t, 1)
		notices    = []status.NoticeRow{filled[status.NoticeRow](t, 1), {Time: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), Text: "anywhere"}}
		diff       = filled[query.Diff](t, 1)
		strategies = []evolve.StrategyStat{filled[evolve.StrategyStat](t, 1), {Strategy: "shorter", Risk: "low"}}
		imp        = filled[importer.Report](t, 1)
		facets     = filled[importer.FacetsReport](t, 1)
		label      = filled[query.LabelView](t, 1)
		explain    = filled[query.Explain](t, 1)
		record     = filled[mutation.Record](t, 1)
		tgrades    = filled[team.Grades](t, 1)
		tversions  = filled[team.Versions](t, 1)
		texecs     = filled[team.Executions](t, 1)
		tdecisions = []team.TeamDecision{filled[team.TeamDecision](t, 1)}
		treport    = filled[team.Report](t, 1)
	)
	explain.Aggregate.In = "window"
	explain.Aggregate.Trimmed = ""
	explain.Score.Signals = append(explain.Score.Signals, fitness.Signal{})
	explain.Score.Signals[1].Signal, explain.Score.Signals[1].Detail = "efficiency", "no calls"
	explain.Execution.Complete = false
	explain.Value.Overrides = []string{"multi_recovery", "low_tool_diversity"}
	explain.Calls = append(explain.Calls, query.CallRow{Index: 2, Tool: "Bash", Status: "ok", Retry: true, Source: "transcript"})
	diff.Edits = append(diff.Edits, query.DiffEdit{Op: "add", Text: "added"})
	diff.Hunks[0].FromCount, diff.Hunks[0].ToCount = 1, 1
	// CLAUDE.md's diff is per file (an added, a removed, a changed file,
	// one whose text is unknown); a prompt file's has no Files.
	claudeMD := diff
	claudeMD.Skill.Name, claudeMD.Edits = "_session", nil
	claudeMD.Files = []query.FileDiff{
		{Path: "/p/CLAUDE.md", Label: "CLAUDE.md", FromHash: "aaaa", ToHash: "bbbb", Hunks: diff.Hunks},
		{Path: "/p/docs/new.md", Label: "docs/new.md", ToHash: "cccc", Hunks: []query.Hunk{{ToLine: 1, ToCount: 1, Lines: []query.DiffLine{{Op: "+", Text: "new"}}}}},
		{Path: "/p/docs/old.md", Label: "docs/old.md", FromHash: "dddd", Hunks: []query.Hunk{}, Unknown: "from"},
	}
	diff.Files = nil
	show := query.VersionContent{Skill: query.SkillRef{Name: "_session"}, Version: query.GradeRow{Version: 2, Hash: "abcdef123456"}, ContentKnown: true,
		Files: []query.FileText{{Label: "~/.claude/CLAUDE.md", Hash: "1111", ContentKnown: true, Content: "# User\nBe brief.\n"},
			{Label: "CLAUDE.md", Hash: "2222", ContentKnown: true, Content: "# Project"}, {Label: "/elsewhere/CLAUDE.md", Hash: "3333"}}}
	st.Spool = append(st.Spool, status.SpoolFile{File: "gone.jsonl", Size: -1})
	unscored := query.Explain{}
	unscored.Aggregate.In = "unscored"
	// Its version has one run: ungraded, so no grade beside the
	// aggregate (a walk read "aggregate of v1 ffafef07: 88.84 -, n 1").
	agg := 88.84
	unscored.Aggregate.Version.Version, unscored.Aggregate.Version.Hash = 1, "ffafef07aaaa"
	unscored.Aggregate.Version.Aggregate, unscored.Aggregate.Version.N, unscored.Aggregate.Version.Status = &agg, 1, "ungraded"
	notRunning := status.Status{Home: "/h", Database: "/h/sepa.db", Events: map[string]int64{}}
	decisions := []query.Decision{{Time: record.Time, Payload: record}, {Time: record.Time, Payload: mutation.Record{Kind: mutation.KindWouldRollBack, Skill: "deploy", Words: "would roll back"}}}
	tunreachable := team.Report{Database: team.DBState{Error: "dial: refused"}}
	fs := flag.NewFlagSet("rollback", flag.ContinueOnError)
	fs.String("to", "", "version to restore (vN or a hash)")
	fs.String("o", "", "write to `FILE`")
	fs.Bool("json", false, "print JSON")
	fs.Int("limit", 20, "rows")
	cp := Completion{Commands: []string{"grades", "rollback"}, Summaries: map[string]string{"grades": "grade it", "rollback": "roll 'back'"},
		Flags: map[string][]string{"rollback": {"--to", "--json"}}}
	valid := validity.Report{Current: "2.0.0", Groups: []validity.Group{filled[validity.Group](t, 1), filled[validity.Group](t, 2)}}
	valid.Groups[0].Rubric = "2.0.0"
	valid.Groups[0].Rows = append(valid.Groups[0].Rows, validity.Row{Signal: validity.Total, N: 12, Successes: 6, Failures: 6, AUC: fp(1), SE: fp(0), MeanSuccess: fp(90), MeanFailure: fp(40), Verdict: "the score follows success closely"})
	valid.Groups[1].Rows[0].AUC = nil
	// One execution, and a signal by its id: the table says "1
	// execution" and names the signal as explain does ("error-free").
	valid.Groups[1].N, valid.Groups[1].Rows[0].Signal = 1, "error_rate"
	created := settings.Change{After: []byte("{}\n"), Changed: true, Events: []string{"PreToolUse", "Stop"}, Backup: "/h/backups/settings.json.sepad-backup-1"}
	updated := created
	updated.Before = []byte("{\"model\": \"opus\"}")
	same := settings.Change{Before: []byte("{}\n"), After: []byte("{}\n")}
	removed := created
	removed.Removed, removed.After = true, nil
	plugins := []settings.PluginEnable{{ID: "sepad@sepad", File: "/c/settings.json"}}
	return []view{
		{"grades", func(w io.Writer) { Grades(w, &grades, false) }},
		{"grades-all", func(w io.Writer) { Grades(w, &grades, true) }},
		{"grades-none", func(w io.Writer) { Grades(w, &query.Grades{}, false) }},
		{"versions", func(w io.Writer) { Versions(w, &versions) }},
		{"history", func(w io.Writer) { History(w, &history) }},
		{"executions", func(w io.Writer) { Executions(w, execs) }},
		{"executions-none", func(w io.Writer) { Executions(w, nil) }},
		{"sessions", func(w io.Writer) { Sessions(w, sessions) }},
		{"status", func(w io.Writer) { StatusView(w, &st) }},
		{"status-down", func(w io.Writer) { StatusView(w, &notRunning) }},
		{"quarantine", func(w io.Writer) { Quarantine(w, &quarantine) }},
		{"notices", func(w io.Writer) { Notices(w, notices) }},
		{"diff", func(w io.Writer) { Diff(w, &diff) }},
		{"diff-one-edit", func(w io.Writer) { d := diff; d.Edits = d.Edits[:1]; Diff(w, &d) }},
		{"diff-claude-md", func(w io.Writer) { Diff(w, &claudeMD) }},
		{"show-claude-md", func(w io.Writer) { Files(w, &show) }},
		{"strategies", func(w io.Writer) { Strategies(w, strategies) }},
		{"import", func(w io.Writer) { Import(w, imp, false) }},
		{"import-dry", func(w io.Writer) { Import(w, imp, true) }},
		{"facets", func(w io.Writer) { Facets(w, &facets) }},
		{"label", func(w io.Writer) { Derived(w, &label) }},
		{"explain", func(w io.Writer) { Explain(w, &explain) }},
		{"explain-unscored", func(w io.Writer) { Explain(w, &unscored) }},
		{"decisions", func(w io.Writer) { Decisions(w, decisions, false) }},
		{"decisions-v", func(w io.Writer) { Decisions(w, decisions, true) }},
		// deploy in two projects: each record says which (a walk read
		// shop's pin and unpin of deploy while in cafe, with no project).
		{"decisions-two-projects", func(w io.Writer) {
			Decisions(w, []query.Decision{
				{SkillKey: "/src/shop/.claude/skills/deploy/SKILL.md", Project: "/src/shop", Time: record.Time, Payload: mutation.Record{Kind: mutation.KindPin, Skill: "deploy", Applied: true, Words: "deploy pinned to v2"}},
				{SkillKey: "/src/cafe/.claude/skills/deploy/SKILL.md", Project: "/src/cafe", Time: record.Time, Payload: mutation.Record{Kind: mutation.KindPin, Skill: "deploy", Applied: true, Words: "deploy pinned to v1"}},
				{SkillKey: "/src/shop/.claude/agents/review.md", Project: "/src/shop", Time: record.Time, Payload: mutation.Record{Kind: mutation.KindPin, Skill: "review", Applied: true, Words: "review pinned to v1"}},
			}, false)
		}},
		{"team-grades", func(w io.Writer) { TeamGrades(w, &tgrades, true) }},
		{"team-versions", func(w io.Writer) { TeamVersions(w, &tversions) }},
		{"team-executions", func(w io.Writer) { TeamExecutions(w, &texecs) }},
		{"team-decisions", func(w io.Writer) { TeamDecisions(w, tdecisions) }},
		{"team-init", func(w io.Writer) { TeamSchema(w, 3, 3); TeamSchema(w, 1, 3) }},
		{"team-status", func(w io.Writer) { TeamStatus(w, &treport) }},
		{"team-status-unreachable", func(w io.Writer) { TeamStatus(w, &tunreachable) }},
		{"help-rollback", func(w io.Writer) { CommandHelp(w, "rollback", "restore an earlier version", fs) }},
		{"help-unknown", func(w io.Writer) { CommandHelp(w, "new", "a new command", nil) }},
		{"commands", func(w io.Writer) { Commands(w, cp.Summaries) }},
		{"completion-bash", func(w io.Writer) { cp.Bash(w, false) }},
		{"completion-zsh", func(w io.Writer) { cp.Bash(w, true) }},
		{"completion-fish", func(w io.Writer) { cp.Fish(w) }},
		{"evolve", func(w io.Writer) {
			drawn := evolve.Attempt{Words: "deploy: v3 written (strategy simplify, drawn)", By: "draw", U: 0.6943, Weights: map[string]float64{"simplify": 0.5, "clarify": 0.25}, Applied: true}
			Evolve(w, w, &drawn, false)
			Evolve(w, w, &drawn, true)
			dry := evolve.Attempt{Words: "deploy: the request (dry run)", By: "named", DryRun: true, Request: "Improve the skill.\n"}
			Evolve(w, w, &dry, true)
		}},
		{"skill-names", func(w io.Writer) {
			SkillNames(w, &query.Grades{Grades: []query.GradeRow{{Skill: "deploy"}, {Skill: "_session"}, {Skill: "deploy", Version: 2}, {Skill: "review"}}})
		}},
		{"unknown-command", func(w io.Writer) {
			for _, n := range []string{"gradez", "rollbackk", "zzz"} {
				fmt.Fprintln(w, UnknownCommand(n, []string{"grades", "rollback", "version", "versions"}))
			}
		}},
		{"forget", func(w io.Writer) {
			Forgotten(w, &store.Forgotten{Key: "/p/.claude/skills/deploy/SKILL.md", Executions: 1, Versions: 2, Decisions: 0})
		}},
		{"prune", func(w io.Writer) {
			p := store.Pruned{Before: time.Date(2026, 8, 29, 9, 0, 0, 0, time.UTC), Executions: 12, Quarantined: 1}
			fmt.Fprintln(w, Pruned(&p, true))
			fmt.Fprintln(w, Pruned(&p, false))
		}},
		{"evidence", func(w io.Writer) {
			d := 0.25
			Evidence(w, &evals.Evidence{SkillKey: "/p/.claude/skills/deploy/SKILL.md", Skill: "deploy", Version: "v2", Threshold: 0.8, Score: 0.7, Runs: 3, CostUSD: 0.42,
				Cases: []evals.Case{{Name: "alpha", Runs: 1, Score: 1, Passed: true, Delta: &d}, {Name: "beta", Runs: 3, Score: 0.4}}})
		}},
		{"install", func(w io.Writer) {
			for _, r := range []Installed{
				{Change: &created, Undo: "sepad uninstall --project /p"},
				{Change: &updated, Undo: "sepad uninstall --user", DaemonUp: true},
				{Change: &same, Plugins: plugins, Undo: "sepad uninstall --project /p"},
				{Change: &created, DryRun: true, Plugins: plugins, Undo: "sepad uninstall --user"},
				{Change: &same, DryRun: true},
				{Change: &updated, Undo: "sepad uninstall", Secret: "/h/secret", SecretErr: errors.New("create /h/secret: read-only file system"), DaemonUp: true},
			} {
				r.Path = "/p/.claude/settings.json"
				fmt.Fprintln(w, "--")
				Install(w, w, &r)
			}
		}},
		{"uninstall", func(w io.Writer) {
			for _, dry := range []bool{false, true} {
				for _, ch := range []settings.Change{same, {Before: []byte("{}\n")}, updated, removed} {
					fmt.Fprintln(w, "--")
					Uninstall(w, w, "/p/.claude/settings.json", &ch, dry, "")
				}
				fmt.Fprintln(w, "--")
				Uninstall(w, w, "/p/.claude/settings.json", &updated, dry, "/p/.claude/.sepad-home")
			}
		}},
		{"config-show", func(w io.Writer) {
			settings := []config.Setting{{Key: "collector.idle_timeout", Value: "10m", From: "default"}, {Key: "mutation.evolve", Value: "true", From: "/c/config.yaml:3"}}
			ConfigShow(w, "/c/config.yaml", true, true, settings)
			ConfigShow(w, "/c/config.yaml", false, true, settings)
			ConfigShow(w, "/c/config.yaml", false, false, settings)
			ConfigShow(w, "", false, false, settings[:1])
		}},
		{"validity", func(w io.Writer) { Validity(w, &valid) }},
		{"validity-empty", func(w io.Writer) { Validity(w, &validity.Report{Skill: "deploy"}) }},
		{"nothing-exported", func(w io.Writer) {
			for _, f := range []string{export.JSONL, export.SFT, export.Preference} {
				fmt.Fprintln(w, NothingExported(f, export.Stats{Read: 3, Kept: 2, Labelled: 1}, false))
			}
			fmt.Fprintln(w, NothingExported(export.CSV, export.Stats{}, true))
			fmt.Fprintln(w, NothingExported(export.CSV, export.Stats{Read: 1}, true))
		}},
	}
}

// TestViews: each table equals its golden file (go test -update
// rewrites them).
func TestViews(t *testing.T) {
	time.Local = time.UTC // the tables print local times
	for _, v := range views(t) {
		t.Run(v.name, func(t *testing.T) {
			var b bytes.Buffer
			v.draw(&b)
			path := filepath.Join("testdata", "views", v.name+".txt")
			if *update {
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("got:\n%s\nwant (%s; after a change of the view meant, go test ./render -update rewrites it):\n%s", b.String(), path, want)
			}
		})
	}
}

// filled is a T with every field set to a value that is not its zero,
// varied by k (an interface or a func stays nil).
func filled[T any](t *testing.T, k int) T {
	var v T
	fill(t, reflect.ValueOf(&v).Elem(), k, "row")
	return v
}

func fill(t *testing.T, v reflect.Value, k int, path string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("%s-%d", path, k))
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(3 + k))
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		v.SetUint(uint64(5 + k))
	case reflect.Float64:
		v.SetFloat(0.25 * float64(k+1))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), k, path)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 11, 20+k, 9, 0, 0, 0, time.UTC)))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(t, v.Field(i), k, path+"."+v.Type().Field(i).Name)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(t, v.Index(0), k, path+"[0]")
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			fill(t, v.Index(i), k+i, fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		key, val := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(t, key, k, path+"{key}")
		fill(t, val, k, path+"{}")
		m.SetMapIndex(key, val)
		v.Set(m)
	case reflect.Interface, reflect.Func:
	default:
		t.Fatalf("%s: cannot fill a %s", path, v.Type())
	}
}
