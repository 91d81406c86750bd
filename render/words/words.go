// Package words writes package decide's decisions in sentences: the
// verdict, both versions' aggregates, the runs, their difference, the
// rule in plain words, the runs still needed and the signals that made
// the difference (Explain), and the shared phrasings of runs and signals.
// The decision's numbers are decide's; only the words are here, so that
// the engine's records, the CLI, the dashboard and the team's decisions
// say the same thing the same way.
package words

import (
	"fmt"
	"math"
	"strings"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/fitness"
)

// Explain writes d's sentences into it: Words (what a person reads, the
// same as Explanation), Rule (the rule and its threshold, with the
// statistics) and Detail (the test's own account: z and its bounds).
func Explain(d *decide.Decision) {
	o := d.Options
	switch d.Reason {
	case decide.ReasonTooFew, decide.ReasonSettled, decide.ReasonThinBaseline, decide.ReasonModelsDiffer, decide.ReasonModelsSettled:
		d.Rule = fmt.Sprintf("decide once both versions have min_samples (%d) runs, or settle at max_samples (%d)", o.MinSamples, o.MaxSamples)
		d.Words = waiting(d)
		d.Explanation, d.Detail = d.Words, ""
		return
	}
	if d.Method == decide.MethodSepa {
		d.Detail = sepaDetail(d)
	} else {
		d.Detail = sequentialDetail(d)
	}
	d.Rule = Rule(d)
	d.Explanation = explain(d)
	if d.ThinBaseline {
		d.Explanation += fmt.Sprintf("; judged against the baseline's %d runs only (thin: fewer than min_samples %d)", d.Baseline.N, o.MinSamples)
	}
	d.Words = d.Explanation
}

// waiting words a decision made before any comparison: too few runs of
// the candidate, or a baseline too thin to compare with.
func waiting(d *decide.Decision) string {
	o := d.Options
	base, cand := d.Baseline, d.Candidate
	switch d.Reason {
	case decide.ReasonModelsDiffer:
		c, b := versionName(cand, "the candidate"), versionName(base, "the baseline")
		return fmt.Sprintf("%s ran on %s, %s on %s: not compared yet, since a model change is not a prompt change; they are compared once both have 2 runs on the same model, else %s is settled as the baseline after %d runs; needs about %s",
			c, ModelMix(d.Strata, false), b, ModelMix(d.Strata, true), c, o.MaxSamples, MoreRuns(d.NeededMore))
	case decide.ReasonModelsSettled:
		c, b := versionName(cand, "the candidate"), versionName(base, "the baseline")
		return fmt.Sprintf("settled: %s ran on %s, %s on %s, no model in common after %d runs: %s becomes the baseline, not judged better or worse",
			c, ModelMix(d.Strata, false), b, ModelMix(d.Strata, true), cand.N, c)
	case decide.ReasonSettled:
		return fmt.Sprintf("settled: the candidate held %.2f over %d runs; the baseline has %s, too few to compare with (at least %d are needed), and cannot gain more while the candidate is in the file: the candidate becomes the baseline",
			cand.Mean, cand.N, Runs(base.N), o.MinSamples)
	case decide.ReasonThinBaseline:
		return fmt.Sprintf("the baseline has %s, too few to compare with (at least %d are needed): the candidate is settled after %d runs; needs about %s",
			Runs(base.N), o.MinSamples, o.MaxSamples, MoreRuns(d.NeededMore))
	}
	return fmt.Sprintf("waiting for %d scored executions of each version (baseline %d, candidate %d): needs about %s",
		o.MinSamples, base.N, cand.N, MoreRuns(d.NeededMore))
}

// sepaDetail is the seed's rule's own account of a decision, with the
// interval of its difference when it is sensible.
func sepaDetail(d *decide.Decision) string {
	s := sepaRule(d)
	if sensibleInterval(d.Interval) {
		s += fmt.Sprintf("; %.0f%% interval %s … %s", 100*d.Options.Confidence, Signed(d.Interval[0], 1), Signed(d.Interval[1], 1))
	}
	return s
}

