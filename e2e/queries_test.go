package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/internal/sessiongen"
	"github.com/sepad/sepad/spool"
	"github.com/sepad/sepad/store"
)

const (
	shopProject = "/home/dev/src/shop"
	blogProject = "/home/dev/src/blog"
)

var (
	shopDeploy = shopProject + "/.claude/skills/deploy/SKILL.md"
	shopTriage = shopProject + "/.claude/skills/triage/SKILL.md"
	blogDeploy = blogProject + "/.claude/skills/deploy/SKILL.md"
)

// queryLines is the query tests' stream: deploy in two projects, a second
// version of shop's deploy, a poor triage skill, a reviewer subagent, and
// three lines to quarantine. Its events are recent (from start, ten minutes
// ago): the daemon closes executions idle for 30 minutes, and old events
// would be closed at every commit.
func queryLines() (lines [][]byte, start time.Time) {
	start = time.Now().UTC().Add(-10 * time.Minute).Truncate(time.Second)
	var out [][]byte
	for _, o := range []sessiongen.Options{
		{Seed: 1, Sessions: 30, Project: shopProject, Start: start, Skills: []sessiongen.Skill{
			{Name: "deploy", Path: shopDeploy, Version: "aaaaaaaaaaaa", Quality: 0.95},
			{Name: "triage", Path: shopTriage, Version: "cccccccccccc", Quality: 0.3},
			{Name: "review", Path: shopProject + "/.claude/agents/review.md", Version: "eeeeeeeeeeee", Quality: 0.7, Agent: true}}},
		{Seed: 2, Sessions: 20, Project: shopProject, Start: start.Add(3 * time.Minute), Skills: []sessiongen.Skill{
			{Name: "deploy", Path: shopDeploy, Version: "bbbbbbbbbbbb", Quality: 0.6}}},
		{Seed: 3, Sessions: 15, Project: blogProject, Start: start.Add(6 * time.Minute), Skills: []sessiongen.Skill{
			{Name: "deploy", Path: blogDeploy, Version: "dddddddddddd", Quality: 0.85}}},
	} {
		out = append(out, sessiongen.Generate(o)...)
	}
	return append(out, []byte("not json at all"), []byte(`{"session_id":"x","hook_event_name":""}`), []byte("\x00\x01binary")), start
}

// queryEnv keeps the user's configuration out of both the daemon and the
// CLI (they must compute aggregates with the same options).
func queryEnv(home string) []string {
	return []string{"SEPA_CONFIG=", "XDG_CONFIG_HOME=" + filepath.Join(home, "noconfig"), "SEPA_HOME=" + home, "TZ=UTC"}
}

type statusDoc struct {
	Daemon struct {
		Running bool   `json:"running"`
		Socket  string `json:"socket"`
		HTTP    string `json:"http"`
	} `json:"daemon"`
	Executions     int64 `json:"executions"`
	OpenExecutions int   `json:"open_executions"`
	Quarantined    int64 `json:"quarantined"`
	LagEvents      int64 `json:"lag_events"`
}

func status(t *testing.T, home string) statusDoc {
	t.Helper()
	out, errOut, code := sepad(t, queryEnv(home), nil, "status", "--json", "--home", home)
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, errOut)
	}
	var s statusDoc
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("status JSON: %v\n%s", err, out)
	}
	return s
}

