package words

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sepad/sepad/internal/decidetest"

	"github.com/sepad/sepad/decide"
)

// TestDecisionExplained (issue 15 point 5): a decision says, in words and
// in JSON, the versions' aggregates, n, their difference, the rule with
// its threshold, and which signals made the difference; the test's means
// and interval are in its detail and JSON (one comparison per version,
// issue 36 item 2).
func TestDecisionExplained(t *testing.T) {
	base := decide.Sample{Seq: 6, Aggregate: 79.4, Scores: decidetest.Scores(40, 78.9, 4), Signals: []decide.SignalMean{
		{Signal: "tool_success_rate", Present: 40, SubScore: 0.95, Points: 33.25},
		{Signal: "efficiency", Present: 40, SubScore: 0.80, Points: 16.0},
		{Signal: "structure", Present: 40, SubScore: 0.5, Points: 5.0}}}
	cand := decide.Sample{Seq: 7, Aggregate: 70.9, Scores: decidetest.Scores(18, 71.2, 4), Signals: []decide.SignalMean{
		{Signal: "tool_success_rate", Present: 18, SubScore: 0.74, Points: 25.9},
		{Signal: "efficiency", Present: 18, SubScore: 0.75, Points: 15.0},
		{Signal: "structure", Present: 18, SubScore: 0.5, Points: 5.0}}}
	d := decided(base, cand)
	if d.Outcome != decide.Reject {
		t.Fatalf("outcome %s: %s", d.Outcome, d.Detail)
	}
	for _, w := range []string{"v7 rejected: 70.9 vs v6's 79.4 (aggregates, −8.5) after 18 and 40 runs",
		"; worse than v6 with 95% confidence; ",
		"tool success rate −0.21 = −7.3 pts, efficiency −0.05 = −1.0 pt"} {
		if !strings.Contains(d.Explanation, w) {
			t.Errorf("explanation %q lacks %q", d.Explanation, w)
		}
	}
	// The statistics stay in the record's rule, out of the words a person
	// reads by default (issue 36 item 6).
	for _, w := range []string{"its z −", "reached the reject line −", "information"} {
		if !strings.Contains(d.Rule, w) {
			t.Errorf("rule %q lacks %q", d.Rule, w)
		}
		if strings.Contains(d.Explanation, w) {
			t.Errorf("explanation %q has %q", d.Explanation, w)
		}
	}
	if d.Words != d.Explanation || d.Detail == "" || strings.Contains(d.Explanation, "z=") || strings.Contains(d.Explanation, "interval") {
		t.Errorf("words %q, detail %q", d.Words, d.Detail)
	}
	if !strings.Contains(d.Detail, "candidate mean 71.20 trails baseline 78.90 by 7.70") || !strings.Contains(d.Detail, "difference in [") {
		t.Errorf("detail %q lacks the test's means and interval", d.Detail)
	}
	b, _ := json.Marshal(d)
	var doc map[string]any
	json.Unmarshal(b, &doc)
	for _, k := range []string{"baseline_mean", "candidate_mean", "baseline_n", "candidate_n", "interval", "rule", "signals", "explanation"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("decision JSON lacks %q: %s", k, b)
		}
	}
	if doc["candidate_n"] != 18.0 || doc["baseline_n"] != 40.0 {
		t.Errorf("n in JSON: %v %v", doc["candidate_n"], doc["baseline_n"])
	}

	// Undecided: the runs still needed, in words and JSON.
	d = decided(decide.Sample{Seq: 1, Scores: decidetest.Scores(40, 70, 10)}, decide.Sample{Seq: 2, Scores: decidetest.Scores(8, 73, 10)})
	if d.Outcome != decide.Undecided || d.NeededMore <= 0 || !strings.Contains(d.Explanation, "needs about ") || !strings.Contains(d.Explanation, "v2 undecided: ") {
		t.Fatalf("undecided: %+v", d)
	}
}

// TestOptionalSignalAbsentLeftOut (issue 36 item 3): a version never
// labelled is not charged its baseline's label as a zero, in words either
// (decide's TestOptionalSignalAbsentLeftOut has the numbers).
func TestOptionalSignalAbsentLeftOut(t *testing.T) {
	base := []decide.SignalMean{{Signal: "tool_success_rate", Present: 40, SubScore: 0.9, Points: 30},
		{Signal: "label", Present: 1, SubScore: 1, Points: 3.3, Optional: true}}
	d := decided(decide.Sample{Seq: 1, Scores: decidetest.Scores(40, 80, 4), Signals: base},
		decide.Sample{Seq: 2, Scores: decidetest.Scores(18, 70, 4), Signals: []decide.SignalMean{{Signal: "tool_success_rate", Present: 18, SubScore: 0.8, Points: 27}}})
	if d.Outcome != decide.Reject || strings.Contains(d.Explanation, "label") {
		t.Errorf("explanation %q charges the missing label", d.Explanation)
	}
}

