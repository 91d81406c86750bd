package mutation

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/render/words"
)

// signalSums accumulates a version's fitness signals, in rubric order.
type signalSums struct {
	names   []string
	present []int
	sub     []float64
	pts     []float64
	wt      []float64
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
			s.wt = append(s.wt, 0)
		}
		if !g.Present {
			continue
		}
		s.present[i]++
		s.sub[i] += g.SubScore
		s.pts[i] += g.Contribution
		s.wt[i] += g.EffectiveWeight
	}
}

// means are the signal means over n scored runs.
func (s *signalSums) means(n int) []decide.SignalMean {
	if n == 0 {
		return nil
	}
	out := make([]decide.SignalMean, len(s.names))
	for i, name := range s.names {
		m := decide.SignalMean{Signal: name, Present: s.present[i], Points: round4(s.pts[i] / float64(n)), Optional: fitness.IsOptional(name)}
		if s.present[i] > 0 {
			m.SubScore = round4(s.sub[i] / float64(s.present[i]))
			m.Weight = round4(s.wt[i] / float64(s.present[i]))
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
func pendingOf(candidate string, d *decide.Decision) *Pending {
	if d.Outcome != decide.Undecided {
		return nil
	}
	return &Pending{Candidate: candidate, NeededMore: d.NeededMore, Delta: d.Delta, Explanation: d.Explanation}
}

// signalWords words the per-signal differences between a version rolled
// back and the one restored ("" when nothing differs), for a safety
// rule's record.
func (e *Engine) signalWords(key string, from, to *record.Version, seq uint64) string {
	if to == nil {
		return ""
	}
	fs, err1 := e.sampleOf(key, from.Hash, seq)
	ts, err2 := e.sampleOf(key, to.Hash, seq)
	if err1 != nil || err2 != nil {
		return ""
	}
	var parts []string
	for _, s := range decide.SignalDiffs(ts.sig.means(ts.n), fs.sig.means(fs.n)) {
		if w := words.SignalPoints(s); w != "" && len(parts) < 3 {
			parts = append(parts, w)
		}
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
	From    VersionEvidence     `json:"from"`
	To      VersionEvidence     `json:"to"`
	Delta   float64             `json:"delta"`
	Signals []decide.SignalDiff `json:"signals,omitempty"`
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
func (e *Engine) evidence(key string, from, to *record.Version) *Evidence {
	if from == nil || to == nil {
		return nil
	}
	fs, ok1 := e.samples[key+"\x00"+from.Hash]
	ts, ok2 := e.samples[key+"\x00"+to.Hash]
	if !ok1 || !ok2 {
		return nil
	}
	ve := func(v *record.Version, s *versionSample) VersionEvidence {
		a := s.aggregate()
		return VersionEvidence{Version: v.Seq, Hash: v.Hash, Score: round2(a.Value), Grade: string(fitness.GradeOf(a.Value)), N: a.N, FailRate: round4(s.failRate())}
	}
	ev := &Evidence{From: ve(from, fs), To: ve(to, ts), Signals: decide.SignalDiffs(ts.sig.means(ts.n), fs.sig.means(fs.n))}
	ev.Delta = round2(ev.From.Score - ev.To.Score)
	return ev
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }
func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }
