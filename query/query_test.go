package query

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

var t0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// ex is a compact description of one execution to commit.
type ex struct {
	id, skill, project, path, version string
	score                             float64 // < 0: unscored
	at                                time.Duration
	failed                            bool
}

func scored(e ex) record.Scored {
	at := t0.Add(e.at)
	x := execution.Execution{ID: e.id, SessionID: "sess-" + e.project, Skill: e.skill, Kind: "skill", Project: e.project,
		SkillPath: e.path, SkillVersion: e.version, StartedAt: at, EndedAt: at.Add(2 * time.Second), Complete: true, Events: 4,
		Prompt: "do it",
		Calls: []execution.ToolCall{
			{ID: "t1", Name: "Read", HasDuration: true, DurationMS: 120, Start: at},
			{ID: "t2", Name: "Bash", Failed: e.failed, Error: map[bool]string{true: "Exit code 1"}[e.failed]},
		}}
	r := fitness.Result{RubricVersion: fitness.RubricVersion}
	if e.score >= 0 {
		r.Scored, r.Score, r.Grade = true, e.score, fitness.GradeOf(e.score)
		r.Signals = []fitness.Signal{{Signal: fitness.SignalToolSuccess, Present: true, Value: 1, SubScore: 1, Weight: 0.35, EffectiveWeight: 1, Contribution: e.score, Detail: "all good"}}
	}
	return record.Scored{Exec: x, Result: r}
}

func openDB(t *testing.T, es ...ex) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "sepa.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	commit(t, db, es...)
	return db
}

func commit(t *testing.T, db *store.DB, es ...ex) {
	t.Helper()
	// One execution per commit: the order of commits is the order of es.
	for _, e := range es {
		if err := db.Commit(&store.Batch{Executions: []record.Scored{scored(e)}}); err != nil {
			t.Fatal(err)
		}
	}
}

const (
	shop = "/home/ana/src/shop"
	blog = "/home/ana/src/blog"
)

var deployPath = shop + "/.claude/skills/deploy/SKILL.md"

// fixture: deploy in shop has three versions (v1 graded, v2 graded and
// worse, v3 current with one score); deploy in blog has one ungraded
// version; review in shop has an unscored execution too.
func fixture() []ex {
	var es []ex
	n := 0
	add := func(skill, project, path, version string, scores ...float64) {
		for _, s := range scores {
			n++
			es = append(es, ex{id: fmt.Sprintf("e%03d%s", n, strings.Repeat("0", 8)), skill: skill, project: project, path: path,
				version: version, score: s, at: time.Duration(n) * time.Minute, failed: s >= 0 && s < 60})
		}
	}
	add("deploy", shop, deployPath, "aaaaaaaaaaaa", 80, 82, 84)
	add("deploy", shop, deployPath, "bbbbbbbbbbbb", 60, 62, 55)
	add("deploy", blog, "", "dddddddddddd", 91)
	add("review", shop, "", "eeeeeeeeeeee", 75, -1, 77, 79)
	add("deploy", shop, deployPath, "cccccccccccc", 90)
	return es
}

func agg(scores ...float64) aggregate.Aggregate {
	newest := make([]float64, len(scores))
	for i, s := range scores {
		newest[len(scores)-1-i] = s
	}
	a, _ := aggregate.Compute(newest, aggregate.DefaultOptions())
	return a
}

