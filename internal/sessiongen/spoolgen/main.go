// Command spoolgen writes a spool of realistic enriched hook events (chunks
// of 100 interleaved sessions), for benchmarks and load tests:
//
//	go run ./internal/sessiongen/spoolgen -n 1000000 -o /tmp/spool/events.jsonl
//
// With -rate it appends instead, at that many events a second, under the
// hook's spool lock (the spool.lock beside the output, as the hook takes
// it), with receive times of now: a live load for soak tests
// (scripts/soak.sh).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sepad/sepad/internal/sessiongen"
)

func main() {
	n := flag.Int("n", 1_000_000, "events to write")
	out := flag.String("o", "events.jsonl", "output file")
	rate := flag.Int("rate", 0, "append at this many events a second (0: write the file at once)")
	flag.Parse()
	if *rate > 0 {
		if err := trickle(*out, *n, *rate); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	f, err := os.OpenFile(*out, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	written := 0
	start := time.Now().UTC().Add(-time.Hour)
	for seed := uint64(99); written < *n; seed++ {
		for _, l := range sessiongen.Generate(options(seed, start)) {
			if written == *n {
				break
			}
			w.Write(l)
			w.WriteByte('\n')
			written++
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f.Close()
}

func options(seed uint64, start time.Time) sessiongen.Options {
	return sessiongen.Options{Seed: seed, Sessions: 100, TurnsPerSession: 12, ToolsPerTurn: 8, Interleave: true, Start: start,
		Skills: []sessiongen.Skill{{Name: "deploy", Path: "/p/.claude/skills/deploy/SKILL.md", Version: "aaaaaaaaaaaa", Quality: 0.9},
			{Name: "review", Path: "/p/.claude/agents/review.md", Version: "bbbbbbbbbbbb", Quality: 0.7, Agent: true}}}
}

// trickle appends n events to out at rate events a second, in ticks of
// 100 ms, each under the spool lock. A tick that comes late (a loaded
// machine drops ticks) writes what the missed ones would have, so the
// rate holds on average: by t seconds, rate·t events.
func trickle(out string, n, rate int) error {
	lock := filepath.Join(filepath.Dir(out), "spool.lock")
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var pending [][]byte
	seed := uint64(1_000_000)
	start := time.Now()
	for written := 0; written < n; {
		<-tick.C
		due := int(time.Since(start).Seconds() * float64(rate))
		k := min(max(due-written, 0), n-written)
		if k == 0 {
			continue
		}
		var b []byte
		for i := 0; i < k; i++ {
			if len(pending) == 0 {
				// Sessions start now, so the daemon's idle timeout sees
				// them as live ones.
				pending = sessiongen.Generate(options(seed, time.Now().UTC()))
				seed++
			}
			b = append(append(b, pending[0]...), '\n')
			pending = pending[1:]
		}
		written += k
		if err := appendLocked(lock, out, b); err != nil {
			return err
		}
	}
	return nil
}

// appendLocked appends b to out holding the spool lock.
func appendLocked(lock, out string, b []byte) error {
	l, err := os.OpenFile(lock, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer l.Close()
	if err := flock(l); err != nil {
		return err
	}
	f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