// An optional signal present on one run of a side says "1 run" (a walk
// found "outcome 0.10 (1 runs) vs 0.10 (1 runs)").
func TestOptionalSignalOneRun(t *testing.T) {
	d := decided(decide.Sample{Seq: 1, Scores: decidetest.Scores(40, 80, 4), Signals: []decide.SignalMean{{Signal: "outcome", Present: 1, SubScore: 0.1, Points: 1, Optional: true}}},
		decide.Sample{Seq: 2, Scores: decidetest.Scores(18, 70, 4), Signals: []decide.SignalMean{{Signal: "outcome", Present: 3, SubScore: 0.1, Points: 1, Optional: true}}})
	if !strings.Contains(d.Explanation, "outcome 0.10 (3 runs) vs 0.10 (1 run)") {
		t.Errorf("explanation %q", d.Explanation)
	}
}

// TestAbsurdIntervalNotPrinted (issue 36 item 2): an interval wider than
// the 0-100 scale is not printed; the words say the runs are too few.
func TestAbsurdIntervalNotPrinted(t *testing.T) {
	d := decide.Decision{Outcome: decide.Undecided, Reason: decide.ReasonUndecided, CandidateMean: 60, BaselineMean: 94.3, Delta: -4.4,
		Interval: [2]float64{-6229.6, 189}, CandidateN: 5, BaselineN: 2, Candidate: decide.Sample{Seq: 2}, Baseline: decide.Sample{Seq: 1}}
	d.Options = decide.OptionsAt{MinSamples: 5, MaxSamples: 60, Confidence: 0.95, Exploration: 0.2}
	e := explain(&d)
	if strings.Contains(e, "6229") || strings.Contains(e, "interval") || !strings.Contains(e, "not enough runs to compare yet (5 and 2)") {
		t.Errorf("explanation %q", e)
	}
}

// TestDecideSettlesAgainstAnEmptyBaseline: with fewer than two baseline
// runs nothing can be compared; the candidate is settled at max_samples,
// and says how many more runs that is.
func TestDecideSettlesAgainstAnEmptyBaseline(t *testing.T) {
	d := decided(decide.Sample{Scores: []float64{50}}, decide.Sample{Scores: decidetest.Scores(10, 80, 5)})
	if d.Outcome != decide.Undecided || d.Reason != decide.ReasonThinBaseline || d.NeededMore != 50 || !strings.Contains(d.Words, "needs about 50 more runs") {
		t.Fatalf("10 runs against 1: %+v", d)
	}
	d = decided(decide.Sample{Scores: []float64{50}}, decide.Sample{Scores: decidetest.Scores(60, 80, 5), Mean: 80})
	if d.Outcome != decide.Accept || d.Reason != decide.ReasonSettled || !d.ThinBaseline || !strings.Contains(d.Words, "settled: the candidate held 80.00 over 60 runs; the baseline has 1 run, too few") {
		t.Fatalf("60 runs against 1: %+v", d)
	}
}

// decided is decide.Decide with the default options, explained.
func decided(base, cand decide.Sample) decide.Decision {
	d := decide.Decide("/p/.claude/skills/deploy/SKILL.md", "b", "c", base, cand, decide.DefaultOptions())
	Explain(&d)
	return d
}

// TestModelWords (issue 37 item 3): a decision between versions run on
// different models says so, and one compared model by model names them.
func TestModelWords(t *testing.T) {
	ms := func(n int, m string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = m
		}
		return out
	}
	d := decided(decide.Sample{Seq: 2, Scores: decidetest.Scores(20, 70, 5), Models: ms(20, "sonnet")}, decide.Sample{Seq: 3, Scores: decidetest.Scores(8, 80, 5), Models: ms(8, "opus")})
	if d.Outcome != decide.Undecided || !strings.HasPrefix(d.Words, "v3 ran on opus, v2 on sonnet: not compared yet") || !strings.Contains(d.Words, "needs about 52 more runs") {
		t.Errorf("models differ: %q", d.Words)
	}
	d = decided(decide.Sample{Seq: 2, Scores: decidetest.Scores(20, 70, 5), Models: ms(20, "sonnet")}, decide.Sample{Seq: 3, N: 60, Scores: decidetest.Scores(60, 80, 5), Models: ms(60, "opus")})
	if d.Outcome != decide.Accept || !strings.HasPrefix(d.Words, "settled: v3 ran on opus, v2 on sonnet, no model in common after 60 runs: v3 becomes the baseline, not judged better") {
		t.Errorf("settled: %q", d.Words)
	}
	bm := append(ms(10, "sonnet"), ms(10, "opus")...)
	cm := append(append(ms(6, "sonnet"), ms(6, "opus")...), ms(3, "haiku")...)
	d = decided(decide.Sample{Seq: 2, Scores: decidetest.Scores(20, 70, 5), Models: bm}, decide.Sample{Seq: 3, Scores: decidetest.Scores(15, 71, 5), Models: cm})
	if !strings.Contains(d.Words, "; compared model by model: ") || !strings.Contains(d.Words, "sonnet 6 and 10 runs") ||
		!strings.Contains(d.Words, "left out, no runs of both on it: haiku (3 runs of the candidate)") {
		t.Errorf("stratified: %q", d.Words)
	}
	if w := ModelMix(d.Strata, false); w != "sonnet (6 runs), opus (6 runs) and haiku (3 runs)" && w != "opus (6 runs), sonnet (6 runs) and haiku (3 runs)" {
		t.Errorf("mix %q", w)
	}
}