func TestGradesCurrentVersionPerSkill(t *testing.T) {
	db := openDB(t, fixture()...)
	g, err := ListGrades(db, GradesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if g.RubricVersion != fitness.RubricVersion || g.MinSamples != 3 {
		t.Errorf("header %+v", g)
	}
	var got []string
	for _, r := range g.Grades {
		got = append(got, fmt.Sprintf("%s|%s|v%d|%s|%d|%s", r.Skill, r.Project, r.Version, r.Status, r.N, r.Grade))
	}
	want := []string{
		"deploy|" + blog + "|v1|ungraded|1|",
		"deploy|" + shop + "|v3|ungraded|1|",
		"review|" + shop + "|v1|baseline|3|B",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	r := g.Grades[2]
	want2 := agg(75, 77, 79)
	if *r.Aggregate != want2.Value || *r.LastScore != 79 || r.Advice != fitness.B.Advice() || !r.Current {
		t.Errorf("review row %+v, want aggregate %v", r, want2.Value)
	}
	if g.Grades[1].Change != nil || g.Grades[1].Grade != "" || g.Grades[1].Advice != fitness.Ungraded.Advice() {
		t.Errorf("ungraded current version: %+v", g.Grades[1])
	}
}

func TestGradesAllVersionsStatusesAndChange(t *testing.T) {
	db := openDB(t, fixture()...)
	g, err := ListGrades(db, GradesRequest{Match: deployPath, AllVersions: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Grades) != 3 {
		t.Fatalf("%d rows, want 3 versions", len(g.Grades))
	}
	v3, v2, v1 := g.Grades[0], g.Grades[1], g.Grades[2]
	for _, c := range []struct {
		r       GradeRow
		seq     int
		status  string
		current bool
	}{{v3, 3, StatusUngraded, true}, {v2, 2, StatusBaseline, false}, {v1, 1, StatusSuperseded, false}} {
		if c.r.Version != c.seq || c.r.Status != c.status || c.r.Current != c.current {
			t.Errorf("v%d: got seq %d status %q current %v, want %q %v", c.seq, c.r.Version, c.r.Status, c.r.Current, c.status, c.current)
		}
	}
	a1, a2 := agg(80, 82, 84), agg(60, 62, 55)
	if *v1.Aggregate != a1.Value || *v2.Aggregate != a2.Value {
		t.Errorf("aggregates %v %v, want %v %v", *v1.Aggregate, *v2.Aggregate, a1.Value, a2.Value)
	}
	if v1.Change != nil {
		t.Errorf("first version has a change: %v", *v1.Change)
	}
	if v2.Change == nil || *v2.Change != round4(a2.Value-a1.Value) {
		t.Errorf("v2 change %v, want %v", v2.Change, round4(a2.Value-a1.Value))
	}
	if v2.Grade != string(fitness.GradeOf(a2.Value)) || v2.FailRate == 0 {
		t.Errorf("v2 %+v", v2)
	}
}

func TestDeriveStatuses(t *testing.T) {
	v := func(hash string, graded bool) record.Version {
		return record.Version{Hash: hash, Aggregate: aggregate.Aggregate{Graded: graded}}
	}
	for _, c := range []struct {
		name  string
		vs    []record.Version
		state string
		want  string
	}{
		{"none", nil, "", ""},
		{"one ungraded", []record.Version{v("a", false)}, "", "ungraded"},
		{"one graded", []record.Version{v("a", true)}, "", "baseline"},
		{"new version still ungraded", []record.Version{v("a", true), v("b", false)}, "", "baseline ungraded"},
		{"newest graded is baseline", []record.Version{v("a", true), v("b", true), v("c", false)}, "", "superseded baseline ungraded"},
		{"graded after an ungraded", []record.Version{v("a", false), v("b", true)}, "", "ungraded baseline"},
		{"engine statuses win", []record.Version{v("a", true), v("b", true), v("c", false)},
			`{"baseline":"a","status":{"b":"rejected","c":"candidate"}}`, "baseline rejected candidate"},
		{"versions the engine does not know", []record.Version{v("a", true), v("b", true), v("c", false)},
			`{"baseline":"a"}`, "baseline superseded ungraded"},
		{"rolled back to the baseline", []record.Version{v("a", true), v("b", true)},
			`{"baseline":"a","status":{"a":"superseded","b":"rolled back"}}`, "baseline rolled back"},
		{"unreadable state: derived", []record.Version{v("a", true), v("b", true)}, `{broken`, "superseded baseline"},
		{"empty state: derived", []record.Version{v("a", true), v("b", false)}, `{}`, "baseline ungraded"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := strings.Join(deriveStatuses(c.vs, []byte(c.state)), " "); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestGradesShowTheEngineStatuses(t *testing.T) {
	db := openDB(t, fixture()...)
	state := `{"baseline":"aaaaaaaaaaaa","candidate":"cccccccccccc","status":{"aaaaaaaaaaaa":"baseline","bbbbbbbbbbbb":"rejected","cccccccccccc":"candidate"}}`
	if err := db.PutSkillState(deployPath, []byte(state)); err != nil {
		t.Fatal(err)
	}
	g, err := ListGrades(db, GradesRequest{Match: deployPath, AllVersions: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range g.Grades {
		got = append(got, r.Status)
	}
	if strings.Join(got, ",") != "candidate,rejected,baseline" {
		t.Fatalf("statuses %v", got)
	}
	if err := db.PutSkillState(deployPath, []byte("{broken")); err != nil {
		t.Fatal(err)
	}
	g, err = ListGrades(db, GradesRequest{Match: deployPath, AllVersions: true})
	if err != nil || g.Grades[0].Status != StatusUngraded || g.Grades[1].Status != StatusBaseline {
		t.Errorf("a corrupt state blob must fall back to derived statuses: %+v %v", g, err)
	}
}

func TestResolveSkillArguments(t *testing.T) {
	db := openDB(t, fixture()...)
	for _, c := range []struct {
		arg  string
		want string // key, or an error kind
	}{
		{deployPath, deployPath},
		{shop + "#deploy", deployPath},
		{"shop#deploy", deployPath},
		{"blog#deploy", blog + "#deploy"},
		{blog + "#deploy", blog + "#deploy"},
		{"review", shop + "#review"},
		{"deploy", "ambiguous"},
		{"nope", "not found"},
		{"other#deploy", "not found"},
		{"", "bad"},
		{"a\nb", "bad"},
		{"\xff", "bad"},
		{strings.Repeat("x", MaxNameBytes+1), "bad"},
	} {
		t.Run(c.arg, func(t *testing.T) {
			ref, err := Resolve(db, c.arg)
			var amb *AmbiguousError
			switch {
			case c.want == "ambiguous":
				if !errors.As(err, &amb) || len(amb.Candidates) != 2 || !strings.Contains(err.Error(), blog+"#deploy") {
					t.Fatalf("want ambiguity naming both keys, got %v", err)
				}
			case c.want == "not found":
				if !errors.Is(err, ErrNotFound) {
					t.Fatalf("want ErrNotFound, got %v", err)
				}
			case c.want == "bad":
				if !errors.Is(err, ErrBadRequest) {
					t.Fatalf("want ErrBadRequest, got %v", err)
				}
			case err != nil || ref.Key != c.want:
				t.Fatalf("got %q %v, want %q", ref.Key, err, c.want)
			}
		})
	}
	g, err := ListGrades(db, GradesRequest{Match: "deploy"})
	if err != nil || len(g.Grades) != 2 || g.Grades[0].Project != blog || g.Grades[1].Project != shop {
		t.Fatalf("grades of a name in two projects: %+v %v", g, err)
	}
	if _, err := ListGrades(db, GradesRequest{Match: "nope"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown match: %v", err)
	}
}

func ids(rows []ExecRow) string {
	var s []string
	for _, r := range rows {
		s = append(s, r.ID[:4])
	}
	return strings.Join(s, " ")
}

func TestListExecutions(t *testing.T) {
	db := openDB(t, fixture()...)
	for _, c := range []struct {
		name string
		req  ExecutionsRequest
		want string
	}{
		{"newest first", ExecutionsRequest{Limit: 3}, "e012 e011 e010"},
		{"one skill, every version", ExecutionsRequest{Skill: deployPath, Limit: 4}, "e012 e006 e005 e004"},
		{"name in two projects", ExecutionsRequest{Skill: "deploy", Limit: 3}, "e012 e007 e006"},
		{"version by number", ExecutionsRequest{Skill: deployPath, Version: "v2"}, "e006 e005 e004"},
		{"version by hash prefix", ExecutionsRequest{Version: "aaaa"}, "e003 e002 e001"},
		{"version prefix with skill", ExecutionsRequest{Skill: "shop#deploy", Version: "aa"}, "e003 e002 e001"},
		{"grade", ExecutionsRequest{Grade: fitness.A}, "e003 e002 e001"},
		{"grade and skill", ExecutionsRequest{Skill: "review", Grade: fitness.B}, "e011 e010 e008"},
		{"since", ExecutionsRequest{Since: t0.Add(10 * time.Minute)}, "e012 e011 e010"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ListExecutions(db, c.req)
			if err != nil {
				t.Fatal(err)
			}
			if s := ids(got.Executions); s != c.want {
				t.Errorf("got %s, want %s", s, c.want)
			}
		})
	}
	got, _ := ListExecutions(db, ExecutionsRequest{Skill: deployPath, Version: "v2", Limit: 1})
	r := got.Executions[0]
	if r.Version != 2 || r.Hash != "bbbbbbbbbbbb" || r.Score == nil || *r.Score != 55 || r.Grade != "D" || r.Calls != 2 || r.Failed != 1 ||
		r.DurationMS == nil || *r.DurationMS != 2000 || !r.Time.Equal(t0.Add(6*time.Minute+2*time.Second)) {
		t.Errorf("row %+v", r)
	}
	for _, c := range []ExecutionsRequest{{Version: "v2"}, {Skill: "nope"}, {Skill: deployPath, Version: "v9"}} {
		if _, err := ListExecutions(db, c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
	un, _ := ListExecutions(db, ExecutionsRequest{Skill: "review"})
	if len(un.Executions) != 4 || un.Executions[2].Score != nil || un.Executions[2].Grade != "" {
		t.Errorf("unscored execution row: %+v", un.Executions)
	}
}

func TestHistoryAcrossVersions(t *testing.T) {
	db := openDB(t, fixture()...)
	h, err := SkillHistory(db, HistoryRequest{Skill: deployPath, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if ids(h.Executions) != "e012 e006 e005 e004 e003" || h.Total != 7 || len(h.Versions) != 3 || h.Versions[0].Version != 3 {
		t.Fatalf("history %s total %d versions %d", ids(h.Executions), h.Total, len(h.Versions))
	}
	if h.Executions[0].Version != 3 || h.Executions[1].Version != 2 || h.Executions[4].Version != 1 {
		t.Errorf("version numbers %+v", h.Executions)
	}
	var amb *AmbiguousError
	if _, err := SkillHistory(db, HistoryRequest{Skill: "deploy"}); !errors.As(err, &amb) {
		t.Errorf("history of an ambiguous name: %v", err)
	}
}

func TestExplainEntersAggregate(t *testing.T) {
	// Ten scores: 10% trim drops one at each end.
	var es []ex
	scores := []float64{70, 71, 99, 72, 73, 10, 74, 75, 76, 77}
	for i, s := range scores {
		es = append(es, ex{id: fmt.Sprintf("x%02d00000000", i), skill: "triage", project: shop, version: "ffffffffffff", score: s, at: time.Duration(i) * time.Minute})
	}
	es = append(es, ex{id: "u00000000000", skill: "triage", project: shop, version: "ffffffffffff", score: -1, at: time.Hour})
	db := openDB(t, es...)
	for _, c := range []struct {
		id, in, trimmed string
		pos             int
		weight          float64
	}{
		{"x09", "window", "", 0, 1.0},
		{"x08", "window", "", 1, 0.9},
		{"x02", "window", "top", 7, 0},
		{"x05", "window", "bottom", 4, 0},
		{"x03", "window", "", 6, 0}, // kept, beyond the five weights
		{"u00", "unscored", "", -1, 0},
	} {
		t.Run(c.id, func(t *testing.T) {
			e, err := ExplainExecution(db, c.id+"0")
			if err != nil {
				t.Fatal(err)
			}
			a := e.Aggregate
			if a.In != c.in || a.Trimmed != c.trimmed || a.Weight != c.weight {
				t.Fatalf("entry %+v", a)
			}
			if c.pos >= 0 && (a.Position == nil || *a.Position != c.pos || a.Window != 10) {
				t.Fatalf("position %v window %d, want %d of 10", a.Position, a.Window, c.pos)
			}
			if a.Version.N != 10 || a.Version.Version != 1 || a.Version.Status != StatusBaseline {
				t.Errorf("version row %+v", a.Version)
			}
		})
	}
	e, _ := ExplainExecution(db, "x090")
	if e.Aggregate.Share != round4(1.0/(1+.9+.8+.7+.6)) {
		t.Errorf("share %v", e.Aggregate.Share)
	}
	if len(e.Calls) != 2 || e.Calls[0].Tool != "Read" || e.Calls[0].DurationMS == nil || *e.Calls[0].DurationMS != 120 || e.Calls[1].DurationMS != nil {
		t.Errorf("calls %+v", e.Calls)
	}
	if e.Score.Score == nil || *e.Score.Score != 77 || e.Score.Grade != "B" || len(e.Score.Signals) != 1 || e.Prompt != "do it" {
		t.Errorf("score %+v", e.Score)
	}
	if _, err := ExplainExecution(db, "zzzz"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := ExplainExecution(db, "x0"); !errors.Is(err, ErrNotFound) {
		t.Errorf("short prefix: %v", err)
	}
	commit(t, db, ex{id: "ambx10000000", skill: "o", project: shop, score: 1}, ex{id: "ambx20000000", skill: "o", project: shop, score: 1})
	if _, err := ExplainExecution(db, "ambx"); !errors.Is(err, ErrBadRequest) {
		t.Errorf("ambiguous prefix: %v", err)
	}
	if _, err := ExplainExecution(db, "a\x00b"); !errors.Is(err, ErrBadRequest) {
		t.Errorf("control character: %v", err)
	}
}

func TestExplainOutsideWindowAndFailedCall(t *testing.T) {
	o := aggregate.DefaultOptions()
	o.Window = 3
	db, err := store.Open(filepath.Join(t.TempDir(), "sepa.db"), store.Options{Aggregate: o})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := 0; i < 5; i++ {
		commit(t, db, ex{id: fmt.Sprintf("w%d0000000000", i), skill: "s", project: shop, version: "aaaaaaaaaaaa", score: 50, failed: true, at: time.Duration(i) * time.Minute})
	}
	e, err := ExplainExecution(db, "w0000000000")
	if err != nil {
		t.Fatal(err)
	}
	if e.Aggregate.In != "outside_window" || e.Aggregate.Position != nil || e.Aggregate.Version.N != 5 {
		t.Errorf("entry %+v", e.Aggregate)
	}
	if c := e.Calls[1]; c.OK || c.Status != "failed" || c.Error != "Exit code 1" {
		t.Errorf("failed call %+v", c)
	}
}

func TestQuarantineNewestFirst(t *testing.T) {
	db := openDB(t)
	var q []record.QuarantineEntry
	for i := 0; i < 5; i++ {
		q = append(q, record.QuarantineEntry{File: "/h/events.jsonl", Offset: int64(i * 100), Raw: []byte(fmt.Sprintf("line %d", i)), Reason: "not a JSON object", Time: t0})
	}
	q = append(q, record.QuarantineEntry{File: "/h/events.jsonl", Offset: 999, Raw: append([]byte(strings.Repeat("é", 100)), 0xff), Reason: "long"})
	if err := db.Commit(&store.Batch{Quarantine: q}); err != nil {
		t.Fatal(err)
	}
	got, err := ListQuarantine(db, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got.Total != 6 || got.Kept != 6 || len(got.Lines) != 3 || got.Lines[0].Offset != 999 || got.Lines[1].Offset != 400 || got.Lines[2].Head != "line 3" {
		t.Fatalf("%+v", got)
	}
	h := got.Lines[0].Head
	if len(h) > HeadBytes || strings.ContainsRune(h, '\uFFFD') || got.Lines[0].Bytes != 201 {
		t.Errorf("head %q (%d bytes) of %d", h, len(h), got.Lines[0].Bytes)
	}
}

func TestParseArguments(t *testing.T) {
	now := t0
	for _, c := range []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{"", time.Time{}, false},
		{"2026-11-19T08:00:00Z", time.Date(2026, 11, 19, 8, 0, 0, 0, time.UTC), false},
		{"36h", now.Add(-36 * time.Hour), false},
		{"7d", now.Add(-7 * 24 * time.Hour), false},
		{"yesterday", time.Time{}, true},
		{"-5h", time.Time{}, true},
	} {
		got, err := ParseSince(c.in, now)
		if (err != nil) != c.bad || (!c.bad && !got.Equal(c.want)) {
			t.Errorf("ParseSince(%q) = %v, %v", c.in, got, err)
		}
		if c.bad && !errors.Is(err, ErrBadRequest) {
			t.Errorf("ParseSince(%q): %v is not ErrBadRequest", c.in, err)
		}
	}
	if d, err := ParseSince("2026-11-19", now); err != nil || d.Day() != 19 {
		t.Errorf("date: %v %v", d, err)
	}
	for in, want := range map[string]int{"": 7, "1": 1, "10000": 10000, "0": -1, "-3": -1, "x": -1, "10001": -1} {
		n, err := ParseLimit(in, 7)
		if (want < 0) != (err != nil) || (want >= 0 && n != want) {
			t.Errorf("ParseLimit(%q) = %d, %v", in, n, err)
		}
	}
	if g, err := ParseGradeArg("a+"); err != nil || g != fitness.APlus {
		t.Errorf("grade a+: %v %v", g, err)
	}
	if _, err := ParseGradeArg("E"); !errors.Is(err, ErrBadRequest) {
		t.Errorf("grade E: %v", err)
	}
}

func TestDecisionsNewestFirst(t *testing.T) {
	db := openDB(t, fixture()...)
	for i, k := range []string{deployPath, shop + "#review", deployPath} {
		if err := db.PutDecision(k, t0.Add(time.Duration(i)*time.Hour), map[string]any{"action": fmt.Sprint("d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	all, err := ListDecisions(db, "", 10)
	if err != nil || len(all.Decisions) != 3 || all.Decisions[0].Seq < all.Decisions[2].Seq {
		t.Fatalf("%+v %v", all, err)
	}
	one, err := ListDecisions(db, deployPath, 10)
	if err != nil || len(one.Decisions) != 2 || one.Decisions[0].Payload.(map[string]any)["action"] != "d2" {
		t.Fatalf("%+v %v", one, err)
	}
	// Each names its skill's project, so a name used in two projects
	// is told apart in sepad decisions.
	if one.Decisions[0].Project != shop {
		t.Errorf("decision's project %q, want %q", one.Decisions[0].Project, shop)
	}
	if err := store.CheckInvariants(db); err != nil {
		t.Fatal(err)
	}
}

// Listings keep decoded rows by execution ID; a full cache starts over
// without losing rows, and another database's rows are never used.
func TestRowCache(t *testing.T) {
	defer func(n int) { maxCachedRows = n }(maxCachedRows)
	maxCachedRows = 5
	db := openDB(t, fixture()...)
	first, err := ListExecutions(db, ExecutionsRequest{Limit: 12})
	if err != nil || len(first.Executions) != 12 {
		t.Fatalf("%d rows, %v", len(first.Executions), err)
	}
	again, _ := ListExecutions(db, ExecutionsRequest{Limit: 12})
	if !reflect.DeepEqual(first, again) {
		t.Fatal("a second listing differs")
	}
	// Another database, the same IDs committed in another order with other
	// scores.
	es := fixture()
	for i, j := 0, len(es)-1; i < j; i, j = i+1, j-1 {
		es[i], es[j] = es[j], es[i]
	}
	for i := range es {
		if es[i].score >= 0 {
			es[i].score = 11
		}
	}
	other := openDB(t, es...)
	got, _ := ListExecutions(other, ExecutionsRequest{Limit: 12})
	for _, r := range got.Executions {
		if r.Score != nil && *r.Score != 11 {
			t.Fatalf("row of the first database: %+v", r)
		}
	}
	if back, _ := ListExecutions(db, ExecutionsRequest{Limit: 12}); !reflect.DeepEqual(first, back) {
		t.Fatal("the first database's listing changed")
	}
}
