package store

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/record"
)

// Token and cost sums per version are kept with the aggregate, read with
// the version, recounted by CheckInvariants (on cleanup); transcript
// positions are committed with the batch and survive a reopen.
func TestTokensPerVersionAndTranscriptOffsets(t *testing.T) {
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b Batch
	for i := 0; i < 4; i++ {
		s := scored(fmt.Sprintf("t%011d", i), "deploy", "aaaaaaaaaaaa", 80, t0.Add(time.Duration(i)*time.Minute))
		if i < 3 { // the fourth had no readable transcript
			s.Exec.Usage = &execution.Usage{InputTokens: 100, OutputTokens: int64(10 * (i + 1)), CacheReadTokens: 300,
				CacheCreationTokens: 100, Messages: 2, CostNanoUSD: 1_000_000, CostKnown: i != 2}
		}
		b.Executions = append(b.Executions, s)
	}
	b.Transcripts = []record.TranscriptOffset{{Path: "/h/.claude/projects/-p/s.jsonl", Offset: 4096, LastMessage: "msg_9"}}
	if err := db.Commit(&b); err != nil {
		t.Fatal(err)
	}
	x := scored("t0", "deploy", "", 0, t0).Exec
	key := x.Key()
	vs, err := db.Versions(key)
	if err != nil || len(vs) != 1 {
		t.Fatalf("versions %v %v", vs, err)
	}
	tk := vs[0].Tokens
	want := record.Tokens{N: 3, InputTokens: 300, OutputTokens: 60, CacheReadTokens: 900, CacheCreationTokens: 300, CostNanoUSD: 3_000_000, CostUnknown: 1}
	if tk == nil || *tk != want {
		t.Fatalf("tokens %+v, want %+v", tk, want)
	}
	if tk.MeanTokens() != 520 || tk.MeanCostUSD() != 0.001 || tk.CacheHitRate() != 0.6 {
		t.Errorf("mean %v cost %v hit %v", tk.MeanTokens(), tk.MeanCostUSD(), tk.CacheHitRate())
	}
	sk, err := db.SkillsByKey([]string{key})
	if err != nil || len(sk) != 1 {
		t.Fatalf("SkillsByKey: %d skills, %v", len(sk), err)
	}
	for _, s := range sk {
		if len(s.Versions) != 1 || s.Versions[0].Tokens == nil || *s.Versions[0].Tokens != want {
			t.Errorf("SkillsByKey tokens %+v", s.Versions)
		}
	}
	offs, err := db.TranscriptOffsets()
	if err != nil || len(offs) != 1 || offs[0] != b.Transcripts[0] {
		t.Errorf("transcript offsets %+v %v", offs, err)
	}
}

// TestModelsPerVersion (issue 37 item 3): each version counts its scored
// runs by model, read with the version (Versions and the lite views
// alike) and recounted by CheckInvariants on cleanup.
func TestModelsPerVersion(t *testing.T) {
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b Batch
	for i, ms := range [][]string{{"opus"}, {"sonnet"}, {"opus"}, nil, {"sonnet", "opus"}, {"opus"}} {
		s := scored(fmt.Sprintf("m%011d", i), "deploy", "aaaaaaaaaaaa", 80, t0.Add(time.Duration(i)*time.Minute))
		if ms != nil {
			s.Exec.Usage = &execution.Usage{Messages: 1, Models: ms, CostKnown: true}
		}
		b.Executions = append(b.Executions, s)
	}
	if err := db.Commit(&b); err != nil {
		t.Fatal(err)
	}
	key := b.Executions[0].Exec.Key()
	want := []record.ModelRuns{{Model: "opus", N: 3}, {Model: "opus+sonnet", N: 1}, {Model: "sonnet", N: 1}}
	vs, err := db.Versions(key)
	if err != nil || len(vs) != 1 || !reflect.DeepEqual(vs[0].Models, want) {
		t.Fatalf("versions %+v %v, want models %+v", vs, err, want)
	}
	sk, err := db.Skills()
	if err != nil || len(sk) != 1 || !reflect.DeepEqual(sk[0].Versions[0].Models, want) {
		t.Fatalf("skills %+v %v, want models %+v", sk, err, want)
	}
}
