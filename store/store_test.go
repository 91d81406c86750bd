package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
)

// openTest opens a fresh database and checks its invariants after the test.
func openTest(t *testing.T, o Options) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", "sepa.db")
	db, err := Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := CheckInvariants(db); err != nil {
			t.Errorf("invariants: %v", err)
		}
		db.Close()
	})
	return db, path
}

func scored(id, skill, version string, score float64, at time.Time) record.Scored {
	x := execution.Execution{ID: id, SessionID: "s-" + id[:1], Skill: skill, Kind: "skill", Project: "/p",
		SkillPath: "/p/.claude/skills/" + skill + "/SKILL.md", SkillVersion: version, StartedAt: at, EndedAt: at.Add(time.Minute),
		Calls: []execution.ToolCall{{Name: "Bash", Done: true}, {Name: "Read", Done: true, Failed: true}}, Complete: true}
	return record.Scored{Exec: x, Result: fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true, Score: score, Grade: fitness.GradeOf(score)}}
}

func TestCommitReopenAndNewestFirst(t *testing.T) {
	db, path := openTest(t, Options{})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b Batch
	for i := 0; i < 12; i++ {
		b.Executions = append(b.Executions, scored(fmt.Sprintf("a%011d", i), "deploy", "aaaaaaaaaaaa", float64(60+i), t0.Add(time.Duration(i)*time.Minute)))
	}
	b.Offsets = []record.Offset{{File: "/s/events.jsonl", Offset: 123, Dev: 1, Ino: 2, Fingerprint: "8:ab", Size: 200, Lines: 3}}
	b.OpenPut = map[string][]byte{"sess": []byte(`{"x":1}`)}
	b.EventCounts = map[string]int64{"Stop": 2}
	if err := db.Commit(&b); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db2, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	*db = *db2 // the cleanup checks and closes the reopened database
	xs, err := db2.Executions(record.Filter{SkillKey: "/p/.claude/skills/deploy/SKILL.md", Version: "aaaaaaaaaaaa", Limit: 3})
	if err != nil || len(xs) != 3 || xs[0].Exec.ID != "a00000000011" || xs[2].Exec.ID != "a00000000009" {
		t.Fatalf("newest first: %v %+v", err, ids(xs))
	}
	offs, _ := db2.Offsets()
	if len(offs) != 1 || offs[0].Offset != 123 || offs[0].Ino != 2 {
		t.Fatalf("offsets %+v", offs)
	}
	open, _ := db2.OpenStates()
	if string(open["sess"]) != `{"x":1}` {
		t.Fatalf("open %q", open)
	}
	sk, err := db2.Skill("/p/.claude/skills/deploy/SKILL.md")
	if err != nil || len(sk.Versions) != 1 || sk.Versions[0].Aggregate.N != 12 || sk.Versions[0].Source != "observed" || sk.Versions[0].FailRate != 0.5 {
		t.Fatalf("skill %+v %v", sk, err)
	}
	st, _ := db2.Stats()
	if st.Executions != 12 || st.Events["Stop"] != 2 || st.Open != 1 {
		t.Fatalf("stats %+v", st)
	}
	if err := CheckInvariants(db2); err != nil {
		t.Fatal(err)
	}
}

func ids(xs []record.Scored) []string {
	var out []string
	for _, x := range xs {
		out = append(out, x.Exec.ID)
	}
	return out
}

func TestCommitIsIdempotentPerExecution(t *testing.T) {
	db, _ := openTest(t, Options{})
	b := Batch{Executions: []record.Scored{scored("b00000000001", "x", "bbbbbbbbbbbb", 80, time.Now())}}
	for i := 0; i < 3; i++ {
		c := b
		c.Executions = append([]record.Scored(nil), b.Executions...)
		if err := db.Commit(&c); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := db.Stats()
	sk, _ := db.Skill("/p/.claude/skills/x/SKILL.md")
	if st.Executions != 1 || sk.Versions[0].Aggregate.N != 1 {
		t.Fatalf("re-committed execution counted: %+v", st)
	}
}

func TestFilters(t *testing.T) {
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := Batch{Executions: []record.Scored{
		scored("c00000000001", "x", "cccccccccccc", 95, t0),
		scored("c00000000002", "y", "dddddddddddd", 40, t0.Add(time.Hour)),
		scored("c00000000003", "x", "eeeeeeeeeeee", 75, t0.Add(2*time.Hour)),
	}}
	if err := db.Commit(&b); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		f    record.Filter
		want string
	}{
		{record.Filter{Skill: "x"}, "[c00000000003 c00000000001]"},
		{record.Filter{Grade: fitness.F}, "[c00000000002]"},
		{record.Filter{Since: t0.Add(90 * time.Minute)}, "[c00000000003]"},
		{record.Filter{Version: "ccc"}, "[c00000000001]"},
		{record.Filter{Limit: 1}, "[c00000000003]"},
		{record.Filter{MaxSeq: 2}, "[c00000000002 c00000000001]"},
	}
	for _, c := range cases {
		xs, err := db.Executions(c.f)
		if err != nil || fmt.Sprint(ids(xs)) != c.want {
			t.Errorf("%+v: %v %v, want %s", c.f, ids(xs), err, c.want)
		}
	}
	if x, err := db.Execution("c0000000000"); err == nil {
		t.Errorf("ambiguous prefix accepted: %v", x.Exec.ID)
	}
	if x, err := db.Execution("c00000000002"); err != nil || x.Exec.Skill != "y" {
		t.Errorf("%v %v", x, err)
	}
	if _, err := db.Execution("zzzz"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing: %v", err)
	}
}

