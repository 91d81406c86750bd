package e2e

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// bigStoreSize is the benchmark store: skills × versions and executions.
// SEPAD_BIG=1 gives the 1,000 × 10 and 1,000,000; the default is
// small enough for a quick run. SEPAD_BENCH_EXECUTIONS overrides the
// executions.
func bigStoreSize() (skills, versions, executions int) {
	skills, versions, executions = 100, 10, 50_000
	if bigSizes() {
		skills, executions = 1000, 1_000_000
	}
	if s := os.Getenv("SEPAD_BENCH_EXECUTIONS"); s != "" {
		executions, _ = strconv.Atoi(s)
	}
	return skills, versions, executions
}

// buildBigStore writes a store of realistic scored executions straight
// through store.Commit (ingesting them from a spool would take the
// collector's time, which BENCHMARKS.md measures elsewhere): every skill
// gets its executions spread over its versions in order, a tenth of them
// in a second project, ten executions per session.
func buildBigStore(tb testing.TB, home string, skills, versions, n int) time.Duration {
	tb.Helper()
	start := time.Now()
	db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(1, 2))
	t0 := time.Now().Add(-30 * 24 * time.Hour).UTC()
	perSkill := max(n/skills, 1)
	const batch = 5000
	var xs []record.Scored
	for i := 0; i < n; i++ {
		sk := i % skills
		k := i / skills // the skill's k-th execution
		ver := min(k*versions/perSkill, versions-1)
		project := "/home/dev/src/app"
		if sk%10 == 9 {
			project = "/home/dev/src/other"
		}
		// Every tenth skill has the name of another in a second project.
		name := fmt.Sprintf("skill%04d", sk)
		if sk%10 == 9 {
			name = fmt.Sprintf("skill%04d", sk-9)
		}
		at := t0.Add(time.Duration(i) * 2 * time.Second)
		x := execution.Execution{
			ID:        fmt.Sprintf("%012x", r.Uint64()&0xffffffffffff),
			SessionID: fmt.Sprintf("sess-%08d", i/10),
			Skill:     name, Kind: "skill", Project: project,
			SkillPath:    fmt.Sprintf("%s/.claude/skills/%s/SKILL.md", project, name),
			SkillVersion: fmt.Sprintf("%08x%04x", sk, ver),
			Prompt:       "please fix the failing test", StartedAt: at, EndedAt: at.Add(20 * time.Second), Complete: true, Events: 12,
		}
		for c := 0; c < 5; c++ {
			x.Calls = append(x.Calls, execution.ToolCall{ID: fmt.Sprintf("toolu_%d", c), Name: []string{"Read", "Bash", "Grep", "Edit", "Bash"}[c],
				Failed: r.IntN(10) == 0, HasDuration: true, DurationMS: int64(r.IntN(3000)), Start: at.Add(time.Duration(c) * time.Second)})
		}
		score := min(max(60+float64(sk%30)+r.NormFloat64()*12, 0), 100)
		score = float64(int(score*100)) / 100
		res := fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true, Score: score, Grade: fitness.GradeOf(score)}
		for s, name := range []string{fitness.SignalToolSuccess, fitness.SignalOutput, fitness.SignalEfficiency, fitness.SignalErrorRate, fitness.SignalStructure} {
			res.Signals = append(res.Signals, fitness.Signal{Signal: name, Present: true, Value: 0.8, SubScore: 0.8, Weight: fitness.Weights[s],
				EffectiveWeight: fitness.Weights[s], Contribution: score * fitness.Weights[s], Detail: "4/5 tool calls succeeded"})
		}
		xs = append(xs, record.Scored{Exec: x, Result: res})
		if len(xs) == batch || i == n-1 {
			if err := db.Commit(&store.Batch{Executions: xs, EventCounts: map[string]int64{"PostToolUse": int64(5 * len(xs))}}); err != nil {
				tb.Fatal(err)
			}
			xs = xs[:0]
		}
	}
	return time.Since(start)
}

