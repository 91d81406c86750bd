package store

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/record"
	bolt "go.etcd.io/bbolt"
)

// No field of an event becomes an unbounded key (issue 33 item 2): a
// batch whose every key-making field is over bbolt's 32 KiB key limit
// commits, reads back, and replays without doubling. Before the bound,
// such a commit failed with "key too large", and the collector, which
// retries the same lines, stopped on it for good.
func TestCommitBoundsKeys(t *testing.T) {
	db, _ := openTest(t, Options{})
	big := func(c string) string { return strings.Repeat(c, bolt.MaxKeySize+100) }
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	s := scored("c00000000001", "deploy", "cccccccccccc", 75, t0)
	s.Exec.ID = big("i")
	s.Exec.SessionID = big("s")
	s.Exec.Skill = big("k")
	s.Exec.SkillPath = ""
	s.Exec.Project = "/" + big("p")
	s.Exec.SkillVersion = big("v")
	s.Exec.Instructions = []execution.InstructionFile{{Path: "/" + big("f"), Hash: "abcdefabcdef"}}
	s.Result.RubricVersion = big("r")
	path := "/" + big("o")
	b := Batch{
		Offsets:        []record.Offset{{File: path, Offset: 10}},
		Executions:     []record.Scored{s},
		OpenPut:        map[string][]byte{big("t"): []byte(`{}`)},
		EventCounts:    map[string]int64{big("e"): 1, "Stop": 1},
		Transcripts:    []record.TranscriptOffset{{Path: "/" + big("x"), Offset: 5}},
		ImportKeys:     []string{big("m")},
		ImportSessions: []string{big("n")},
	}
	replay := b
	replay.Executions = append([]record.Scored(nil), b.Executions...)
	if err := db.Commit(&b); err != nil {
		t.Fatalf("commit of over-long keys: %v", err)
	}
	if err := db.Commit(&replay); err != nil {
		t.Fatalf("replay of over-long keys: %v", err)
	}
	st, err := db.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Executions != 1 || st.Open != 1 || st.Events["Stop"] != 2 {
		t.Fatalf("stats: %+v", st)
	}
	for k := range st.Events {
		if len(k) > maxKeyPart {
			t.Errorf("an event name of %d bytes kept", len(k))
		}
	}
	skills, err := db.Skills()
	if err != nil || len(skills) != 1 {
		t.Fatalf("skills %d %v", len(skills), err)
	}
	if k := skills[0].Key; len(k) > 2*maxKeyPart+1 || !strings.Contains(k, "sha256:") {
		t.Errorf("skill key of %d bytes: %.80q", len(k), k)
	}
	xs, err := db.Executions(record.Filter{SkillKey: skills[0].Key})
	if err != nil || len(xs) != 1 {
		t.Fatalf("executions of the bounded skill: %d %v", len(xs), err)
	}
	if _, ok, err := db.TranscriptOffset("/" + big("x")); !ok || err != nil {
		t.Errorf("transcript offset by its long path: %v %v", ok, err)
	}
	known, _, err := db.ImportState([]string{big("m")}, nil)
	if err != nil || !known[big("m")] {
		t.Errorf("import key by its long self: %v %v", known, err)
	}
	offs, err := db.Offsets()
	if err != nil || len(offs) != 1 || offs[0].File != path {
		t.Errorf("offsets %d %v (the path is kept whole in the record)", len(offs), err)
	}
	// A checkpoint deleted by its long path is gone.
	if err := db.Commit(&Batch{OffsetDel: []string{path}}); err != nil {
		t.Fatal(err)
	}
	if offs, _ := db.Offsets(); len(offs) != 0 {
		t.Errorf("checkpoint not deleted by its long path: %d left", len(offs))
	}
}

// boundPart keeps short parts, and gives long ones a head and the
// sha256 of the whole: the same input the same part, two inputs that
// differ only at their end two parts.
func TestBoundPart(t *testing.T) {
	if got := boundPart("abc"); got != "abc" {
		t.Errorf("short part changed: %q", got)
	}
	a, b := strings.Repeat("é", maxKeyPart)+"a", strings.Repeat("é", maxKeyPart)+"b"
	ba, bb := boundPart(a), boundPart(b)
	if ba == bb || ba != boundPart(a) || len(ba) > maxKeyPart || !strings.HasPrefix(ba, "éé") {
		t.Errorf("bounded %d and %d bytes, equal %v", len(ba), len(bb), ba == bb)
	}
	if boundPart(ba) != ba {
		t.Error("a bounded part is bounded again")
	}
	if !strings.Contains(ba, "sha256:") || !utf8.ValidString(ba) {
		t.Errorf("bounded part %q…", ba[len(ba)-90:])
	}
}

// The names of event_counts are bounded (issue 33 item 9: a fuzz run
// kept 394): the names sepad understands are always kept, unknown names
// while fewer than EventNames of them are, and later unknown names and
// names over 64 bytes are counted under "other", so no event is lost from
// the counts.
func TestEventNamesBounded(t *testing.T) {
	db, _ := openTest(t, Options{EventNames: 3})
	commit := func(counts map[string]int64) {
		t.Helper()
		if err := db.Commit(&Batch{EventCounts: counts}); err != nil {
			t.Fatal(err)
		}
	}
	commit(map[string]int64{"Fuzz1": 1, "Fuzz2": 1, "Stop": 1})
	commit(map[string]int64{"Fuzz3": 2, "Fuzz4": 5, "Fuzz5": 1, "PreToolUse": 1, "Notification": 1})
	commit(map[string]int64{"Fuzz1": 1, "Fuzz6": 1, strings.Repeat("n", 65): 1, "SessionEnd": 1})
	st, err := db.Stats()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"Fuzz1": 2, "Fuzz2": 1, "Fuzz3": 2, "Stop": 1, "PreToolUse": 1, "SessionEnd": 1,
		"other": 5 + 1 + 1 + 1 + 1} // Fuzz4, Fuzz5, Notification, Fuzz6, the long name
	if len(st.Events) != len(want) {
		t.Fatalf("names %v, want %v", st.Events, want)
	}
	for k, n := range want {
		if st.Events[k] != n {
			t.Errorf("%s: %d, want %d (all %v)", k, st.Events[k], n, st.Events)
		}
	}
}
