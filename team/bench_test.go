package team

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/internal/pgtest"
	"github.com/sepad/sepad/internal/testbin"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// TestTeamLoad is the team store's benchmark (BENCHMARKS.md, "A team's
// store"): 50 machines, each a bbolt store and the daemon's Shipper, at
// 20 executions/s in total into one PostgreSQL that already holds
// 1,000,000 executions, restarted with SIGKILL twice during the run. It
// reports the shipping lag (stored to committed in PostgreSQL), rows/s
// and the team grades' answer time, and fails on any execution lost or
// doubled. SEPAD_TEAM_BENCH=1 runs it; SEPAD_TEAM_BENCH_DURATION sets the
// run (default 10m), SEPAD_TEAM_BENCH_PRELOAD the executions loaded first
// (default 1000000).
func TestTeamLoad(t *testing.T) {
	if os.Getenv("SEPAD_TEAM_BENCH") != "1" {
		t.Skip("the team store's load run: SEPAD_TEAM_BENCH=1 (BENCHMARKS.md)")
	}
	dur := 10 * time.Minute
	if d, err := time.ParseDuration(os.Getenv("SEPAD_TEAM_BENCH_DURATION")); err == nil {
		dur = d
	}
	preload := 1_000_000
	if n, err := fmt.Sscan(os.Getenv("SEPAD_TEAM_BENCH_PRELOAD"), &preload); n != 1 || err != nil {
		preload = 1_000_000
	}
	const machines, rate, prompts = 50, 20, 20
	ctx := context.Background()
	c := pgtest.Start(t)
	db, err := Connect(ctx, Config{Postgres: c.DSN})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	preloadTeam(t, db, preload)

	decide := decide.DefaultOptions() // every machine a decider, as the daemon
	ms := make([]*machine, machines)
	for i := range ms {
		m := &machine{home: t.TempDir()}
		sdb, err := store.Open(filepath.Join(m.home, "sepa.db"), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m.db = sdb
		m.sh = NewShipper(sdb, ShipperOptions{Config: Config{Postgres: c.DSN, Person: "off"}, Home: m.home,
			ClaudeDir: "/home/u/.claude", RetryMax: 10 * time.Second, Decide: &decide, Rubric: fitness.RubricVersion})
		if err := m.sh.Open(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(m.close)
		ms[i] = m
	}
	// With SEPAD_TEAM_GRADES_BEFORE (a sepad binary of the commit before
	// a change), `sepad grades --team --json` runs as a process, that
	// binary and this tree's in turn, every 2 s beside the load.
	cli := cliGrades(t, c.DSN)
	stopCLI := make(chan struct{})
	cliDone := make(chan map[string][]time.Duration)
	go func() {
		times := map[string][]time.Duration{}
		tick := time.NewTicker(2 * time.Second)
		defer tick.Stop()
		for i := 0; len(cli.bins) > 0; i++ {
			select {
			case <-stopCLI:
				cliDone <- times
				return
			case <-tick.C:
			}
			for j := range cli.bins {
				b := cli.bins[(i+j)%len(cli.bins)] // each first in turn
				if d, err := cli.run(b[1]); err == nil {
					times[b[0]] = append(times[b[0]], d)
				}
			}
		}
		<-stopCLI
		cliDone <- times
	}()
	// The load: 20 executions/s, machine after machine, each committed
	// to its store and the shipper woken, as the daemon does.
	var grades, queries []time.Duration // with the connection, and the query alone
	committed := 0
	tick := time.NewTicker(time.Second / rate)
	defer tick.Stop()
	gradeTick := time.NewTicker(2 * time.Second)
	defer gradeTick.Stop()
	began := time.Now()
	restarts := []time.Duration{dur / 3, 2 * dur / 3}
	for time.Since(began) < dur {
		select {
		case <-tick.C:
			m := ms[committed%machines]
			at := time.Now().UTC()
			x := execution.Execution{ID: fmt.Sprintf("b%09d", committed), SessionID: "s", Skill: fmt.Sprintf("s%d", committed%prompts), Kind: "skill",
				SkillPath: fmt.Sprintf("/home/u/.claude/skills/s%d/SKILL.md", committed%prompts), SkillVersion: "ver2",
				StartedAt: at.Add(-30 * time.Second), EndedAt: at, Complete: true, Calls: []execution.ToolCall{{Name: "Bash", Done: true}}}
			s := float64(50 + committed%50)
			if err := m.db.Commit(&store.Batch{Executions: []record.Scored{{Exec: x,
				Result: fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true, Score: s, Grade: fitness.GradeOf(s)}}}}); err != nil {
				t.Fatal(err)
			}
			m.sh.Kick()
			committed++
		case <-gradeTick.C:
			q := time.Now()
			qdb, err := Open(ctx, Config{Postgres: c.DSN})
			if err != nil {
				continue // PostgreSQL restarting
			}
			q2 := time.Now()
			if _, err := qdb.Grades(ctx, GradesOptions{Rubric: fitness.RubricVersion, Aggregate: aggregate.DefaultOptions()}); err == nil {
				grades = append(grades, time.Since(q))
				queries = append(queries, time.Since(q2))
			}
			qdb.Close()
		}
		if len(restarts) > 0 && time.Since(began) > restarts[0] {
			restarts = restarts[1:]
			c.Kill9()
			c.Restart()
			t.Logf("PostgreSQL killed with SIGKILL and restarted at %s", time.Since(began).Round(time.Second))
		}
	}
	elapsed := time.Since(began)
	close(stopCLI)
	cliTimes := <-cliDone
	deadline := time.Now().Add(5 * time.Minute)
	for _, m := range ms {
		for m.sh.Status().Pending > 0 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
	}
	db.Close()
	db, err = Connect(ctx, Config{Postgres: c.DSN})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rows, distinct int
	var p50, p99, pmax float64
	if err := db.conn.QueryRow(ctx, `SELECT count(*), count(DISTINCT (machine_id, execution_id)),
	percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM shipped_at - stored_at)),
	percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM shipped_at - stored_at)),
	max(extract(epoch FROM shipped_at - stored_at))
FROM sepad_executions WHERE execution_id LIKE 'b%'`).Scan(&rows, &distinct, &p50, &p99, &pmax); err != nil {
		t.Fatal(err)
	}
	slices.Sort(grades)
	slices.Sort(queries)
	pctOf := func(ds []time.Duration, q float64) time.Duration {
		if len(ds) == 0 {
			return 0
		}
		return ds[min(len(ds)-1, int(q*float64(len(ds))))].Round(time.Millisecond)
	}
	pct := func(q float64) time.Duration { return pctOf(grades, q) }
	var decisions int
	db.conn.QueryRow(ctx, `SELECT count(*) FROM sepad_team_decisions`).Scan(&decisions)
	var plan []string
	if rows, err := db.conn.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+sqlGrades, fitness.RubricVersion, "", 100); err == nil {
		for rows.Next() {
			var l string
			rows.Scan(&l)
			plan = append(plan, l)
		}
		rows.Close()
	}
	t.Logf("the grades query alone: p50 %s, p99 %s; %d team decisions made during the run; plan:\n%s",
		pctOf(queries, 0.5), pctOf(queries, 0.99), decisions, strings.Join(plan, "\n"))
	t.Logf("%d machines, %s at %d/s: %d committed, %d in PostgreSQL (%d lost, %d doubled), %.1f rows/s",
		machines, elapsed.Round(time.Second), rate, committed, rows, committed-distinct, rows-distinct, float64(rows)/elapsed.Seconds())
	t.Logf("shipping lag (stored to PostgreSQL's transaction): p50 %.3fs, p99 %.3fs, max %.3fs", p50, p99, pmax)
	t.Logf("team grades over %d executions: %d answers, p50 %s, p99 %s, max %s", preload+rows, len(grades),
		pct(0.5).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), pct(1).Round(time.Millisecond))
	for _, b := range cli.bins {
		ds := cliTimes[b[0]]
		slices.Sort(ds)
		t.Logf("sepad grades --team --json as a process, %s: %d answers, p50 %s, p90 %s, p99 %s, max %s", b[0], len(ds),
			pctOf(ds, 0.5), pctOf(ds, 0.9), pctOf(ds, 0.99), pctOf(ds, 1))
	}
	if rows != committed || distinct != committed {
		t.Fatalf("%d committed, %d rows, %d distinct: lost or doubled", committed, rows, distinct)
	}
}

// preloadTeam fills the team store as 50 machines left it: n executions
// over 20 prompts of 3 versions each, with their counts.
func preloadTeam(t *testing.T, db *DB, n int) {
	t.Helper()
	ctx := context.Background()
	start := time.Now()
	for _, q := range []string{
		`INSERT INTO sepad_prompts (prompt_id, kind, name) SELECT 'skill/s' || p, 'skill', 's' || p FROM generate_series(0, 19) p`,
		`INSERT INTO sepad_machines (machine_id) SELECT 'pre' || m FROM generate_series(0, 49) m`,
		`INSERT INTO sepad_executions (machine_id, execution_id, prompt_id, version, stored_at, ended_at, started_at, complete, rubric,
	scored, score, grade, calls, failed_calls, corrections, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, cost_nano_usd)
SELECT 'pre' || (i % 50), 'x' || i, 'skill/s' || (i % 20), 'ver' || ((i / 20) % 3), now() - i * interval '1 second',
	now() - i * interval '1 second', now() - i * interval '1 second' - interval '30 seconds', true, '` + fitness.RubricVersion + `',
	i % 10 <> 0, 50 + (i::bigint * 7919) % 50, 'B', 5, i % 3, 0, 1000, 200, 0, 0, 3000
FROM generate_series(1, ` + fmt.Sprint(n) + `) i`,
		`INSERT INTO sepad_version_stats
SELECT prompt_id, version, rubric, machine_id, count(*), count(*) FILTER (WHERE scored),
	coalesce(sum(score) FILTER (WHERE scored), 0), coalesce(sum(score * score) FILTER (WHERE scored), 0),
	sum(calls), sum(failed_calls), max(coalesce(ended_at, stored_at))
FROM sepad_executions GROUP BY prompt_id, version, rubric, machine_id`,
		`ANALYZE`,
	} {
		if _, err := db.conn.Exec(ctx, q); err != nil {
			t.Fatalf("preload: %v", err)
		}
	}
	t.Logf("preloaded %d executions in %s", n, time.Since(start).Round(time.Second))
}