func sepaRule(d *decide.Decision) string {
	b, c := d.Baseline, d.Candidate
	switch d.Reason {
	case decide.ReasonSignificant:
		return fmt.Sprintf("candidate aggregate %.2f beats baseline %.2f by %.2f > 5 points (n %d vs %d)", c.Aggregate, b.Aggregate, d.Delta, c.N, b.N)
	case decide.ReasonMarginal:
		return fmt.Sprintf("candidate aggregate %.2f beats baseline %.2f by %.2f points (n %d vs %d)", c.Aggregate, b.Aggregate, d.Delta, c.N, b.N)
	case decide.ReasonExploration:
		x := draw(d)
		if d.Outcome == decide.Accept {
			return fmt.Sprintf("candidate aggregate %.2f is %.2f points behind baseline %.2f (within 3): kept for exploration, draw %.4f < %.2f", c.Aggregate, -d.Delta, b.Aggregate, x, d.Options.Exploration)
		}
		return fmt.Sprintf("candidate aggregate %.2f is %.2f points behind baseline %.2f (within 3): not explored, draw %.4f ≥ %.2f", c.Aggregate, -d.Delta, b.Aggregate, x, d.Options.Exploration)
	}
	return fmt.Sprintf("candidate aggregate %.2f is %.2f points below baseline %.2f", c.Aggregate, -d.Delta, b.Aggregate)
}

func draw(d *decide.Decision) float64 {
	if d.Draw == nil {
		return math.NaN()
	}
	return *d.Draw
}

// sequentialDetail is the sequential test's own account of a decision:
// the look, z and the lines it is between or reached.
func sequentialDetail(d *decide.Decision) string {
	l := d.Look
	if l == nil {
		return ""
	}
	mc, mb, delta, iv := d.CandidateMean, d.BaselineMean, d.Delta, d.Interval
	at := fmt.Sprintf("at %d candidate and %d baseline executions (information %.0f%%)", l.CandN, l.BaseN, 100*l.Info)
	within := fmt.Sprintf("z=%.2f within (-%.2f, %.2f)", l.Z, l.RejectBound, l.Bound)
	switch {
	case d.Reason == decide.ReasonBetter:
		return fmt.Sprintf("%s: candidate mean %.2f beats baseline %.2f by %.2f (z=%.2f ≥ %.2f); difference in [%.2f, %.2f]",
			at, mc, mb, delta, l.Z, l.Bound, iv[0], iv[1])
	case d.Reason == decide.ReasonWorse:
		return fmt.Sprintf("%s: candidate mean %.2f trails baseline %.2f by %.2f (z=%.2f ≤ -%.2f); difference in [%.2f, %.2f]",
			at, mc, mb, -delta, l.Z, l.RejectBound, iv[0], iv[1])
	case d.Reason == decide.ReasonExploration:
		return fmt.Sprintf("%s: no clear difference (Δ=%.2f, %s); kept for exploration, draw %.4f < %.2f",
			at, delta, within, draw(d), d.Options.Exploration)
	case d.Reason == decide.ReasonNoEvidence && d.Draw != nil:
		return fmt.Sprintf("%s: no clear difference (Δ=%.2f, %s; difference in [%.2f, %.2f]): the baseline stays (not explored, draw %.4f ≥ %.2f)",
			at, delta, within, iv[0], iv[1], *d.Draw, d.Options.Exploration)
	case d.Reason == decide.ReasonNoEvidence:
		return fmt.Sprintf("%s: no clear difference (Δ=%.2f, %s; difference in [%.2f, %.2f]): the baseline stays",
			at, delta, within, iv[0], iv[1])
	}
	return fmt.Sprintf("%s: Δ=%.2f, %s; about %d more candidate executions (at most %d)",
		at, delta, within, d.NeededMore, d.Options.MaxSamples-l.CandN)
}

