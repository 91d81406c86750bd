package decide

import (
	"reflect"
	"testing"

	"github.com/sepad/sepad/internal/decidetest"
)

// models returns n model names: the first k are a, the rest b.
func models(n, k int, a, b string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = b
		if i < k {
			out[i] = a
		}
	}
	return out
}

// TestModelSwitchIsNotAPromptChange (issue 37 item 3): v2 ran on sonnet,
// v3 on opus, ten points higher with the same prompt quality: nothing is
// compared, and at max_samples the candidate is settled, never accepted
// as better.
func TestModelSwitchIsNotAPromptChange(t *testing.T) {
	o := DefaultOptions()
	base := Sample{Scores: decidetest.Scores(20, 70, 5), Models: models(20, 20, "sonnet", "")}
	cand := Sample{Scores: decidetest.Scores(20, 80, 5), Models: models(20, 20, "opus", "")}
	d := Decide(skillKey, "b", "c", base, cand, o)
	if d.Outcome != Undecided || d.Reason != ReasonModelsDiffer || d.NeededMore != 40 || d.Look != nil {
		t.Fatalf("different models: %+v", d)
	}
	want := []Stratum{{Model: "opus", CandidateN: 20, CandidateMean: 80}, {Model: "sonnet", BaselineN: 20, BaselineMean: 70}}
	if !reflect.DeepEqual(d.Strata, want) && !reflect.DeepEqual(d.Strata, []Stratum{want[1], want[0]}) {
		t.Errorf("strata %+v", d.Strata)
	}
	// Without the models the same runs are "better with 95% confidence".
	if p := Decide(skillKey, "b", "c", Sample{Scores: base.Scores}, Sample{Scores: cand.Scores}, o); p.Outcome != Accept {
		t.Fatalf("pooled: %+v", p)
	}
	cand = Sample{Scores: decidetest.Scores(60, 80, 5), Models: models(60, 60, "opus", "")}
	if d := Decide(skillKey, "b", "c", base, cand, o); d.Outcome != Accept || d.Reason != ReasonModelsSettled {
		t.Fatalf("at max_samples: %+v", d)
	}
	// The seed's rule waits too.
	o.Method = MethodSepa
	if d := Decide(skillKey, "b", "c", base, Sample{Scores: decidetest.Scores(20, 80, 5), Models: models(20, 20, "opus", "")}, o); d.Outcome != Undecided || d.Reason != ReasonModelsDiffer {
		t.Fatalf("sepa: %+v", d)
	}
}

// TestStratifiedByModel: both versions ran on both models, the candidate
// mostly on the better one. Pooled, the candidate looks 6 points better;
// compared model by model it is no better, and a real difference within
// each model is still found.
func TestStratifiedByModel(t *testing.T) {
	o := DefaultOptions()
	// Baseline: 32 runs on sonnet (70), 8 on opus (80). Candidate: 8 on
	// sonnet (70), 32 on opus (80). Newest first; the models interleave.
	mk := func(nSonnet, nOpus int, shift float64) Sample {
		var s Sample
		for i := 0; i < nSonnet+nOpus; i++ {
			m, mu := "sonnet", 70.0
			if i%5 == 0 == (nOpus < nSonnet) {
				m, mu = "opus", 80.0
			}
			spread := 4.0
			if i%2 == 1 {
				spread = -4
			}
			s.Scores = append(s.Scores, mu+shift+spread)
			s.Models = append(s.Models, m)
		}
		return s
	}
	base, cand := mk(32, 8, 0), mk(8, 32, 0)
	pooledD := Decide(skillKey, "b", "c", Sample{Scores: base.Scores}, Sample{Scores: cand.Scores}, o)
	if pooledD.Outcome != Accept || pooledD.Delta < 5 {
		t.Fatalf("pooled: %+v", pooledD)
	}
	d := Decide(skillKey, "b", "c", base, cand, o)
	if d.Outcome == Accept || d.Delta < -1 || d.Delta > 1 || len(d.Strata) != 2 || !d.Strata[0].Compared || !d.Strata[1].Compared {
		t.Fatalf("stratified: %+v", d)
	}
	if d.BaselineN != 40 || d.CandidateN != 40 {
		t.Errorf("compared %d and %d runs, want 40 and 40", d.BaselineN, d.CandidateN)
	}
	// The candidate 6 points better on each model: found.
	if d := Decide(skillKey, "b", "c", base, mk(8, 32, 6), o); d.Outcome != Accept || d.Delta < 5 || d.Delta > 7 {
		t.Fatalf("6 points better on each model: %+v", d)
	}
	// A third model only the candidate ran is left out, and says so.
	c3 := mk(8, 32, 0)
	c3.Scores = append(c3.Scores, 99, 99, 99)
	c3.Models = append(c3.Models, "haiku", "haiku", "haiku")
	d3 := Decide(skillKey, "b", "c", base, c3, o)
	if d3.Delta != d.Delta || d3.Strata[2].Model != "haiku" || d3.Strata[2].Compared || d3.CandidateN != 40 {
		t.Fatalf("a third model: %+v", d3)
	}
}

// TestOneModelIsThePooledTest: runs of one model on both sides, or a side
// that names no model, decide exactly as without models.
func TestOneModelIsThePooledTest(t *testing.T) {
	o := DefaultOptions()
	for _, c := range []struct{ b, c []string }{
		{models(30, 30, "opus", ""), models(12, 12, "opus", "")},
		{nil, models(12, 12, "opus", "")},
		{models(30, 30, "", ""), models(12, 12, "opus", "")},
	} {
		base, cand := Sample{Scores: decidetest.Scores(30, 70, 8), Models: c.b}, Sample{Scores: decidetest.Scores(12, 78, 8), Models: c.c}
		d := Decide(skillKey, "b", "c", base, cand, o)
		p := Decide(skillKey, "b", "c", Sample{Scores: base.Scores}, Sample{Scores: cand.Scores}, o)
		d.Strata, d.Baseline.Models, d.Candidate.Models = nil, nil, nil
		if !reflect.DeepEqual(d, p) {
			t.Errorf("models %v/%v:\n%+v\nwant %+v", c.b, c.c, d, p)
		}
	}
}