// cachedBigStore puts the big store in home/sepa.db: a copy of the one
// cached in $SEPAD_BENCH_CACHE (default the user cache directory's
// sepad-bench) when a previous run built it, else built and then cached
// (1,000,000 executions take minutes to build, seconds to copy). The
// cache file is named by the sizes and the store's schema version;
// SEPAD_BENCH_CACHE=off builds every time. It returns the time taken and
// the cache file it copied, if any.
func cachedBigStore(tb testing.TB, home string, skills, versions, n int) (time.Duration, string) {
	tb.Helper()
	dir := os.Getenv("SEPAD_BENCH_CACHE")
	if dir == "" {
		if c, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(c, "sepad-bench")
		}
	}
	if dir == "" || dir == "off" {
		return buildBigStore(tb, home, skills, versions, n), ""
	}
	cache := filepath.Join(dir, fmt.Sprintf("bigstore-%dx%d-%d-schema%d-page%d.db", skills, versions, n, store.SchemaVersion, store.PageSize))
	dst := filepath.Join(home, "sepa.db")
	start := time.Now()
	if err := copyFile(cache, dst); err == nil {
		tb.Logf("the big store copied from the cache %s (delete it after a change to the store's records)", cache)
		return time.Since(start), cache
	} else if !errors.Is(err, os.ErrNotExist) {
		tb.Fatal(err)
	}
	d := buildBigStore(tb, home, skills, versions, n)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	if err := copyFile(dst, cache+".tmp"); err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(cache+".tmp", cache); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("the big store cached in %s", cache)
	return d, ""
}

// copyFile copies src to a new file dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return out.Close()
}

// timings are durations of one operation.
type timings []time.Duration

