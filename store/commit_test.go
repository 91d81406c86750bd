package store

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
)

// A batch that fails half-way leaves nothing behind: not its offsets, open
// threads, quarantined lines, event counts, nor the executions before the
// one that failed. The collector relies on this to retry the same lines.
func TestCommitIsAtomicOnError(t *testing.T) {
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	good := []record.Scored{
		scored("a00000000001", "x", "aaaaaaaaaaaa", 80, t0),
		scored("a00000000002", "x", "aaaaaaaaaaaa", 70, t0.Add(time.Minute)),
	}
	// bbolt refuses an empty key: the third execution fails after
	// everything else of the batch was written in the transaction. (An
	// over-long one, this test's first way, is bounded now: keys.go.)
	bad := scored("b0", "y", "bbbbbbbbbbbb", 50, t0)
	bad.Exec.ID = ""
	b := Batch{
		Offsets:     []record.Offset{{File: "/spool/events.jsonl", Offset: 900, Size: 900, Lines: 9}},
		Executions:  append(append([]record.Scored(nil), good...), bad),
		OpenPut:     map[string][]byte{"sess": []byte(`{}`)},
		Quarantine:  []record.QuarantineEntry{{File: "/spool/events.jsonl", Offset: 10, Raw: []byte("{"), Reason: "truncated"}},
		EventCounts: map[string]int64{"Stop": 3},
	}
	if err := db.Commit(&b); err == nil {
		t.Fatal("commit with an empty execution ID succeeded")
	}
	offs, _ := db.Offsets()
	open, _ := db.OpenStates()
	q, _ := db.Quarantine(0)
	skills, _ := db.Skills()
	st, _ := db.Stats()
	if len(offs) != 0 || len(open) != 0 || len(q) != 0 || len(skills) != 0 || st.Executions != 0 || st.Quarantined != 0 || len(st.Events) != 0 {
		t.Fatalf("failed commit left data: offsets %v open %v quarantine %d skills %d stats %+v", offs, open, len(q), len(skills), st)
	}
	// The same batch without the bad execution goes through whole.
	b.Executions = good
	if err := db.Commit(&b); err != nil {
		t.Fatal(err)
	}
	st, _ = db.Stats()
	if st.Executions != 2 || st.Quarantined != 1 || st.Events["Stop"] != 3 {
		t.Fatalf("stats after retry %+v", st)
	}
}

// A batch that names the same execution twice stores it once: the first
// occurrence wins.
func TestDuplicateInOneBatch(t *testing.T) {
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	first := scored("d00000000001", "x", "aaaaaaaaaaaa", 91, t0)
	second := scored("d00000000001", "x", "aaaaaaaaaaaa", 12, t0)
	if err := db.Commit(&Batch{Executions: []record.Scored{first, second}}); err != nil {
		t.Fatal(err)
	}
	x, err := db.Execution("d00000000001")
	if err != nil || x.Result.Score != 91 {
		t.Fatalf("stored %+v, %v", x, err)
	}
	v, err := db.Version(first.Exec.Key(), "aaaaaaaaaaaa")
	if err != nil || v.Aggregate.N != 1 || v.Aggregate.Last != 91 {
		t.Fatalf("aggregate %+v, %v", v, err)
	}
}