// waitCaughtUp polls the daemon until the spool is committed and the
// counts hold still.
func waitCaughtUp(t *testing.T, home string, quarantined int64) statusDoc {
	t.Helper()
	var last statusDoc
	for i := 0; i < 300; i++ {
		s := status(t, home)
		if s.LagEvents == 0 && s.Quarantined == quarantined && s.Executions > 0 && s == last {
			return s
		}
		last = s
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("daemon never caught up: %+v", last)
	return last
}

// writeSpool writes lines to home's spool.
func writeSpool(t testing.TB, home string, lines [][]byte) {
	t.Helper()
	var b bytes.Buffer
	for _, l := range lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	writeFile(t, spool.Path(home), b.String())
}

type run struct {
	stdout, stderr string
	code           int
}

func TestQueriesDaemonUpAndDown(t *testing.T) {
	skipLong(t)
	home := shortTempDir(t)
	lines, start := queryLines()
	writeSpool(t, home, lines)
	d := startDaemon(t, home, "--http", "127.0.0.1:0")
	st := waitCaughtUp(t, home, 3)
	if !st.Daemon.Running || st.Daemon.Socket != filepath.Join(home, "sepad.sock") || st.Daemon.HTTP == "" {
		t.Fatalf("daemon status %+v", st.Daemon)
	}
	env := queryEnv(home)
	cli := func(args ...string) run {
		o, e, c := sepad(t, env, nil, append(args, "--home", home)...)
		return run{o, e, c}
	}

	// IDs and names to query, from the daemon.
	var execs struct {
		Executions []struct {
			ID       string `json:"id"`
			SkillKey string `json:"skill_key"`
		} `json:"executions"`
	}
	r := cli("executions", "--json", "--limit", "500")
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &execs) != nil || len(execs.Executions) < 100 {
		t.Fatalf("executions: %+v", r)
	}
	var deployID, triageID string
	for _, x := range execs.Executions {
		switch {
		case x.SkillKey == shopDeploy && deployID == "":
			deployID = x.ID
		case x.SkillKey == shopTriage && triageID == "":
			triageID = x.ID
		}
	}
	if deployID == "" || triageID == "" {
		t.Fatal("no deploy or triage execution")
	}

	commands := [][]string{
		{"grades"},
		{"grades", "--all-versions"},
		{"grades", "deploy"},
		{"grades", "deploy", "--all-versions", "--json"},
		{"grades", "--json"},
		{"grades", "shop#deploy", "--all-versions"},
		{"grades", "nope"},
		{"explain", deployID},
		{"explain", triageID[:6], "--json"},
		{"explain", "zzzzzzzz"},
		{"history", "shop#deploy"},
		{"history", shopDeploy, "--json", "--limit", "20"},
		{"history", "deploy"}, // ambiguous: exit 1 naming both
		{"history", "triage", "--limit", "5"},
		{"sessions"},
		{"sessions", "--json", "--limit", "5"},
		{"executions"},
		{"executions", "--skill", "deploy", "--limit", "10"},
		{"executions", "--skill", "shop#deploy", "--version", "v2", "--json", "--limit", "7"},
		{"executions", "--grade", "F", "--json"},
		{"executions", "--since", start.Add(5 * time.Minute).Format(time.RFC3339), "--limit", "5"},
		{"executions", "--version", "dddd", "--limit", "3"},
		{"executions", "--grade", "E"},
		{"quarantine"},
		{"quarantine", "--limit", "2", "--json"},
		// Versions and decisions (writes: writes_test.go). The prompt
		// files of this stream were never read: contents are unknown.
		{"versions", "shop#deploy"},
		{"versions", "triage", "--json"},
		{"versions", "deploy"}, // ambiguous
		{"show", "shop#deploy@v1", "--json"},
		{"show", "triage"},
		{"show", "triage@v7"},
		{"diff", "shop#deploy", "v1", "v2"},
		{"diff", "shop#deploy", "v1", "v2", "--json"},
		{"decisions"},
		{"decisions", "triage", "--json"},
	}
	esc := url.PathEscape
	endpoints := []string{
		"/healthz", "/v1/skills", "/v1/skills?all_versions=true", "/v1/skills?match=deploy",
		"/v1/skills/" + esc(shopDeploy), "/v1/skills/triage", "/v1/skills/" + esc("blog#deploy") + "/versions",
		"/v1/skills/" + esc(shopDeploy) + "/history?limit=30", "/v1/executions/" + deployID,
		"/v1/executions?skill=triage&limit=4", "/v1/decisions", "/v1/sessions?limit=3", "/v1/quarantine",
		"/v1/skills/deploy", "/v1/skills/nope", "/v1/executions?limit=-1",
		"/v1/skills/" + esc(shopDeploy) + "/versions/v2", "/v1/skills/triage/versions/current",
		"/v1/skills/" + esc("shop#deploy") + "/diff?from=v1&to=v2", "/v1/version",
	}

	up := map[string]run{}
	for _, c := range commands {
		up[strings.Join(c, " ")] = cli(c...)
	}
	for _, p := range endpoints {
		up["api "+p] = cli("api", p)
	}
	upStatus, upStatusJSON := cli("status"), cli("status", "--json")

	// Every endpoint, over the socket and over TCP, answers what the CLI
	// printed (JSON), and errors are JSON with the right status.
	sock := filepath.Join(home, "sepad.sock")
	uc := api.SocketClient(sock, 0)
	for _, p := range endpoints {
		sb, sc := httpGet(t, uc, "http://sepad"+p)
		tb, tc := httpGet(t, tcpClient(t, home), "http://"+st.Daemon.HTTP+p)
		if sc != tc || !bytes.Equal(sb, tb) {
			t.Errorf("%s: socket %d and TCP %d differ", p, sc, tc)
		}
		if !json.Valid(sb) {
			t.Errorf("%s: not JSON: %s", p, sb)
		}
		cr := up["api "+p]
		if (sc == 200) != (cr.code == 0) || (sc == 200 && !sameJSON(sb, []byte(cr.stdout))) {
			t.Errorf("%s: HTTP %d and `sepad api` (exit %d) differ", p, sc, cr.code)
		}
	}
	for p, want := range map[string]int{"/v1/skills/deploy": 409, "/v1/skills/nope": 404, "/v1/executions?limit=-1": 400, "/nothing": 404} {
		if _, code := httpGet(t, uc, "http://sepad"+p); code != want {
			t.Errorf("%s: %d, want %d", p, code, want)
		}
	}
	// Writes are POSTs: on TCP only with the secret, GET refused.
	for _, c := range []struct {
		client *http.Client
		method string
		want   int
	}{
		{http.DefaultClient, http.MethodPost, 401},
		{tcpClient(t, home), http.MethodPost, 409}, // deploy is ambiguous: nothing written
		{tcpClient(t, home), http.MethodGet, 405},
	} {
		req, _ := http.NewRequest(c.method, "http://"+st.Daemon.HTTP+"/v1/skills/deploy/accept", nil)
		resp, err := c.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s accept over TCP: %d, want %d", c.method, resp.StatusCode, c.want)
		}
	}
	mb, mc := httpGet(t, tcpClient(t, home), "http://"+st.Daemon.HTTP+"/metrics")
	for _, want := range []string{"sepad_events_ingested_total{event=\"PreToolUse\"}", "sepad_lines_quarantined_total 3",
		"sepad_executions_scored_total{grade=", "sepad_commit_duration_seconds_bucket", "sepad_ingestion_lag_seconds",
		`sepad_build_info{commit="`, `goversion="go`,
		`sepad_skill_version_aggregate{skill="deploy",skill_key="` + shopDeploy + `",version="bbbbbbbbbbbb"}`} {
		if mc != 200 || !bytes.Contains(mb, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	d.stop(t)
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("socket left after the daemon stopped: %v", err)
	}

	// The same commands reading the database directly print the same.
	for _, c := range commands {
		k := strings.Join(c, " ")
		if down := cli(c...); down != up[k] {
			t.Errorf("sepad %s differs with the daemon down:\nUP (exit %d):\n%s%s\nDOWN (exit %d):\n%s%s", k, up[k].code, up[k].stdout, up[k].stderr, down.code, down.stdout, down.stderr)
		}
	}
	for _, p := range endpoints {
		if down := cli("api", p); down != up["api "+p] {
			t.Errorf("sepad api %s differs with the daemon down:\n%+v\n%+v", p, up["api "+p], down)
		}
	}
	downStatus, downStatusJSON := cli("status"), cli("status", "--json")
	if !strings.HasPrefix(upStatus.stdout, "daemon       running") || !strings.HasPrefix(downStatus.stdout, "daemon       not running") {
		t.Errorf("status daemon lines:\n%s\n%s", upStatus.stdout, downStatus.stdout)
	}
	_, upRest, _ := strings.Cut(upStatus.stdout, "\n")
	_, downRest, _ := strings.Cut(downStatus.stdout, "\n")
	if upRest != downRest {
		t.Errorf("status differs beyond the daemon line:\n%s\n%s", upRest, downRest)
	}
	if !sameJSONExcept(t, upStatusJSON.stdout, downStatusJSON.stdout, "daemon") {
		t.Errorf("status --json differs beyond daemon:\n%s\n%s", upStatusJSON.stdout, downStatusJSON.stdout)
	}

	// Spot checks of what the tables say.
	g := up["grades"]
	for _, want := range []string{"SKILL", "ADVICE", "deploy", "shop", "blog", "triage", "review", "CLAUDE.md"} {
		contains(t, g.stdout, want)
	}
	contains(t, up["grades --all-versions"].stdout, "v2 bbbbbbbb *")
	contains(t, up["history deploy"].stderr, "ambiguous")
	contains(t, up["history deploy"].stderr, blogDeploy)
	if up["history deploy"].code != 1 || up["grades nope"].code != 1 || up["explain zzzzzzzz"].code != 1 || up["executions --grade E"].code != 2 {
		t.Errorf("exit codes: history %d, grades %d, explain %d, executions %d", up["history deploy"].code, up["grades nope"].code,
			up["explain zzzzzzzz"].code, up["executions --grade E"].code)
	}
	contains(t, upStatusJSON.stdout, `"build": {`) // the daemon's version
	contains(t, upStatus.stdout, ", sepad ")
	contains(t, up["api /v1/version"].stdout, `"go": "go`)
	contains(t, up["versions shop#deploy"].stdout, "v2 *")
	contains(t, up["versions triage --json"].stdout, `"version": 1,`)
	contains(t, up["show shop#deploy@v1 --json"].stdout, `"content_known": false`)
	contains(t, up["show triage"].stderr, "content is unknown")
	contains(t, up["show triage@v7"].stderr, "its versions: v1 (cccccccccccc)")
	contains(t, up["diff shop#deploy v1 v2"].stderr, "never seen")
	if up["versions deploy"].code != 1 || up["show triage"].code != 1 || up["diff shop#deploy v1 v2 --json"].code != 1 {
		t.Errorf("exit codes: versions %d, show %d, diff %d", up["versions deploy"].code, up["show triage"].code, up["diff shop#deploy v1 v2 --json"].code)
	}
	h := up["history shop#deploy"].stdout
	contains(t, h, "scores  ")
	contains(t, h, "|") // the version change
	contains(t, h, "v2 bbbbbbbb")
	ex := up["explain "+deployID].stdout
	for _, want := range []string{"tool calls", "tool success rate", "error-free", "structure", "aggregate of v", "TOOL"} {
		contains(t, ex, want)
	}
	q := up["quarantine"].stdout
	contains(t, q, "3 lines quarantined")
	contains(t, q, `"not json at all"`)
	contains(t, q, "events.jsonl")
}

