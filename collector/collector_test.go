package collector

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/internal/sessiongen"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/scoring"
	"github.com/sepad/sepad/spool"
	"github.com/sepad/sepad/store"
)

// clock is a stepped clock: tests advance it instead of sleeping.
type clock struct{ t time.Time }

func (c *clock) Now() time.Time      { return c.t }
func (c *clock) Add(d time.Duration) { c.t = c.t.Add(d) }

// newClock starts where sessiongen's events start, as a live daemon's
// clock would be.
func newClock() *clock { return &clock{time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)} }

// scorer scores with the built-in defaults (a medium skill: 2 minutes,
// 15 tools), as a daemon without a configuration file does.
var scorer = func() *scoring.Scorer {
	cfg, err := config.Load("")
	if err != nil {
		panic(err)
	}
	return scoring.New(cfg)
}()

// rig is a collector over a real home directory and a real bbolt file,
// driven step by step.
type rig struct {
	t    *testing.T
	home string
	db   *store.DB
	c    *Collector
	clk  *clock
	opts Options
}

func newRig(t *testing.T, mod func(*Options)) *rig {
	t.Helper()
	return newRigAt(t, t.TempDir(), mod)
}

// newRigAt is newRig with the state directory given.
func newRigAt(t *testing.T, home string, mod func(*Options)) *rig {
	t.Helper()
	r := &rig{t: t, home: home, clk: newClock()}
	r.opts = Options{Home: home, BatchLines: 100, BatchInterval: 50 * time.Millisecond, IdleTimeout: 30 * time.Minute,
		RotateBytes: 1 << 30, Scorer: scorer, Now: r.clk.Now}
	if mod != nil {
		mod(&r.opts)
	}
	r.open()
	t.Cleanup(func() {
		if r.db != nil {
			r.check()
			r.db.Close()
		}
		for _, s := range r.c.sources {
			s.close()
		}
	})
	return r
}

func (r *rig) open() {
	r.t.Helper()
	// Every name its own count: the logrotate tests give each line its
	// own event name and count them in the store.
	db, err := store.Open(filepath.Join(r.home, "sepa.db"), store.Options{EventNames: 1 << 20})
	if err != nil {
		r.t.Fatal(err)
	}
	r.db = db
	r.c = New(db, r.opts)
	if err := r.c.restore(); err != nil {
		r.t.Fatal(err)
	}
}

// restart simulates a crash: the collector's memory is dropped without a
// final commit, and a new one starts from the store.
func (r *rig) restart() {
	r.t.Helper()
	for _, s := range r.c.sources {
		s.close()
	}
	r.db.Close()
	r.open()
}

// step advances the clock past the batch interval and runs one step.
func (r *rig) step() {
	r.t.Helper()
	r.clk.Add(time.Second)
	if err := r.c.step(false); err != nil {
		r.t.Fatal(err)
	}
}

// drain steps until nothing changes.
func (r *rig) drain() {
	for i := 0; i < 8; i++ {
		r.step()
	}
}

func (r *rig) check() {
	r.t.Helper()
	if err := store.CheckInvariants(r.db); err != nil {
		r.t.Errorf("store invariants: %v", err)
	}
	offs, err := r.db.Offsets()
	if err != nil {
		r.t.Fatal(err)
	}
	for _, o := range offs {
		if fi, err := os.Stat(o.File); err == nil && o.Offset > fi.Size() {
			r.t.Errorf("checkpoint %s offset %d > size %d", o.File, o.Offset, fi.Size())
		}
	}
}

func (r *rig) spool() string { return spool.Path(r.home) }

func (r *rig) append(path string, lines [][]byte) {
	r.t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	for _, l := range lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		r.t.Fatal(err)
	}
}

// storedIDs lists the IDs of the executions in the store, sorted.
func (r *rig) storedIDs() []string {
	r.t.Helper()
	xs, err := r.db.Executions(record.Filter{})
	if err != nil {
		r.t.Fatal(err)
	}
	ids := make([]string, 0, len(xs))
	for _, x := range xs {
		ids = append(ids, x.Exec.ID)
	}
	sort.Strings(ids)
	return ids
}