func TestQuarantineBound(t *testing.T) {
	db, _ := openTest(t, Options{QuarantineMax: 3})
	var q []record.QuarantineEntry
	for i := 0; i < 5; i++ {
		q = append(q, record.QuarantineEntry{File: "/s", Offset: int64(i * 10), Raw: []byte("bad"), Reason: "not JSON"})
	}
	if err := db.Commit(&Batch{Quarantine: q}); err != nil {
		t.Fatal(err)
	}
	kept, _ := db.Quarantine(0)
	st, _ := db.Stats()
	if len(kept) != 3 || st.Quarantined != 5 || st.QuarantineKept != 3 || kept[0].Offset != 0 {
		t.Fatalf("kept %d, counted %d", len(kept), st.Quarantined)
	}
}

func TestFileModes(t *testing.T) {
	_, path := openTest(t, Options{})
	fi, _ := os.Stat(path)
	di, _ := os.Stat(filepath.Dir(path))
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Fatalf("db %v dir %v, want 0600 in 0700", fi.Mode().Perm(), di.Mode().Perm())
	}
}

func TestSchemaNewerRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sepa.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.bolt.Update(func(tx *bolt.Tx) error { return tx.Bucket(bMeta).Put(kSchema, []byte("99")) })
	db.Close()
	if _, err := Open(path, Options{}); !errors.Is(err, ErrSchemaNewer) {
		t.Fatalf("err = %v, want ErrSchemaNewer", err)
	}
	if _, err := Open(path, Options{ReadOnly: true}); !errors.Is(err, ErrSchemaNewer) {
		t.Fatalf("read-only err = %v, want ErrSchemaNewer", err)
	}
}

func TestMigrationRunsForOlderSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sepa.db")
	db, _ := Open(path, Options{})
	db.bolt.Update(func(tx *bolt.Tx) error { return tx.Bucket(bMeta).Put(kSchema, []byte("0")) })
	db.Close()
	ran := false
	migrations[0] = func(tx *bolt.Tx) error { ran = true; return nil }
	defer delete(migrations, 0)
	db, err := Open(path, Options{})
	if err != nil || !ran {
		t.Fatalf("migration ran=%v err=%v", ran, err)
	}
	st, _ := db.Stats()
	db.Close()
	if st.SchemaVersion != SchemaVersion {
		t.Fatal(st)
	}
}

func TestVersionsAndDecisions(t *testing.T) {
	db, _ := openTest(t, Options{})
	sk := record.Skill{Key: "/p/a.md", Name: "a", Kind: "agent", Project: "/p", Path: "/p/a.md"}
	v1, err := db.PutVersion(sk, record.Version{Hash: "111111111111", Content: []byte("one"), ContentKnown: true, Source: "edit"})
	if err != nil || v1.Seq != 1 {
		t.Fatal(v1, err)
	}
	v2, _ := db.PutVersion(sk, record.Version{Hash: "222222222222", Content: []byte("two"), ContentKnown: true, Source: "edit"})
	again, _ := db.PutVersion(sk, record.Version{Hash: "111111111111", Source: "rollback"})
	if v2.Seq != 2 || v2.Parent != "111111111111" || again.Seq != 1 || string(again.Content) != "one" {
		t.Fatalf("v2 %+v again %+v", v2, again)
	}
	got, _ := db.Skill("/p/a.md")
	if got.Current != "111111111111" || len(got.Versions) != 2 {
		t.Fatalf("%+v", got)
	}
	for _, by := range []string{"v2", "2222", "222222222222"} {
		if v, err := db.Version("/p/a.md", by); err != nil || v.Seq != 2 {
			t.Errorf("Version(%s) = %v %v", by, v, err)
		}
	}
	db.PutDecision("/p/a.md", time.Now(), map[string]string{"kind": "first"})
	db.PutDecision("/p/a.md", time.Now(), map[string]string{"kind": "second"})
	ds, _ := db.Decisions("/p/a.md", 0)
	var first map[string]string
	json.Unmarshal(ds[0].Payload, &first)
	if len(ds) != 2 || first["kind"] != "second" {
		t.Fatalf("decisions newest first: %+v", ds)
	}
	db.PutSkillState("/p/a.md", []byte(`{"baseline":"111111111111"}`))
	if b, _ := db.SkillState("/p/a.md"); string(b) != `{"baseline":"111111111111"}` {
		t.Fatalf("state %q", b)
	}
}

