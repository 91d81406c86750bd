package dashboard

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/evolve"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/integrity"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/scoring"
	"github.com/sepad/sepad/store"
)

var t0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

const (
	shop       = "/home/ana/src/shop"
	blog       = "/home/ana/src/blog"
	deployPath = shop + "/.claude/skills/deploy/SKILL.md"
	// evil is an output trying every way out of the markdown.
	evil = "# Done\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n[click](javascript:alert(3))\n\n![t](https://tracker.example/p.png)\n\n`<b>code</b>`\n"
)

func scored(id, skill, project, path, version string, score float64, at time.Time) record.Scored {
	x := execution.Execution{ID: id, SessionID: "s-" + project, Skill: skill, Kind: "skill", Project: project, SkillPath: path,
		SkillVersion: version, StartedAt: at, EndedAt: at.Add(time.Second), Complete: true, Output: evil, HasOutput: true,
		Prompt: "ship <it>", Calls: []execution.ToolCall{{ID: "t1", Name: "Bash", HasDuration: true, DurationMS: 5},
			{ID: "t2", Name: "Edit", Failed: true, Error: "<no such file>"}}}
	r := fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true, Score: score, Grade: fitness.GradeOf(score),
		Signals: []fitness.Signal{{Signal: fitness.SignalToolSuccess, Present: true, Value: 0.5, SubScore: 0.5, Weight: 0.35, EffectiveWeight: 1, Contribution: score, Detail: "1/2 tool calls <ok>"}}}
	return record.Scored{Exec: x, Result: r}
}

