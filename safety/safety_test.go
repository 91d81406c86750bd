package safety

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	v := func(seq int, agg, fail float64) VersionStat {
		h := "v" + string(rune('0'+seq))
		p := ""
		if seq > 1 {
			p = "v" + string(rune('0'+seq-1))
		}
		return VersionStat{Hash: h, Seq: seq, Parent: p, N: 10, Graded: true, Aggregate: agg, FailRate: fail}
	}
	on := DefaultOptions()
	off := func(mod func(*Options)) Options { o := on; mod(&o); return o }
	ungraded := v(4, 20, 0.9)
	ungraded.Graded = false
	ungradedV := func(seq int, agg float64) VersionStat { s := v(seq, agg, 0); s.Graded = false; return s }
	mutator := func(s VersionStat) VersionStat { s.Mutator = true; return s }
	cases := []struct {
		name     string
		cur      VersionStat
		versions []VersionStat
		o        Options
		rule     string
		target   string
		words    []string // numbers the words must carry
	}{
		{"nothing_wrong", v(3, 75, 0.1), []VersionStat{v(1, 70, 0), v(2, 80, 0)}, on, "", "", nil},
		{"ungraded_never_rolled_back", ungraded, []VersionStat{v(1, 90, 0)}, on, "", "", nil},
		{"grade_f_to_best_earlier", v(4, 40, 0), []VersionStat{v(1, 70, 0), v(2, 82, 0), v(3, 45, 0), v(4, 40, 0)}, on,
			RuleGradeF, "v2", []string{"40.00", "v2", "82.00", "the best earlier version above F (its parent v3 is not graded above F)"}},
		// A parent graded above F wins over a better earlier version: that
		// one may be what a person rolled away from (issue 36 item 5).
		{"grade_f_to_parent", v(3, 40, 0), []VersionStat{v(1, 95, 0), v(2, 70, 0), v(3, 40, 0)}, on,
			RuleGradeF, "v2", []string{"back to v2, its parent, the version v3 was made from", "70.00"}},
		{"grade_f_skips_later_versions", v(2, 40, 0), []VersionStat{v(1, 60, 0), v(2, 40, 0), v(3, 95, 0)}, on,
			RuleGradeF, "v1", nil},
		{"grade_f_skips_earlier_f", v(3, 40, 0), []VersionStat{v(1, 60, 0), v(2, 45, 0)}, on, RuleGradeF, "v1", nil},
		// No earlier version above F: the F rule cannot fire; the ratio
		// rule takes the best version there is.
		{"grade_f_nothing_earlier", v(1, 40, 0), []VersionStat{v(1, 40, 0), v(2, 45, 0), v(3, 70, 0)}, on, RuleBelowRatio, "v3", nil},
		{"grade_f_off_ratio_fires", v(3, 45, 0), []VersionStat{v(1, 80, 0), v(2, 60, 0)}, off(func(o *Options) { o.RollbackOnF = false }),
			RuleBelowRatio, "v2", []string{"45.00", "0.70", "80.00", "56.00", "the best version v1's"}},
		// Below the ratio: back to the parent when it is fit, not to the
		// best, which a person may have rolled away from (issue 36 item 5).
		{"ratio_to_parent", v(3, 55, 0), []VersionStat{v(1, 80, 0), v(2, 60, 0)}, on, RuleBelowRatio, "v2",
			[]string{"back to v2, its parent, the version v3 was made from, which held 60.00 (C)"}},
		{"ratio_parent_below_too", v(3, 50, 0), []VersionStat{v(1, 80, 0), v(2, 52, 0)}, on, RuleBelowRatio, "v1",
			[]string{"back to v1, the best version (its parent v2 is not graded above F and at least 56.00)"}},
		// A mutator's version is undone: back to its parent, graded or
		// not, unless that is graded F.
		{"mutator_f_to_ungraded_parent", mutator(v(3, 40, 0)), []VersionStat{v(1, 95, 0), ungradedV(2, 70)}, on, RuleGradeF, "v2",
			[]string{"back to v2, its parent, the version the mutator made v3 from, which held 70.00 over 10 runs (not graded yet)"}},
		{"mutator_ratio_to_parent_below", mutator(v(3, 50, 0)), []VersionStat{v(1, 90, 0), v(2, 55, 0)}, on, RuleBelowRatio, "v2", nil},
		{"mutator_parent_f", mutator(v(3, 40, 0)), []VersionStat{v(1, 90, 0), v(2, 45, 0)}, on, RuleGradeF, "v1",
			[]string{"the best earlier version above F (its parent v2 is not graded above F)"}},
		{"person_f_ungraded_parent", v(3, 40, 0), []VersionStat{v(1, 95, 0), ungradedV(2, 70)}, on, RuleGradeF, "v1", nil},
		{"ratio_not_below", v(3, 57, 0), []VersionStat{v(1, 80, 0)}, on, "", "", nil},
		{"ratio_off", v(3, 55, 0), []VersionStat{v(1, 80, 0)}, off(func(o *Options) { o.RollbackRatio = 0 }), "", "", nil},
		{"fail_rate_to_parent", v(3, 75, 0.6), []VersionStat{v(1, 90, 0), v(2, 70, 0)}, on, RuleFailRate, "v2", []string{"60%", "50%", "v2"}},
		{"fail_rate_exactly_half", v(3, 75, 0.5), []VersionStat{v(2, 70, 0)}, on, "", "", nil},
		{"fail_rate_off", v(3, 75, 0.9), []VersionStat{v(2, 70, 0)}, off(func(o *Options) { o.RollbackFailRate = 1 }), "", "", nil},
		{"fail_rate_parent_unknown", v(3, 75, 0.9), []VersionStat{v(1, 70, 0)}, on, "", "", nil},
		{"all_off", v(3, 30, 0.9), []VersionStat{v(1, 90, 0), v(2, 80, 0)}, Options{RollbackFailRate: 1}, "", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, ok := Check(c.cur, c.versions, c.o)
			if ok != (c.rule != "") || r.Rule != c.rule || r.Target != c.target {
				t.Fatalf("got %+v ok=%v, want rule %q target %q", r, ok, c.rule, c.target)
			}
			if ok && (r.From != c.cur.Hash || r.Words == "") {
				t.Errorf("plan %+v", r)
			}
			for _, w := range c.words {
				if !strings.Contains(r.Words, w) {
					t.Errorf("words %q lack %q", r.Words, w)
				}
			}
		})
	}
}