func shortTempDir(t testing.TB) string {
	// Unix socket paths are limited to about 100 bytes.
	d, err := os.MkdirTemp("", "sepa")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func httpGet(t *testing.T, c *http.Client, u string) ([]byte, int) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b, resp.StatusCode
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func sameJSONExcept(t *testing.T, a, b, key string) bool {
	var x, y map[string]any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatal(err)
	}
	delete(x, key)
	delete(y, key)
	return reflect.DeepEqual(x, y)
}

type gradeRow struct {
	Skill     string   `json:"skill"`
	SkillKey  string   `json:"skill_key"`
	Current   bool     `json:"current"`
	Grade     string   `json:"grade"`
	Aggregate *float64 `json:"aggregate"`
}

var gradeRanks = map[string]int{"F": 0, "D": 1, "C": 2, "B": 3, "A": 4, "A+": 5}

func TestFailUnderGate(t *testing.T) {
	skipLong(t)
	home := shortTempDir(t)
	lines, _ := queryLines()
	writeSpool(t, home, lines)
	d := startDaemon(t, home)
	waitCaughtUp(t, home, 3)
	d.stop(t)
	env := queryEnv(home)
	out, _, code := sepad(t, env, nil, "grades", "--json", "--home", home)
	if code != 0 {
		t.Fatal(code)
	}
	var doc struct {
		Grades []gradeRow `json:"grades"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	// The lowest and highest graded current versions.
	var lo, hi *gradeRow
	for i := range doc.Grades {
		r := &doc.Grades[i]
		if r.Grade == "" {
			continue
		}
		if lo == nil || *r.Aggregate < *lo.Aggregate {
			lo = r
		}
		if hi == nil || *r.Aggregate > *hi.Aggregate {
			hi = r
		}
	}
	if lo == nil || lo == hi || gradeRanks[lo.Grade] >= gradeRanks[hi.Grade] || lo.Skill != "triage" {
		t.Fatalf("the stream should give a poor triage and a better skill: lo %+v hi %+v", lo, hi)
	}
	score := func(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }
	for _, c := range []struct {
		name  string
		args  []string
		fails bool
	}{
		{"at the lowest grade", []string{"--fail-under", lo.Grade}, false},
		{"one grade above the lowest", []string{"--fail-under", nextGrade(lo.Grade)}, true},
		{"score just under the lowest", []string{"--fail-under", score(*lo.Aggregate - 0.01)}, false},
		{"score just above the lowest", []string{"--fail-under", score(*lo.Aggregate + 0.01)}, true},
		{"only the best skill, at its grade", []string{hi.SkillKey, "--fail-under", hi.Grade}, false},
		{"only the poor skill, one grade up", []string{lo.SkillKey, "--fail-under", nextGrade(lo.Grade)}, true},
		{"with JSON output", []string{"--json", "--fail-under", "100"}, true},
		{"F passes everything graded", []string{"--fail-under", "F"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"grades", "--home", home}, c.args...)
			out, errOut, code := sepad(t, env, nil, args...)
			if c.fails {
				if code != 1 || !strings.Contains(errOut, "below") || !strings.Contains(errOut, lo.Skill) {
					t.Fatalf("want exit 1 naming %s, got %d: %s", lo.Skill, code, errOut)
				}
			} else if code != 0 {
				t.Fatalf("want exit 0, got %d: %s", code, errOut)
			}
			if strings.Contains(strings.Join(c.args, " "), "--json") && !json.Valid([]byte(out)) {
				t.Errorf("stdout is not JSON: %s", out)
			}
		})
	}
	if _, errOut, code := sepad(t, env, nil, "grades", "nope", "--home", home, "--fail-under", "B"); code != 3 || !strings.Contains(errOut, "nothing to gate") {
		t.Errorf("a gate on no skill: exit %d %s; want 3", code, errOut)
	}
	if _, errOut, code := sepad(t, env, nil, "grades", "--home", home, "--fail-under", "Z"); code != 2 || !strings.Contains(errOut, "--fail-under") {
		t.Errorf("bad threshold: exit %d %s", code, errOut)
	}
}

func nextGrade(g string) string {
	for k, r := range gradeRanks {
		if r == gradeRanks[g]+1 {
			return k
		}
	}
	return "A+"
}

func TestLockedDatabaseWithoutDaemon(t *testing.T) {
	home := shortTempDir(t)
	db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, errOut, code := sepad(t, queryEnv(home), nil, "grades", "--home", home)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"locked by another process", "no sepad daemon answers", "sepad.sock", "fuser"} {
		contains(t, errOut, want)
	}
}

func TestNoDatabaseYet(t *testing.T) {
	home := shortTempDir(t)
	out, errOut, code := sepad(t, queryEnv(home), nil, "status", "--home", home)
	if code != 0 {
		t.Fatalf("status: exit %d %s", code, errOut)
	}
	contains(t, out, "not running")
	contains(t, out, "none yet")
	_, errOut, code = sepad(t, queryEnv(home), nil, "grades", "--home", home)
	if code != 1 || !strings.Contains(errOut, "no database") || !strings.Contains(errOut, "sepad run") {
		t.Errorf("grades without a database: exit %d %s", code, errOut)
	}
}

func TestHTTPRefusesNonLoopback(t *testing.T) {
	home := shortTempDir(t)
	for _, addr := range []string{"0.0.0.0:7077", ":7077", "192.0.2.1:7077"} {
		_, errOut, code := sepad(t, queryEnv(home), nil, "run", "--home", home, "--http", addr)
		if code != 2 || !strings.Contains(errOut, "loopback") {
			t.Errorf("--http %s: exit %d %s", addr, code, errOut)
		}
	}
	if _, err := os.Lstat(filepath.Join(home, "sepad.sock")); !os.IsNotExist(err) {
		t.Errorf("socket left: %v", err)
	}
}

func TestHookOverHTTP(t *testing.T) {
	home := shortTempDir(t)
	startDaemon(t, home, "--http", "127.0.0.1:0")
	var st statusDoc
	for i := 0; i < 100 && st.Daemon.HTTP == ""; i++ {
		time.Sleep(50 * time.Millisecond)
		if _, err := os.Stat(filepath.Join(home, "sepad.sock")); err == nil {
			st = status(t, home)
		}
	}
	payload := fmt.Sprintf(`{"session_id":"h1","cwd":%q,"hook_event_name":"SessionStart","source":"startup"}`, home)
	resp, err := tcpClient(t, home).Post("http://"+st.Daemon.HTTP+"/v1/hook", "application/json", strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 || resp.Header.Get("X-Sepad-Wrote") != "spool" {
		t.Fatalf("hook: %d %v", resp.StatusCode, resp.Header)
	}
	// The line is in the spool when the answer arrives.
	b, err := os.ReadFile(spool.Path(home))
	if err != nil || !bytes.Contains(b, []byte(`"session_id":"h1"`)) {
		t.Fatalf("spool %q %v", b, err)
	}
}