// explain words a decision for a person: the verdict, both means, n, the
// difference with its interval in points, the rule and its threshold, how
// many more runs an open test needs, and the signals that made the
// difference.
func explain(d *decide.Decision) string {
	cand := versionName(d.Candidate, "the candidate")
	base := versionName(d.Baseline, "the baseline")
	verdict := map[string]string{decide.Accept: "accepted", decide.Reject: "rejected", decide.Undecided: "undecided"}[d.Outcome]
	switch d.Reason {
	case decide.ReasonExploration:
		if d.Outcome == decide.Accept {
			verdict = "kept for exploration"
		} else {
			verdict = "not kept"
		}
	case decide.ReasonNoEvidence:
		verdict = "not kept"
	case decide.ReasonSettled:
		verdict = "settled as the baseline"
	}
	// One comparison per version (issue 36 item 2): the versions'
	// aggregates, the numbers `sepad versions` and `grades` show, and
	// their difference, against the baseline named. The test's own
	// numbers (the runs' means, the interval) are in Detail (-v, --json).
	mc, mb := d.CandidateMean, d.BaselineMean
	if d.Candidate.Aggregate != 0 && d.Baseline.Aggregate != 0 { // else a record from before aggregates were sampled
		mc, mb = d.Candidate.Aggregate, d.Baseline.Aggregate
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s vs %s's %s (aggregates, %s) after %d and %d runs", cand, verdict, Plain(mc, 1), base, Plain(mb, 1), Signed(mc-mb, 1),
		d.CandidateN, d.BaselineN)
	if d.Outcome == decide.Undecided && d.Interval != [2]float64{} && !sensibleInterval(d.Interval) {
		fmt.Fprintf(&b, "; not enough runs to compare yet (%d and %d)", d.CandidateN, d.BaselineN)
	}
	fmt.Fprintf(&b, "; %s", plainRule(d, base))
	if w := strataWords(d.Strata); w != "" {
		b.WriteString("; " + w)
	}
	if d.Outcome == decide.Undecided && d.NeededMore > 0 {
		fmt.Fprintf(&b, "; needs about %s", MoreRuns(d.NeededMore))
	}
	var sigs []string
	for _, s := range d.Signals {
		if fitness.IsOptional(s.Signal) {
			// Present on some runs only: say on how many, since its
			// weight moves the others' points too.
			side := func(v float64, n int) string {
				if n == 0 {
					return "none"
				}
				return fmt.Sprintf("%s (%s)", Plain(v, 2), Runs(n))
			}
			sigs = append(sigs, fmt.Sprintf("%s %s vs %s", SignalLabel(s.Signal), side(s.Candidate, s.CandidateRuns), side(s.Baseline, s.BaselineRuns)))
			continue
		}
		if len(sigs) == 3 {
			continue
		}
		if w := SignalPoints(s); w != "" {
			sigs = append(sigs, w)
		}
	}
	if len(sigs) > 0 {
		b.WriteString("; " + strings.Join(sigs, ", "))
	}
	return b.String()
}

// SignalPoints words one signal's difference and its points ("tool
// success rate −0.21 = −7.3 pts"), "" when it moved the score by less
// than 0.05 points.
func SignalPoints(s decide.SignalDiff) string {
	if math.Abs(s.Points) < 0.05 || math.Abs(s.Delta) < 0.005 {
		return "" // a change that shows as 0.0 points or as ±0.00
	}
	unit := "pts"
	if math.Abs(s.Points) < 1.05 {
		unit = "pt"
	}
	return fmt.Sprintf("%s %s = %s %s", SignalLabel(s.Signal), Signed(s.Delta, 2), Signed(s.Points, 1), unit)
}

// plainRule says in a sentence, without statistics, why a decision went
// the way it did; Rule (the record's rule field) has the numbers.
func plainRule(d *decide.Decision, base string) string {
	o := d.Options
	conf := fmt.Sprintf("%.0f%%", 100*o.Confidence)
	if d.Method == decide.MethodSepa {
		switch d.Reason {
		case decide.ReasonSignificant:
			return "it beats " + base + " by more than 5 points"
		case decide.ReasonMarginal:
			return "it beats " + base
		case decide.ReasonExploration:
			return fmt.Sprintf("it is less than 3 points behind %s, so it may be kept to explore (%.0f%% of the time)", base, 100*o.Exploration)
		}
		return "it is 3 or more points behind " + base
	}
	switch d.Reason {
	case decide.ReasonBetter:
		return fmt.Sprintf("better than %s with %s confidence", base, conf)
	case decide.ReasonWorse:
		return fmt.Sprintf("worse than %s with %s confidence", base, conf)
	case decide.ReasonNoEvidence, decide.ReasonExploration:
		return fmt.Sprintf("no clear difference after %d runs, so %s stays unless exploration keeps a candidate less than 3 points behind (%.0f%% of the time)", o.MaxSamples, base, 100*o.Exploration)
	}
	return fmt.Sprintf("not yet clearly better or worse than %s at %s confidence", base, conf)
}