func TestCooldownTick(t *testing.T) {
	left, got := 3, []bool{}
	for i := 0; i < 5; i++ {
		var may bool
		left, may = CooldownTick(left)
		got = append(got, may)
	}
	want := []bool{false, false, false, true, true}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ticks %v, want %v", got, want)
		}
	}
	if left != 0 {
		t.Fatalf("left %d", left)
	}
}

// TestSafetyComparesSameModel: the safety rules that compare scores do
// not roll a version back to one that only ran on another model.
func TestSafetyComparesSameModel(t *testing.T) {
	o := DefaultOptions()
	o.MinSamples = 5
	parent := VersionStat{Hash: "p", Seq: 1, N: 10, Graded: true, Aggregate: 80, Models: []string{"opus"}}
	cur := VersionStat{Hash: "c", Seq: 2, Parent: "p", N: 10, Graded: true, Aggregate: 40, Models: []string{"haiku"}}
	if r, ok := Check(cur, []VersionStat{parent, cur}, o); ok {
		t.Fatalf("rolled back across models: %+v", r)
	}
	// A model in common: the rules apply.
	cur.Models = []string{"haiku", "opus"}
	if r, ok := Check(cur, []VersionStat{parent, cur}, o); !ok || r.Rule != RuleGradeF || r.Target != "p" {
		t.Fatalf("a model in common: %+v %v", r, ok)
	}
	// Models unknown on one side: as before.
	cur.Models = nil
	if _, ok := Check(cur, []VersionStat{parent, cur}, o); !ok {
		t.Fatal("no models: not rolled back")
	}
}