// TestTeamGradesLatency times `sepad grades --team --json` as a person
// runs it, a new process each time, over a team store preloaded with
// SEPAD_TEAM_BENCH_PRELOAD executions (default 1,000,000), and the steps
// of its path inside one process (connect, the one round trip of
// Grades). With SEPAD_TEAM_GRADES_BEFORE naming another sepad binary (the
// commit before a change), both binaries run in turn, side by side in
// one run. SEPAD_TEAM_GRADES_BENCH=1 runs it (BENCHMARKS.md).
func TestTeamGradesLatency(t *testing.T) {
	if os.Getenv("SEPAD_TEAM_GRADES_BENCH") != "1" {
		t.Skip("the team grades' latency: SEPAD_TEAM_GRADES_BENCH=1 (BENCHMARKS.md)")
	}
	preload := 1_000_000
	if n, err := fmt.Sscan(os.Getenv("SEPAD_TEAM_BENCH_PRELOAD"), &preload); n != 1 || err != nil {
		preload = 1_000_000
	}
	rounds := 200
	fmt.Sscan(os.Getenv("SEPAD_TEAM_GRADES_ROUNDS"), &rounds)
	ctx := context.Background()
	c := pgtest.Start(t)
	db, err := Connect(ctx, Config{Postgres: c.DSN})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	preloadTeam(t, db, preload)
	db.Close()
	cli := cliGrades(t, c.DSN)
	if len(cli.bins) == 0 {
		cli.bins = [][2]string{{"this tree", cli.tree}}
	}
	times := map[string][]time.Duration{}
	var order []string
	add := func(name string, d time.Duration) {
		if _, ok := times[name]; !ok {
			order = append(order, name)
		}
		times[name] = append(times[name], d)
	}
	o := GradesOptions{Rubric: fitness.RubricVersion, Aggregate: aggregate.DefaultOptions()}
	for i := 0; i < rounds; i++ {
		for _, b := range cli.bins {
			d, err := cli.run(b[1])
			if err != nil {
				t.Fatal(err)
			}
			add("sepad grades --team --json, "+b[0], d)
			time.Sleep(20 * time.Millisecond)
		}
		// The same path inside one process, step by step.
		start := time.Now()
		db, err := Open(ctx, Config{Postgres: c.DSN})
		if err != nil {
			t.Fatal(err)
		}
		at := time.Now()
		add("in process: connect", at.Sub(start))
		if _, err := db.Grades(ctx, o); err != nil {
			t.Fatal(err)
		}
		add("in process: schema check, grades, machines (one round trip)", time.Since(at))
		at = time.Now()
		if _, err := db.Grades(ctx, o); err != nil {
			t.Fatal(err)
		}
		add("in process: grades again on that connection", time.Since(at))
		db.Close()
		time.Sleep(20 * time.Millisecond)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("%d rounds over %d executions; load average at the end %s", rounds, preload, strings.Join(strings.Fields(string(load) + " ? ? ?")[:3], " "))
	for _, name := range order {
		ds := slices.Clone(times[name])
		slices.Sort(ds)
		q := func(p float64) time.Duration {
			return ds[min(len(ds)-1, int(p*float64(len(ds))))].Round(100 * time.Microsecond)
		}
		t.Logf("%-75s p50 %7s  p90 %7s  p99 %7s  max %7s", name, q(0.5), q(0.9), q(0.99), q(1))
	}
}

// cliRunner runs `sepad grades --team --json` as a person does, a new
// process each time, with a configuration naming the team database.
type cliRunner struct {
	env []string
	// tree is this tree's sepad; bins are the binaries to compare, by
	// name: the one SEPAD_TEAM_GRADES_BEFORE names and this tree's.
	tree string
	bins [][2]string
}

func cliGrades(t *testing.T, dsn string) *cliRunner {
	t.Helper()
	home := t.TempDir()
	cfg := filepath.Join(home, "config.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("team:\n  postgres: %q\n", dsn)), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &cliRunner{env: append(os.Environ(), "SEPA_CONFIG="+cfg, "SEPA_HOME="+filepath.Join(home, "state"), "HOME="+home)}
	bins, err := testbin.Build(t.TempDir(), "sepad")
	if err != nil {
		t.Fatal(err)
	}
	r.tree = bins[0]
	if before := os.Getenv("SEPAD_TEAM_GRADES_BEFORE"); before != "" {
		r.bins = [][2]string{{"before (" + before + ")", before}, {"this tree", r.tree}}
	}
	return r
}

// run times one command of bin: its whole life, start to exit.
func (r *cliRunner) run(bin string) (time.Duration, error) {
	cmd := exec.Command(bin, "grades", "--team", "--json")
	cmd.Env = r.env
	start := time.Now()
	out, err := cmd.Output()
	d := time.Since(start)
	if err != nil || !strings.Contains(string(out), `"grades"`) {
		return d, fmt.Errorf("%s grades --team --json: %v\n%s", bin, err, out)
	}
	return d, nil
}
