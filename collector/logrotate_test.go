package collector

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Rotation by logrotate with its default names (events.jsonl.1 .. .3),
// done here with the same file operations logrotate makes, so each step
// can be placed between two polls of the collector; e2e/logrotate_test.go
// runs the real logrotate against the daemon.

// shift renames path.(n-1) to path.n, ..., path.1 to path.2, deleting
// path.n first (logrotate's "rotate n").
func shift(t *testing.T, path string, n int) {
	t.Helper()
	os.Remove(fmt.Sprintf("%s.%d", path, n))
	for i := n - 1; i >= 1; i-- {
		if err := os.Rename(fmt.Sprintf("%s.%d", path, i), fmt.Sprintf("%s.%d", path, i+1)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// copyFile is logrotate's copy of copytruncate: a new file with the same
// bytes.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// uniqueLines are lines whose event name is unique, so the store's event
// counts say exactly which lines were lost (0) or doubled (2).
func uniqueLines(prefix string, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = fmt.Appendf(nil, `{"session_id":"s-%s-%d","hook_event_name":"%s%06d","cwd":"/p","pad":"%040d"}`, prefix, i%7, prefix, i, i)
	}
	return out
}

// lostDoubled compares the store's event counts with the lines written.
func (r *rig) lostDoubled(written [][]byte) (lost, doubled int) {
	r.t.Helper()
	counts := mustStats(r.t, r.db).Events
	for _, l := range written {
		rest := l[bytes.Index(l, []byte(`"hook_event_name":"`))+len(`"hook_event_name":"`):]
		switch n := counts[string(rest[:bytes.IndexByte(rest, '"')])]; {
		case n == 0:
			lost++
		case n > 1:
			doubled += int(n - 1)
		}
	}
	return lost, doubled
}

func (r *rig) expectExact(written [][]byte) {
	r.t.Helper()
	if lost, doubled := r.lostDoubled(written); lost != 0 || doubled != 0 {
		r.t.Fatalf("%d lines written: %d lost, %d doubled", len(written), lost, doubled)
	}
}

// TestLogrotateCopytruncate: logrotate copies the spool to events.jsonl.1
// and truncates it, with the copy seen before the truncation, in the same
// poll, and across restarts. Lines written before the copy are read once,
// from the spool or from the copy; none twice.
func TestLogrotateCopytruncate(t *testing.T) {
	t.Parallel() // its own state directory and clock; fsyncs overlap with the other tests
	for _, when := range []string{"copy-seen-first", "same-poll", "restart-between", "restart-after"} {
		t.Run(when, func(t *testing.T) {
			r := newRig(t, nil)
			lines := uniqueLines("C", 400)
			var written [][]byte
			put := func(ls [][]byte) { r.append(r.spool(), ls); written = append(written, ls...) }
			copies := int64(0)
			restart := func() { copies += r.c.Stats().Copies; r.restart() }
			for round := 0; round < 4; round++ {
				base := round * 100
				put(lines[base : base+40])
				r.step()
				// Written after the daemon's last read, before the copy:
				// only the copy still has them after the truncation.
				put(lines[base+40 : base+60])
				shift(t, r.spool(), 3)
				copyFile(t, r.spool(), r.spool()+".1")
				switch when {
				case "copy-seen-first":
					r.step() // sees the copy; the spool still has everything
				case "restart-between":
					restart()
				}
				if err := os.Truncate(r.spool(), 0); err != nil {
					t.Fatal(err)
				}
				if when == "restart-after" {
					restart()
				}
				put(lines[base+60 : base+100])
				r.drain()
				restart() // every round ends with a restart too: drained copies are not read again
				r.drain()
			}
			r.expectExact(written)
			if copies+r.c.Stats().Copies == 0 && when != "restart-after" {
				t.Fatal("no copy recognised")
			}
		})
	}
}

// TestLogrotateCreate: logrotate renames .2 to .3, .1 to .2, the spool to
// .1 and the next hook creates a new spool, four times, with restarts
// between and during rotations. Files already read are never read again
// under their new names.
func TestLogrotateCreate(t *testing.T) {
	for _, restart := range []bool{false, true} {
		t.Run(fmt.Sprintf("restart=%v", restart), func(t *testing.T) {
			r := newRig(t, nil)
			lines := uniqueLines("R", 500)
			var written [][]byte
			put := func(ls [][]byte) { r.append(r.spool(), ls); written = append(written, ls...) }
			for round := 0; round < 5; round++ {
				base := round * 100
				put(lines[base : base+50])
				r.step()
				put(lines[base+50 : base+70]) // after the last read, before the rename
				shift(t, r.spool(), 3)
				if err := os.Rename(r.spool(), r.spool()+".1"); err != nil {
					t.Fatal(err)
				}
				if restart {
					r.restart()
				}
				put(lines[base+70 : base+100])
				r.drain()
				if restart {
					r.restart()
					r.drain()
				}
			}
			r.expectExact(written)
			names, _ := filepath.Glob(r.spool() + ".*")
			if len(names) != 3 {
				t.Fatalf("rotated files %v, want .1 .. .3 kept (they are logrotate's)", names)
			}
			offs, _ := r.db.Offsets()
			if len(offs) != 4 {
				t.Fatalf("%d checkpoints, want 4 (the spool and .1 .. .3): %+v", len(offs), offs)
			}
		})
	}
}

// TestCompressedRotationIgnored: .gz names are never read, and a rotated
// file deleted after compression (delaycompress off) is drained from the
// open descriptor first.
func TestCompressedRotationIgnored(t *testing.T) {
	r := newRig(t, nil)
	lines := uniqueLines("Z", 90)
	r.append(r.spool(), lines[:30])
	r.drain()
	r.append(r.spool(), lines[30:60])
	if err := os.Rename(r.spool(), r.spool()+".1"); err != nil {
		t.Fatal(err)
	}
	// "compress": a .gz appears, the uncompressed file goes away before the
	// collector polls again.
	if err := os.WriteFile(r.spool()+".1.gz", []byte("\x1f\x8bnot read"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(r.spool() + ".1"); err != nil {
		t.Fatal(err)
	}
	r.append(r.spool(), lines[60:])
	r.drain()
	r.restart()
	r.drain()
	r.expectExact(lines)
	if q, _ := r.db.Quarantine(10); len(q) != 0 {
		t.Fatalf("quarantined %+v: the .gz must not be read", q)
	}
}

// logrotateCopytruncate makes the file operations of logrotate 3.21 with
// "rotate n, copytruncate, compress, delaycompress", in its order (strace):
// the previous .1 is compressed to .1.gz and deleted, the .gz names are
// shifted, then the copy .1 is created empty (O_EXCL), filled in 8 KiB
// chunks, and the spool is truncated. empty runs while the copy exists
// and is still empty, chunk after each chunk written: logrotate may be
// descheduled at either point for any time.
func logrotateCopytruncate(t *testing.T, spool string, n int, empty, chunk func()) {
	t.Helper()
	if b, err := os.ReadFile(spool + ".1"); err == nil {
		f, err := os.OpenFile(spool+".1.gz", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		z := gzip.NewWriter(f)
		if _, err := z.Write(b); err != nil {
			t.Fatal(err)
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(spool + ".1"); err != nil {
			t.Fatal(err)
		}
	}
	for i := n; i >= 1; i-- {
		if err := os.Rename(fmt.Sprintf("%s.%d.gz", spool, i), fmt.Sprintf("%s.%d.gz", spool, i+1)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	os.Remove(fmt.Sprintf("%s.%d.gz", spool, n+1))
	src, err := os.OpenFile(spool, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(spool+".1", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	empty()
	buf := make([]byte, 8192)
	for {
		m, err := src.Read(buf)
		if m > 0 {
			if _, err := dst.Write(buf[:m]); err != nil {
				t.Fatal(err)
			}
			chunk()
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	if err := src.Truncate(0); err != nil {
		t.Fatal(err)
	}
}

// TestLogrotateCopyInTheMaking: logrotate (copytruncate, compress,
// delaycompress) creates the copy empty and fills it later; a loaded
// machine can leave it empty, or holding its first chunk only, for many
// polls of the collector, or across a restart. The copy is never read
// from its start: lines the spool gave are read once (in e2e
// TestLogrotate, 800 lines were doubled when the empty copy was taken for
// a new file after three polls).
func TestLogrotateCopyInTheMaking(t *testing.T) {
	t.Parallel() // its own state directory and clock; fsyncs overlap with the other tests
	for _, when := range []string{"polls-while-empty", "restart-while-empty", "polls-per-chunk", "restart-per-chunk"} {
		t.Run(when, func(t *testing.T) {
			r := newRig(t, nil)
			lines := uniqueLines("M", 1200)
			var written [][]byte
			put := func(ls [][]byte) { r.append(r.spool(), ls); written = append(written, ls...) }
			wait := func() {
				if strings.HasPrefix(when, "restart") {
					r.restart()
				}
				for i := 0; i < 6; i++ {
					r.step()
				}
			}
			nop := func() {}
			for round := 0; round < 4; round++ {
				base := round * 300
				put(lines[base : base+150])
				r.drain()
				put(lines[base+150 : base+200]) // unread when the copy is made
				empty, chunk := wait, nop
				if strings.HasSuffix(when, "per-chunk") {
					empty, chunk = nop, wait
				}
				logrotateCopytruncate(t, r.spool(), 3, empty, chunk)
				put(lines[base+200 : base+300])
				r.drain()
				r.restart()
				r.drain()
			}
			r.expectExact(written)
			if gz, _ := filepath.Glob(r.spool() + ".*.gz"); len(gz) != 2 {
				t.Fatalf("compressed files %v, want .2.gz and .3.gz (rotate 3)", gz)
			}
		})
	}
}

// TestLogrotateCreateBackup: with create, a hook that appends between
// logrotate's rename of the spool and its creation of the new one creates
// the spool itself; logrotate 3.21 then finds it there ("destination
// already exists"), renames it to events.jsonl-YYYYMMDDHH.backup (the same
// name all hour: a later one replaces it) and creates an empty spool. The
// lines in that file are in no other: they are read, once (in e2e
// TestLogrotate, 10 lines were lost in 2 of 25 runs under load).
func TestLogrotateCreateBackup(t *testing.T) {
	for _, seen := range []bool{false, true} {
		t.Run(fmt.Sprintf("hook-spool-seen=%v", seen), func(t *testing.T) {
			r := newRig(t, nil)
			lines := uniqueLines("B", 800)
			var written [][]byte
			put := func(ls [][]byte) { r.append(r.spool(), ls); written = append(written, ls...) }
			backup := r.spool() + "-2026112009.backup"
			for round := 0; round < 4; round++ {
				base := round * 200
				put(lines[base : base+100])
				r.step()
				put(lines[base+100 : base+120]) // after the last read, before the rename
				shift(t, r.spool(), 3)
				if err := os.Rename(r.spool(), r.spool()+".1"); err != nil {
					t.Fatal(err)
				}
				put(lines[base+120 : base+150]) // a hook creates the spool
				if seen {
					r.step()
				}
				// logrotate's create: the spool exists, so it is moved aside
				// (over the previous backup of the hour) and created again.
				if err := os.Rename(r.spool(), backup); err != nil {
					t.Fatal(err)
				}
				f, err := os.OpenFile(r.spool(), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
				if err != nil {
					t.Fatal(err)
				}
				f.Close()
				put(lines[base+150 : base+200])
				r.drain()
				if round%2 == 1 {
					r.restart()
					r.drain()
				}
			}
			r.expectExact(written)
		})
	}
}

// TestCopyOfUnreadSpool: logrotate copies the spool before the collector
// read its first lines (a spool the first hooks just created, a busy
// collector); the copy is seen while the spool still holds the same
// lines, in the same poll as the spool or a later one, and with a
// restart. The lines are read once, from the spool or the copy (issue 33
// item 3: both were read from their starts).
func TestCopyOfUnreadSpool(t *testing.T) {
	for _, when := range []string{"same-poll", "next-poll", "restart"} {
		t.Run(when, func(t *testing.T) {
			r := newRig(t, nil)
			lines := uniqueLines("U", 300)
			var written [][]byte
			put := func(ls [][]byte) { r.append(r.spool(), ls); written = append(written, ls...) }
			if when == "next-poll" {
				put(lines[:1]) // the spool exists, and is followed
				r.drain()
				if err := os.Truncate(r.spool(), 0); err != nil { // emptied: its line was read
					t.Fatal(err)
				}
				r.drain()
			}
			put(lines[1:100])
			copyFile(t, r.spool(), r.spool()+".1")
			if when == "restart" {
				r.restart()
			}
			r.step()
			r.step()
			if err := os.Truncate(r.spool(), 0); err != nil {
				t.Fatal(err)
			}
			put(lines[100:300])
			r.drain()
			r.restart()
			r.drain()
			r.expectExact(written)
		})
	}
}
