package api

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// /metrics exports a version's tokens by kind, mean tokens and cost.
func TestMetricsTokens(t *testing.T) {
	home := t.TempDir()
	db := testDB(t, home)
	for i, id := range []string{"tk1000000000", "tk2000000000"} {
		x := scoredExec(id, "cost", shop, "", "ffffffffffff", 80, t0.Add(time.Duration(100+i)*time.Minute))
		x.Exec.Usage = &execution.Usage{InputTokens: 100, OutputTokens: 50, CacheReadTokens: 800, CacheCreationTokens: 50,
			Messages: 2, CostNanoUSD: 2_500_000, CostKnown: true}
		if err := db.Commit(&store.Batch{Executions: []record.Scored{x}}); err != nil {
			t.Fatal(err)
		}
	}
	m := NewMetrics(MetricsOptions{DB: db, Home: home, MaxSkillSeries: 100})
	_, body, _ := get(t, m.Handler(), http.MethodGet, "/metrics")
	text := string(body)
	labels := `skill="cost",skill_key="` + shop + `#cost",version="ffffffffffff"`
	for _, want := range []string{
		`sepad_skill_version_tokens{kind="cache_read",` + labels + `} 1600`,
		`sepad_skill_version_tokens{kind="input",` + labels + `} 200`,
		`sepad_skill_version_tokens_mean{` + labels + `} 1000`,
		`sepad_skill_version_cost_usd{` + labels + `} 0.005`,
		`sepad_skill_version_cost_usd_mean{` + labels + `} 0.0025`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(text, `sepad_skill_version_tokens_mean{skill="deploy"`) {
		t.Error("a version without transcripts has token series")
	}
}