// A replayed batch that overlaps the committed one (the crash case: the
// collector re-reads lines after the last committed offset, and grouping
// re-emits executions that were already stored) adds only the new ones,
// in order.
func TestOverlappingReplay(t *testing.T) {
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	mk := func(from, to int) []record.Scored {
		var xs []record.Scored
		for i := from; i <= to; i++ {
			xs = append(xs, scored(fmt.Sprintf("r%011d", i), "x", "aaaaaaaaaaaa", float64(50+i), t0.Add(time.Duration(i)*time.Minute)))
		}
		return xs
	}
	if err := db.Commit(&Batch{Executions: mk(1, 5)}); err != nil {
		t.Fatal(err)
	}
	if err := db.Commit(&Batch{Executions: mk(3, 8)}); err != nil {
		t.Fatal(err)
	}
	xs, err := db.Executions(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	want := "[r00000000008 r00000000007 r00000000006 r00000000005 r00000000004 r00000000003 r00000000002 r00000000001]"
	if got := fmt.Sprint(ids(xs)); got != want {
		t.Fatalf("executions %s, want %s", got, want)
	}
	for i, x := range xs {
		if x.Seq != uint64(8-i) {
			t.Errorf("%s has seq %d, want %d", x.Exec.ID, x.Seq, 8-i)
		}
	}
	v, _ := db.Version(xs[0].SkillKey, "aaaaaaaaaaaa")
	if v.Aggregate.N != 8 || v.Aggregate.Last != 58 {
		t.Fatalf("aggregate %+v", v.Aggregate)
	}
}

// Every execution lands in a version record: named versions get an
// "observed" record with unknown content, unnamed ones go to the skill's
// current version or, before any is known, to "unknown".
func TestVersionAttribution(t *testing.T) {
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	noVersion := scored("v00000000001", "x", "", 60, t0)
	key := noVersion.Exec.Key()
	if err := db.Commit(&Batch{Executions: []record.Scored{noVersion}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Commit(&Batch{Executions: []record.Scored{
		scored("v00000000002", "x", "111111111111", 70, t0.Add(time.Minute)),
		scored("v00000000003", "x", "", 80, t0.Add(2*time.Minute)),
	}}); err != nil {
		t.Fatal(err)
	}
	sk, err := db.Skill(key)
	if err != nil {
		t.Fatal(err)
	}
	if sk.Current != "111111111111" || sk.Executions != 3 || sk.VersionCount != 2 || len(sk.Versions) != 2 {
		t.Fatalf("skill %+v", sk)
	}
	unknown, v1 := sk.Versions[0], sk.Versions[1]
	if unknown.Hash != "unknown" || unknown.Seq != 1 || unknown.Aggregate.N != 1 || unknown.Source != "observed" {
		t.Errorf("first version %+v", unknown)
	}
	if v1.Hash != "111111111111" || v1.Seq != 2 || v1.ContentKnown || v1.Source != "observed" || v1.Parent != "" || v1.Aggregate.N != 2 {
		t.Errorf("observed version %+v", v1)
	}
	for id, want := range map[string]string{"v00000000001": "unknown", "v00000000002": "111111111111", "v00000000003": "111111111111"} {
		if x, err := db.Execution(id); err != nil || x.Version != want || x.SkillKey != key {
			t.Errorf("%s attributed to %q (%v), want %q", id, x.Version, err, want)
		}
	}
	// The mutation engine sees the file later: the record keeps its number
	// and gains its content.
	got, err := db.PutVersion(record.Skill{Key: key, Name: "x", Kind: "skill"}, record.Version{Hash: "111111111111", Content: []byte("# x\n"), ContentKnown: true, Source: "edit", FirstSeen: t0})
	if err != nil || got.Seq != 2 || !got.ContentKnown || string(got.Content) != "# x\n" || !got.FirstSeen.Equal(t0) {
		t.Fatalf("PutVersion on an observed version: %+v, %v", got, err)
	}
	again, _ := db.Version(key, "v2")
	if !again.ContentKnown || string(again.Content) != "# x\n" || again.Aggregate.N != 2 {
		t.Fatalf("version after content %+v", again)
	}
}

// Scores of another rubric version keep their own aggregate: the skill's
// versions show the current rubric's only.
func TestRubricVersionsNeverMix(t *testing.T) {
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	var xs []record.Scored
	for i := 0; i < 6; i++ {
		x := scored(fmt.Sprintf("m%011d", i), "x", "aaaaaaaaaaaa", float64(40+i), t0.Add(time.Duration(i)*time.Minute))
		if i%2 == 0 {
			x.Result.RubricVersion = "0.9.0"
			x.Result.Score = 10
		}
		xs = append(xs, x)
	}
	if err := db.Commit(&Batch{Executions: xs}); err != nil {
		t.Fatal(err)
	}
	key := xs[0].Exec.Key()
	v, err := db.Version(key, "aaaaaaaaaaaa")
	if err != nil {
		t.Fatal(err)
	}
	// Current rubric: 41, 43, 45 (newest first 45, 43, 41).
	if v.Aggregate.N != 3 || v.Aggregate.Mean != 43 || v.Aggregate.Last != 45 {
		t.Fatalf("current rubric aggregate %+v", v.Aggregate)
	}
	st, err := db.AggregateState(key, "aaaaaaaaaaaa")
	if err != nil || st == nil || fmt.Sprint(st.Recent) != "[45 43 41]" || fmt.Sprint(st.IDs) != "[m00000000005 m00000000003 m00000000001]" {
		t.Fatalf("aggregate state %+v, %v", st, err)
	}
	// All six executions are stored and listed, whatever their rubric.
	if all, _ := db.Executions(record.Filter{SkillKey: key, Version: "aaaaaaaaaaaa"}); len(all) != 6 {
		t.Fatalf("listed %d executions, want 6", len(all))
	}
}

// Unscored executions (no evidence to score) are stored and listed but
// enter no aggregate.
func TestUnscoredExecutionsAreNotAggregated(t *testing.T) {
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	s1 := scored("u00000000001", "x", "aaaaaaaaaaaa", 80, t0)
	s2 := scored("u00000000002", "x", "aaaaaaaaaaaa", 0, t0.Add(time.Minute))
	s2.Result = fitness.Result{RubricVersion: fitness.RubricVersion}
	if err := db.Commit(&Batch{Executions: []record.Scored{s1, s2}}); err != nil {
		t.Fatal(err)
	}
	st, _ := db.Stats()
	v, _ := db.Version(s1.Exec.Key(), "aaaaaaaaaaaa")
	xs, _ := db.Executions(record.Filter{})
	if st.Executions != 2 || len(xs) != 2 || v.Aggregate.N != 1 || v.Aggregate.Last != 80 {
		t.Fatalf("stats %+v, listed %d, aggregate %+v", st, len(xs), v.Aggregate)
	}
	if v.FailRate != 0.5 {
		t.Errorf("fail rate %v counts the unscored execution's calls, want 0.5 from the scored one", v.FailRate)
	}
}

// Offsets and open threads are replaced and deleted by key; event counts
// add up across commits.
func TestOffsetsOpenAndEventCounts(t *testing.T) {
	db, path := openTest(t, Options{})
	commit := func(b Batch) {
		t.Helper()
		if err := db.Commit(&b); err != nil {
			t.Fatal(err)
		}
	}
	commit(Batch{
		Offsets:     []record.Offset{{File: "/s/a", Offset: 10}, {File: "/s/b", Offset: 20}},
		OpenPut:     map[string][]byte{"s1": []byte("one"), "s2": []byte("two")},
		EventCounts: map[string]int64{"PreToolUse": 5, "Stop": 1},
	})
	commit(Batch{
		Offsets:     []record.Offset{{File: "/s/a", Offset: 15, Lines: 2}},
		OffsetDel:   []string{"/s/b", "/s/never"},
		OpenPut:     map[string][]byte{"s1": []byte("one'")},
		OpenDel:     []string{"s2", "never"},
		EventCounts: map[string]int64{"PreToolUse": 2},
	})
	db.Close()
	reopened, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	*db = *reopened
	offs, _ := db.Offsets()
	if len(offs) != 1 || offs[0].File != "/s/a" || offs[0].Offset != 15 || offs[0].Lines != 2 {
		t.Fatalf("offsets %+v", offs)
	}
	open, _ := db.OpenStates()
	if len(open) != 1 || string(open["s1"]) != "one'" {
		t.Fatalf("open %q", open)
	}
	st, _ := db.Stats()
	if st.Events["PreToolUse"] != 7 || st.Events["Stop"] != 1 || st.Open != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// The quarantine keeps the first QuarantineMax lines and counts all of
// them, across commits and restarts; a full quarantine never fails a
// commit, and the rest of the batch is stored.
func TestQuarantineFullAcrossCommits(t *testing.T) {
	db, path := openTest(t, Options{QuarantineMax: 5})
	raw := []byte{0xff, 0x00, '{', 0xfe} // not UTF-8: kept byte for byte
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	off := int64(0)
	for c := 0; c < 3; c++ {
		var q []record.QuarantineEntry
		for i := 0; i < 3; i++ {
			q = append(q, record.QuarantineEntry{File: "/s", Offset: off, Raw: raw, Reason: "not JSON", Time: t0})
			off += 100
		}
		b := Batch{Quarantine: q, Executions: []record.Scored{scored(fmt.Sprintf("q%011d", c), "x", "aaaaaaaaaaaa", 70, t0)}}
		if err := db.Commit(&b); err != nil {
			t.Fatalf("commit %d with a full quarantine: %v", c, err)
		}
	}
	db.Close()
	reopened, err := Open(path, Options{QuarantineMax: 5})
	if err != nil {
		t.Fatal(err)
	}
	*db = *reopened
	st, _ := db.Stats()
	if st.Quarantined != 9 || st.QuarantineKept != 5 || st.Executions != 3 {
		t.Fatalf("stats %+v, want 9 quarantined, 5 kept, 3 executions", st)
	}
	oldest, _ := db.Quarantine(0)
	newest, _ := db.QuarantineNewest(2)
	if len(oldest) != 5 || oldest[0].Offset != 0 || oldest[4].Offset != 400 || oldest[4].Seq != 5 {
		t.Fatalf("kept %+v", oldest)
	}
	if len(newest) != 2 || newest[0].Offset != 400 || newest[1].Offset != 300 {
		t.Fatalf("newest %+v", newest)
	}
	if !bytes.Equal(oldest[2].Raw, raw) || oldest[2].Reason != "not JSON" || !oldest[2].Time.Equal(t0) {
		t.Fatalf("entry %+v", oldest[2])
	}
	if first, _ := db.Quarantine(1); len(first) != 1 || first[0].Offset != 0 {
		t.Fatalf("Quarantine(1) = %+v", first)
	}
}

// Sessions are summarised from their executions, most recent first.
func TestSessions(t *testing.T) {
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	// scored() puts an execution in session "s-" + the ID's first letter.
	xs := []record.Scored{
		scored("a00000000001", "x", "aaaaaaaaaaaa", 70, t0),
		scored("a00000000002", "y", "bbbbbbbbbbbb", 70, t0.Add(time.Hour)),
		scored("b00000000001", "x", "aaaaaaaaaaaa", 70, t0.Add(30*time.Minute)),
		scored("a00000000003", "x", "aaaaaaaaaaaa", 70, t0.Add(10*time.Minute)),
	}
	if err := db.Commit(&Batch{Executions: xs[:2]}); err != nil {
		t.Fatal(err)
	}
	if err := db.Commit(&Batch{Executions: xs[2:]}); err != nil {
		t.Fatal(err)
	}
	ss, err := db.RecentSessions(0)
	if err != nil || len(ss) != 2 {
		t.Fatalf("sessions %+v, %v", ss, err)
	}
	a, b := ss[0], ss[1]
	if a.ID != "s-a" || a.Executions != 3 || !a.First.Equal(t0) || !a.Last.Equal(t0.Add(time.Hour+time.Minute)) ||
		fmt.Sprint(a.Skills) != "[x y]" || a.Project != "/p" {
		t.Errorf("session a %+v", a)
	}
	if b.ID != "s-b" || b.Executions != 1 {
		t.Errorf("session b %+v", b)
	}
	if one, _ := db.RecentSessions(1); len(one) != 1 || one[0].ID != "s-a" {
		t.Errorf("Sessions(1) = %+v", one)
	}
}

// Decisions belong to one skill even when another skill's key extends it,
// come newest first, and honour the limit.
func TestDecisionsPerSkill(t *testing.T) {
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for i, k := range []string{"/p/a", "/p/ab", "/p/a", "/p/a"} {
		if err := db.PutDecision(k, t0.Add(time.Duration(i)*time.Minute), map[string]int{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := db.Decisions("/p/a", 0)
	ab, _ := db.Decisions("/p/ab", 0)
	all, _ := db.Decisions("", 0)
	two, _ := db.Decisions("/p/a", 2)
	if len(a) != 3 || len(ab) != 1 || len(all) != 4 || len(two) != 2 {
		t.Fatalf("decisions a %d ab %d all %d limit %d", len(a), len(ab), len(all), len(two))
	}
	if string(a[0].Payload) != `{"n":3}` || string(two[1].Payload) != `{"n":2}` || string(ab[0].Payload) != `{"n":1}` ||
		!a[0].Time.Equal(t0.Add(3*time.Minute)) || a[0].SkillKey != "/p/a" {
		t.Fatalf("decisions %+v / %+v", a, ab)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Seq >= all[i-1].Seq {
			t.Fatalf("all decisions not newest first: %+v", all)
		}
	}
	if err := db.PutDecision("/p/a", t0, func() {}); err == nil {
		t.Error("a payload that cannot be encoded was accepted")
	}
}

// The version index (skill key and full hash) and the filtered scan
// (hash prefix) give the same executions in the same order, for a named
// version and for "unknown".
func TestIndexAndScanAgree(t *testing.T) {
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	var xs []record.Scored
	for i := 0; i < 60; i++ {
		// Skill x has two versions with a common prefix; skill z never
		// names one, so its executions go to "unknown".
		skill := []string{"x", "y", "z"}[i%3]
		ver := []string{"aaaaaaaaaaaa", "aaaaaaaabbbb"}[i%2]
		if skill == "z" {
			ver = ""
		}
		xs = append(xs, scored(fmt.Sprintf("i%011d", i), skill, ver, float64(i), t0.Add(time.Duration(i)*time.Minute)))
	}
	if err := db.Commit(&Batch{Executions: xs}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ key, index, scan string }{
		{xs[0].Exec.Key(), "aaaaaaaaaaaa", "aaaaaaaaaaa"},
		{xs[2].Exec.Key(), "unknown", "unkn"},
	} {
		key := c.key
		byIndex, err1 := db.Executions(record.Filter{SkillKey: key, Version: c.index})
		byScan, err2 := db.Executions(record.Filter{SkillKey: key, Version: c.scan})
		var walked []string
		err3 := db.WalkExecutionIDs(key, c.index, 5, func(id string, _ uint64) bool { walked = append(walked, id); return true })
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatal(err1, err2, err3)
		}
		if len(byIndex) == 0 || fmt.Sprint(ids(byIndex)) != fmt.Sprint(ids(byScan)) || fmt.Sprint(ids(byIndex)) != fmt.Sprint(walked) {
			t.Errorf("version %s: index %v, scan %v, walk %v", c.index, ids(byIndex), ids(byScan), walked)
		}
		for _, x := range byIndex {
			if x.SkillKey != key || x.Version != c.index {
				t.Errorf("%s is %s@%s", x.Exec.ID, x.SkillKey, x.Version)
			}
		}
	}
}

// Data returned by reads is a copy: it survives the database's close (a
// slice into bbolt's memory map would fault after munmap) and changing it
// changes nothing stored.
func TestReadsReturnCopies(t *testing.T) {
	db, path := openTest(t, Options{})
	key := "/p/a.md"
	if _, err := db.PutVersion(record.Skill{Key: key, Name: "a"}, record.Version{Hash: "aaaaaaaaaaaa", Content: []byte("content"), ContentKnown: true, Source: "edit"}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutSkillState(key, []byte(`{"s":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := db.Commit(&Batch{OpenPut: map[string][]byte{"t": []byte("thread")},
		Quarantine: []record.QuarantineEntry{{File: "/s", Raw: []byte("raw")}}}); err != nil {
		t.Fatal(err)
	}
	open, _ := db.OpenStates()
	state, _ := db.SkillState(key)
	v, _ := db.Version(key, "aaaaaaaaaaaa")
	q, _ := db.Quarantine(0)
	sk, _ := db.Skill(key)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Read after close, then scribble over every returned slice.
	got := string(open["t"]) + string(state) + string(v.Content) + string(q[0].Raw) + string(sk.State)
	if got != `thread{"s":1}contentraw{"s":1}` {
		t.Fatalf("after close: %q", got)
	}
	for _, b := range [][]byte{open["t"], state, v.Content, q[0].Raw, sk.State} {
		for i := range b {
			b[i] = 'X'
		}
	}
	reopened, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	*db = *reopened
	open, _ = db.OpenStates()
	state, _ = db.SkillState(key)
	v, _ = db.Version(key, "aaaaaaaaaaaa")
	if string(open["t"]) != "thread" || string(state) != `{"s":1}` || string(v.Content) != "content" {
		t.Fatalf("stored data changed through a returned slice: %q %q %q", open["t"], state, v.Content)
	}
}

// Not found is ErrNotFound, for every lookup that has one.
func TestNotFound(t *testing.T) {
	db, _ := openTest(t, Options{})
	if _, err := db.Skill("/nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Skill: %v", err)
	}
	if _, err := db.Version("/nope", "aaaaaaaaaaaa"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Version: %v", err)
	}
	if _, err := db.Execution("000000000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Execution: %v", err)
	}
	if st, err := db.AggregateState("/nope", "aaaaaaaaaaaa"); err != nil || st != nil {
		t.Errorf("AggregateState of nothing: %v %v", st, err)
	}
	if b, err := db.SkillState("/nope"); err != nil || b != nil {
		t.Errorf("SkillState of nothing: %q %v", b, err)
	}
}
