package team

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/internal/pgtest"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// machine is one sepad home: its store and its shipper.
type machine struct {
	home string
	db   *store.DB
	sh   *Shipper
}

func newMachine(t *testing.T, dsn string) *machine {
	t.Helper()
	m := &machine{home: t.TempDir()}
	m.open(t, dsn)
	return m
}

func (m *machine) open(t *testing.T, dsn string) {
	t.Helper()
	db, err := store.Open(filepath.Join(m.home, "sepa.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m.db = db
	m.sh = NewShipper(db, ShipperOptions{Config: Config{Postgres: dsn, Person: "off"}, Home: m.home,
		ClaudeDir: "/home/u/.claude", Batch: 7, Poll: 20 * time.Millisecond, RetryMin: 20 * time.Millisecond, RetryMax: 200 * time.Millisecond})
	if err := m.sh.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.close() })
}

func (m *machine) close() {
	if m.sh != nil {
		m.sh.Close()
		m.sh = nil
	}
	if m.db != nil {
		m.db.Close()
		m.db = nil
	}
}

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// commit stores executions from..to-1 of the user-level skill deploy.
func (m *machine) commit(t *testing.T, from, to int, version string, score func(i int) float64) {
	t.Helper()
	b := &store.Batch{}
	for i := from; i < to; i++ {
		at := t0.Add(time.Duration(i) * time.Second)
		x := execution.Execution{ID: fmt.Sprintf("e%06d", i), SessionID: "s1", Skill: "deploy", Kind: "skill",
			SkillPath: "/home/u/.claude/skills/deploy/SKILL.md", SkillVersion: version, StartedAt: at, EndedAt: at.Add(time.Second),
			Calls: []execution.ToolCall{{Name: "Bash", Done: true, Response: "secret output"}}, Output: "final answer", HasOutput: true, Complete: true,
			Usage: &execution.Usage{InputTokens: 10, OutputTokens: 5, CostNanoUSD: 1000}}
		s := score(i)
		b.Executions = append(b.Executions, record.Scored{Exec: x, Result: fitness.Result{RubricVersion: fitness.RubricVersion,
			Scored: true, Score: s, Grade: fitness.GradeOf(s), Signals: []fitness.Signal{{Signal: "tool_success", Present: true, Value: 1, Detail: "secret"}}}})
	}
	if err := m.db.Commit(b); err != nil {
		t.Fatal(err)
	}
	m.sh.Kick()
}