// Rule says the rule of a decision and its threshold in words, with the
// statistics (the record's rule field).
func Rule(d *decide.Decision) string {
	o := d.Options
	conf := fmt.Sprintf("%.0f%%", 100*o.Confidence)
	if d.Method == decide.MethodSepa {
		switch d.Reason {
		case decide.ReasonSignificant:
			return "keep a candidate whose aggregate beats the baseline's by more than 5 points (sepa)"
		case decide.ReasonMarginal:
			return "keep a candidate whose aggregate beats the baseline's (sepa)"
		case decide.ReasonExploration:
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
	case decide.ReasonBetter:
		return fmt.Sprintf("keep a candidate better with %s confidence: its z %s reached the accept line %s at %s", conf, Plain(l.Z, 2), Plain(l.Bound, 2), info)
	case decide.ReasonWorse:
		return fmt.Sprintf("reject a candidate worse with %s confidence: its z %s reached the reject line %s at %s", conf, Plain(l.Z, 2), Plain(-l.RejectBound, 2), info)
	case decide.ReasonNoEvidence, decide.ReasonExploration:
		return fmt.Sprintf("after max_samples (%d runs) without a clear difference (z %s between %s and %s) the baseline stays, unless exploration keeps a candidate less than 3 points behind (probability %.0f%%)",
			o.MaxSamples, Plain(l.Z, 2), Plain(-l.RejectBound, 2), Plain(l.Bound, 2), 100*o.Exploration)
	}
	return fmt.Sprintf("decide once z leaves (%s, %s), the lines for %s confidence at %s; now z %s", Plain(-l.RejectBound, 2), Plain(l.Bound, 2), conf, info, Plain(l.Z, 2))
}

// Signed formats x with its sign, a true minus, and prec decimals.
func Signed(x float64, prec int) string {
	s := fmt.Sprintf("%+.*f", prec, x)
	if strings.HasPrefix(s, "-") {
		s = "−" + s[1:]
	}
	if strings.Trim(s, "+−0.") == "" {
		s = fmt.Sprintf("%.*f", prec, 0.0)
	}
	return s
}

// Plain formats x with a true minus.
func Plain(x float64, prec int) string {
	s := fmt.Sprintf("%.*f", prec, x)
	return strings.Replace(s, "-", "−", 1)
}

func versionName(s decide.Sample, fallback string) string {
	if s.Seq > 0 {
		return fmt.Sprintf("v%d", s.Seq)
	}
	return fallback
}

// MoreRuns says "1 more run" or "n more runs".
func MoreRuns(n int) string {
	if n == 1 {
		return "1 more run"
	}
	return fmt.Sprintf("%d more runs", n)
}

// Runs says "1 run" or "n runs".
func Runs(n int) string {
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

// ModelName is a model's name for a person: "" is an unknown model.
func ModelName(m string) string {
	if m == "" {
		return "an unknown model"
	}
	return m
}

// ModelMix words one side's models in a decision's strata: "opus", or
// "opus (12 runs) and sonnet (3 runs)". baseline picks the side.
func ModelMix(ss []decide.Stratum, baseline bool) string {
	var parts []string
	n := 0
	for _, s := range ss {
		k := s.CandidateN
		if baseline {
			k = s.BaselineN
		}
		if k > 0 {
			n++
			parts = append(parts, fmt.Sprintf("%s (%s)", ModelName(s.Model), Runs(k)))
		}
	}
	if n == 1 {
		return strings.SplitN(parts[0], " (", 2)[0]
	}
	if n == 0 {
		return "no model"
	}
	return strings.Join(parts[:n-1], ", ") + " and " + parts[n-1]
}

// strataWords says which models a decision compared the versions on,
// when more than one model ran them: "compared model by model: opus 32
// and 8 runs, sonnet 8 and 32; left out: haiku (3 runs of the candidate)".
func strataWords(ss []decide.Stratum) string {
	if len(ss) < 2 {
		return ""
	}
	var in, out []string
	for _, s := range ss {
		if s.Compared {
			in = append(in, fmt.Sprintf("%s %d and %d runs", ModelName(s.Model), s.CandidateN, s.BaselineN))
			continue
		}
		var who []string
		if s.CandidateN > 0 {
			who = append(who, fmt.Sprintf("%s of the candidate", Runs(s.CandidateN)))
		}
		if s.BaselineN > 0 {
			who = append(who, fmt.Sprintf("%s of the baseline", Runs(s.BaselineN)))
		}
		out = append(out, fmt.Sprintf("%s (%s)", ModelName(s.Model), strings.Join(who, ", ")))
	}
	w := "compared model by model: " + strings.Join(in, ", ")
	if len(out) > 0 {
		w += "; left out, no runs of both on it: " + strings.Join(out, ", ")
	}
	return w
}
