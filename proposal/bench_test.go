package proposal

import (
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/promptfile"
)

// The benchmarks pair what sepad does with a plain baseline, so that
// BENCHMARKS.md can record ratios measured in one run:
//
//	go test ./proposal -run '^$' -bench . -benchtime 2000x -count 3

func BenchmarkCheckProposal(b *testing.B) {
	prop := []byte(strings.Replace(baseSkill, "stop on failure", "stop at the first failure", 1))
	h := History{SinceChange: 5, Now: time.Now()}
	o := DefaultOptions()
	b.Run("check", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Check([]byte(baseSkill), prop, h, o)
		}
	})
	b.Run("hash_only", func(b *testing.B) { // the floor: reading the text once
		for i := 0; i < b.N; i++ {
			promptfile.Hash(prop)
		}
	})
}
