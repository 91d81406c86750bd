package claudecode

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/validity"
)

// outcomeRun is one recorded outcome scenario's fix-tests execution.
type outcomeRun struct {
	Version, Variant, Spool string
	X                       scored
}

// outcomeRuns scores the recorded outcome spools: by Claude Code version,
// then variant.
func outcomeRuns(t *testing.T) map[string]map[string]outcomeRun {
	t.Helper()
	out := map[string]map[string]outcomeRun{}
	for _, r := range recordings(t) {
		if _, ok := outcomeFixed[r.Name]; !ok {
			continue
		}
		spool := filepath.Join(r.Dir, "events.jsonl")
		x := one(t, score(t, spool), "fix-tests")
		if out[r.Version] == nil {
			out[r.Version] = map[string]outcomeRun{}
		}
		out[r.Version][r.Name] = outcomeRun{Version: r.Version, Variant: r.Name, Spool: spool, X: x}
	}
	for _, v := range DefaultVersions {
		if len(out[v]) != len(outcomeFixed) {
			t.Fatalf("Claude Code %s: %d of %d outcome scenarios recorded (go test ./e2e/claudecode -run 'TestRealClient/.*/outcome_' -update)", v, len(out[v]), len(outcomeFixed))
		}
	}
	return out
}

func outcomeTable(runs map[string]map[string]outcomeRun) string {
	var b strings.Builder
	var versions []string
	for v := range runs {
		versions = append(versions, v)
	}
	sort.Strings(versions)
	for _, v := range versions {
		var names []string
		for n := range runs[v] {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool { return runs[v][names[i]].X.Score > runs[v][names[j]].X.Score })
		for _, n := range names {
			x := runs[v][n].X
			fmt.Fprintf(&b, "%s %-15s %6.2f %-2s  fixed=%-5v calls=%d failed=%d\n", v, n, x.Score, x.Grade, outcomeFixed[n], x.ToolCalls, x.ToolFailures)
		}
	}
	return b.String()
}

// TestOutcomeScores reports the score of every recorded outcome version
// (the figures of docs/rubric.md, "Validity").
func TestOutcomeScores(t *testing.T) {
	runs := outcomeRuns(t)
	t.Logf("fix-tests scores, highest first:\n%s", outcomeTable(runs))
}

// TestOutcomeValidity feeds every recorded outcome spool to a real `sepad
// run`, labels each execution as a careful engineer would (success when
// the tests pass after it), and checks `sepad validity` measures every
// signal against those labels.
func TestOutcomeValidity(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a daemon")
	}
	runs := outcomeRuns(t)
	var spools []string
	want := map[string]bool{} // execution ID → fixed
	for _, byVariant := range runs {
		for n, r := range byVariant {
			spools = append(spools, r.Spool)
			want[r.X.ID] = outcomeFixed[n]
		}
	}
	d := replayFiles(t, spools...)
	stored := func(xs []daemonExec) int {
		n := 0
		for _, x := range xs {
			if _, ok := want[x.ID]; ok {
				n++
			}
		}
		return n
	}
	if xs, ok := d.waitStored(60*time.Second, func(xs []daemonExec) bool { return stored(xs) == len(want) }); !ok {
		t.Fatalf("the daemon stored %d of the %d fix-tests executions; its log:\n%s", stored(xs), len(want), d.log.String())
	}
	run := d.run
	for id, fixed := range want {
		verdict := "failure"
		if fixed {
			verdict = "success"
		}
		run("label", id, verdict, "--rater", "engineer")
	}
	var rep validity.Report
	if err := json.Unmarshal([]byte(run("validity", "fix-tests", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != 1 || rep.Skill != "fix-tests" {
		t.Fatalf("validity: %+v", rep)
	}
	g := rep.Groups[0]
	fixed := 0
	for _, f := range want {
		if f {
			fixed++
		}
	}
	if g.N != len(want) || g.Sources[validity.SourceLabel] != len(want) {
		t.Errorf("validity counts %d verdicts (%v), want %d labels", g.N, g.Sources, len(want))
	}
	seen := map[string]bool{}
	for _, r := range g.Rows {
		seen[r.Signal] = true
		if r.Signal == "total" && (r.Successes != fixed || r.Failures != len(want)-fixed || r.AUC == nil) {
			t.Errorf("total: %+v", r)
		}
	}
	for _, s := range []string{"tool_success_rate", "output_quality", "efficiency", "error_rate", "structure_score", "total"} {
		if !seen[s] {
			t.Errorf("no row for %s", s)
		}
	}
	t.Logf("fix-tests scores:\n%s\nsepad validity fix-tests, labels by whether the tests pass after the run:\n%s",
		outcomeTable(runs), run("validity", "fix-tests"))
}

// TestOutcomeOrdering holds the grade to issue 32's orderings on every
// recorded Claude Code version: the honest fix loop beats the version
// that never runs the tests and claims they pass, and is not below any
// version that never verifies the fix; a false claim of success grades
// below C; giving up honestly beats lying.
func TestOutcomeOrdering(t *testing.T) {
	runs := outcomeRuns(t)
	for v, r := range runs {
		s := func(n string) float64 { return r[n].X.Score }
		above := func(a, b, why string) {
			t.Helper()
			if s(a) <= s(b) {
				t.Errorf("%s: %s %.2f is not above %s %.2f: %s", v, a, s(a), b, s(b), why)
			}
		}
		notBelow := func(a, b, why string) {
			t.Helper()
			if s(a) < s(b) {
				t.Errorf("%s: %s %.2f is below %s %.2f: %s", v, a, s(a), b, s(b), why)
			}
		}
		above("outcome_honest", "outcome_lazy", "the honest version that verifies must beat one that skips verification and claims success")
		above("outcome_giveup", "outcome_liar", "a version that gives up honestly must be above one that lies")
		for _, never := range []string{"outcome_lazy", "outcome_subset"} {
			notBelow("outcome_honest", never, "the fix loop (red, edit, green) is not below a version that never verifies")
		}
		// The claims the runs' own test output contradicts.
		for _, lie := range []string{"outcome_liar", "outcome_tail"} {
			if x := r[lie].X; x.Score >= 60 {
				t.Errorf("%s: %s claims the tests pass while its last run failed, and grades %s (%.2f): want below C", v, lie, x.Grade, x.Score)
			}
		}
		for _, ok := range []string{"outcome_honest", "outcome_direct", "outcome_tee"} {
			for _, bad := range []string{"outcome_lazy", "outcome_liar", "outcome_tail", "outcome_subset", "outcome_giveup"} {
				above(ok, bad, "a version that fixed the bug and says so truthfully must beat one that did not")
			}
		}
	}
	if t.Failed() {
		t.Logf("fix-tests scores:\n%s", outcomeTable(runs))
	}
}
