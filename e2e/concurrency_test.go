package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/internal/sessiongen"
	"github.com/sepad/sepad/store"
)

// bigSizes reports whether the full-size load tests and benchmarks run
// (SEPAD_BIG=1): they take minutes on a 2-core machine.
func bigSizes() bool { return os.Getenv("SEPAD_BIG") == "1" }

// loadLines is a stream of at least n events: interleaved sessions over
// twelve skills, timestamped from now.
func loadLines(n int) [][]byte {
	var skills []sessiongen.Skill
	for i := 0; i < 12; i++ {
		skills = append(skills, sessiongen.Skill{Name: fmt.Sprintf("skill%02d", i),
			Path:    fmt.Sprintf("/home/dev/src/app/.claude/skills/skill%02d/SKILL.md", i),
			Version: fmt.Sprintf("%012x", 0xabc000+i), Quality: 0.4 + float64(i)*0.05, Agent: i%5 == 4})
	}
	o := sessiongen.Options{Seed: 9, Start: time.Now().UTC(), Sessions: 200, TurnsPerSession: 20, ToolsPerTurn: 8, Interleave: true, Skills: skills}
	for {
		lines := sessiongen.Generate(o)
		if len(lines) >= n {
			return lines[:n]
		}
		o.Sessions += o.Sessions/2 + 1
	}
}

// socketClient is an HTTP client of the daemon's socket.
func socketClient(home string) *http.Client {
	sock := filepath.Join(home, "sepad.sock")
	return &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 64,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		}}}
}