// testDB holds deploy in two projects (shop: two versions, the second
// worse) and review, with a decision whose words need escaping.
func testDB(t *testing.T) (*store.DB, string) {
	t.Helper()
	home := t.TempDir()
	db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	n := 0
	add := func(skill, project, path, version string, scores ...float64) {
		for _, s := range scores {
			n++
			x := scored(fmt.Sprintf("id%04d000000", n), skill, project, path, version, s, t0.Add(time.Duration(n)*time.Minute))
			if version == "bbbbbbbbbbbb" { // v2 ran on two models
				m := "claude-opus-test"
				if s == 42 {
					m = "claude-sonnet-test"
				}
				x.Exec.Usage = &execution.Usage{Messages: 1, Models: []string{m}, CostKnown: true}
			}
			if err := db.Commit(&store.Batch{Executions: []record.Scored{x}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	add("deploy", shop, deployPath, "aaaaaaaaaaaa", 80, 82, 84, 86)
	add("deploy", shop, deployPath, "bbbbbbbbbbbb", 40, 41, 42)
	add("deploy", blog, "", "cccccccccccc", 90, 91, 92)
	add("review", shop, "", "dddddddddddd", 70)
	rec := map[string]any{"kind": "decision", "skill": "deploy", "skill_key": deployPath, "rule": "worse_with_confidence", "from": "bbbbbbbbbbbb",
		"to": "aaaaaaaaaaaa", "applied": true, "words": "rejected: <b>worse</b> by 40 points", "decision": map[string]any{"outcome": "reject"}}
	if err := db.PutDecision(deployPath, t0.Add(8*time.Minute), rec); err != nil {
		t.Fatal(err)
	}
	return db, home
}

// TestDecisionsNameTheProject: deploy is decided in two projects; each
// decision on the decisions page says which (a walk read two projects'
// records under the bare name).
func TestDecisionsNameTheProject(t *testing.T) {
	db, home := testDB(t)
	sks, err := db.Skills()
	if err != nil {
		t.Fatal(err)
	}
	for _, sk := range sks {
		if sk.Name == "deploy" && sk.Project == blog {
			if err := db.PutDecision(sk.Key, t0.Add(9*time.Minute), map[string]any{"kind": "pin", "skill": "deploy", "applied": true, "words": "deploy pinned"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	code, body := page(t, New(Options{DB: db, Home: home}), "/dashboard/decisions")
	if code != 200 || !strings.Contains(body, ">deploy (shop)</a>") || !strings.Contains(body, ">deploy (blog)</a>") {
		t.Errorf("decisions page: %d\n%s", code, body)
	}
}

func page(t *testing.T, d *Dashboard, path string) (int, string) {
	t.Helper()
	code, body := d.Render(httptest.NewRequest("GET", "http://127.0.0.1"+path, nil))
	return code, string(body)
}

// TestPages renders every page over a real store and checks what each
// must show, and that nothing of an execution's output, prompt, errors or
// a decision's words gets in unescaped.
func TestPages(t *testing.T) {
	db, home := testDB(t)
	d := New(Options{DB: db, Home: home})
	for _, tc := range []struct {
		path string
		code int
		want []string
		not  []string
	}{
		{"/dashboard/", 200, []string{`data-skill="deploy"`, `data-skill="review"`, "every project", `<option value="/home/ana/src/blog"`,
			`<span class="grade grade-f">F</span>`, `<svg class="spark"`, "worst aggregate first"}, nil},
		{"/dashboard/?project=/home/ana/src/blog", 200, []string{`data-skill="deploy"`, "1 of 3 skills"}, []string{`data-skill="review"`}},
		{"/dashboard/?sort=name", 200, []string{`data-skill="deploy"`}, nil},
		{"/dashboard/?sort=best", 400, []string{"want worst or name"}, nil},
		{"/dashboard/?project=/nowhere", 404, []string{"no skill in project"}, nil},
		{"/dashboard/skill?key=" + deployPath, 200, []string{`<svg class="chart"`, "v1", "v2", "rejected: &lt;b&gt;worse&lt;/b&gt; by 40 points",
			"<strong>rejected</strong> v2 → v1", `id="versions"`, "mean tool success rate", `href="execution/id0001000000"`,
			"Models (a decision compares runs of the same model)", "<td>claude-opus-test (2 runs) and claude-sonnet-test (1 run)</td>"},
			// The signals named as explain names them, not by id (issue 36
			// items 1 and 6; a walk read "mean error_rate 0.95", an
			// error-free value under the error rate's id).
			[]string{"<b>worse</b>", "mean tool_success_rate", "mean error_rate", "mean structure_score"}},
		{"/dashboard/skill?key=deploy", 400, []string{"ambiguous"}, nil},
		{"/dashboard/skill?key=nope", 404, []string{"no skill"}, nil},
		{"/dashboard/execution/id0005000000", 200, []string{`data-signal="tool_success_rate"`, `<th scope="row">tool success rate</th>`, "1/2 tool calls &lt;ok&gt;", "✗ failed", "&lt;no such file&gt;",
			"<h1>Done</h1>", "ship &lt;it&gt;", "<code>&lt;b&gt;code&lt;/b&gt;</code>", "No label yet",
			`href="../static/app.css"`, `href="../skill?key=`, `href="../decisions"`},
			[]string{"<script>alert", "onerror=", "javascript:", "<b>code</b>", "<it>", `<th scope="row">tool_success_rate</th>`}},
		{"/dashboard/execution/nope", 404, []string{"no execution"}, nil},
		{"/dashboard/decisions", 200, []string{"Decisions, newest first", "rejected: &lt;b&gt;worse&lt;/b&gt;", "<strong>rejected</strong> v2 → v1"}, nil},
		{"/dashboard/nope", 404, []string{"There is no page"}, nil},
		{"/dashboard/a/b/c", 404, []string{"There is no page", `href="../../static/app.css"`}, nil},
	} {
		code, body := page(t, d, tc.path)
		if code != tc.code {
			t.Errorf("%s: %d, want %d\n%s", tc.path, code, tc.code, body)
			continue
		}
		// Every link is relative: the API serves the pages under a
		// session's own path (docs/security.md).
		if m := absoluteLink.FindString(body); m != "" {
			t.Errorf("%s links to an absolute path: %s", tc.path, m)
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks %q", tc.path, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(body, w) {
				t.Errorf("%s holds %q", tc.path, w)
			}
		}
	}
	// The worst first: deploy v2 (F), the blog's deploy (A+), then
	// review, ungraded.
	_, body := page(t, d, "/dashboard/")
	rows := regexp.MustCompile(`data-skill="([^"]+)" data-grade="([^"]*)"`).FindAllStringSubmatch(body, -1)
	if len(rows) != 3 || rows[0][2] != "F" || rows[1][2] != "A&#43;" || rows[2][1] != "review" {
		t.Errorf("worst first: %v", rows)
	}
	// The outside image of an output is refused by the policy, on every page.
	rec := httptest.NewRecorder()
	d.ServeHTTP(rec, httptest.NewRequest("GET", "/dashboard/execution/id0005000000", nil))
	csp := rec.Header().Get("Content-Security-Policy")
	if !strings.Contains(csp, "img-src 'self' data:") || !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
		t.Errorf("CSP %q", csp)
	}
	// Assets are embedded.
	for _, p := range []string{"/dashboard/static/app.css", "/dashboard/static/live.js"} {
		rec := httptest.NewRecorder()
		d.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		if rec.Code != 200 || rec.Body.Len() < 500 {
			t.Errorf("%s: %d, %d bytes", p, rec.Code, rec.Body.Len())
		}
	}
}

// TestCacheFollowsWrites: with the cache on, a page is kept until the
// store's next write.
func TestCacheFollowsWrites(t *testing.T) {
	db, home := testDB(t)
	d := New(Options{DB: db, Home: home, Cache: true})
	// Warm computes the overview a visit asks for first.
	d.Warm()
	if _, ok := d.cache["/dashboard/?"]; !ok || len(d.cache) != 1 {
		t.Fatalf("after Warm the cache holds %d pages", len(d.cache))
	}
	_, a := page(t, d, "/dashboard/?project=/home/ana/src/shop&sort=name")
	_, b := page(t, d, "/dashboard/?project=/home/ana/src/shop&sort=name")
	if a != b {
		t.Fatal("an unchanged store drew another page")
	}
	x := scored("new000000001", "review", shop, "", "dddddddddddd", 20, t0.Add(time.Hour))
	if err := db.Commit(&store.Batch{Executions: []record.Scored{x}}); err != nil {
		t.Fatal(err)
	}
	_, c := page(t, d, "/dashboard/?project=/home/ana/src/shop&sort=name")
	if !strings.Contains(c, `<td class="num runs">2</td>`) || c == b {
		t.Fatalf("the page after a write does not show it:\n%s", c)
	}
}

// TestEventsStream: the live stream sends the write generation at once
// and again after a write, and ends when the dashboard stops.
func TestEventsStream(t *testing.T) {
	db, home := testDB(t)
	d := New(Options{DB: db, Home: home, Poll: 10 * time.Millisecond})
	srv := httptest.NewServer(d)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/dashboard/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	next := func() string {
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				return v
			}
		}
		t.Fatalf("stream ended: %v", sc.Err())
		return ""
	}
	first := next()
	tx, _ := db.TxID()
	if first != fmt.Sprint(tx) {
		t.Fatalf("first event %q, tx %d", first, tx)
	}
	x := scored("new000000001", "review", shop, "", "dddddddddddd", 20, t0.Add(time.Hour))
	if err := db.Commit(&store.Batch{Executions: []record.Scored{x}}); err != nil {
		t.Fatal(err)
	}
	tx2, _ := db.TxID()
	if got := next(); got != fmt.Sprint(tx2) || tx2 == tx {
		t.Fatalf("after a write: %q, tx %d", got, tx2)
	}
	d.Stop()
	for sc.Scan() {
	}
	if ctx.Err() != nil {
		t.Fatal("the stream did not end with Stop")
	}
}

// TestIntegrityAndValue: a run whose answer claims passing tests after a
// failed test run shows its over-claim and its value; the skill's page
// counts the version's over-claims.
func TestIntegrityAndValue(t *testing.T) {
	db, home := testDB(t)
	x := scored("over00000001", "fix", shop, "", "eeeeeeeeeeee", 70, t0.Add(time.Hour))
	x.Exec.Output = "All tests pass."
	x.Exec.Calls = []execution.ToolCall{{ID: "t1", Name: "Bash", Kind: execution.KindTest, Done: true, Failed: true, Error: "exit 1"}}
	x.Exec.HasOutput = true
	// The collector checks the claims before the commit; the store
	// persists the report as given (285588a).
	x.Integrity = integrity.Check(&x.Exec, nil)
	// and measures its value, as the store keeps it (scoring.Novelty).
	v, vec, err := scoring.NewNovelty(db).Value(store.SkillKey(&x.Exec), &x.Exec, x.Result)
	if err != nil {
		t.Fatal(err)
	}
	x.Value, x.Vector = &v, &vec
	if err := db.Commit(&store.Batch{Executions: []record.Scored{x}}); err != nil {
		t.Fatal(err)
	}
	d := New(Options{DB: db, Home: home})
	code, body := page(t, d, "/dashboard/execution/over00000001")
	for _, want := range []string{`id="integrity-h"`, "over-claim</span>", "tests_pass", "the last test run (call 0, a test command) failed", `id="value-h"`,
		`id="outcome-h"`, "claimed the tests pass; but the last test run (call 0, a test command) failed"} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("execution page: no %q (%d)", want, code)
		}
	}
	code, body = page(t, d, "/dashboard/skill?key="+shop+"%23fix")
	if code != 200 || !strings.Contains(body, "Over-claims") || !strings.Contains(body, "1 of 1") {
		t.Errorf("skill page (%d) lacks the over-claim count", code)
	}
}

// TestSkillPageStrategies: the skill page shows `sepad strategies SKILL`
// once the skill was evolved, and says how to start before.
func TestSkillPageStrategies(t *testing.T) {
	db, home := testDB(t)
	d := New(Options{DB: db, Home: home})
	if _, body := page(t, d, "/dashboard/skill?key="+deployPath); !strings.Contains(body, "No evolution yet") || strings.Contains(body, `id="strategies"`) {
		t.Fatalf("before any evolution:\n%s", body)
	}
	a := evolve.Attempt{Kind: evolve.KindEvolve, SkillKey: deployPath, Skill: "deploy", Rule: "evolve", From: "aaaaaaaaaaaa", To: "bbbbbbbbbbbb",
		Outcome: evolve.OutcomeCandidate, Strategy: "constraint_add", Risk: "low", Words: "evolved"}
	if err := db.PutDecision(deployPath, time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC), a); err != nil {
		t.Fatal(err)
	}
	_, body := page(t, d, "/dashboard/skill?key="+deployPath)
	for _, want := range []string{`id="strategies"`, `<th scope="row">constraint_add</th><td>low</td><td class="num">1</td>`, `<th scope="row">simplify</th>`} {
		if !strings.Contains(body, want) {
			t.Errorf("strategies table lacks %q", want)
		}
	}
}

// absoluteLink finds a link, form or resource given as an absolute path.
var absoluteLink = regexp.MustCompile(`(?:href|src|action)="/[^"]*"`)

// The team page shows what Options.Team reads (package team in the
// daemon), escaped; the team database away is a message, not an error;
// without team.postgres there is no page and no link.
func TestTeamPage(t *testing.T) {
	db, home := testDB(t)
	agg, spread := 84.5, 3.25
	view := &TeamView{Machines: 2, Rows: []TeamRow{{Skill: "deploy", Kind: "skill", Repository: "github.com/acme/shop",
		Path: ".claude/skills/deploy/SKILL.md", Version: 2, Hash: "aaaaaaaaaaaa", Grade: "A", Aggregate: &agg, N: 41, Machines: 2, Spread: &spread}},
		Decisions: []TeamDecisionRow{{Time: t0, Skill: "deploy", Baseline: "bbbbbbbbbbbb", Candidate: "aaaaaaaaaaaa", Outcome: "accept",
			Words: "better <by> 6 points", DecidedBy: "0123456789abcdef", Machines: 2}}}
	tm := &teamLiteral{view: view}
	d := New(Options{DB: db, Home: home, Cache: true, Team: tm})
	code, body := page(t, d, "/dashboard/team")
	for _, want := range []string{`data-skill="deploy" data-machines="2"`, "github.com/acme/shop", `<td class="num runs">41</td>`,
		"84.5", "3.2", "better &lt;by&gt; 6 points", `aria-current="page">Team</a>`, "2 machines have shipped"} {
		if !strings.Contains(body, want) {
			t.Errorf("team page lacks %q", want)
		}
	}
	if code != 200 {
		t.Fatalf("team page: %d", code)
	}
	// Not cached by the local store's generation: the next read shows the
	// team database's change.
	view.Rows[0].N = 42
	if _, body := page(t, d, "/dashboard/team"); !strings.Contains(body, `<td class="num runs">42</td>`) {
		t.Error("the team page was served from the local cache")
	}
	tm.err = fmt.Errorf("connection refused")
	if code, body := page(t, d, "/dashboard/team"); code != 200 || !strings.Contains(body, "The team database cannot be read: connection refused") {
		t.Errorf("team database away: %d %s", code, body)
	}
	plain := New(Options{DB: db, Home: home})
	if code, _ := page(t, plain, "/dashboard/team"); code != 404 {
		t.Errorf("without team.postgres: %d", code)
	}
	if _, body := page(t, plain, "/dashboard/"); strings.Contains(body, ">Team</a>") {
		t.Error("a Team link without team.postgres")
	}
}

// teamLiteral is a team database's answers, given as literals (the
// daemon's reader of package team is tested against PostgreSQL in e2e).
type teamLiteral struct {
	view  *TeamView
	skill *TeamSkill
	err   error
	asked []query.SkillRef
}

func (l *teamLiteral) View(context.Context) (*TeamView, error) { return l.view, l.err }
func (l *teamLiteral) Skill(_ context.Context, s query.SkillRef) (*TeamSkill, error) {
	l.asked = append(l.asked, s)
	return l.skill, l.err
}

// A skill's page has a team section with team.postgres: each version over
// every machine (this machine's vN beside the team's), each machine's
// part, the team's decisions, escaped; read at each visit, not from the
// local cache; the database away is a message on a page that still
// works; without team.postgres there is no section.
func TestSkillPageTeam(t *testing.T) {
	db, home := testDB(t)
	agg, mean, sd, spread, m1, m2 := 84.5, 83.0, 9.5, 4.25, 81.0, 85.25
	last := t0.Add(time.Hour)
	tm := &teamLiteral{skill: &TeamSkill{Prompt: "github.com/acme/shop:.claude/skills/deploy/SKILL.md",
		Versions: []TeamVersion{
			{Version: 3, Hash: "cccccccccccc", Current: true, N: 2, Machines: 1, PerMachine: []TeamMachine{{Machine: "m1m1m1m1m1", N: 2}}},
			{Version: 2, Hash: "bbbbbbbbbbbb", Grade: "A", Aggregate: &agg, Mean: &mean, SD: &sd, N: 41, Machines: 2, Spread: &spread,
				PerMachine: []TeamMachine{{Machine: "m1m1m1m1m1", Person: "p1p1p1p1p1", N: 20, Mean: &m1, LastRun: &last}, {Machine: "m2m2m2m2m2", N: 21, Mean: &m2}}}},
		Decisions: []TeamDecisionRow{{Time: t0, Baseline: "aaaaaaaaaaaa", Candidate: "bbbbbbbbbbbb", Outcome: "reject",
			Words: "worse <by> 6 points", DecidedBy: "0123456789abcdef", Machines: 2}}}}
	d := New(Options{DB: db, Home: home, Cache: true, Team: tm})
	code, body := page(t, d, "/dashboard/skill?key="+deployPath)
	if code != 200 {
		t.Fatalf("skill page: %d %s", code, body)
	}
	for _, want := range []string{`id="team"`, "github.com/acme/shop:.claude/skills/deploy/SKILL.md",
		`<tr data-hash="bbbbbbbbbbbb" data-machines="2" data-n="41">`, "team v2 <code>bbbbbbb</code>", "<td>v2</td>", "84.5", "83.0", "9.5",
		`<td class="num spread">4.2</td>`, `<tr data-hash="bbbbbbbbbbbb" data-machine="m2m2m2m2m2" data-n="21">`, "85.2", "2026-11-20 10:00:00 UTC",
		`<tr data-hash="cccccccccccc" data-machines="1" data-n="2">`, "(newest run)", "worse &lt;by&gt; 6 points", "<strong>reject</strong>"} {
		if !strings.Contains(body, want) {
			t.Errorf("skill page's team section lacks %q", want)
		}
	}
	// The team's v3 is no version of this machine's: no local name.
	if i := strings.Index(body, `data-hash="cccccccccccc" data-machines`); i < 0 || !strings.Contains(body[i:i+300], "<td>–</td>") {
		t.Error("team v3 has a local version name")
	}
	if len(tm.asked) != 1 || tm.asked[0].Key != deployPath || tm.asked[0].Path != deployPath || tm.asked[0].Name != "deploy" {
		t.Errorf("the team reader was asked for %+v", tm.asked)
	}
	tm.skill.Versions[1].N = 42
	if _, body := page(t, d, "/dashboard/skill?key="+deployPath); !strings.Contains(body, `data-machines="2" data-n="42"`) {
		t.Error("the skill page was served from the local cache")
	}
	tm.err = fmt.Errorf("connection refused")
	if code, body := page(t, d, "/dashboard/skill?key="+deployPath); code != 200 || !strings.Contains(body, "The team database cannot be read: connection refused") ||
		!strings.Contains(body, `id="versions"`) {
		t.Errorf("team database away: %d %s", code, body)
	}
	tm.err, tm.skill = nil, &TeamSkill{Prompt: "skill/deploy"}
	if _, body := page(t, d, "/dashboard/skill?key="+deployPath); !strings.Contains(body, "No machine has shipped a run of <code>skill/deploy</code>") {
		t.Error("a prompt the team store does not hold")
	}
	if _, body := page(t, New(Options{DB: db, Home: home}), "/dashboard/skill?key="+deployPath); strings.Contains(body, `id="team"`) {
		t.Error("a team section without team.postgres")
	}
}

// TestSkillPageEdits: the text diff of two versions an evolve attempt
// mutated and wrote shows the mutator's edit list above it, each edit
// with its reason, escaped; another pair of versions shows none.
func TestSkillPageEdits(t *testing.T) {
	db, home := testDB(t)
	key := shop + "/.claude/skills/ship/SKILL.md"
	sk := record.Skill{Key: key, Name: "ship", Kind: "skill", Project: shop, Path: key}
	texts := []string{"# Ship\n\nRun make.\n", "# Ship\n\nRun make, then make check.\n", "# Ship\n\nRun make, then make check.\nSay <done>.\n"}
	var hashes []string
	for i, text := range texts {
		h := fmt.Sprintf("%012d", i+1)
		if _, err := db.PutVersion(sk, record.Version{Hash: h, Content: []byte(text), ContentKnown: true, FirstSeen: t0.Add(time.Duration(i) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, h)
	}
	a := evolve.Attempt{Kind: evolve.KindEvolve, SkillKey: key, Skill: "ship", Rule: "evolve", From: hashes[0], To: hashes[1],
		Outcome: evolve.OutcomeCandidate, Strategy: "constraint_add", Risk: "low", Words: "evolved",
		Edits: []evolve.Edit{{Op: evolve.OpReplace, Passage: "Run make.", Text: "Run make, then make check.", Reason: "runs skipped <the> check"}}}
	if err := db.PutDecision(key, t0.Add(2*time.Hour), a); err != nil {
		t.Fatal(err)
	}
	d := New(Options{DB: db, Home: home})
	_, body := page(t, d, "/dashboard/skill?key="+key+"&from=v1&to=v2")
	for _, want := range []string{`The mutator's 1 edit of v1`, `<li><strong>replace</strong> <code>Run make.</code> with <code>Run make, then make check.</code>: <span class="reason">runs skipped &lt;the&gt; check</span></li>`,
		`<del>-Run make.</del>`} {
		if !strings.Contains(body, want) {
			t.Errorf("v1 → v2 lacks %q", want)
		}
	}
	if _, body := page(t, d, "/dashboard/skill?key="+key+"&from=v2&to=v3"); strings.Contains(body, `id="edits"`) || !strings.Contains(body, `<ins>+Say &lt;done&gt;.</ins>`) {
		t.Errorf("v2 → v3, written by no mutator, shows an edit list or no diff")
	}
}

// The skill page says how the skill comes to run: each version's counts in
// the side-by-side table, the description in force in words, and its edit
// judged on activation; a skill with no marks says it was never invoked.
func TestSkillPageActivation(t *testing.T) {
	db, home := testDB(t)
	key := shop + "/.claude/skills/notes/SKILL.md"
	sk := record.Skill{Key: key, Name: "notes", Kind: "skill", Project: shop, Path: key}
	texts := []string{"---\ndescription: Notes.\n---\nWrite them.\n", "---\ndescription: Write the release notes. Use when asked what changed.\n---\nWrite them.\n"}
	n := 0
	for i, text := range texts {
		h := fmt.Sprintf("%012d", i+1)
		if _, err := db.PutVersion(sk, record.Version{Hash: h, Content: []byte(text), ContentKnown: true, FirstSeen: t0.Add(time.Duration(i) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 3; j++ {
			n++
			x := scored(fmt.Sprintf("ac%02d00000000", n), "notes", shop, key, h, 80, t0.Add(time.Duration(i)*time.Hour+time.Duration(j)*time.Minute))
			x.Exec.InvokedBy, x.Exec.MissedActivation = map[bool]string{true: "claude", false: "user"}[i == 1], i == 0
			if err := db.Commit(&store.Batch{Executions: []record.Scored{x}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	d := New(Options{DB: db, Home: home})
	_, body := page(t, d, "/dashboard/skill?key="+key)
	for _, want := range []string{
		`<td class="num">0 / 3 / 3</td><td class="num">3 / 0 / 0</td>`,
		`Activation, description of v2: the model used it 3 times on its own; the person never typed it: the model picked it 3 of 3 times (100%).`,
		`The description edit (v2 after v1), judged on activation beside the decision: activation not compared yet (3 chances and 3 chances; 5 of each are needed)`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the skill page lacks %q", want)
		}
	}
	// deploy's executions carry no marks (stored before them).
	if _, body := page(t, d, "/dashboard/skill?key="+deployPath); !strings.Contains(body, "description of v1: no invocation counted yet") {
		t.Errorf("deploy's page does not say no invocation was counted")
	}
}