func (ts timings) pct(p float64) time.Duration {
	s := append(timings(nil), ts...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(int(float64(len(s))*p), len(s)-1)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// cpuTimes collects the CPU time (user and system) of the processes
// runCLI times, per command line: unlike the elapsed time it barely
// moves with other processes' load on a shared machine.
var cpuTimes = map[string]timings{}

// runCLI times one sepad command to completion, its output read as a
// terminal or a pipe would.
func runCLI(tb testing.TB, env []string, args ...string) time.Duration {
	tb.Helper()
	cmd := exec.Command(sepadBin, args...)
	cmd.Env = append(os.Environ(), env...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		tb.Fatalf("sepad %v: %v\n%.500s", args, err, out)
	}
	k := strings.Join(args, " ")
	cpuTimes[k] = append(cpuTimes[k], cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	return d
}

// rss reads a process's resident memory from /proc (Linux), in KiB:
// total, anonymous (heap, stacks) and file-backed (the mmap'd database).
type rss struct{ total, anon, file int }

func rssOf(pid int) rss {
	var r rss
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return rss{-1, -1, -1}
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.Atoi(f[1])
		switch f[0] {
		case "VmRSS:":
			r.total = n
		case "RssAnon:":
			r.anon = n
		case "RssFile:":
			r.file = n
		}
	}
	return r
}

func (r rss) String() string {
	return fmt.Sprintf("%d MiB (anonymous %d MiB, file-backed %d MiB)", r.total/1024, r.anon/1024, r.file/1024)
}

// BenchmarkQueriesBigStore measures `sepad grades` and GET /v1/skills
// over a big store (bigStoreSize), through the daemon's socket and by
// opening the database directly, and the memory the daemon holds. It
// reports p50 and p99 of each as custom metrics and logs a table for
// BENCHMARKS.md. Run it with a fixed count:
//
//	SEPAD_BIG=1 go test ./e2e -run '^$' -bench QueriesBigStore -benchtime 1x -timeout 60m -v
func BenchmarkQueriesBigStore(b *testing.B) {
	skills, versions, n := bigStoreSize()
	home, err := os.MkdirTemp("", "sepab")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(home)
	built, cached := cachedBigStore(b, home, skills, versions, n)
	fi, _ := os.Stat(filepath.Join(home, "sepa.db"))
	env := queryEnv(home)
	reps := 30
	if !bigSizes() {
		reps = 15
	}
	var lines []string
	// logRow adds a row; with cmd, the CPU time of those processes too.
	logRow := func(what string, ts timings, cmd ...string) {
		cpu := "- | -"
		if len(cmd) > 0 {
			c := cpuTimes[strings.Join(cmd, " ")]
			cpu = ms(c.pct(0.5)) + " | " + ms(c.pct(0.99))
			delete(cpuTimes, strings.Join(cmd, " "))
		}
		lines = append(lines, fmt.Sprintf("| %s | %d | %s | %s | %s |", what, len(ts), ms(ts.pct(0.5)), ms(ts.pct(0.99)), cpu))
	}
	for i := 0; i < b.N; i++ {
		lines = lines[:0]
		loadBefore := loadAvg()
		// The floor: a process that asks the daemon for nothing.
		d := startBenchDaemon(b, home)
		c := socketClient(home)
		// Opening reads every page of the store: give a loaded machine time.
		for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
			if _, code, err := tryGet(c, "http://sepad/healthz"); err == nil && code == 200 {
				break
			}
			if time.Now().After(deadline) {
				b.Fatal("the daemon did not answer /healthz within 5 minutes")
			}
		}
		rssStart := rssOf(d.Process.Pid)
		var floor, grades, gradesJSON, apiCached, apiCold timings
		for j := 0; j < reps; j++ {
			floor = append(floor, runCLI(b, env, "api", "/healthz", "--home", home))
		}
		logRow("`sepad api /healthz` (process floor), socket", floor, "api", "/healthz", "--home", home)
		// Cold: the first answer after a write; every write (here one hook
		// line committed by the collector) invalidates the cache.
		for j := 0; j < min(reps, 10); j++ {
			line := fmt.Sprintf(`{"session_id":"bench-%d","cwd":"/tmp","hook_event_name":"SessionStart","source":"startup"}`, j)
			resp, err := c.Post("http://sepad/v1/hook", "application/json", strings.NewReader(line))
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
			waitTxChange(b, c, home)
			start := time.Now()
			if _, code, err := tryGet(c, "http://sepad/v1/skills"); err != nil || code != 200 {
				b.Fatalf("skills: %d %v", code, err)
			}
			apiCold = append(apiCold, time.Since(start))
		}
		logRow("`GET /v1/skills`, socket, first after a write (computed)", apiCold)
		for j := 0; j < reps*10; j++ {
			start := time.Now()
			if _, code, err := tryGet(c, "http://sepad/v1/skills"); err != nil || code != 200 {
				b.Fatalf("skills: %d %v", code, err)
			}
			apiCached = append(apiCached, time.Since(start))
		}
		logRow("`GET /v1/skills`, socket, unchanged store (cached)", apiCached)
		for j := 0; j < reps; j++ {
			grades = append(grades, runCLI(b, env, "grades", "--home", home))
		}
		logRow("`sepad grades`, socket", grades, "grades", "--home", home)
		for j := 0; j < reps; j++ {
			gradesJSON = append(gradesJSON, runCLI(b, env, "grades", "--json", "--home", home))
		}
		logRow("`sepad grades --json`, socket", gradesJSON, "grades", "--json", "--home", home)
		rssEnd := rssOf(d.Process.Pid)
		mb, _ := tryGetMetrics(c)
		d.Process.Signal(syscall.SIGTERM)
		if err := d.Wait(); err != nil {
			b.Fatalf("daemon exit: %v", err)
		}

		var dGrades, dAPI, dFloor timings
		for j := 0; j < reps; j++ {
			dFloor = append(dFloor, runCLI(b, env, "api", "/healthz", "--home", home))
		}
		logRow("`sepad api /healthz`, direct open (floor: open the database)", dFloor, "api", "/healthz", "--home", home)
		for j := 0; j < reps; j++ {
			dAPI = append(dAPI, runCLI(b, env, "api", "/v1/skills", "--home", home))
		}
		logRow("`sepad api /v1/skills` (GET /v1/skills in process), direct open", dAPI, "api", "/v1/skills", "--home", home)
		for j := 0; j < reps; j++ {
			dGrades = append(dGrades, runCLI(b, env, "grades", "--home", home))
		}
		logRow("`sepad grades`, direct open", dGrades, "grades", "--home", home)

		b.ReportMetric(float64(grades.pct(0.5).Microseconds())/1000, "grades-socket-p50-ms")
		b.ReportMetric(float64(grades.pct(0.99).Microseconds())/1000, "grades-socket-p99-ms")
		b.ReportMetric(float64(gradesJSON.pct(0.99).Microseconds())/1000, "grades-json-socket-p99-ms")
		b.ReportMetric(float64(dGrades.pct(0.5).Microseconds())/1000, "grades-direct-p50-ms")
		b.ReportMetric(float64(dGrades.pct(0.99).Microseconds())/1000, "grades-direct-p99-ms")
		b.ReportMetric(float64(apiCached.pct(0.5).Microseconds())/1000, "skills-cached-p50-ms")
		b.ReportMetric(float64(apiCold.pct(0.5).Microseconds())/1000, "skills-cold-p50-ms")
		b.ReportMetric(float64(rssEnd.total), "daemon-rss-KiB")
		b.ReportMetric(float64(rssEnd.anon), "daemon-anon-KiB")
		how := fmt.Sprintf("built in %s (store.Commit, 5,000 per batch)", built.Round(time.Second))
		if cached != "" {
			how = fmt.Sprintf("copied from %s in %s", cached, built.Round(time.Second))
		}
		b.Logf("store: %d skills × %d versions, %d executions, %.0f MiB, %s",
			skills, versions, n, float64(fi.Size())/(1<<20), how)
		b.Logf("daemon RSS: %s after start, %s after the queries; %s", rssStart, rssEnd, mb)
		b.Logf("ratios (one run): grades socket/direct %.2f; grades socket/process floor %.2f; grades direct/direct floor %.2f; /v1/skills computed/cached %.0f",
			float64(grades.pct(0.5))/float64(dGrades.pct(0.5)), float64(grades.pct(0.5))/float64(floor.pct(0.5)),
			float64(dGrades.pct(0.5))/float64(dFloor.pct(0.5)), float64(apiCold.pct(0.5))/float64(apiCached.pct(0.5)))
		b.Logf("load average before and after: %s / %s", loadBefore, loadAvg())
		b.Logf("\n| what | runs | p50 | p99 | CPU p50 | CPU p99 |\n|---|---|---|---|---|---|\n%s", strings.Join(lines, "\n"))
	}
}

// loadAvg is the machine's 1-minute load average (Linux), which the
// elapsed times depend on.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Fields(string(b))[0]
}

