package dashboard

import (
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/query"
)

// TestVersionChangeAtFirstSeen: the chart marks a new version where sepad
// first saw it, not halfway between the last run of the one before and
// its own first run (a walk saw v2's line drawn before the evolve that
// wrote v2).
func TestVersionChangeAtFirstSeen(t *testing.T) {
	s := func(f float64) *float64 { return &f }
	seen := t0.Add(50 * time.Minute)
	execs := []query.ExecRow{
		{ID: "a", Version: 1, Time: t0, Score: s(80)},
		{ID: "b", Version: 1, Time: t0.Add(time.Minute), Score: s(82)},
		{ID: "c", Version: 2, Time: t0.Add(60 * time.Minute), Score: s(90)},
	}
	versions := []query.GradeRow{{Version: 1, FirstSeen: &t0}, {Version: 2, FirstSeen: &seen}}
	svg := string(scoreChart(execs, versions, nil))
	// x = 44 + 800 × 50/60
	if !strings.Contains(svg, `<g class="vchange"><line x1="710.7" x2="710.7"`) {
		t.Errorf("v2's line is not at its first sighting:\n%s", svg)
	}
	// Without a first sighting between the runs, halfway.
	versions[1].FirstSeen = nil
	if svg := string(scoreChart(execs, versions, nil)); !strings.Contains(svg, `<g class="vchange"><line x1="450.7" x2="450.7"`) {
		t.Errorf("v2's line without a first sighting:\n%s", svg)
	}
}