// expectedIDs groups lines offline, as `sepad score` does, with the stream
// closed by flushing only what SessionEnd closed.
func expectedIDs(lines [][]byte) []string {
	g := execution.NewGrouper(execution.Options{})
	var ids []string
	for _, l := range lines {
		ev, err := event.ParseLine(l)
		if err != nil {
			continue
		}
		for _, x := range g.Add(&ev) {
			ids = append(ids, x.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

func gen(seed uint64, sessions int) [][]byte {
	return sessiongen.Generate(sessiongen.Options{Seed: seed, Sessions: sessions, Interleave: true,
		Skills: []sessiongen.Skill{{Name: "deploy", Path: "/p/.claude/skills/deploy/SKILL.md", Version: "aaaaaaaaaaaa", Quality: 0.9},
			{Name: "review", Path: "/p/.claude/agents/review.md", Version: "bbbbbbbbbbbb", Quality: 0.6, Agent: true}}})
}

func equalIDs(t *testing.T, got, want []string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatal("test generated no executions")
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("stored %d executions, want %d\n got %v\nwant %v", len(got), len(want), head(got), head(want))
	}
}

func head(s []string) []string {
	if len(s) > 6 {
		return s[:6]
	}
	return s
}

func TestSpoolDoesNotExistYet(t *testing.T) {
	r := newRig(t, nil)
	r.drain()
	if ids := r.storedIDs(); len(ids) != 0 {
		t.Fatalf("executions from nothing: %v", ids)
	}
	lines := gen(1, 5)
	r.append(r.spool(), lines)
	r.drain()
	equalIDs(t, r.storedIDs(), expectedIDs(lines))
}

func TestPartialLine(t *testing.T) {
	r := newRig(t, nil)
	lines := gen(2, 3)
	last := lines[len(lines)-1] // a SessionEnd: it closes executions
	r.append(r.spool(), lines[:len(lines)-1])
	f, _ := os.OpenFile(r.spool(), os.O_WRONLY|os.O_APPEND, 0o600)
	f.Write(last[:len(last)/2])
	r.drain()
	offs, _ := r.db.Offsets()
	fi, _ := os.Stat(r.spool())
	if len(offs) != 1 || offs[0].Offset != fi.Size()-int64(len(last)/2) {
		t.Fatalf("offset %+v: the partial line must not be consumed (size %d)", offs, fi.Size())
	}
	if q, _ := r.db.Quarantine(10); len(q) != 0 {
		t.Fatalf("partial line quarantined: %+v", q)
	}
	f.Write(append(last[len(last)/2:], '\n'))
	f.Close()
	r.drain()
	equalIDs(t, r.storedIDs(), expectedIDs(lines))
}

func TestRestart(t *testing.T) {
	t.Parallel() // its own state directory and clock; fsyncs overlap with the other tests
	r := newRig(t, func(o *Options) { o.BatchLines = 7 })
	lines := gen(3, 20)
	n := len(lines)
	r.append(r.spool(), lines[:n/3])
	r.drain()
	// Crash mid-batch: read some lines without committing them.
	r.append(r.spool(), lines[n/3:2*n/3])
	if _, err := r.c.readAll(r.clk.Now()); err != nil {
		t.Fatal(err)
	}
	r.restart()
	r.append(r.spool(), lines[2*n/3:])
	r.drain()
	equalIDs(t, r.storedIDs(), expectedIDs(lines))
}

func TestRotationByDaemon(t *testing.T) {
	t.Parallel() // its own state directory and clock; fsyncs overlap with the other tests
	r := newRig(t, func(o *Options) { o.RotateBytes = 8 << 10; o.BatchLines = 50 })
	lines := gen(4, 30)
	for i := 0; i < len(lines); i += 40 {
		end := min(i+40, len(lines))
		r.append(r.spool(), lines[i:end])
		r.step()
		r.step()
	}
	r.drain()
	equalIDs(t, r.storedIDs(), expectedIDs(lines))
	if r.c.Stats().Rotations == 0 {
		t.Fatal("the spool never rotated")
	}
	segs, _ := filepath.Glob(r.spool() + ".*")
	if len(segs) != 0 {
		t.Fatalf("drained segments left behind: %v", segs)
	}
}

func TestRotationByDaemonCrashBeforeDelete(t *testing.T) {
	r := newRig(t, nil)
	lines := gen(5, 10)
	r.append(r.spool(), lines[:len(lines)/2])
	r.drain()
	// Rotate by hand exactly as the daemon does, then crash before the
	// segment is drained and deleted.
	seg := r.spool() + ".00000000000000000001"
	if err := os.Rename(r.spool(), seg); err != nil {
		t.Fatal(err)
	}
	r.append(seg, lines[len(lines)/2:len(lines)*3/4]) // written before the rename
	r.restart()
	r.append(r.spool(), lines[len(lines)*3/4:])
	r.drain()
	equalIDs(t, r.storedIDs(), expectedIDs(lines))
	if _, err := os.Stat(seg); !os.IsNotExist(err) {
		t.Fatal("segment not deleted after draining")
	}
}

func TestRotationByOther(t *testing.T) {
	t.Parallel() // its own state directory and clock; fsyncs overlap with the other tests
	r := newRig(t, nil)
	lines := gen(6, 20)
	n := len(lines)
	r.append(r.spool(), lines[:n/2])
	r.step()
	// Lines written just before the rename, then logrotate-style create.
	r.append(r.spool(), lines[n/2:n*3/4])
	if err := os.Rename(r.spool(), r.spool()+".1"); err != nil {
		t.Fatal(err)
	}
	r.append(r.spool(), lines[n*3/4:])
	r.drain()
	equalIDs(t, r.storedIDs(), expectedIDs(lines))
}

func TestTruncateThenRegrow(t *testing.T) {
	t.Parallel() // its own state directory and clock; fsyncs overlap with the other tests
	r := newRig(t, nil)
	a := gen(7, 5)
	b := gen(8, 12) // longer than a: regrows past the old offset
	r.append(r.spool(), a)
	r.drain()
	if err := os.Truncate(r.spool(), 0); err != nil {
		t.Fatal(err)
	}
	r.append(r.spool(), b)
	r.drain()
	equalIDs(t, r.storedIDs(), expectedIDs(append(append([][]byte{}, a...), b...)))
	if r.c.Stats().Truncations == 0 {
		t.Fatal("truncation not detected")
	}
}

func TestUnreadableSpool(t *testing.T) {
	r := newRig(t, nil)
	// A directory where the spool should be: opening works, reading fails.
	if err := os.Mkdir(r.spool(), 0o700); err != nil {
		t.Fatal(err)
	}
	lines := gen(9, 3)
	r.append(spool.FallbackPath(r.home), lines)
	r.drain() // must not stop the collector
	equalIDs(t, r.storedIDs(), expectedIDs(lines))
}

func TestQuarantineAndFullQuarantine(t *testing.T) {
	home := t.TempDir()
	db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{QuarantineMax: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	clk := newClock()
	c := New(db, Options{Home: home, Scorer: scorer, Now: clk.Now})
	if err := c.restore(); err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	good := gen(10, 2)
	for i, l := range good {
		lines = append(lines, l)
		if i%3 == 0 {
			lines = append(lines, []byte(fmt.Sprintf("garbage %d {", i)))
		}
	}
	bad := len(lines) - len(good)
	f, _ := os.Create(spool.Path(home))
	f.Write(append(bytes.Join(lines, []byte("\n")), '\n'))
	f.Close()
	for i := 0; i < 5; i++ {
		clk.Add(time.Second)
		if err := c.step(false); err != nil {
			t.Fatal(err)
		}
	}
	st, err := db.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Quarantined != int64(bad) {
		t.Fatalf("quarantined %d lines, want %d counted", st.Quarantined, bad)
	}
	q, _ := db.Quarantine(100)
	if len(q) != 5 {
		t.Fatalf("kept %d quarantine entries, want the bound 5", len(q))
	}
	if q[0].Reason == "" || q[0].File != spool.Path(home) {
		t.Fatalf("entry %+v lacks file or reason", q[0])
	}
	if err := store.CheckInvariants(db); err != nil {
		t.Fatal(err)
	}
	if ids, want := len(mustIDs(t, db)), len(expectedIDs(good)); ids != want {
		t.Fatalf("stored %d executions, want %d", ids, want)
	}
}

func mustIDs(t *testing.T, db *store.DB) []record.Scored {
	xs, err := db.Executions(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return xs
}

func TestIdleExecution(t *testing.T) {
	r := newRig(t, nil)
	lines := gen(11, 1)
	// Drop the closing events: the session stays open.
	var open [][]byte
	for _, l := range lines {
		if bytes.Contains(l, []byte(`"Stop"`)) || bytes.Contains(l, []byte(`"SessionEnd"`)) {
			continue
		}
		open = append(open, l)
	}
	r.append(r.spool(), open)
	r.drain()
	before := len(r.storedIDs())
	if r.c.g.Open() == 0 {
		t.Fatal("no open execution")
	}
	// Restart: the open execution survives in the store.
	r.restart()
	if r.c.g.Open() == 0 {
		t.Fatal("open execution lost on restart")
	}
	r.clk.Add(45 * time.Minute)
	r.step()
	xs := mustIDs(t, r.db)
	if len(xs) <= before {
		t.Fatalf("idle execution not closed: %d -> %d", before, len(xs))
	}
	incomplete := 0
	for _, x := range xs {
		if !x.Exec.Complete {
			incomplete++
		}
	}
	if incomplete == 0 {
		t.Fatal("idle-closed execution not marked incomplete")
	}
}

func TestConcurrentHooks(t *testing.T) {
	t.Parallel() // its own state directory and clock; fsyncs overlap with the other tests
	r := newRig(t, func(o *Options) { o.RotateBytes = 16 << 10 })
	lines := gen(12, 40)
	// 8 writers append through the hook's own Append (lock + O_APPEND)
	// while the collector steps and rotates.
	var wg sync.WaitGroup
	chunks := 8
	for w := 0; w < chunks; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(lines); i += chunks {
				if _, err := spool.Append(r.home, lines[i], time.Second); err != nil {
					t.Error(err)
				}
			}
		}(w)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for stop := false; !stop; {
		select {
		case <-done:
			stop = true
		default:
		}
		r.step()
	}
	r.drain()
	// Interleaving changes grouping, so compare counts of lines, not IDs.
	var events int64
	for _, n := range mustStats(t, r.db).Events {
		events += n
	}
	if events != int64(len(lines)) {
		t.Fatalf("ingested %d events, want %d", events, len(lines))
	}
}

func mustStats(t *testing.T, db *store.DB) store.Stats {
	st, err := db.Stats()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestCloseCommitsPendingLines(t *testing.T) {
	r := newRig(t, func(o *Options) { o.BatchLines = 1 << 20; o.BatchInterval = time.Hour })
	lines := gen(13, 4)
	r.append(r.spool(), lines)
	r.step()
	r.step() // the spool is found and read, but the batch is not due yet
	if ids := r.storedIDs(); len(ids) != 0 {
		t.Fatalf("committed before the batch was due: %d", len(ids))
	}
	if err := r.c.step(true); err != nil { // what Close runs
		t.Fatal(err)
	}
	r.restart()
	equalIDs(t, r.storedIDs(), expectedIDs(lines))
}

// TestShortWriteTakenBack: on a full disk the hook's write to the spool is
// short (the last page takes part of the line), and the hook truncates the
// partial line away (spool.appendLocked). A collector that read the
// partial line in between must not take the shrink for a truncation of
// the spool: that read the whole spool again (e2e/TestDiskFull: the 300
// lines written before the disk filled, and the 6 during, doubled). The
// take-back may also come just after the collector looked for one and
// before it looks for a truncation (readAll runs retracted, then
// truncated: e2e/TestDiskFullAtStart in CI at 73c5f26, 50 lines doubled).
func TestShortWriteTakenBack(t *testing.T) {
	for _, betweenChecks := range []bool{false, true} {
		t.Run(fmt.Sprintf("between_checks=%v", betweenChecks), func(t *testing.T) {
			r := newRig(t, nil)
			a, b := gen(31, 6), gen(32, 6)
			r.append(r.spool(), a)
			r.drain()
			fi, err := os.Stat(r.spool())
			if err != nil {
				t.Fatal(err)
			}
			// The hook's short write, read by the collector, then taken back.
			f, err := os.OpenFile(r.spool(), os.O_WRONLY|os.O_APPEND, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(b[0][:len(b[0])/2]); err != nil {
				t.Fatal(err)
			}
			r.step()
			s := r.c.sources[0]
			if len(s.buf) == 0 {
				t.Fatal("the partial line was not read")
			}
			if betweenChecks {
				if gone, err := s.retracted(); err != nil || gone {
					t.Fatalf("retracted before the take-back: %v, %v", gone, err)
				}
			}
			if err := f.Truncate(fi.Size()); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if betweenChecks && s.truncated() {
				t.Fatal("a partial line taken back was taken for a truncation of the spool")
			}
			r.drain()
			// Space comes back: the line is written whole.
			r.append(r.spool(), b)
			r.drain()
			all := append(append([][]byte{}, a...), b...)
			if st := r.c.Stats(); st.Truncations != 0 || st.Lines != int64(len(all)) {
				t.Fatalf("%d truncations, %d lines committed; want 0 and %d (each line once)", st.Truncations, st.Lines, len(all))
			}
			if q, _ := r.db.Quarantine(10); len(q) != 0 {
				t.Fatalf("%d lines quarantined, first at %d: %s", len(q), q[0].Offset, q[0].Reason)
			}
			equalIDs(t, r.storedIDs(), expectedIDs(all))
		})
	}
}

// TestShortWriteReplaced: the partial line the collector holds is taken
// back and another, longer line written in its place (the next hook, once
// there is room) before the collector reads again, between two polls or
// between two reads of one poll: the line is read whole, from the file,
// not as the stale head followed by the new line's tail.
func TestShortWriteReplaced(t *testing.T) {
	t.Parallel() // its own state directory and clock; fsyncs overlap with the other tests
	for _, between := range []string{"polls", "reads"} {
		t.Run(between, func(t *testing.T) {
			r := newRig(t, nil)
			a, b := gen(33, 6), gen(34, 6)
			r.append(r.spool(), a)
			r.drain()
			fi, err := os.Stat(r.spool())
			if err != nil {
				t.Fatal(err)
			}
			// A short write of a line other than b's first, shorter than it.
			short := bytes.Repeat([]byte("x"), len(b[0])/2)
			f, err := os.OpenFile(r.spool(), os.O_WRONLY|os.O_APPEND, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(short); err != nil {
				t.Fatal(err)
			}
			r.step()
			s := r.c.sources[0]
			if !bytes.Equal(s.buf, short) {
				t.Fatalf("buffered %q, want the partial line", s.buf)
			}
			if err := f.Truncate(fi.Size()); err != nil {
				t.Fatal(err)
			}
			f.Close()
			r.append(r.spool(), b)
			if between == "reads" {
				// The read that follows the one that gave the partial
				// line, without the check made before each poll.
				got, err := s.read(1, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 1 || !bytes.Equal(got[0].data, b[0]) || got[0].off != fi.Size() {
					t.Fatalf("read %d lines, first %.80q at %d; want b's first line at %d", len(got), got[0].data, got[0].off, fi.Size())
				}
				if err := s.seekTo(fi.Size()); err != nil { // the rig reads it again
					t.Fatal(err)
				}
				s.lines--
			}
			r.drain()
			all := append(append([][]byte{}, a...), b...)
			if st := r.c.Stats(); st.Truncations != 0 || st.Lines != int64(len(all)) {
				t.Fatalf("%d truncations, %d lines committed; want 0 and %d", st.Truncations, st.Lines, len(all))
			}
			if q, _ := r.db.Quarantine(10); len(q) != 0 {
				t.Fatalf("%d lines quarantined, first at %d: %s", len(q), q[0].Offset, q[0].Reason)
			}
			equalIDs(t, r.storedIDs(), expectedIDs(all))
		})
	}
}
