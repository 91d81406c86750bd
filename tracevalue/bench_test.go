package tracevalue

import (
	"fmt"
	"testing"

	"github.com/sepad/sepad/execution"
)

// BenchmarkEvaluateFullCache is the cost the store adds per execution:
// map it to a trace, vectorise it, and measure novelty against a full
// cache of 1,000 previous executions.
func BenchmarkEvaluateFullCache(b *testing.B) {
	x := &execution.Execution{Skill: "deploy", Prompt: "deploy the staging branch and report what changed", Complete: true,
		HasOutput: true, Output: "Deployed to staging: 3 services updated, health checks green. All tests pass."}
	for c := 0; c < 10; c++ {
		x.Calls = append(x.Calls, execution.ToolCall{Name: []string{"Read", "Bash", "Edit", "Grep"}[c%4], Done: true, Failed: c == 3, Error: "exit status 1"})
	}
	cache := NewCache(0)
	for i := 0; i < CacheSize; i++ {
		cache.Add(Vectorize(fmt.Sprintf("deploy run %d of branch feature-%d: %s", i, i*7, x.Output)))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr := FromExecution(x, 80, true)
		v := Vectorize(Text(tr))
		Evaluate(tr, v, cache)
	}
}
