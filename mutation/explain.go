package mutation

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/store"
)

// SignalMean is a version's mean of one fitness signal over its scored
// runs: SubScore over the runs where the signal was present (0-1), Points
// its mean contribution to the score (absent counts 0), so that a
// version's Points sum to its mean score.
type SignalMean struct {
	Signal   string  `json:"signal"`
	Present  int     `json:"present"`
	SubScore float64 `json:"sub_score"`
	Points   float64 `json:"points"`
}

// SignalDiff is one signal's difference between candidate and baseline:
// Delta in the signal's own 0-1 measure, Points in score points. The
// Points of a decision's signals sum to the difference of the versions'
// mean scores over all their runs, less any optional signal only one of
// them had (left out of the comparison).
type SignalDiff struct {
	Signal    string  `json:"signal"`
	Baseline  float64 `json:"baseline"`
	Candidate float64 `json:"candidate"`
	Delta     float64 `json:"delta"`
	Points    float64 `json:"points"`
	// BaselineRuns and CandidateRuns count the runs where an optional
	// signal (verdict, checks, label) was present: it is absent from the others.
	BaselineRuns  int `json:"baseline_runs,omitempty"`
	CandidateRuns int `json:"candidate_runs,omitempty"`
}

// optionalSignal reports whether a signal is one of the optional ones,
// present only on some runs.
func optionalSignal(name string) bool { return fitness.IsOptional(name) }

// signalDiffs pairs two versions' signal means, largest effect first.
func signalDiffs(base, cand []SignalMean) []SignalDiff {
	bm := map[string]SignalMean{}
	for _, s := range base {
		bm[s.Signal] = s
	}
	cands := append([]SignalMean(nil), cand...)
	for _, b := range base {
		if !slices.ContainsFunc(cand, func(c SignalMean) bool { return c.Signal == b.Signal }) {
			cands = append(cands, SignalMean{Signal: b.Signal})
		}
	}
	var out []SignalDiff
	for _, c := range cands {
		b := bm[c.Signal]
		if b.Present == 0 && c.Present == 0 {
			continue
		}
		// An optional signal (a label, checks, a verdict) that one version
		// never had is left out: a version never labelled is not charged
		// the label its baseline had (issue 36 item 3).
		// One the candidate alone has stays as evidence, worth no points
		// ("label 0.00 (8 runs) vs none"): labelled failures are what
		// turned a decision, and the words say so.
		if optionalSignal(c.Signal) && c.Present == 0 {
			continue
		}
		d := SignalDiff{Signal: c.Signal, Baseline: round4(b.SubScore), Candidate: round4(c.SubScore),
			Delta: round4(c.SubScore - b.SubScore), Points: round2(c.Points - b.Points)}
		if optionalSignal(c.Signal) && b.Present == 0 {
			d.Baseline, d.Delta, d.Points = 0, 0, 0
		}
		if optionalSignal(c.Signal) {
			d.BaselineRuns, d.CandidateRuns = b.Present, c.Present
		}
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool { return math.Abs(out[i].Points) > math.Abs(out[j].Points) })
	return out
}

// signed formats x with its sign, a true minus, and prec decimals.
func signed(x float64, prec int) string {
	s := fmt.Sprintf("%+.*f", prec, x)
	if strings.HasPrefix(s, "-") {
		s = "−" + s[1:]
	}
	if strings.Trim(s, "+−0.") == "" {
		s = fmt.Sprintf("%.*f", prec, 0.0)
	}
	return s
}

// plain formats x with a true minus.
func plain(x float64, prec int) string {
	s := fmt.Sprintf("%.*f", prec, x)
	return strings.Replace(s, "-", "−", 1)
}

func versionName(s Sample, fallback string) string {
	if s.Seq > 0 {
		return fmt.Sprintf("v%d", s.Seq)
	}
	return fallback
}

