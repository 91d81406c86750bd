package render

import (
	"strings"
	"testing"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/query"
)

// The over-claim words of decisions and the OVER-CLAIMS column of
// grades --all-versions.
func TestOverClaimWords(t *testing.T) {
	got := OverClaimWords(decide.Sample{Seq: 3, N: 10}, decide.Sample{Seq: 4, N: 12, OverClaims: 3})
	if got != "v4 over-claims in 3 of 12 runs" {
		t.Errorf("decision words %q", got)
	}
	if w := OverClaimWords(decide.Sample{Seq: 1, N: 5}); w != "" {
		t.Errorf("no over-claim: %q", w)
	}
	if s := OverClaims(&query.GradeRow{N: 12, OverClaims: 3}); s != "3/12 (25%)" {
		t.Errorf("column %q", s)
	}
	if s := OverClaims(&query.GradeRow{N: 12}); s != "-" {
		t.Errorf("column without over-claims %q", s)
	}
}

func fp(f float64) *float64 { return &f }

func TestSparkline(t *testing.T) {
	for _, c := range []struct {
		name   string
		scores []*float64
		vers   []int
		want   string
	}{
		{"empty", nil, nil, ""},
		{"absolute scale", []*float64{fp(0), fp(12.5), fp(50), fp(99.99), fp(100)}, []int{1, 1, 1, 1, 1}, "▁▂▅██"},
		{"unscored is a dot", []*float64{fp(70), nil, fp(70)}, []int{1, 1, 1}, "▆·▆"},
		{"bar where the version changes", []*float64{fp(90), fp(90), fp(30), fp(30)}, []int{1, 1, 2, 2}, "██|▃▃"},
		{"out of range is clamped", []*float64{fp(-5), fp(250)}, []int{3, 3}, "▁█"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Sparkline(c.scores, c.vers); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestModelsLine (issue 37 item 3): the model mix of a version run by
// more than one model, and of one skill's versions run by different
// models; nothing when one model ran everything.
func TestModelsLine(t *testing.T) {
	one := []query.ModelRuns{{Model: "claude-sonnet-4-5", N: 8}}
	two := []query.ModelRuns{{Model: "claude-opus-4-5", N: 8}, {Model: "claude-sonnet-4-5", N: 2}}
	rows := []query.GradeRow{{Skill: "deploy", Version: 2, Models: one}, {Skill: "deploy", Version: 3, Models: two}}
	var b strings.Builder
	Models(&b, rows, false)
	if got, want := b.String(), "deploy v3 ran on claude-opus-4-5 (8 runs) and claude-sonnet-4-5 (2 runs)\n"; got != want {
		t.Errorf("grades: %q, want %q", got, want)
	}
	b.Reset()
	Models(&b, rows, true)
	if got, want := b.String(), "deploy v2 ran on claude-sonnet-4-5\ndeploy v3 ran on claude-opus-4-5 (8 runs) and claude-sonnet-4-5 (2 runs)\n"; got != want {
		t.Errorf("versions: %q, want %q", got, want)
	}
	b.Reset()
	Models(&b, []query.GradeRow{{Skill: "deploy", Version: 2, Models: one}, {Skill: "deploy", Version: 3, Models: one}}, true)
	if b.Len() != 0 {
		t.Errorf("one model: %q", b.String())
	}
}
