package query

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/reward"
	"github.com/sepad/sepad/store"
	"github.com/sepad/sepad/validity"
)

// TestValidityVerdictSources: a label, the person's last verdict, and the
// version's eval each give an execution its verdict, in that order; the
// signal that is the verdict is left out of the observation and its total.
func TestValidityVerdictSources(t *testing.T) {
	db := openDB(t)
	home := t.TempDir()
	n := 0
	put := func(version string, tool, verdict float64, verdicts ...execution.Verdict) string {
		n++
		s := scored(ex{id: fmt.Sprintf("v%03d%s", n, "00000000"), skill: "deploy", project: shop, path: deployPath, version: version, score: 50, at: time.Duration(n) * time.Minute})
		s.Result.Signals = []fitness.Signal{
			{Signal: fitness.SignalToolSuccess, Present: true, Value: tool, SubScore: tool, Weight: 0.35},
			{Signal: fitness.SignalStructure, Present: true, Value: 1, SubScore: 1, Weight: 0.05},
		}
		if verdict >= 0 {
			s.Result.Signals = append(s.Result.Signals, fitness.Signal{Signal: fitness.SignalVerdict, Present: true, Value: verdict, SubScore: verdict, Weight: 0.75})
		}
		for _, v := range verdicts {
			s.Exec.Verdicts = append(s.Exec.Verdicts, execution.VerdictRecord{Verdict: v})
		}
		if err := db.Commit(&store.Batch{Executions: []record.Scored{s}}); err != nil {
			t.Fatal(err)
		}
		return s.Exec.ID
	}
	const a, b = "aaaaaaaaaaaa", "bbbbbbbbbbbb"
	// Labelled: the label wins over the person's acceptance.
	l1 := put(a, 1, 1, execution.VerdictAcceptance)
	l2 := put(a, 0.5, -1)
	// The person's last word: corrected then accepted is a success.
	put(a, 1, 0.5, execution.VerdictCorrection, execution.VerdictAcceptance)
	put(a, 0.25, 0, execution.VerdictCorrection)
	// No label, no verdict: the eval of version b (failed) decides; version
	// a has none, so this one has no verdict.
	put(b, 0.75, -1)
	put(a, 0.1, -1)
	for id, out := range map[string]string{l1: reward.Failure, l2: reward.Success} {
		_, err := db.PutLabel(reward.Label{ExecutionID: id, Outcome: out, Time: t0}, func(r fitness.Result, _ reward.Label) fitness.Result { return r })
		if err != nil {
			t.Fatal(err)
		}
	}
	ev, _ := json.Marshal(evals.Evidence{SkillKey: deployPath, Version: b, At: t0, Cases: []evals.Case{{Name: "c", Passed: false}}})
	if err := os.WriteFile(evals.Path(home), append(ev, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}

	rep, err := Validity(db, home, ValidityRequest{Skill: "deploy", MinLabels: 2, MinEach: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Skill != "deploy" || len(rep.Groups) != 1 {
		t.Fatalf("report: %+v", rep)
	}
	g := rep.Groups[0]
	if g.N != 5 || g.Sources[validity.SourceLabel] != 2 || g.Sources[validity.SourcePerson] != 2 || g.Sources[validity.SourceEval] != 1 {
		t.Fatalf("n %d, sources %v", g.N, g.Sources)
	}
	rows := map[string]validity.Row{}
	for _, r := range g.Rows {
		rows[r.Signal] = r
	}
	// tool success: successes 0.5 (label), 1 (person); failures 1 (label),
	// 0.25 (person), 0.75 (eval).
	pos, neg := []float64{0.5, 1}, []float64{1, 0.25, 0.75}
	if r := rows[fitness.SignalToolSuccess]; r.N != 5 || r.Successes != 2 || *r.AUC != validity.AUC(pos, neg) {
		t.Errorf("tool_success_rate: %+v", r)
	}
	// The verdict signal is measured only where it is not the verdict: on
	// the labelled run that has it (a failure, 1.0).
	if r := rows[fitness.SignalVerdict]; r.N != 1 || r.Failures != 1 || r.AUC != nil {
		t.Errorf("verdict: %+v", r)
	}
	// The total leaves out the verdict's own signal: for the person's
	// runs, (0.35 tool + 0.05) / 0.4.
	tot := rows[validity.Total]
	// The labelled failure scores 100 with or without its verdict signal:
	// a tie with the person's success.
	wantPos := []float64{56.25, 100}
	wantNeg := []float64{100, 34.38, 78.13}
	if *tot.AUC != validity.AUC(wantPos, wantNeg) || tot.N != 5 {
		t.Errorf("total: AUC %v mean %v/%v (want AUC %v)", *tot.AUC, *tot.MeanSuccess, *tot.MeanFailure, validity.AUC(wantPos, wantNeg))
	}
	if _, err := Validity(db, home, ValidityRequest{Skill: "nosuch"}); err == nil {
		t.Error("an unknown skill gave a report")
	}
}