// explain words a decision for a person: the verdict, both means, n, the
// difference with its interval in points, the rule and its threshold, how
// many more runs an open test needs, and the signals that made the
// difference.
func explain(d *Decision, o Options) string {
	cand := versionName(d.Candidate, "the candidate")
	base := versionName(d.Baseline, "the baseline")
	verdict := map[string]string{Accept: "accepted", Reject: "rejected", Undecided: "undecided"}[d.Outcome]
	switch d.Reason {
	case ReasonExploration:
		if d.Outcome == Accept {
			verdict = "kept for exploration"
		} else {
			verdict = "not kept"
		}
	case ReasonNoEvidence:
		verdict = "not kept"
	case ReasonSettled:
		verdict = "settled as the baseline"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s vs %s's %s (%s", cand, verdict, plain(d.CandidateMean, 1), base, plain(d.BaselineMean, 1), signed(d.Delta, 1))
	if sensibleInterval(d.Interval) {
		fmt.Fprintf(&b, ", %.0f%% interval %s … %s", 100*o.Confidence, signed(d.Interval[0], 1), signed(d.Interval[1], 1))
	}
	fmt.Fprintf(&b, ") after %d and %d runs", d.CandidateN, d.BaselineN)
	if d.Outcome == Undecided && d.Interval != [2]float64{} && !sensibleInterval(d.Interval) {
		fmt.Fprintf(&b, "; not enough runs to compare yet (%d and %d)", d.CandidateN, d.BaselineN)
	}
	fmt.Fprintf(&b, "; %s", plainRule(d, o, base))
	if d.Outcome == Undecided && d.NeededMore > 0 {
		fmt.Fprintf(&b, "; needs about %s", MoreRuns(d.NeededMore))
	}
	var sigs []string
	for _, s := range d.Signals {
		if optionalSignal(s.Signal) {
			// Present on some runs only: say on how many, since its
			// weight moves the others' points too.
			side := func(v float64, n int) string {
				if n == 0 {
					return "none"
				}
				return fmt.Sprintf("%s (%d runs)", plain(v, 2), n)
			}
			sigs = append(sigs, fmt.Sprintf("%s %s vs %s", SignalLabel(s.Signal), side(s.Candidate, s.CandidateRuns), side(s.Baseline, s.BaselineRuns)))
			continue
		}
		if math.Abs(s.Points) < 0.05 || len(sigs) == 3 {
			continue
		}
		unit := "pts"
		if math.Abs(s.Points) < 1.05 {
			unit = "pt"
		}
		sigs = append(sigs, fmt.Sprintf("%s %s = %s %s", SignalLabel(s.Signal), signed(s.Delta, 2), signed(s.Points, 1), unit))
	}
	if len(sigs) > 0 {
		b.WriteString("; " + strings.Join(sigs, ", "))
	}
	return b.String()
}

// MoreRuns says "1 more run" or "n more runs".
func MoreRuns(n int) string {
	if n == 1 {
		return "1 more run"
	}
	return fmt.Sprintf("%d more runs", n)
}

// runsWord says "1 run" or "n runs".
func runsWord(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}

// sensibleInterval reports whether an interval on a difference of 0-100
// scores is worth printing: one wider than the scale says only that the
// runs are too few.
func sensibleInterval(iv [2]float64) bool {
	return iv != [2]float64{} && iv[0] >= -100 && iv[1] <= 100
}

// SignalLabel is a fitness signal's name for a person. Every signal reads
// "higher is better", as its points do: error_rate's value is one minus
// the error rate, so it is called "error-free".
func SignalLabel(name string) string {
	switch name {
	case fitness.SignalErrorRate:
		return "error-free"
	case fitness.SignalStructure:
		return "structure"
	}
	return strings.ReplaceAll(name, "_", " ")
}

// plainRule says in a sentence, without statistics, why a decision went
// the way it did; ruleWords (the record's rule field) has the numbers.
func plainRule(d *Decision, o Options, base string) string {
	conf := fmt.Sprintf("%.0f%%", 100*o.Confidence)
	if d.Method == MethodSepa {
		switch d.Reason {
		case ReasonSignificant:
			return "it beats " + base + " by more than 5 points"
		case ReasonMarginal:
			return "it beats " + base
		case ReasonExploration:
			return fmt.Sprintf("it is less than 3 points behind %s, so it may be kept to explore (%.0f%% of the time)", base, 100*o.Exploration)
		}
		return "it is 3 or more points behind " + base
	}
	switch d.Reason {
	case ReasonBetter:
		return fmt.Sprintf("better than %s with %s confidence", base, conf)
	case ReasonWorse:
		return fmt.Sprintf("worse than %s with %s confidence", base, conf)
	case ReasonNoEvidence, ReasonExploration:
		return fmt.Sprintf("no clear difference after %d runs, so %s stays unless exploration keeps a candidate less than 3 points behind (%.0f%% of the time)", o.MaxSamples, base, 100*o.Exploration)
	}
	return fmt.Sprintf("not yet clearly better or worse than %s at %s confidence", base, conf)
}

// ruleWords says the rule of a decision and its threshold in words.
func ruleWords(d *Decision, o Options) string {
	conf := fmt.Sprintf("%.0f%%", 100*o.Confidence)
	if d.Method == MethodSepa {
		switch d.Reason {
		case ReasonSignificant:
			return "keep a candidate whose aggregate beats the baseline's by more than 5 points (sepa)"
		case ReasonMarginal:
			return "keep a candidate whose aggregate beats the baseline's (sepa)"
		case ReasonExploration:
			return fmt.Sprintf("a candidate less than 3 points behind is kept with probability %.0f%% (sepa)", 100*o.Exploration)
		}
		return "reject a candidate 3 or more points behind the baseline (sepa)"
	}
	l := d.Look
	if l == nil {
		return "wait for the evidence"
	}
	info := fmt.Sprintf("%.0f%% of the information of %d runs each", 100*l.Info, o.MaxSamples)
	switch d.Reason {
	case ReasonBetter:
		return fmt.Sprintf("keep a candidate better with %s confidence: its z %s reached the accept line %s at %s", conf, plain(l.Z, 2), plain(l.Bound, 2), info)
	case ReasonWorse:
		return fmt.Sprintf("reject a candidate worse with %s confidence: its z %s reached the reject line %s at %s", conf, plain(l.Z, 2), plain(-l.RejectBound, 2), info)
	case ReasonNoEvidence, ReasonExploration:
		return fmt.Sprintf("after max_samples (%d runs) without a clear difference (z %s between %s and %s) the baseline stays, unless exploration keeps a candidate less than 3 points behind (probability %.0f%%)",
			o.MaxSamples, plain(l.Z, 2), plain(-l.RejectBound, 2), plain(l.Bound, 2), 100*o.Exploration)
	}
	return fmt.Sprintf("decide once z leaves (%s, %s), the lines for %s confidence at %s; now z %s", plain(-l.RejectBound, 2), plain(l.Bound, 2), conf, info, plain(l.Z, 2))
}

// signalSums accumulates a version's fitness signals, in rubric order.
type signalSums struct {
	names   []string
	present []int
	sub     []float64
	pts     []float64
}

// add sums the signals by name: the optional ones (checks, label) are
// rows only where present, so their place differs between executions.
func (s *signalSums) add(sigs []fitness.Signal) {
	for _, g := range sigs {
		i := slices.Index(s.names, g.Signal)
		if i < 0 {
			i = len(s.names)
			s.names = append(s.names, g.Signal)
			s.present = append(s.present, 0)
			s.sub = append(s.sub, 0)
			s.pts = append(s.pts, 0)
		}
		if !g.Present {
			continue
		}
		s.present[i]++
		s.sub[i] += g.SubScore
		s.pts[i] += g.Contribution
	}
}

// means are the signal means over n scored runs.
func (s *signalSums) means(n int) []SignalMean {
	if n == 0 {
		return nil
	}
	out := make([]SignalMean, len(s.names))
	for i, name := range s.names {
		m := SignalMean{Signal: name, Present: s.present[i], Points: round4(s.pts[i] / float64(n))}
		if s.present[i] > 0 {
			m.SubScore = round4(s.sub[i] / float64(s.present[i]))
		}
		out[i] = m
	}
	return out
}

// Pending is what the views show of an undecided candidate.
type Pending struct {
	Candidate   string  `json:"candidate"`
	NeededMore  int     `json:"needed_more"`
	Delta       float64 `json:"delta"`
	Explanation string  `json:"explanation"`
}

// pendingOf is the pending look of an undecided decision, nil otherwise.
func pendingOf(candidate string, d *Decision) *Pending {
	if d.Outcome != Undecided {
		return nil
	}
	return &Pending{Candidate: candidate, NeededMore: d.NeededMore, Delta: d.Delta, Explanation: d.Explanation}
}

// signalWords words the per-signal differences between a version rolled
// back and the one restored ("" when nothing differs), for a safety
// rule's record.
func (e *Engine) signalWords(key string, from, to *store.Version, seq uint64) string {
	if to == nil {
		return ""
	}
	fs, err1 := e.sampleOf(key, from.Hash, seq)
	ts, err2 := e.sampleOf(key, to.Hash, seq)
	if err1 != nil || err2 != nil {
		return ""
	}
	var parts []string
	for _, s := range signalDiffs(ts.sig.means(ts.n), fs.sig.means(fs.n)) {
		if math.Abs(s.Points) < 0.05 || len(parts) == 3 {
			continue
		}
		unit := "pts"
		if math.Abs(s.Points) < 1.05 {
			unit = "pt"
		}
		parts = append(parts, fmt.Sprintf("%s %s = %s %s", SignalLabel(s.Signal), signed(s.Delta, 2), signed(s.Points, 1), unit))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("; v%d against v%d: %s", from.Seq, to.Seq, strings.Join(parts, ", "))
}

// Evidence is a safety rollback's numbers, in JSON: the version rolled
// back and the one restored (score, grade, runs, failed tool calls), the
// difference of their scores in points, and the per-signal differences.
type Evidence struct {
	From    VersionEvidence `json:"from"`
	To      VersionEvidence `json:"to"`
	Delta   float64         `json:"delta"`
	Signals []SignalDiff    `json:"signals,omitempty"`
}

// VersionEvidence is one version's numbers at the rollback.
type VersionEvidence struct {
	Version  int     `json:"version"`
	Hash     string  `json:"hash"`
	Score    float64 `json:"score"`
	Grade    string  `json:"grade"`
	N        int     `json:"n"`
	FailRate float64 `json:"fail_rate"`
}

// evidence is the numbers of a safety rollback from the engine's cached
// samples (nil when they are not cached: a manual rollback).
func (e *Engine) evidence(key string, from, to *store.Version) *Evidence {
	if from == nil || to == nil {
		return nil
	}
	fs, ok1 := e.samples[key+"\x00"+from.Hash]
	ts, ok2 := e.samples[key+"\x00"+to.Hash]
	if !ok1 || !ok2 {
		return nil
	}
	ve := func(v *store.Version, s *versionSample) VersionEvidence {
		a := s.aggregate()
		return VersionEvidence{Version: v.Seq, Hash: v.Hash, Score: round2(a.Value), Grade: string(fitness.GradeOf(a.Value)), N: a.N, FailRate: round4(s.failRate())}
	}
	ev := &Evidence{From: ve(from, fs), To: ve(to, ts), Signals: signalDiffs(ts.sig.means(ts.n), fs.sig.means(fs.n))}
	ev.Delta = round2(ev.From.Score - ev.To.Score)
	return ev
}
