// Command spoolgen writes a spool of realistic enriched hook events (chunks
// of 100 interleaved sessions), for benchmarks and load tests:
//
//	go run ./internal/sessiongen/spoolgen -n 1000000 -o /tmp/spool/events.jsonl
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/sepad/sepad/internal/sessiongen"
)

func main() {
	n := flag.Int("n", 1_000_000, "events to write")
	out := flag.String("o", "events.jsonl", "output file")
	flag.Parse()
	f, err := os.OpenFile(*out, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	written := 0
	start := time.Now().UTC().Add(-time.Hour)
	for seed := uint64(99); written < *n; seed++ {
		o := sessiongen.Options{Seed: seed, Sessions: 100, TurnsPerSession: 12, ToolsPerTurn: 8, Interleave: true, Start: start,
			Skills: []sessiongen.Skill{{Name: "deploy", Path: "/p/.claude/skills/deploy/SKILL.md", Version: "aaaaaaaaaaaa", Quality: 0.9},
				{Name: "review", Path: "/p/.claude/agents/review.md", Version: "bbbbbbbbbbbb", Quality: 0.7, Agent: true}}}
		for _, l := range sessiongen.Generate(o) {
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