// ingest starts a daemon over a spool of lines, runs during() once the
// socket answers, and returns how long the daemon took from start until
// it had committed the whole spool (polled every 50 ms).
func ingest(t testing.TB, home string, lines [][]byte, during func(c *http.Client, stop <-chan struct{})) (time.Duration, *daemon) {
	t.Helper()
	writeSpool(t, home, lines)
	c := socketClient(home)
	start := time.Now()
	d := startDaemon(t, home)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	started := false
	for {
		body, code, err := tryGet(c, "http://sepad/v1/status")
		if err == nil && code == 200 {
			if !started && during != nil {
				started = true
				wg.Add(1)
				go func() { defer wg.Done(); during(c, stop) }()
			}
			var st struct {
				LagEvents int64 `json:"lag_events"`
				Spool     []struct {
					Offset, Size int64
				} `json:"spool"`
			}
			if json.Unmarshal(body, &st) == nil && st.LagEvents == 0 && len(st.Spool) > 0 && st.Spool[len(st.Spool)-1].Offset > 0 {
				break
			}
		}
		if time.Since(start) > 10*time.Minute {
			t.Fatalf("daemon did not catch up in 10 minutes\n%s", d.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	took := time.Since(start)
	close(stop)
	wg.Wait()
	return took, d
}

// procCPU reads a process's user+system CPU time from /proc (Linux).
func procCPU(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	if len(f) < 13 {
		return "?"
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	s, _ := strconv.ParseFloat(f[12], 64)
	return fmt.Sprintf("%.2fs", (u+s)/100)
}

func tryGet(c *http.Client, u string) ([]byte, int, error) {
	resp, err := c.Get(u)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, err = b.ReadFrom(resp.Body)
	return b.Bytes(), resp.StatusCode, err
}

type loadRow struct {
	SkillKey  string   `json:"skill_key"`
	Hash      string   `json:"hash"`
	Version   int      `json:"version"`
	Status    string   `json:"status"`
	N         int      `json:"n"`
	Aggregate *float64 `json:"aggregate"`
	Mean      *float64 `json:"mean"`
	Grade     string   `json:"grade"`
	LastScore *float64 `json:"last_score"`
	Current   bool     `json:"current"`
}

// checkRow reports what is inconsistent in one grade row: every field
// must come from one aggregate.
func checkRow(r *loadRow, minSamples int) error {
	switch {
	case r.N < 0:
		return fmt.Errorf("n %d", r.N)
	case r.N == 0 && (r.Aggregate != nil || r.LastScore != nil || r.Grade != ""):
		return fmt.Errorf("n 0 with aggregate %v last %v grade %q", r.Aggregate, r.LastScore, r.Grade)
	case r.N > 0 && (r.Aggregate == nil || r.LastScore == nil || r.Mean == nil):
		return fmt.Errorf("n %d without aggregate", r.N)
	case r.N > 0 && (*r.Aggregate < 0 || *r.Aggregate > 100 || *r.Mean < 0 || *r.Mean > 100):
		return fmt.Errorf("aggregate %v mean %v out of range", *r.Aggregate, *r.Mean)
	case (r.N >= minSamples) != (r.Grade != ""):
		return fmt.Errorf("n %d of %d needed, grade %q", r.N, minSamples, r.Grade)
	case r.Grade != "" && r.Grade != string(fitness.GradeOf(*r.Aggregate)):
		return fmt.Errorf("grade %s for aggregate %v", r.Grade, *r.Aggregate)
	case r.Status == "ungraded" && r.Grade != "":
		return fmt.Errorf("status %q with grade %q", r.Status, r.Grade)
	case r.N == 1 && *r.Aggregate != *r.LastScore:
		return fmt.Errorf("one score %v but aggregate %v", *r.LastScore, *r.Aggregate)
	}
	return nil
}

// loadClient queries the API in a loop until stop, checking every answer
// and that nothing ever goes backwards (n of a version, executions).
type loadClient struct {
	c        *http.Client
	think    time.Duration
	requests *atomic.Int64
	seenN    map[string]int
	lastExec int64
	skills   []string
}

func (lc *loadClient) run(id int, stop <-chan struct{}) error {
	lc.seenN = map[string]int{}
	for i := id; ; i++ {
		select {
		case <-stop:
			return nil
		default:
		}
		if err := lc.one(i); err != nil {
			return err
		}
		lc.requests.Add(1)
		if lc.think > 0 {
			time.Sleep(lc.think)
		}
	}
}

func (lc *loadClient) get(path string, v any) error {
	body, code, err := tryGet(lc.c, "http://sepad"+path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if code != 200 {
		return fmt.Errorf("%s: HTTP %d: %s", path, code, body)
	}
	if v == nil {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: %v: %.200s", path, err, body)
	}
	return nil
}

func (lc *loadClient) rows(path string, rows []loadRow, min int) error {
	for i := range rows {
		r := &rows[i]
		if err := checkRow(r, min); err != nil {
			return fmt.Errorf("%s: %s v%d: %w", path, r.SkillKey, r.Version, err)
		}
		k := r.SkillKey + "|" + r.Hash
		if r.N < lc.seenN[k] {
			return fmt.Errorf("%s: %s went back from n %d to %d", path, k, lc.seenN[k], r.N)
		}
		lc.seenN[k] = r.N
	}
	return nil
}

func (lc *loadClient) one(i int) error {
	skill := ""
	if len(lc.skills) > 0 {
		skill = url.PathEscape(lc.skills[i%len(lc.skills)])
	}
	switch i % 8 {
	case 0, 4:
		var g struct {
			MinSamples int       `json:"min_samples"`
			Grades     []loadRow `json:"grades"`
		}
		if err := lc.get("/v1/skills", &g); err != nil {
			return err
		}
		if len(lc.skills) == 0 {
			for _, r := range g.Grades {
				lc.skills = append(lc.skills, r.SkillKey)
			}
		}
		return lc.rows("/v1/skills", g.Grades, g.MinSamples)
	case 1:
		if skill == "" {
			return nil
		}
		var d struct {
			MinSamples int `json:"min_samples"`
			Skill      struct {
				Executions   int      `json:"executions"`
				VersionCount int      `json:"version_count"`
				Current      *loadRow `json:"current"`
			} `json:"skill"`
		}
		if err := lc.get("/v1/skills/"+skill, &d); err != nil {
			return err
		}
		if c := d.Skill.Current; c == nil || c.N > d.Skill.Executions || c.Version > d.Skill.VersionCount {
			return fmt.Errorf("skill %s: current %+v of %d executions, %d versions: torn", skill, c, d.Skill.Executions, d.Skill.VersionCount)
		}
		return lc.rows("/v1/skills/"+skill, []loadRow{*d.Skill.Current}, d.MinSamples)
	case 2:
		if skill == "" {
			return nil
		}
		var v struct {
			MinSamples int       `json:"min_samples"`
			Versions   []loadRow `json:"versions"`
		}
		if err := lc.get("/v1/skills/"+skill+"/versions", &v); err != nil {
			return err
		}
		return lc.rows("versions", v.Versions, v.MinSamples)
	case 3:
		var st struct {
			Executions int64 `json:"executions"`
			LagEvents  int64 `json:"lag_events"`
		}
		if err := lc.get("/v1/status", &st); err != nil {
			return err
		}
		if st.Executions < lc.lastExec || st.LagEvents < 0 {
			return fmt.Errorf("status: executions %d after %d, lag %d", st.Executions, lc.lastExec, st.LagEvents)
		}
		lc.lastExec = st.Executions
	case 5:
		var x struct {
			Executions []struct {
				Score *float64 `json:"score"`
				Grade string   `json:"grade"`
			} `json:"executions"`
		}
		if err := lc.get("/v1/executions?limit=20", &x); err != nil {
			return err
		}
		for _, e := range x.Executions {
			if (e.Score == nil) != (e.Grade == "") || (e.Score != nil && string(fitness.GradeOf(*e.Score)) != e.Grade) {
				return fmt.Errorf("execution score %v grade %q", e.Score, e.Grade)
			}
		}
		if len(x.Executions) > 20 {
			return fmt.Errorf("%d executions for limit 20", len(x.Executions))
		}
	case 6:
		if skill == "" {
			return nil
		}
		return lc.get("/v1/skills/"+skill+"/history?limit=10", nil)
	case 7:
		if i%32 == 7 {
			return lc.get("/metrics", nil)
		}
		return lc.get("/v1/sessions?limit=10", nil)
	}
	return nil
}

// TestConcurrentClientsWhileIngesting runs 50 API clients against a
// daemon ingesting a spool and checks every answer, that the loaded daemon
// grades exactly as an undisturbed one over the same lines, and the store's
// invariants. 100,000 events with SEPAD_BIG=1, 20,000 otherwise. Each
// client waits SEPAD_LOAD_THINK_MS (default 20) between requests: about
// 1,500 requests/s in all on a 2-core machine. How much the load slows
// ingestion is a timing, so it is BenchmarkIngestUnderLoad's figure, not
// an assertion here (the machine is shared: in CI the real-client suite's
// Claude Code processes take the same two cores).
func TestConcurrentClientsWhileIngesting(t *testing.T) {
	skipLong(t)
	n, clients, think := loadSizes()
	ratio := loadRound(t, loadLines(n), clients, think)
	t.Logf("ingestion time ratio, loaded against quiet: %.2f (BenchmarkIngestUnderLoad measures it)", ratio)
}

// BenchmarkIngestUnderLoad reports the ratio of the ingestion time with 50
// API clients to the time alone over the same spool, side by side in one
// run (time-ratio; 1 means the clients cost ingestion nothing):
//
//	go test ./e2e -run '^$' -bench IngestUnderLoad -benchtime 1x
func BenchmarkIngestUnderLoad(b *testing.B) {
	n, clients, think := loadSizes()
	lines := loadLines(n)
	var sum float64
	for i := 0; i < b.N; i++ {
		sum += loadRound(b, lines, clients, think)
	}
	b.ReportMetric(sum/float64(b.N), "time-ratio")
}

// loadSizes is the load of TestConcurrentClientsWhileIngesting and
// BenchmarkIngestUnderLoad: events, clients, think time.
func loadSizes() (int, int, time.Duration) {
	n, clients, think := 20_000, 50, 20*time.Millisecond
	if bigSizes() {
		n = 100_000
	}
	if s := os.Getenv("SEPAD_LOAD_THINK_MS"); s != "" {
		ms, _ := strconv.Atoi(s)
		think = time.Duration(ms) * time.Millisecond
	}
	return n, clients, think
}

// loadRound measures one quiet and one loaded ingestion of lines and
// returns the ratio of their durations.
func loadRound(t testing.TB, lines [][]byte, clients int, think time.Duration) float64 {
	quiet := shortTempDir(t)
	alone, dq := ingest(t, quiet, lines, nil)
	quietCPU := procCPU(dq.cmd.Process.Pid)
	dq.stop(t)

	busy := shortTempDir(t)
	var requests atomic.Int64
	cpu0 := selfCPUSeconds()
	errs := make(chan error, clients)
	loaded, db := ingest(t, busy, lines, func(c *http.Client, stop <-chan struct{}) {
		var wg sync.WaitGroup
		for i := 0; i < clients; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lc := &loadClient{c: c, think: think, requests: &requests}
				if err := lc.run(i, stop); err != nil {
					errs <- fmt.Errorf("client %d: %w", i, err)
				}
			}()
		}
		wg.Wait()
	})
	cpu1 := selfCPUSeconds()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ratio := loaded.Seconds() / alone.Seconds()
	t.Logf("%d events: alone %.2fs (%.0f events/s, daemon CPU %s); with %d clients (%d requests, %.0f/s) %.2fs (%.0f events/s, daemon CPU %s, clients CPU %.2fs): ingestion time ratio %.2f",
		len(lines), alone.Seconds(), float64(len(lines))/alone.Seconds(), quietCPU, clients, requests.Load(),
		float64(requests.Load())/loaded.Seconds(), loaded.Seconds(), float64(len(lines))/loaded.Seconds(),
		procCPU(db.cmd.Process.Pid), cpu1-cpu0, ratio)
	if requests.Load() < int64(clients) {
		t.Errorf("only %d requests were answered", requests.Load())
	}

	// Once caught up, the daemon's answer equals the direct read, and both
	// runs hold the same grades.
	upSkills, code, err := tryGet(socketClient(busy), "http://sepad/v1/skills?all_versions=true")
	if err != nil || code != 200 {
		t.Fatalf("skills: %d %v", code, err)
	}
	db.stop(t)
	direct, errOut, ec := sepad(t, queryEnv(busy), nil, "api", "/v1/skills?all_versions=true", "--home", busy)
	if ec != 0 || !sameJSON(upSkills, []byte(direct)) {
		t.Errorf("daemon and direct answers differ after the load (exit %d %s)", ec, errOut)
	}
	quietSkills, _, ec := sepad(t, queryEnv(quiet), nil, "api", "/v1/skills?all_versions=true", "--home", quiet)
	if ec != 0 || !sameJSON([]byte(quietSkills), []byte(direct)) {
		t.Errorf("the loaded run graded differently from the quiet run")
	}
	sdb, err := store.Open(filepath.Join(busy, "sepa.db"), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	if err := store.CheckInvariants(sdb); err != nil {
		t.Errorf("store invariants after the load: %v", err)
	}
	return ratio
}