// TestLockedByAnotherProcess holds the database in a real subprocess and
// checks that opening it fails fast with ErrLocked.
func TestLockedByAnotherProcess(t *testing.T) {
	if p := os.Getenv("SEPAD_HOLD_DB"); p != "" {
		db, err := Open(p, Options{})
		if err != nil {
			os.Exit(3)
		}
		os.WriteFile(p+".held", nil, 0o600)
		time.Sleep(30 * time.Second)
		db.Close()
		os.Exit(0)
	}
	path := filepath.Join(t.TempDir(), "sepa.db")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestLockedByAnotherProcess$")
	cmd.Env = append(os.Environ(), "SEPAD_HOLD_DB="+path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	for i := 0; ; i++ {
		if _, err := os.Stat(path + ".held"); err == nil {
			break
		}
		if i > 200 {
			t.Fatal("holder never opened the database")
		}
		time.Sleep(25 * time.Millisecond)
	}
	for _, ro := range []bool{false, true} {
		start := time.Now()
		_, err := Open(path, Options{ReadOnly: ro, LockTimeout: 200 * time.Millisecond})
		if !errors.Is(err, ErrLocked) {
			t.Fatalf("read-only=%v: err = %v, want ErrLocked", ro, err)
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("open hung for %v", time.Since(start))
		}
	}
}

// Two different executions with one ID: the second is quarantined and
// reported, never dropped silently; the same execution again is a replay.
func TestExecutionIDCollision(t *testing.T) {
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	first := record.Scored{Exec: execution.Execution{ID: "abcdefabcdef", SessionID: "s1", Skill: "deploy", Kind: "skill", Project: "/p", StartedAt: t0}}
	if err := db.Commit(&Batch{Executions: []record.Scored{first}}); err != nil {
		t.Fatal(err)
	}
	again := &Batch{Executions: []record.Scored{first}}
	if err := db.Commit(again); err != nil || len(again.Collisions) != 0 {
		t.Fatalf("replay: %v, collisions %v", err, again.Collisions)
	}
	other := first
	other.Exec.StartedAt = t0.Add(time.Hour)
	b := &Batch{Executions: []record.Scored{other}}
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if len(b.Collisions) != 1 || !errors.Is(&b.Collisions[0], ErrIDCollision) {
		t.Fatalf("collisions = %+v", b.Collisions)
	}
	q, err := db.Quarantine(10)
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 1 || q[0].File != "(store)" || !strings.Contains(q[0].Reason, "execution ID collision") || !bytes.Contains(q[0].Raw, []byte(`"started_at":"2026-11-20T10:00:00Z"`)) {
		t.Fatalf("quarantine = %+v", q)
	}
	st, err := db.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Executions != 1 || st.Quarantined != 1 {
		t.Errorf("stats: %d executions, %d quarantined; want 1 and 1", st.Executions, st.Quarantined)
	}
}

// Executions without any time (raw payloads, no sepa.ts) that share an ID
// are not a replay because both lack a start: the second is a collision,
// quarantined; only the same execution again is a replay (issue 33 item
// 10: three turns were dropped as replays, silently).
func TestUntimedIDCollision(t *testing.T) {
	db, _ := openTest(t, Options{})
	first := record.Scored{Exec: execution.Execution{ID: "0123456789ab", SessionID: "s1", Skill: "_session", Kind: "session",
		Prompt: "one", Events: 4, Calls: []execution.ToolCall{{ID: "t1", Name: "Bash", Done: true}}}}
	if err := db.Commit(&Batch{Executions: []record.Scored{first}}); err != nil {
		t.Fatal(err)
	}
	again := &Batch{Executions: []record.Scored{first}}
	if err := db.Commit(again); err != nil || len(again.Collisions) != 0 {
		t.Fatalf("replay: %v, collisions %v", err, again.Collisions)
	}
	for _, change := range []func(*execution.Execution){
		func(x *execution.Execution) { x.Prompt = "four" },
		func(x *execution.Execution) { x.Events = 3 },
		func(x *execution.Execution) { x.Calls = append(x.Calls, execution.ToolCall{ID: "t2", Name: "Read"}) },
		func(x *execution.Execution) { x.Calls = []execution.ToolCall{{ID: "t9", Name: "Bash", Done: true}} },
	} {
		other := first
		other.Exec.Calls = append([]execution.ToolCall(nil), first.Exec.Calls...)
		change(&other.Exec)
		b := &Batch{Executions: []record.Scored{other}}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		if len(b.Collisions) != 1 {
			t.Errorf("%+v: another execution with the ID was taken for a replay", other.Exec)
		}
	}
	st, err := db.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Executions != 1 || st.Quarantined != 4 {
		t.Errorf("stats: %d executions, %d quarantined; want 1 and 4", st.Executions, st.Quarantined)
	}
}
