package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sepad/sepad/collector"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/hooks"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/spool"
	"github.com/sepad/sepad/status"
	"github.com/sepad/sepad/store"
)

var t0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

const (
	shop = "/home/ana/src/shop"
	blog = "/home/ana/src/blog"
)

var deployPath = shop + "/.claude/skills/deploy/SKILL.md"

func scoredExec(id, skill, project, path, version string, score float64, at time.Time) record.Scored {
	x := execution.Execution{ID: id, SessionID: "s-" + project, Skill: skill, Kind: "skill", Project: project, SkillPath: path,
		SkillVersion: version, StartedAt: at, EndedAt: at.Add(time.Second), Complete: true,
		Calls: []execution.ToolCall{{ID: "t", Name: "Read", HasDuration: true, DurationMS: 5}}}
	r := fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true, Score: score, Grade: fitness.GradeOf(score)}
	return record.Scored{Exec: x, Result: r}
}

// testDB holds deploy in two projects (shop: two versions) and review.
func testDB(t *testing.T, home string) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var xs []record.Scored
	n := 0
	add := func(skill, project, path, version string, scores ...float64) {
		for _, s := range scores {
			n++
			xs = append(xs, scoredExec(fmt.Sprintf("id%04d000000", n), skill, project, path, version, s, t0.Add(time.Duration(n)*time.Minute)))
		}
	}
	add("deploy", shop, deployPath, "aaaaaaaaaaaa", 80, 82, 84)
	add("deploy", shop, deployPath, "bbbbbbbbbbbb", 60, 61)
	add("deploy", blog, "", "cccccccccccc", 90, 91, 92)
	add("review", shop, "", "dddddddddddd", 70)
	for i := range xs {
		if err := db.Commit(&store.Batch{Executions: xs[i : i+1], EventCounts: map[string]int64{"Stop": 1},
			Quarantine: []record.QuarantineEntry{{File: "f", Offset: int64(i), Raw: []byte("{bad"), Reason: "not JSON"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.PutDecision(deployPath, t0, map[string]string{"action": "keep"}); err != nil {
		t.Fatal(err)
	}
	return db
}

func get(t *testing.T, h http.Handler, method, path string) (int, []byte, http.Header) {
	t.Helper()
	req := httptest.NewRequest(method, "http://sepad"+path, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes(), rec.Header()
}

func TestEveryEndpointAnswersJSON(t *testing.T) {
	home := t.TempDir()
	db := testDB(t, home)
	h := NewHandler(Options{DB: db, Home: home, Metrics: NewMetrics(MetricsOptions{DB: db, Home: home}), Hook: &hooks.Options{Home: home, NoFiles: true}})
	esc := url.PathEscape
	for _, c := range []struct {
		path   string
		status int
		has    string // a JSON key or text the body must contain
	}{
		{"/healthz", 200, `"ok":true`},
		{"/v1/status", 200, `"executions":9`},
		{"/v1/skills", 200, `"grades":[`},
		{"/v1/skills?all_versions=true", 200, `"hash":"aaaaaaaaaaaa"`},
		{"/v1/skills?match=shop%23deploy", 200, `"status":"ungraded"`},
		{"/v1/skills/" + esc(deployPath), 200, `"version_count":2`},
		{"/v1/skills/" + esc(shop+"#review"), 200, `"key":"` + shop + `#review"`},
		{"/v1/skills/review", 200, `"executions":1`},
		{"/v1/skills/" + esc(deployPath) + "/versions", 200, `"versions":[`},
		{"/v1/skills/" + esc("blog#deploy") + "/history?limit=2", 200, `"total":3`},
		{"/v1/executions?limit=2", 200, `"id":"id0009000000"`},
		{"/v1/executions?skill=review&grade=B", 200, `"grade":"B"`},
		{"/v1/executions?since=2026-11-20T09:08:30Z", 200, `"id":"id0009000000"`},
		{"/v1/executions/id0001000000", 200, `"in":"window"`},
		{"/v1/executions/id0001", 200, `"in":"window"`},
		{"/v1/sessions", 200, `"sessions":[`},
		{"/v1/quarantine?limit=1", 200, `"total":9`},
		{"/v1/decisions", 200, `"action":"keep"`},
		{"/v1/validity", 200, `"groups":[]`},
		{"/v1/validity?skill=review&min_labels=4&min_each=2", 200, `"min_labels":4,"min_each":2`},
		{"/metrics", 200, `sepad_skill_version_aggregate{`},
		// Errors: every one is JSON.
		{"/v1/skills/nope", 404, `"status":404`},
		{"/v1/skills/nope/history", 404, `no skill named`},
		{"/v1/skills/deploy", 409, `"candidates":[`},
		{"/v1/skills/a%0Ab", 400, `control characters`},
		{"/v1/skills/%FF", 400, `UTF-8`},
		{"/v1/skills?match=nope", 404, `"error":`},
		{"/v1/skills?all_versions=maybe", 400, `all_versions`},
		{"/v1/skills?format=table", 400, `format`},
		{"/v1/executions?limit=0", 400, `limit`},
		{"/v1/executions?grade=E", 400, `not a grade`},
		{"/v1/executions?since=soon", 400, `time`},
		{"/v1/executions?version=v2", 400, `needs a skill`},
		{"/v1/executions?skill=" + esc(deployPath) + "&version=v7", 404, `no version`},
		{"/v1/executions/nothing", 404, `no execution`},
		{"/v1/validity?skill=nope", 404, `no skill named`},
		{"/v1/validity?min_labels=0", 400, `min_labels`},
		{"/v1/validity?min_each=x", 400, `min_each`},
		{"/v1/nothing", 404, `no endpoint`},
		{"/", 404, `no endpoint`},
	} {
		t.Run(c.path, func(t *testing.T) {
			status, body, hdr := get(t, h, http.MethodGet, c.path)
			if status != c.status || !bytes.Contains(body, []byte(c.has)) {
				t.Fatalf("status %d (want %d), body lacks %s:\n%s", status, c.status, c.has, body)
			}
			if c.path == "/metrics" {
				return
			}
			if ct := hdr.Get("Content-Type"); ct != "application/json" {
				t.Errorf("content type %q", ct)
			}
			if !json.Valid(body) {
				t.Errorf("not JSON: %s", body)
			}
		})
	}
	status, body, hdr := get(t, h, http.MethodPost, "/v1/skills")
	if status != 405 || hdr.Get("Allow") != "GET" || !json.Valid(body) {
		t.Errorf("POST /v1/skills: %d %s", status, body)
	}
	status, body, _ = get(t, h, http.MethodGet, "/v1/hook")
	if status != 405 || !json.Valid(body) {
		t.Errorf("GET /v1/hook: %d %s", status, body)
	}
}

func TestSkillNamesWithSlashesAreOneSegment(t *testing.T) {
	home := t.TempDir()
	db := testDB(t, home)
	// A skill literally named "x/versions" must not reach the versions
	// endpoint of a skill "x".
	if err := db.Commit(&store.Batch{Executions: []record.Scored{scoredExec("slash0000000", "x/versions", shop, "", "eeeeeeeeeeee", 50, t0)}}); err != nil {
		t.Fatal(err)
	}
	h := NewHandler(Options{DB: db, Home: home, Cache: true})
	status, body, _ := get(t, h, http.MethodGet, "/v1/skills/"+url.PathEscape("x/versions"))
	var d query.SkillDetail
	if status != 200 || json.Unmarshal(body, &d) != nil || d.Skill.Name != "x/versions" {
		t.Fatalf("%d %s", status, body)
	}
	status, _, _ = get(t, h, http.MethodGet, "/v1/skills/x/versions")
	if status != 404 {
		t.Fatalf("skill x's versions: %d, want 404", status)
	}
}

func TestCacheFollowsCommits(t *testing.T) {
	home := t.TempDir()
	db := testDB(t, home)
	h := NewHandler(Options{DB: db, Home: home, Cache: true})
	n := func() int {
		_, body, _ := get(t, h, http.MethodGet, "/v1/skills/review")
		var d query.SkillDetail
		if err := json.Unmarshal(body, &d); err != nil {
			t.Fatal(err)
		}
		return d.Skill.Current.N
	}
	if got := n(); got != 1 {
		t.Fatalf("n = %d", got)
	}
	// Concurrent identical requests share one computation and agree.
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := n(); got != 1 {
				errs <- fmt.Errorf("n = %d", got)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := db.Commit(&store.Batch{Executions: []record.Scored{scoredExec("new000000000", "review", shop, "", "dddddddddddd", 75, t0.Add(time.Hour))}}); err != nil {
		t.Fatal(err)
	}
	if got := n(); got != 2 {
		t.Fatalf("after a commit n = %d, want 2 (stale cache)", got)
	}
	// A write that is not a collector commit (a decision) is seen too.
	_, before, _ := get(t, h, http.MethodGet, "/v1/decisions")
	if err := db.PutDecision(deployPath, t0, "second"); err != nil {
		t.Fatal(err)
	}
	_, after, _ := get(t, h, http.MethodGet, "/v1/decisions")
	if bytes.Equal(before, after) || !bytes.Contains(after, []byte(`"second"`)) {
		t.Fatalf("decision not seen: %s", after)
	}
}

func TestCheckLoopback(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:7077": true, "127.0.0.2:0": true, "[::1]:0": true, "localhost:7077": true, "LOCALHOST:1": true,
		":7077": false, "0.0.0.0:7077": false, "[::]:7077": false, "192.168.1.5:7077": false, "example.com:80": false,
		"127.0.0.1": false, "": false,
	} {
		err := CheckLoopback(addr)
		if (err == nil) != ok {
			t.Errorf("%q: %v", addr, err)
		}
		if !ok && addr != "127.0.0.1" && addr != "" && !errors.Is(err, ErrNotLoopback) {
			t.Errorf("%q: %v is not ErrNotLoopback", addr, err)
		}
	}
}

func shortHome(t *testing.T) string {
	// Unix socket paths are limited to about 100 bytes.
	d, err := os.MkdirTemp("", "sepa")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func TestServerSocketAndTCP(t *testing.T) {
	home := shortHome(t)
	db := testDB(t, home)
	sock := SocketPath(home)
	// A stale socket left by a crash is replaced.
	stale, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()
	m := NewMetrics(MetricsOptions{})
	s := New(Options{DB: db, Home: home, HTTPAddr: "127.0.0.1:0", Daemon: status.Daemon{Running: true, PID: 42}, Cache: true, Metrics: m})
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(sock)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket %v %v", fi.Mode(), err)
	}
	uc := SocketClient(sock, 0)
	var st status.Status
	getJSON(t, uc, "http://sepad/v1/status", &st)
	if !st.Daemon.Running || st.Daemon.PID != 42 || st.Daemon.Socket != sock || st.Daemon.HTTP != s.Addr() || s.Addr() == "" {
		t.Fatalf("status daemon %+v addr %s", st.Daemon, s.Addr())
	}
	// TCP needs the secret, which Open wrote into home (0600).
	secret, err := LoadSecret(home)
	if err != nil || len(secret) != 64 {
		t.Fatalf("secret %q: %v", secret, err)
	}
	if fi, err := os.Stat(SecretPath(home)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("secret file %v %v", fi.Mode(), err)
	}
	for _, auth := range []string{"", "Bearer ", "Bearer " + secret[:63], "Bearer " + secret + "0", "Basic " + secret, secret} {
		req, _ := http.NewRequest("GET", "http://"+s.Addr()+"/v1/skills", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") == "" || bytes.Contains(body, []byte(secret[:16])) {
			t.Errorf("Authorization %q: %d %s", auth, resp.StatusCode, body)
		}
	}
	tc := &http.Client{Transport: bearer{secret}}
	var g query.Grades
	getJSON(t, tc, "http://"+s.Addr()+"/v1/skills", &g)
	if len(g.Grades) != 3 {
		t.Fatalf("grades over TCP: %+v", g)
	}
	// The socket needs no secret.
	getJSON(t, uc, "http://sepad/v1/skills", &g)
	// The runtime profiles are on the socket only: a heap profile is a
	// gzipped protobuf; TCP, even with the secret, does not know the path.
	for _, c := range []struct {
		client *http.Client
		url    string
		status int
	}{
		{uc, "http://sepad/debug/pprof/heap", 200},
		{uc, "http://sepad/debug/pprof/", 200},
		{tc, "http://" + s.Addr() + "/debug/pprof/heap", 404},
		{tc, "http://" + s.Addr() + "/debug/pprof/", 404},
	} {
		resp, err := c.client.Get(c.url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s: %d, want %d: %.200s", c.url, resp.StatusCode, c.status, body)
		}
		if c.status == 200 && strings.HasSuffix(c.url, "heap") && !bytes.HasPrefix(body, []byte{0x1f, 0x8b}) {
			t.Errorf("%s: not a gzipped profile: %.40q", c.url, body)
		}
		if c.status == 200 && strings.HasSuffix(c.url, "/") && !strings.Contains(string(body), "heap") {
			t.Errorf("%s: no heap in the index: %.200s", c.url, body)
		}
	}
	_, mb, _ := get(t, m.Handler(), http.MethodGet, "/metrics")
	if !strings.Contains(string(mb), "sepad_http_unauthorized_total 6\n") {
		t.Errorf("401s not counted: %s", mb)
	}
	// Browsers are refused on TCP: a foreign Host (DNS rebinding) or an Origin.
	for _, hdr := range []map[string]string{{"Host": "evil.example:80"}, {"Origin": "https://evil.example"}} {
		req, _ := http.NewRequest("GET", "http://"+s.Addr()+"/v1/skills", nil)
		for k, v := range hdr {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 403 || !json.Valid(body) {
			t.Errorf("%v: %d %s", hdr, resp.StatusCode, body)
		}
	}
	// A second server on the same home finds the socket alive.
	s2 := New(Options{DB: db, Home: home})
	if err := s2.Open(context.Background()); !errors.Is(err, ErrSocketInUse) {
		t.Fatalf("second server: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after Close: %v", err)
	}
	if _, err := uc.Get("http://sepad/healthz"); err == nil {
		t.Error("socket still answers after Close")
	}
}

func TestServerRefuses(t *testing.T) {
	home := shortHome(t)
	db := testDB(t, home)
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		s := New(Options{DB: db, Home: home, HTTPAddr: addr})
		if err := s.Open(context.Background()); !errors.Is(err, ErrNotLoopback) {
			s.Close()
			t.Errorf("%s: %v", addr, err)
		}
	}
	if _, err := os.Lstat(SocketPath(home)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused server left a socket: %v", err)
	}
	// A file that is not a socket is never deleted.
	if err := os.WriteFile(SocketPath(home), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := New(Options{DB: db, Home: home})
	if err := s.Open(context.Background()); err == nil || !strings.Contains(err.Error(), "not a socket") {
		s.Close()
		t.Fatalf("regular file at the socket path: %v", err)
	}
	if b, _ := os.ReadFile(SocketPath(home)); string(b) != "mine" {
		t.Error("the file was replaced")
	}
}

// bearer adds the secret to every request.
type bearer struct{ secret string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.secret)
	return http.DefaultTransport.RoundTrip(r)
}

func getJSON(t *testing.T, c *http.Client, u string, v any) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d %s", u, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("%s: %v", u, err)
	}
}

func TestHookAppendsBeforeAnswering(t *testing.T) {
	home := t.TempDir()
	db := testDB(t, home)
	h := NewHandler(Options{DB: db, Home: home, Hook: &hooks.Options{Home: home, NoFiles: true}})
	payload := `{"session_id":"s1","cwd":"/tmp","hook_event_name":"Stop","stop_hook_active":false}`
	req := httptest.NewRequest(http.MethodPost, "http://sepad/v1/hook", strings.NewReader(payload))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNoContent || rec.Body.Len() != 0 || rec.Header().Get("X-Sepad-Wrote") != "spool" {
		t.Fatalf("%d %q %v", rec.Code, rec.Body, rec.Header())
	}
	b, err := os.ReadFile(spool.Path(home))
	if err != nil || !bytes.Contains(b, []byte(`"hook_event_name":"Stop"`)) || bytes.Count(b, []byte("\n")) != 1 {
		t.Fatalf("spool %q %v", b, err)
	}
	// Garbage is kept, quarantined by the hook.
	req = httptest.NewRequest(http.MethodPost, "http://sepad/v1/hook", strings.NewReader("not json"))
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNoContent || rec.Header().Get("X-Sepad-Quarantined") != "true" {
		t.Fatalf("garbage: %d %v", rec.Code, rec.Header())
	}
	// Without hook options the endpoint does not exist.
	status, body, _ := get(t, NewHandler(Options{DB: db, Home: home}), http.MethodPost, "/v1/hook")
	if status != 404 || !json.Valid(body) {
		t.Errorf("no hook: %d %s", status, body)
	}
}

func TestMetrics(t *testing.T) {
	home := t.TempDir()
	db := testDB(t, home)
	m := NewMetrics(MetricsOptions{DB: db, Home: home, MaxSkillSeries: 3})
	xs := []record.Scored{scoredExec("m1", "a", shop, "", "", 95, t0), scoredExec("m2", "a", shop, "", "", 40, t0), {}}
	m.OnCommit(collector.CommitInfo{Lines: 10, Executions: xs, Quarantined: 2,
		EventCounts: map[string]int64{"PreToolUse": 4, "Stop": 1}, Latency: 3 * time.Millisecond, Oldest: time.Now().Add(-2 * time.Second)})
	for i := 0; i < 70; i++ {
		m.OnCommit(collector.CommitInfo{EventCounts: map[string]int64{fmt.Sprintf("Made%d", i): 1}})
	}
	_, body, _ := get(t, m.Handler(), http.MethodGet, "/metrics")
	text := string(body)
	for _, want := range []string{
		`sepad_events_ingested_total{event="PreToolUse"} 4`,
		fmt.Sprintf(`sepad_events_ingested_total{event="other"} %d`, 70-(maxEventLabels-2)),
		"sepad_lines_quarantined_total 2",
		`sepad_executions_scored_total{grade="A+"} 1`,
		`sepad_executions_scored_total{grade="F"} 1`,
		`sepad_executions_scored_total{grade="unscored"} 1`,
		`sepad_executions_scored_total{grade="B"} 0`,
		"sepad_commit_duration_seconds_count 71",
		`sepad_skill_version_executions{skill="deploy",skill_key="` + deployPath + `",version="bbbbbbbbbbbb"} 2`,
		`sepad_skill_version_aggregate{skill="review",skill_key="` + shop + `#review",version="dddddddddddd"} 70`,
		// 4 versions, cap 3: the three current ones, v1 of deploy dropped.
		"sepad_skill_version_series_dropped 1",
		"sepad_spool_lag_bytes 0",
		"go_goroutines",
		"process_resident_memory_bytes",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(text, `version="aaaaaaaaaaaa"`) {
		t.Error("a non-current version was exported past the cap")
	}
	var lag float64
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "sepad_ingestion_lag_seconds ") {
			fmt.Sscan(strings.TrimPrefix(l, "sepad_ingestion_lag_seconds "), &lag)
		}
	}
	if lag < 1.5 || lag > 60 {
		t.Errorf("ingestion lag %v, want about 2s", lag)
	}
}

func TestHookBodyIsBounded(t *testing.T) {
	home := t.TempDir()
	db := testDB(t, home)
	const limit = 1 << 20
	m := NewMetrics(MetricsOptions{})
	h := NewHandler(Options{DB: db, Home: home, Metrics: m, Hook: &hooks.Options{Home: home, NoFiles: true, MaxPayload: limit}})
	post := func(body io.Reader, length int64) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "http://sepad/v1/hook", body)
		req.ContentLength = length
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	// Announced too large: refused before a byte is read.
	var read countingReader
	if rec := post(&read, limit+1); rec.Code != http.StatusRequestEntityTooLarge || read.n != 0 {
		t.Fatalf("Content-Length over the limit: %d, %d bytes read", rec.Code, read.n)
	}
	// Chunked (no length) and too large: read up to the limit, then 413.
	if rec := post(io.LimitReader(zeroReader{}, limit+1<<20), -1); rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("chunked body over the limit: %d %s", rec.Code, rec.Body)
	}
	if _, err := os.Stat(spool.Path(home)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused body reached the spool: %v", err)
	}
	// At the limit exactly: recorded.
	payload := []byte(`{"session_id":"s","hook_event_name":"Stop","cwd":"/p","x":"`)
	payload = append(payload, bytes.Repeat([]byte("y"), limit-len(payload)-2)...)
	payload = append(payload, '"', '}')
	if rec := post(bytes.NewReader(payload), -1); rec.Code != http.StatusNoContent {
		t.Fatalf("body at the limit: %d %s", rec.Code, rec.Body)
	}
	if b, err := os.ReadFile(spool.Path(home)); err != nil || !bytes.Contains(b, []byte(`"session_id":"s"`)) {
		t.Fatalf("spool: %.200s %v", b, err)
	}
	_, body, _ := get(t, m.Handler(), http.MethodGet, "/metrics")
	if !strings.Contains(string(body), `sepad_hook_requests_refused_total{reason="too_large"} 2`) {
		t.Errorf("refusals not counted:\n%s", body)
	}
}

