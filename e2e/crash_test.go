package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/sepad/sepad/internal/sessiongen"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/spool"
	"github.com/sepad/sepad/store"
)

// crashLines generates the crash test's stream: a few hundred interleaved
// sessions, at least minLines events.
func crashLines(minLines int) [][]byte {
	o := sessiongen.Options{Seed: 42, Start: time.Now().UTC(), Sessions: 300, TurnsPerSession: 30, ToolsPerTurn: 8, Interleave: true,
		Skills: []sessiongen.Skill{
			{Name: "deploy", Path: "/p/.claude/skills/deploy/SKILL.md", Version: "aaaaaaaaaaaa", Quality: 0.9},
			{Name: "triage", Path: "/p/.claude/skills/triage/SKILL.md", Version: "cccccccccccc", Quality: 0.7},
			{Name: "review", Path: "/p/.claude/agents/review.md", Version: "bbbbbbbbbbbb", Quality: 0.6, Agent: true}}}
	for {
		lines := sessiongen.Generate(o)
		if len(lines) >= minLines {
			return lines
		}
		o.Sessions += o.Sessions / 2
	}
}

// snapshot is what the store holds, in a comparable form.
type snapshot struct {
	Executions map[string]float64 // id -> score (-1 unscored)
	Aggregates map[string]string  // skill|version -> aggregate summary
}

