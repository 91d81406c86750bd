package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sepad/sepad/internal/tmpfs"
)

// waitStalled waits until the running daemon reports its ingestion
// stalled, failing if it exits first.
func waitStalled(t *testing.T, home string, d *daemon) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var in map[string]any
	for time.Now().Before(deadline) {
		select {
		case err := <-d.done:
			t.Fatalf("the daemon exited (%v) on a full disk:\n%s", err, d.stderr)
		default:
		}
		out, _, code := sepad(t, []string{"SEPA_CONFIG="}, nil, "status", "--json", "--home", home)
		if code == 0 {
			var st map[string]any
			if json.Unmarshal([]byte(out), &st) == nil {
				if in = ingestOf(st); in != nil && in["stalled"] == true {
					return
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("status never said stalled: %v\n%s", in, d.stderr)
}

// TestDiskFullAtStart starts the daemon on a full file system (issue 33
// item 14): with no database yet, and with one from an earlier run.
// Before, `sepad run` exited at once (open store …/sepa.db: no space left
// on device). Now, with no database, it waits with backoff and says
// `ingest STALLED` in status, doctor and /metrics; with one, it opens it
// without writing and serves what it holds (its commits wait as while
// running); once space is back it stores every line the hook wrote
// meanwhile, once.
func TestDiskFullAtStart(t *testing.T) {
	skipLong(t)
	for _, existing := range []bool{false, true} {
		name := "fresh"
		if existing {
			name = "existing"
		}
		t.Run(name, func(t *testing.T) {
			home := tmpfs.Mount(t, "2m")
			args := allNames(t, home) // written before the disk is full
			rt := t.TempDir()         // $XDG_RUNTIME_DIR: the hook's fallback, on another file system
			t.Setenv("XDG_RUNTIME_DIR", rt)
			const before, during = 50, 80
			if existing {
				d := startDaemon(t, home, args...)
				var b bytes.Buffer
				for i := 0; i < before; i++ {
					b.Write(uniqueLine("B", i))
				}
				if err := appendLocked(home, b.Bytes()); err != nil {
					t.Fatal(err)
				}
				if !committedAll(t, home, "B", before, 60*time.Second) {
					t.Fatalf("first lines never committed\n%s", d.stderr)
				}
				d.stop(t)
			}
			filler := tmpfs.Fill(t, home)
			d := startDaemon(t, home, args...)
			env := []string{"SEPA_HOME=" + home, "XDG_RUNTIME_DIR=" + rt}
			for i := 0; i < during; i++ {
				if out, errOut, code := sepad(t, env, uniqueLine("F", i), "hook"); code != 0 || out != "" {
					t.Fatalf("hook %d: exit %d, stdout %q, stderr %q", i, code, out, errOut)
				}
			}
			if existing {
				// The database opens without a write and serves what it
				// holds; its commits stall only when they need new pages,
				// which depends on the room left inside the file.
				if lost, doubled := lostDoubled(t, home, "B", before); lost+doubled != 0 {
					t.Errorf("on a full disk: %d of the earlier lines missing, %d doubled", lost, doubled)
				}
				if d.cmd.ProcessState != nil {
					t.Fatalf("the daemon exited on a full disk:\n%s", d.stderr)
				}
			} else {
				waitStalled(t, home, d)
				out, _, _ := sepad(t, nil, nil, "status", "--home", home)
				contains(t, out, "STALLED")
				out, _, code := sepad(t, nil, nil, "doctor", "--home", home)
				contains(t, out, "the daemon cannot commit")
				if code == 0 {
					t.Error("doctor exited 0 with a stalled daemon")
				}
				contains(t, scrape(t, home), "sepad_ingest_stalled 1")
			}
			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
			if !committedAll(t, home, "F", during, 60*time.Second) {
				lost, doubled := lostDoubled(t, home, "F", during)
				t.Fatalf("hook events not all committed after space came back: %d lost, %d doubled; ingest %v; the lines not stored are in %v\n%s",
					lost, doubled, ingestOf(statusJSON(t, home)), whereMissing(t, home, rt, "F", during), d.stderr)
			}
			if lost, doubled := lostDoubled(t, home, "F", during); lost+doubled != 0 {
				t.Fatalf("%d lost, %d doubled\n%s", lost, doubled, d.stderr)
			}
			if in := ingestOf(statusJSON(t, home)); in["stalled"] != false {
				t.Fatalf("after recovery: %v", in)
			}
			d.stop(t)
		})
	}
}

// whereMissing says, for each of the n lines of prefix the store does not
// hold, which files under home and rt hold it and at which offset: the
// spool, a fallback, or none (lost by the hook).
func whereMissing(t *testing.T, home, rt, prefix string, n int) map[string][]string {
	t.Helper()
	evs, _ := statusJSON(t, home)["events"].(map[string]any)
	out := map[string][]string{}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%s%07d", prefix, i)
		if _, ok := evs[id]; ok {
			continue
		}
		out[id] = []string{}
		for _, dir := range []string{home, rt} {
			filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
				if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(id)) {
					out[id] = append(out[id], fmt.Sprintf("%s@%d", p, bytes.Index(b, []byte(id))))
				}
				return nil
			})
		}
	}
	return out
}
