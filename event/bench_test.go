package event

import (
	"encoding/json"
	"testing"

	"github.com/sepad/sepad/internal/sessiongen"
)

// benchEventLines are realistic enriched hook lines (100 interleaved
// sessions from internal/sessiongen), as the collector reads them.
func benchEventLines(b *testing.B) ([][]byte, int64) {
	b.Helper()
	o := sessiongen.Options{Seed: 1, Sessions: 100, TurnsPerSession: 12, ToolsPerTurn: 8, Interleave: true,
		Skills: []sessiongen.Skill{{Name: "deploy", Path: "/p/.claude/skills/deploy/SKILL.md", Version: "aaaaaaaaaaaa", Quality: 0.9},
			{Name: "review", Path: "/p/.claude/agents/review.md", Version: "bbbbbbbbbbbb", Quality: 0.6, Agent: true}}}
	lines := sessiongen.Generate(o)
	var n int64
	for _, l := range lines {
		n += int64(len(l))
	}
	return lines, n
}

// BenchmarkParseLine compares, on the same lines in one run, ParseLine
// (the single-pass decoder, encoding/json only as a fallback) with
// decoding the same payload struct with encoding/json, and with the
// plain decode into map[string]any the ingestion benchmark uses as its
// baseline.
func BenchmarkParseLine(b *testing.B) {
	lines, size := benchEventLines(b)
	run := func(b *testing.B, parse func([]byte) bool) {
		b.SetBytes(size / int64(len(lines)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if !parse(lines[i%len(lines)]) {
				b.Fatalf("line %d did not parse", i%len(lines))
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	}
	b.Run("ParseLine", func(b *testing.B) {
		run(b, func(l []byte) bool { _, err := ParseLine(l); return err == nil })
	})
	b.Run("json_payload_struct", func(b *testing.B) {
		run(b, func(l []byte) bool { var p payload; return json.Unmarshal(l, &p) == nil })
	})
	b.Run("json_map", func(b *testing.B) {
		run(b, func(l []byte) bool { var m map[string]any; return json.Unmarshal(l, &m) == nil })
	})
}