// startBenchDaemon starts `sepad run` for a benchmark (startDaemon is for
// tests); the caller stops it.
func startBenchDaemon(b *testing.B, home string) *exec.Cmd {
	cmd := exec.Command(sepadBin, "run", "--home", home, "--log-level", "warn")
	cmd.Env = append(os.Environ(), queryEnv(home)...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill() })
	return cmd
}

// waitTxChange waits until the collector has committed what the hook
// appended (the spool has no lag).
func waitTxChange(tb testing.TB, c *http.Client, home string) {
	for i := 0; i < 200; i++ {
		body, code, err := tryGet(c, "http://sepad/v1/status")
		if err == nil && code == 200 && strings.Contains(string(body), `"lag_bytes":0,"lag_events":0,"lag_estimated":false}`) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	tb.Fatal("the hook line was not committed")
}

// tryGetMetrics summarises the daemon's Go heap from /metrics over the socket.
func tryGetMetrics(c *http.Client) (string, error) {
	body, code, err := tryGet(c, "http://sepad/metrics")
	if err != nil || code != 200 {
		return "metrics unavailable", err
	}
	var heap, sys string
	for _, l := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(l, "go_memstats_heap_inuse_bytes "); ok {
			heap = v
		}
		if v, ok := strings.CutPrefix(l, "go_memstats_sys_bytes "); ok {
			sys = v
		}
	}
	h, _ := strconv.ParseFloat(heap, 64)
	s, _ := strconv.ParseFloat(sys, 64)
	return fmt.Sprintf("Go heap in use %.0f MiB, Go runtime total %.0f MiB", h/(1<<20), s/(1<<20)), nil
}
