package decide

import (
	"testing"

	"github.com/sepad/sepad/internal/decidetest"
)

// go test ./decide -run '^$' -bench Decide -benchtime 2000x -count 3
func BenchmarkDecide(b *testing.B) {
	base := Sample{Scores: decidetest.Scores(60, 70, 10), N: 60, Aggregate: 70, SD: 10}
	cand := Sample{Scores: decidetest.Scores(30, 74, 10), N: 30, Aggregate: 74, SD: 10}
	b.Run("sepa", func(b *testing.B) {
		o := DefaultOptions()
		o.Method = MethodSepa
		for i := 0; i < b.N; i++ {
			Decide(skillKey, "b", "c", base, cand, o)
		}
	})
	b.Run("sequential", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Decide(skillKey, "b", "c", base, cand, DefaultOptions())
		}
	})
}