type countingReader struct{ n int }

func (c *countingReader) Read(p []byte) (int, error) {
	c.n += len(p)
	return zeroReader{}.Read(p)
}

// TestHookConcurrencyCap: past MaxHookPosts requests in progress, the next
// waits briefly and gets 503; a slot freed admits requests again.
func TestHookConcurrencyCap(t *testing.T) {
	home := t.TempDir()
	db := testDB(t, home)
	m := NewMetrics(MetricsOptions{})
	h := NewHandler(Options{DB: db, Home: home, Metrics: m, MaxHookPosts: 2, Hook: &hooks.Options{Home: home, NoFiles: true}})
	payload := `{"session_id":"s","hook_event_name":"Stop","cwd":"/p"}`
	var pws []*io.PipeWriter
	done := make(chan int, 2)
	for i := 0; i < 2; i++ {
		pr, pw := io.Pipe()
		pws = append(pws, pw)
		go func() {
			req := httptest.NewRequest(http.MethodPost, "http://sepad/v1/hook", pr)
			req.ContentLength = -1
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			done <- rec.Code
		}()
		pw.Write([]byte(payload[:10])) // the handler holds its slot, reading
	}
	req := httptest.NewRequest(http.MethodPost, "http://sepad/v1/hook", strings.NewReader(payload))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("third request with two slots taken: %d %v", rec.Code, rec.Header())
	}
	for _, pw := range pws {
		pw.Write([]byte(payload[10:]))
		pw.Close()
	}
	for i := 0; i < 2; i++ {
		if c := <-done; c != http.StatusNoContent {
			t.Fatalf("slow request: %d", c)
		}
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "http://sepad/v1/hook", strings.NewReader(payload)))
	if rec.Code != http.StatusNoContent {
		t.Fatalf("after the slots were freed: %d %s", rec.Code, rec.Body)
	}
	_, body, _ := get(t, m.Handler(), http.MethodGet, "/metrics")
	if !strings.Contains(string(body), `sepad_hook_requests_refused_total{reason="busy"} 1`) {
		t.Errorf("503 not counted")
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestCloseCutsSilentClients: a client that never finishes its request
// holds Close for ShutdownGrace at most, and being cut is not an error of
// the daemon (sepad run must still exit 0).
func TestCloseCutsSilentClients(t *testing.T) {
	home := t.TempDir()
	db := testDB(t, home)
	s := New(Options{DB: db, Home: home, ShutdownGrace: 100 * time.Millisecond})
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("unix", SocketPath(home))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Half a request: the server is reading its headers when Close comes.
	if _, err := c.Write([]byte("GET /v1/status HTTP/1.1\r\nHost: sepad\r\n")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // let the server read it
	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited on a silent client")
	}
	if _, err := os.Stat(SocketPath(home)); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
}