func waitShipped(t *testing.T, m *machine) Status {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		// The store's own outbox, not the status (which may predate the
		// last commit): everything committed has been shipped.
		ob, err := m.db.Outbox(OutboxName)
		if err != nil {
			t.Fatal(err)
		}
		if st := m.sh.Status(); ob.Pending == 0 && st.Connected && st.Shipped == ob.Shipped && st.Pending == 0 {
			return st
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("not shipped after 60s: %+v", m.sh.Status())
	return Status{}
}

func count(t *testing.T, c *pgtest.Cluster, sql string, args ...any) int {
	t.Helper()
	db, err := Connect(context.Background(), Config{Postgres: c.DSN})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.conn.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// Executions committed while PostgreSQL is killed with SIGKILL and
// restarted, twice, all arrive exactly once; and a machine that ships its
// outbox again from the start (a crash after PostgreSQL committed, before
// the cursor moved) doubles nothing.
func TestShipExactlyOnceAcrossPostgresKills(t *testing.T) {
	if testing.Short() {
		t.Skip("long: kills PostgreSQL twice; runs without -short")
	}
	c := pgtest.Start(t)
	m := newMachine(t, c.DSN)
	const total = 300
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 2; i++ {
			time.Sleep(100 * time.Millisecond)
			c.Kill9()
			time.Sleep(100 * time.Millisecond)
			c.Restart()
		}
	}()
	for i := 0; i < total; i += 10 {
		m.commit(t, i, i+10, "aaaaaaaaaaaa", func(i int) float64 { return float64(50 + i%40) })
		time.Sleep(5 * time.Millisecond)
	}
	wg.Wait()
	st := waitShipped(t, m)
	if st.Shipped != total {
		t.Errorf("shipped %d, want %d", st.Shipped, total)
	}
	if n := count(t, c, `SELECT count(*) FROM sepad_executions`); n != total {
		t.Fatalf("team store holds %d executions, want %d", n, total)
	}
	// The same home, its store lost and rebuilt with the same executions:
	// everything is shipped again, and nothing doubles.
	m.close()
	if err := os.Remove(filepath.Join(m.home, "sepa.db")); err != nil {
		t.Fatal(err)
	}
	m.open(t, c.DSN)
	m.commit(t, 0, total, "aaaaaaaaaaaa", func(i int) float64 { return float64(50 + i%40) })
	waitShipped(t, m)
	if n := count(t, c, `SELECT count(*) FROM sepad_executions`); n != total {
		t.Fatalf("after shipping again: %d executions, want %d", n, total)
	}
	// What left the machine: no tool output, no answer, no signal detail.
	if n := count(t, c, `SELECT count(*) FROM sepad_executions WHERE signals::text LIKE '%secret%'`); n != 0 {
		t.Fatalf("%d rows hold a signal's detail", n)
	}
	if n := count(t, c, `SELECT count(*) FROM sepad_versions WHERE content IS NOT NULL`); n != 0 {
		t.Fatalf("%d versions hold their text without team.share_text", n)
	}
}

// PostgreSQL away at the start: the shipper counts what waits, says why,
// and catches up once it is back.
func TestShipCatchesUpWhenPostgresReturns(t *testing.T) {
	skipShort(t)
	c := pgtest.Start(t)
	c.Stop()
	m := newMachine(t, c.DSN)
	m.commit(t, 0, 20, "aaaaaaaaaaaa", func(int) float64 { return 80 })
	deadline := time.Now().Add(30 * time.Second)
	for (m.sh.Status().LastError == "" || m.sh.Status().Pending != 20) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	st := m.sh.Status()
	if st.LastError == "" || st.Pending != 20 || st.Connected {
		t.Fatalf("while PostgreSQL is down: %+v", st)
	}
	file, err := ReadStatus(m.home)
	if err != nil || file.Pending != 20 {
		t.Fatalf("status file: %+v %v", file, err)
	}
	c.Restart()
	st = waitShipped(t, m)
	if st.Shipped != 20 || st.LastError != "" || st.Schema != SchemaVersion {
		t.Fatalf("after PostgreSQL returned: %+v", st)
	}
}

// A schema newer than this sepad's is refused with a clear error, and the
// team store is left alone.
func TestNewerSchemaRefused(t *testing.T) {
	c := pgtest.Start(t)
	ctx := context.Background()
	for _, read := range []func(*DB) error{
		func(db *DB) error { _, err := db.Grades(ctx, GradesOptions{Rubric: fitness.RubricVersion}); return err },
		func(db *DB) error { _, err := db.Executions(ctx, ExecutionsOptions{}); return err },
	} {
		rdb, err := Open(ctx, Config{Postgres: c.DSN})
		if err != nil {
			t.Fatal(err)
		}
		if err := read(rdb); !errors.Is(err, ErrSchemaOlder) {
			t.Errorf("a read before `sepad team init`: %v", err)
		}
		rdb.Close()
	}
	db, err := Connect(ctx, Config{Postgres: c.DSN})
	if err != nil {
		t.Fatal(err)
	}
	if from, to, err := db.Migrate(ctx); err != nil || from != 0 || to != SchemaVersion {
		t.Fatalf("Migrate: %d %d %v", from, to, err)
	}
	if from, to, err := db.Migrate(ctx); err != nil || from != SchemaVersion || to != SchemaVersion {
		t.Fatalf("Migrate again: %d %d %v", from, to, err)
	}
	if _, err := db.conn.Exec(ctx, `INSERT INTO sepad_schema (version) VALUES (99)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	// Each read refuses it: Grades checks in its own round trip, the
	// others before their query.
	reads := map[string]func(*DB) error{
		"grades": func(db *DB) error { _, err := db.Grades(ctx, GradesOptions{Rubric: fitness.RubricVersion}); return err },
		"versions": func(db *DB) error {
			_, err := db.Versions(ctx, "deploy", GradesOptions{Rubric: fitness.RubricVersion})
			return err
		},
		"executions": func(db *DB) error { _, err := db.Executions(ctx, ExecutionsOptions{}); return err },
		"decisions":  func(db *DB) error { _, err := db.TeamDecisions(ctx, "", 0); return err },
	}
	for name, read := range reads {
		rdb, err := Open(ctx, Config{Postgres: c.DSN})
		if err != nil {
			t.Fatal(err)
		}
		if err := read(rdb); !errors.Is(err, ErrSchemaNewer) {
			t.Errorf("%s on a newer schema: %v", name, err)
		}
		rdb.Close()
	}
	m := newMachine(t, c.DSN)
	m.commit(t, 0, 3, "aaaaaaaaaaaa", func(int) float64 { return 80 })
	deadline := time.Now().Add(30 * time.Second)
	for (!m.sh.Status().Refused || m.sh.Status().Pending != 3) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if st := m.sh.Status(); !st.Refused || st.Pending != 3 {
		t.Fatalf("shipper on a newer schema: %+v", st)
	}
	if n := count(t, c, `SELECT count(*) FROM sepad_executions`); n != 0 {
		t.Fatalf("%d executions written into a newer schema", n)
	}
}

// Two machines' runs of one version pool: machines 2, n the sum.
func TestTeamGradesPool(t *testing.T) {
	c := pgtest.Start(t)
	a, b := newMachine(t, c.DSN), newMachine(t, c.DSN)
	a.commit(t, 0, 4, "v1hash000000", func(int) float64 { return 60 })
	a.commit(t, 4, 5, "vxhash000000", func(int) float64 { return 20 }) // one run: ungraded
	a.commit(t, 5, 11, "v2hash000000", func(int) float64 { return 90 })
	b.commit(t, 100, 105, "v2hash000000", func(int) float64 { return 80 })
	waitShipped(t, a)
	waitShipped(t, b)
	db, err := Open(context.Background(), Config{Postgres: c.DSN})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g, err := db.Grades(context.Background(), GradesOptions{Rubric: fitness.RubricVersion, Aggregate: aggregate.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Grades) != 1 || g.Machines != 2 {
		t.Fatalf("grades: %+v", g)
	}
	r := g.Grades[0]
	if r.Hash != "v2hash000000" || !r.Current || r.Machines != 2 || r.N != 11 || r.Version != 3 || r.PromptID != "skill/deploy" || r.Grade == "" {
		t.Fatalf("current row: %+v", r)
	}
	all, err := db.Grades(context.Background(), GradesOptions{Rubric: fitness.RubricVersion, Aggregate: aggregate.DefaultOptions(), AllVersions: true})
	if err != nil || len(all.Grades) != 3 || all.Grades[2].N != 4 || all.Grades[2].Machines != 1 || all.Grades[1].Grade != "" || all.Grades[1].Aggregate == nil {
		t.Fatalf("all versions: %+v %v", all, err)
	}
	// The current row reads only its own and v1's newest scores (the
	// ungraded v2 between them has no say in the change), and shows what
	// the rows of every version show.
	if r.Aggregate == nil || r.Change == nil || *r.Aggregate != *all.Grades[0].Aggregate || *r.Change != *all.Grades[0].Change ||
		*r.Change != round4(*all.Grades[0].Aggregate-*all.Grades[2].Aggregate) || *r.Mean != *all.Grades[0].Mean {
		t.Fatalf("current row %+v, against all versions' %+v", r, all.Grades[0])
	}
	vs, err := db.Versions(context.Background(), "deploy", GradesOptions{Rubric: fitness.RubricVersion, Aggregate: aggregate.DefaultOptions()})
	if err != nil || len(vs.Versions) != 3 || vs.Skill.ID != "skill/deploy" {
		t.Fatalf("versions: %+v %v", vs, err)
	}
	v2 := vs.Versions[0]
	if len(v2.PerMachine) != 2 || v2.Spread == nil || *v2.Spread != 7.0711 || v2.PerMachine[0].N+v2.PerMachine[1].N != 11 {
		t.Fatalf("v2 per machine: %+v spread %v", v2.PerMachine, v2.Spread)
	}
	if _, err := db.Versions(context.Background(), "nosuch", GradesOptions{Rubric: fitness.RubricVersion}); !errors.Is(err, ErrNoPrompt) {
		t.Fatalf("versions of an unknown prompt: %v", err)
	}
	ex, err := db.Executions(context.Background(), ExecutionsOptions{Limit: 1000})
	if err != nil || len(ex.Executions) != 16 {
		t.Fatalf("executions: %d %v", len(ex.Executions), err)
	}
	machines := map[string]int{}
	for _, e := range ex.Executions {
		machines[e.Machine]++
	}
	if len(machines) != 2 || machines[a.sh.Status().Machine] != 11 {
		t.Fatalf("executions by machine: %v", machines)
	}
}

// A version 1 database with executions upgrades to the current schema,
// its counts backfilled: the grades read the same n.
func TestMigrateFromVersion1(t *testing.T) {
	skipShort(t)
	c := pgtest.Start(t)
	ctx := context.Background()
	db, err := Connect(ctx, Config{Postgres: c.DSN})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, to, err := db.migrateTo(ctx, 1); err != nil || to != 1 {
		t.Fatalf("to version 1: %d %v", to, err)
	}
	if _, err := db.conn.Exec(ctx, `INSERT INTO sepad_prompts (prompt_id, kind, name) VALUES ('skill/deploy', 'skill', 'deploy')`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.conn.Exec(ctx, `INSERT INTO sepad_executions (machine_id, execution_id, prompt_id, version, stored_at, ended_at, complete, rubric, scored, score, calls, failed_calls, corrections)
SELECT 'm' || (i % 3), 'e' || i, 'skill/deploy', 'v1', now(), now() - i * interval '1 minute', true, $1, i % 5 <> 0, 60 + i % 30, 2, 0, 0
FROM generate_series(1, 40) i`, fitness.RubricVersion); err != nil {
		t.Fatal(err)
	}
	if from, to, err := db.Migrate(ctx); err != nil || from != 1 || to != SchemaVersion {
		t.Fatalf("upgrade: %d %d %v", from, to, err)
	}
	g, err := db.Grades(ctx, GradesOptions{Rubric: fitness.RubricVersion, Aggregate: aggregate.DefaultOptions()})
	if err != nil || len(g.Grades) != 1 {
		t.Fatalf("grades: %+v %v", g, err)
	}
	if r := g.Grades[0]; r.N != 32 || r.Machines != 3 || r.Mean == nil || r.Grade == "" {
		t.Fatalf("after the upgrade: %+v", r)
	}
}

// Two machines run a prompt's first version, then a second one, better
// or worse: one of them, holding the prompt's advisory lock, records the
// team's decision on the pooled runs, once; a rejection is told to each
// machine whose file holds the rejected version.
func TestTeamDecision(t *testing.T) {
	skipShort(t)
	for _, tc := range []struct {
		name    string
		second  float64
		outcome string
	}{{"better", 80, decide.Accept}, {"worse", 30, decide.Reject}} {
		t.Run(tc.name, func(t *testing.T) {
			c := pgtest.Start(t)
			o := decide.DefaultOptions()
			var ms []*machine
			var mu sync.Mutex
			notices := map[int][]string{}
			for k := range 2 {
				m := &machine{home: t.TempDir()}
				db, err := store.Open(filepath.Join(m.home, "sepa.db"), store.Options{})
				if err != nil {
					t.Fatal(err)
				}
				m.db = db
				m.sh = NewShipper(db, ShipperOptions{Config: Config{Postgres: c.DSN, Person: "off"}, Home: m.home, ClaudeDir: "/home/u/.claude",
					Batch: 7, Poll: 20 * time.Millisecond, RetryMin: 20 * time.Millisecond, Decide: &o, Rubric: fitness.RubricVersion,
					Notify: func(project, text string, at time.Time) error {
						mu.Lock()
						defer mu.Unlock()
						notices[k] = append(notices[k], text)
						return nil
					}})
				if err := m.sh.Open(context.Background()); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(m.close)
				ms = append(ms, m)
			}
			for k, m := range ms {
				m.commit(t, 1000*k, 1000*k+12, "v1hash000000", func(i int) float64 { return float64(55 + 10*k + i%7) })
				waitShipped(t, m)
			}
			for k, m := range ms {
				m.commit(t, 1000*k+100, 1000*k+140, "v2hash000000", func(i int) float64 { return tc.second + float64(10*k+i%7) })
			}
			for _, m := range ms {
				waitShipped(t, m)
			}
			db, err := Open(context.Background(), Config{Postgres: c.DSN})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var ds []TeamDecision
			deadline := time.Now().Add(30 * time.Second)
			for i := 0; len(ds) == 0 && time.Now().Before(deadline); i++ {
				ms[0].commit(t, 5000+i, 5001+i, "v2hash000000", func(int) float64 { return tc.second }) // another look
				time.Sleep(50 * time.Millisecond)
				if ds, err = db.TeamDecisions(context.Background(), "deploy", 10); err != nil {
					t.Fatal(err)
				}
			}
			if len(ds) != 1 {
				t.Fatalf("team decisions: %+v", ds)
			}
			d := ds[0]
			if d.Outcome != tc.outcome || d.Candidate != "v2hash000000" || d.Baseline != "v1hash000000" || d.Machines != 2 {
				t.Fatalf("team decision: %+v", d)
			}
			if tc.outcome != decide.Reject {
				return
			}
			// Each machine's file holds v2: each is told, once.
			for k, m := range ms {
				m.commit(t, 9000+k, 9001+k, "v2hash000000", func(int) float64 { return tc.second })
				waitShipped(t, m)
			}
			deadline = time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				mu.Lock()
				n := len(notices[0]) + len(notices[1])
				mu.Unlock()
				if n >= 2 {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			mu.Lock()
			defer mu.Unlock()
			for k := range ms {
				if len(notices[k]) != 1 || !strings.Contains(notices[k][0], "sepad rollback deploy --to v1hash000000") {
					t.Fatalf("machine %d notices: %q", k, notices[k])
				}
			}
		})
	}
}

// A password comes from team.password_file or PGPASSWORD, never from the
// connection string alone; a wrong one is refused.
func TestPassword(t *testing.T) {
	skipShort(t)
	c := pgtest.StartWithPassword(t, "s3cret")
	ctx := context.Background()
	pf := filepath.Join(t.TempDir(), "pg.pass")
	if err := os.WriteFile(pf, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := Connect(ctx, Config{Postgres: c.DSN, PasswordFile: pf})
	if err != nil {
		t.Fatalf("with the password file: %v", err)
	}
	db.Close()
	t.Setenv("PGPASSWORD", "s3cret")
	db, err = Connect(ctx, Config{Postgres: c.DSN})
	if err != nil {
		t.Fatalf("with PGPASSWORD: %v", err)
	}
	db.Close()
	t.Setenv("PGPASSWORD", "wrong")
	if _, err := Connect(ctx, Config{Postgres: c.DSN}); err == nil {
		t.Fatal("a wrong password was accepted")
	}
}

// With team.share_text a version's text is shipped; without, never (the
// kill test checks the second).
func TestShareText(t *testing.T) {
	skipShort(t)
	c := pgtest.Start(t)
	m := &machine{home: t.TempDir()}
	db, err := store.Open(filepath.Join(m.home, "sepa.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m.db = db
	path := "/home/u/.claude/skills/deploy/SKILL.md"
	if _, err := db.PutVersion(record.Skill{Key: path, Name: "deploy", Kind: "skill", Path: path},
		record.Version{Hash: "aaaaaaaaaaaa", ContentKnown: true, Content: []byte("# Deploy\n"), Source: "edit", FirstSeen: t0}); err != nil {
		t.Fatal(err)
	}
	m.sh = NewShipper(db, ShipperOptions{Config: Config{Postgres: c.DSN, Person: "off", ShareText: true}, Home: m.home,
		ClaudeDir: "/home/u/.claude", Poll: 20 * time.Millisecond, RetryMin: 20 * time.Millisecond})
	if err := m.sh.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.close)
	m.commit(t, 0, 3, "aaaaaaaaaaaa", func(int) float64 { return 80 })
	waitShipped(t, m)
	if n := count(t, c, `SELECT count(*) FROM sepad_versions WHERE content = '# Deploy'||chr(10)`); n != 1 {
		t.Fatalf("%d versions hold the text with team.share_text", n)
	}
}

// skipShort keeps go test -short fast: a test that starts its own
// PostgreSQL cluster beyond the two that stay runs without -short.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("long: starts a PostgreSQL cluster; runs without -short")
	}
}
