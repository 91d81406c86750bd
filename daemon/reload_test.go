package daemon

import (
	"slices"
	"testing"
)

// What a reload applies at once and what waits for a restart: the keys
// the daemon reads as it goes, and no other.
func TestSplitReload(t *testing.T) {
	changed := []string{"aggregate.trim", "collector.idle_timeout", "collector.retention", "default_complexity",
		"max_expected", "mutation.evolve", "mutation.evolve_below", "mutation.evolver", "mutation.min_samples",
		"pricing.models", "pricing.taken", "scoring.label_weight", "skills", "skills.deploy.checks", "skills.deploy.mutation"}
	live, restart := splitReload(changed)
	wantLive := []string{"collector.retention", "default_complexity", "max_expected", "mutation.evolve", "mutation.evolve_below",
		"pricing.models", "pricing.taken", "skills", "skills.deploy.checks"}
	wantRestart := []string{"aggregate.trim", "collector.idle_timeout", "mutation.evolver", "mutation.min_samples",
		"scoring.label_weight", "skills.deploy.mutation"}
	if !slices.Equal(live, wantLive) {
		t.Errorf("live %q\nwant %q", live, wantLive)
	}
	if !slices.Equal(restart, wantRestart) {
		t.Errorf("restart %q\nwant %q", restart, wantRestart)
	}
}