func takeSnapshot(t *testing.T, home string) snapshot {
	t.Helper()
	db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{ReadOnly: true, LockTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := store.CheckInvariants(db); err != nil {
		t.Errorf("store invariants: %v", err)
	}
	xs, err := db.Executions(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	s := snapshot{Executions: map[string]float64{}, Aggregates: map[string]string{}}
	for _, x := range xs {
		if _, dup := s.Executions[x.Exec.ID]; dup {
			t.Errorf("execution %s stored twice", x.Exec.ID)
		}
		sc := -1.0
		if x.Result.Scored {
			sc = x.Result.Score
		}
		s.Executions[x.Exec.ID] = sc
	}
	skills, err := db.Skills()
	if err != nil {
		t.Fatal(err)
	}
	for _, sk := range skills {
		for _, v := range sk.Versions {
			b, _ := json.Marshal(v.Aggregate)
			s.Aggregates[sk.Key+"|"+v.Hash] = string(b)
		}
	}
	return s
}

func (a snapshot) diff(b snapshot) string {
	var out []string
	for id, s := range a.Executions {
		if s2, ok := b.Executions[id]; !ok {
			out = append(out, "missing "+id)
		} else if s2 != s {
			out = append(out, fmt.Sprintf("%s score %v != %v", id, s, s2))
		}
	}
	for id := range b.Executions {
		if _, ok := a.Executions[id]; !ok {
			out = append(out, "extra "+id)
		}
	}
	for k, v := range a.Aggregates {
		if b.Aggregates[k] != v {
			out = append(out, fmt.Sprintf("aggregate %s: %s != %s", k, v, b.Aggregates[k]))
		}
	}
	if len(a.Aggregates) != len(b.Aggregates) {
		out = append(out, fmt.Sprintf("%d aggregates != %d", len(a.Aggregates), len(b.Aggregates)))
	}
	sort.Strings(out)
	if len(out) > 10 {
		out = append(out[:10], fmt.Sprintf("... %d more", len(out)-10))
	}
	return fmt.Sprint(out)
}

// caughtUp reports whether the daemon's committed offsets cover the whole
// spool and no segment is left, reading the store while the daemon is down.
func caughtUp(t *testing.T, home string) bool {
	db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{ReadOnly: true, LockTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	offs, err := db.Offsets()
	if err != nil {
		t.Fatal(err)
	}
	segs, _ := filepath.Glob(spool.Path(home) + ".*")
	if len(segs) > 0 {
		return false
	}
	fi, err := os.Stat(spool.Path(home))
	if os.IsNotExist(err) {
		return true // rotated and drained, and nothing written since
	}
	if err != nil {
		return false
	}
	for _, o := range offs {
		if o.File == spool.Path(home) && o.Offset == fi.Size() {
			return true
		}
	}
	t.Logf("not caught up: spool %d bytes, offsets %+v", fi.Size(), offs)
	return false
}

// runToCompletion runs the daemon with SIGTERM stops until it has committed
// everything in the spool.
func runToCompletion(t *testing.T, home string) {
	for i := 0; i < 60; i++ {
		d := startDaemon(t, home)
		time.Sleep(time.Duration(500+i*200) * time.Millisecond)
		d.stop(t)
		if d.stderr.Len() > 0 {
			t.Logf("daemon stderr: %.2000s", d.stderr.String())
		}
		if caughtUp(t, home) {
			return
		}
	}
	t.Fatal("daemon never caught up with the spool")
}

func writeConfig(t *testing.T, home string) string {
	p := filepath.Join(home, "config.yaml")
	writeFile(t, p, "collector:\n  rotate_bytes: 4194304\n  batch_lines: 1000\n")
	return p
}

// TestCrashKill9 writes 200,000 events while the daemon runs, kills it with
// SIGKILL at 10 random moments, restarts it each time, and checks that the
// store ends identical to one uninterrupted run and to `sepad score`.
func TestCrashKill9(t *testing.T) {
	skipLong(t)
	n := 200_000
	if testing.Short() {
		n = 20_000
	}
	lines := crashLines(n)
	crashed := t.TempDir()
	os.Setenv("SEPA_CONFIG", writeConfig(t, crashed))
	defer os.Unsetenv("SEPA_CONFIG")

	r := rand.New(rand.NewPCG(7, 7))
	writerDone := make(chan error, 1)
	go func() {
		// The writer appends through the hook's lock in chunks, as many
		// parallel hooks would, pausing now and then.
		var err error
		for i := 0; i < len(lines) && err == nil; i += 500 {
			var b bytes.Buffer
			for _, l := range lines[i:min(i+500, len(lines))] {
				b.Write(l)
				b.WriteByte('\n')
			}
			err = appendLocked(crashed, b.Bytes())
			if i%20000 == 0 {
				time.Sleep(20 * time.Millisecond)
			}
		}
		writerDone <- err
	}()
	for k := 0; k < 10; k++ {
		d := startDaemon(t, crashed)
		time.Sleep(time.Duration(100+r.IntN(600)) * time.Millisecond)
		d.kill()
	}
	if err := <-writerDone; err != nil {
		t.Fatal(err)
	}
	runToCompletion(t, crashed)

	// One uninterrupted run over the same lines.
	clean := t.TempDir()
	var all bytes.Buffer
	for _, l := range lines {
		all.Write(l)
		all.WriteByte('\n')
	}
	writeFile(t, spool.Path(clean), all.String())
	runToCompletion(t, clean)

	a, b := takeSnapshot(t, crashed), takeSnapshot(t, clean)
	if len(a.Executions) < 1000 {
		t.Fatalf("only %d executions: the stream is not realistic", len(a.Executions))
	}
	if d := a.diff(b); d != "[]" {
		t.Fatalf("crashed run differs from the uninterrupted run: %s", d)
	}

	// And `sepad score` over the same file agrees execution by execution.
	spool := filepath.Join(t.TempDir(), "all.jsonl")
	writeFile(t, spool, all.String())
	out, errOut, code := sepad(t, nil, nil, "score", "--json", spool)
	if code != 0 {
		t.Fatalf("score exit %d: %s", code, errOut)
	}
	var rep struct {
		Executions []struct {
			ID     string   `json:"id"`
			Scored bool     `json:"scored"`
			Score  *float64 `json:"score"`
		} `json:"executions"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	offline := snapshot{Executions: map[string]float64{}, Aggregates: a.Aggregates}
	for _, x := range rep.Executions {
		s := -1.0
		if x.Scored {
			s = *x.Score
		}
		offline.Executions[x.ID] = s
	}
	if d := a.diff(offline); d != "[]" {
		t.Fatalf("daemon differs from sepad score: %s", d)
	}
	t.Logf("%d lines, %d executions, %d skill versions: identical after 10 kill -9", len(lines), len(a.Executions), len(a.Aggregates))
}

// appendLocked appends whole lines under the hook's spool lock.
func appendLocked(home string, b []byte) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	unlock, err := spool.Lock(home, 5*time.Second)
	if err != nil {
		return err
	}
	defer unlock()
	f, err := os.OpenFile(spool.Path(home), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
