package decide

import (
	"math"
	"slices"
	"sort"
)

// A model change is not a prompt change (issue 37 item 3): people switch
// models mid-session and between sessions, and a model moves the scores
// as much as an edit does. When the runs of both versions name the model
// that answered them (Sample.Models), the sequential method compares the
// versions within each model and pools those differences (a stratified
// estimate: each model weighted by its effective number of runs), so a
// switch of model is neither credited to nor blamed on the prompt. Runs
// of a model only one version has, or of no known model, are left out;
// when no model has runs of both, nothing is compared: the decision waits
// (ReasonModelsDiffer) and, at max_samples, settles the candidate as the
// baseline without saying it is better (ReasonModelsSettled).

// Stratum is one model's runs in a comparison: how many of each version's
// runs it had, their means, and whether they were compared (both versions
// have at least two runs on it).
type Stratum struct {
	// Model is the model that answered (several joined by "+" when a
	// run's model changed within it; "" unknown).
	Model         string  `json:"model"`
	BaselineN     int     `json:"baseline_n"`
	CandidateN    int     `json:"candidate_n"`
	BaselineMean  float64 `json:"baseline_mean"`
	CandidateMean float64 `json:"candidate_mean"`
	Compared      bool    `json:"compared"`
}

// stratum is a Stratum with its scores, while deciding.
type stratum struct {
	model  string
	bs, cs []float64
}

// modelsOf returns s's models for its scores when it names them (one per
// score), else nil.
func modelsOf(scores []float64, models []string) []string {
	if len(models) != len(scores) {
		return nil
	}
	return models
}

func anyKnown(models []string) bool {
	return slices.ContainsFunc(models, func(m string) bool { return m != "" })
}

// stratify groups the compared windows' scores by model. It returns nil
// when model does not matter: either side names no model (an old record,
// a run whose transcript was not read), so the runs are compared as one.
func stratify(bs []float64, bm []string, cs []float64, cm []string) []stratum {
	bm, cm = modelsOf(bs, bm), modelsOf(cs, cm)
	if !anyKnown(bm) || !anyKnown(cm) {
		return nil
	}
	by := map[string]*stratum{}
	var order []string
	get := func(m string) *stratum {
		if s, ok := by[m]; ok {
			return s
		}
		by[m] = &stratum{model: m}
		order = append(order, m)
		return by[m]
	}
	for i, x := range bs {
		s := get(bm[i])
		s.bs = append(s.bs, x)
	}
	for i, x := range cs {
		s := get(cm[i])
		s.cs = append(s.cs, x)
	}
	out := make([]stratum, 0, len(order))
	for _, m := range order {
		out = append(out, *by[m])
	}
	return out
}

// compared reports whether a stratum's runs are compared: a known model
// with two runs of each version at least (a spread needs two).
func (s stratum) compared() bool { return s.model != "" && len(s.bs) >= 2 && len(s.cs) >= 2 }

// estimate is a comparison's numbers: the difference of means, its
// standard error, the degrees of freedom of the t to z mapping, the
// effective number of runs, and the means and spreads and counts that
// neededMore projects from.
type estimate struct {
	delta, se, df, neff float64
	mb, mc, sb, sc      float64
	nb, nc              int
}

// pooled is the comparison of two windows as one.
func pooled(bs, cs []float64, o Options) estimate {
	mb, sb := MeanSD(bs)
	mc, sc := MeanSD(cs)
	sb, sc = math.Max(sb, o.SDFloor), math.Max(sc, o.SDFloor)
	nb, nc := len(bs), len(cs)
	// Degrees of freedom: the conservative min(n_b, n_c) - 1 rather than
	// Welch–Satterthwaite, which overstates them when a small baseline's
	// spread dominates (5 baseline scores against 60: 5.6% false accepts
	// instead of at most 5%; docs/decisions.md).
	return estimate{delta: mc - mb, se: math.Sqrt(sb*sb/float64(nb) + sc*sc/float64(nc)), df: float64(min(nb, nc) - 1),
		neff: 1 / (1/float64(nb) + 1/float64(nc)), mb: mb, mc: mc, sb: sb, sc: sc, nb: nb, nc: nc}
}

// stratified pools the within-model comparisons of the compared strata,
// each weighted by its effective number of runs w = n_b·n_c/(n_b+n_c):
// Δ = Σ w·Δ_m / Σ w, SE² = Σ w²·SE_m² / (Σ w)². With one stratum it is
// the pooled comparison. The degrees of freedom add up; the means are
// the strata's, weighted alike, so that they differ by Δ. ok is false
// when no stratum is compared.
func stratified(ss []stratum, o Options) (e estimate, ok bool) {
	var w, dsum, vsum, bsum, csum, df float64
	var big estimate
	for _, s := range ss {
		if !s.compared() {
			continue
		}
		p := pooled(s.bs, s.cs, o)
		w += p.neff
		dsum += p.neff * p.delta
		vsum += p.neff * p.neff * p.se * p.se
		bsum += p.neff * p.mb
		csum += p.neff * p.mc
		df += p.df
		e.nb += p.nb
		e.nc += p.nc
		if p.neff > big.neff {
			big = p
		}
	}
	if w == 0 {
		return e, false
	}
	e.delta, e.se, e.df, e.neff = dsum/w, math.Sqrt(vsum)/w, df, w
	e.mb, e.mc = bsum/w, csum/w
	// neededMore projects from the model with the most runs of both.
	e.sb, e.sc = big.sb, big.sc
	return e, true
}

// strataOf is the record of the strata, compared first, then by runs.
func strataOf(ss []stratum) []Stratum {
	out := make([]Stratum, 0, len(ss))
	for _, s := range ss {
		mb, _ := MeanSD(s.bs)
		mc, _ := MeanSD(s.cs)
		out = append(out, Stratum{Model: s.model, BaselineN: len(s.bs), CandidateN: len(s.cs),
			BaselineMean: round2(mb), CandidateMean: round2(mc), Compared: s.compared()})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Compared != out[j].Compared {
			return out[i].Compared
		}
		return out[i].BaselineN+out[i].CandidateN > out[j].BaselineN+out[j].CandidateN
	})
	return out
}
