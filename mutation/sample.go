package mutation

import (
	"slices"

	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
)

// keepFor is how many scores of each end of a version's history a
// decision with o can read: max_samples (or min_samples, or the default
// max_samples, as Options.normalised settles them), at least keepDefault.
func keepFor(o EngineOptions) int {
	return max(keepDefault, o.Decide.MaxSamples, o.Decide.MinSamples, decide.DefaultOptions().MaxSamples)
}

// versionSample is a version's scored executions in commit order: the
// counts and accumulators over all of them, but only the oldest keep
// scores and the newest keep (a ring), which is all a decision and an
// aggregate read (the candidate's oldest max_samples, the baseline's
// newest max_samples, the newest aggregate window; keep is at least each
// of these). Its memory is bounded by keep, not by the version's number
// of executions.
type versionSample struct {
	// keep bounds first and last (at least 1; 0 means keepDefault).
	keep int
	// first holds the oldest scores, up to keep; last the ones after
	// them, up to keep, then a ring whose oldest entry is at next.
	first, last []float64
	next        int
	// firstM and lastM are the models of first and last (the run's
	// usage.Model()), in the same places.
	firstM, lastM []string
	// models counts the runs that named a model, byModel the runs of
	// each model.
	models        int
	byModel       map[string]int
	calls, failed int
	// overClaims counts the executions whose answer claimed more than
	// their calls showed (package integrity).
	overClaims int
	// n, mean and m2 are Welford's accumulators over scores, so that an
	// aggregate costs the window, not the history.
	n        int
	mean, m2 float64
	o        aggregate.Options
	// rubric is the rubric version whose scores count (the store's).
	rubric string
	// sig sums each fitness signal over the scores (explain.go).
	sig signalSums
}

func (v *versionSample) add(x *record.Scored) {
	rubric := v.rubric
	if rubric == "" {
		rubric = fitness.RubricVersion
	}
	if !x.Result.Scored || x.Result.RubricVersion != rubric {
		return
	}
	sc := x.Result.Score
	if v.keep <= 0 {
		v.keep = keepDefault
	}
	model := x.Exec.Usage.Model()
	if model != "" {
		v.models++
		if v.byModel == nil {
			v.byModel = map[string]int{}
		}
		v.byModel[model]++
	}
	switch {
	case len(v.first) < v.keep:
		v.first, v.firstM = append(v.first, sc), append(v.firstM, model)
	case len(v.last) < v.keep:
		v.last, v.lastM = append(v.last, sc), append(v.lastM, model)
	default:
		v.last[v.next], v.lastM[v.next] = sc, model
		v.next = (v.next + 1) % v.keep
	}
	v.n++
	d := sc - v.mean
	v.mean += d / float64(v.n)
	v.m2 += d * (sc - v.mean)
	v.calls += len(x.Exec.Calls)
	v.failed += x.Exec.Failures()
	if x.Integrity != nil && x.Integrity.OverClaim {
		v.overClaims++
	}
	v.sig.add(x.Result.Signals)
}

// omitted is how many scores were added and not kept (between first and
// last).
func (v *versionSample) omitted() int { return v.n - len(v.first) - len(v.last) }

// newestFirst returns the kept scores, newest first: all of them while
// omitted is 0, else the newest keep followed by the oldest keep.
func (v *versionSample) newestFirst() []float64 {
	out := make([]float64, 0, len(v.first)+len(v.last))
	for i := range v.last {
		out = append(out, v.last[(v.next+len(v.last)-1-i)%len(v.last)])
	}
	for i := len(v.first) - 1; i >= 0; i-- {
		out = append(out, v.first[i])
	}
	return out
}

// newestModels returns the models of newestFirst's scores, in its order;
// nil when no run named a model.
func (v *versionSample) newestModels() []string {
	if v.models == 0 {
		return nil
	}
	out := make([]string, 0, len(v.firstM)+len(v.lastM))
	for i := range v.lastM {
		out = append(out, v.lastM[(v.next+len(v.lastM)-1-i)%len(v.lastM)])
	}
	for i := len(v.firstM) - 1; i >= 0; i-- {
		out = append(out, v.firstM[i])
	}
	return out
}

// modelNames are the models of the version's runs, sorted (nil when none
// named one).
func (v *versionSample) modelNames() []string {
	if len(v.byModel) == 0 {
		return nil
	}
	out := make([]string, 0, len(v.byModel))
	for m := range v.byModel {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// aggregate is the version's aggregate, built as an aggregate.State (the
// same accumulation as the store's, equal to aggregate.Compute over
// all its scores newest first) from the accumulators and the newest
// window of scores.
func (v *versionSample) aggregate() aggregate.Aggregate {
	w := v.o.Window
	if w <= 0 {
		w = 100 // aggregate.Options' default
	}
	recent := v.newestFirst()
	recent = recent[:min(w, len(recent))]
	st := aggregate.State{N: v.n, Mean: v.mean, M2: v.m2, Recent: recent}
	return st.Aggregate(v.o)
}

func (v *versionSample) failRate() float64 {
	if v.calls == 0 {
		return 0
	}
	return float64(v.failed) / float64(v.calls)
}

func (v *versionSample) sample(ver *record.Version) decide.Sample {
	a := v.aggregate()
	return decide.Sample{Hash: ver.Hash, Seq: ver.Seq, N: a.N, Aggregate: a.Value, Mean: a.Mean, SD: a.SD, FailRate: v.failRate(), Scores: v.newestFirst(), Models: v.newestModels(),
		Omitted: v.omitted(), Signals: v.sig.means(v.n), OverClaims: v.overClaims}
}

// sampleOf returns the cached sample of a version, loading from the store
// the executions committed before seq on first use (after a restart, the
// version's whole history: walked in chunks, oldest first, so that only a
// chunk of it is decoded at a time).
func (e *Engine) sampleOf(key, version string, seq uint64) (*versionSample, error) {
	ck := key + "\x00" + version
	if s, ok := e.samples[ck]; ok {
		return s, nil
	}
	ao := e.db.AggregateOptions()
	s := &versionSample{o: ao, keep: max(e.keep, ao.Window), rubric: e.db.Rubric()}
	if seq > 1 {
		err := e.db.EachOfVersion(key, version, seq-1, func(x *record.Scored) error {
			s.add(x)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	e.samples[ck] = s
	return s, nil
}
