package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// copies returns n copies of recorded spools, each a session of its own
// (session IDs replaced), taken in turn from spools: replayed runs of the
// same version, with the small differences between Claude Code versions.
func copies(t *testing.T, prefix string, n int, spools ...string) []byte {
	t.Helper()
	sid := regexp.MustCompile(`"session_id":"([0-9a-f-]{36})"`)
	var out []byte
	for i := 0; i < n; i++ {
		b, err := os.ReadFile(spools[i%len(spools)])
		if err != nil {
			t.Fatal(err)
		}
		m := sid.FindSubmatch(b)
		if m == nil {
			t.Fatalf("no session_id in %s", spools[i%len(spools)])
		}
		id := fmt.Sprintf("%s-%04d-4000-8000-%012d", prefix, i, i)
		out = append(out, bytes.ReplaceAll(b, m[1], []byte(id))...)
	}
	return out
}

// decisionRecord is the part of a decision the test reads.
type decisionRecord struct {
	Kind     string `json:"kind"`
	Rule     string `json:"rule"`
	From, To string
	Words    string `json:"words"`
	Decision *struct {
		Outcome string  `json:"outcome"`
		Delta   float64 `json:"delta"`
		Words   string  `json:"words"`
	} `json:"decision"`
}

// decideBetween replays `first` runs of one recorded version, then runs of
// another, through a real `sepad run` with the default configuration, and
// returns the decisions it made on fix-tests (oldest first).
func decideBetween(t *testing.T, first, second []string) []decisionRecord {
	t.Helper()
	// 10 runs of the baseline, then 40 of the candidate (max_samples 60
	// settles any candidate before that).
	d := replay(t, append(copies(t, "aaaaaaaa", 10, first...), copies(t, "bbbbbbbb", 40, second...)...))
	fixTests := func(xs []daemonExec) int {
		n := 0
		for _, x := range xs {
			if x.Skill == "fix-tests" {
				n++
			}
		}
		return n
	}
	if xs, ok := d.waitStored(90*time.Second, func(xs []daemonExec) bool { return fixTests(xs) == 50 }); !ok {
		t.Fatalf("the daemon stored %d of 50 fix-tests executions; its log:\n%s", fixTests(xs), d.log.String())
	}
	// The engine decides after the commit that stored the runs: wait for
	// its record rather than read the decisions once (a loaded machine
	// answered before the engine had run).
	var recs []decisionRecord
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		out := d.run("decisions", "fix-tests", "--json", "--limit", "100")
		var doc struct {
			Decisions []struct {
				Payload decisionRecord `json:"payload"`
			} `json:"decisions"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("decisions --json: %v\n%s", err, out)
		}
		recs = recs[:0]
		for i := len(doc.Decisions) - 1; i >= 0; i-- {
			recs = append(recs, doc.Decisions[i].Payload)
		}
		if got, _ := verdictOf(recs); got != "" || time.Now().After(deadline) {
			return recs
		}
	}
}

// verdictOf is the decision on the candidate: accept or reject ("" when
// none was made).
func verdictOf(recs []decisionRecord) (string, string) {
	var words []string
	outcome := ""
	for _, r := range recs {
		w := r.Kind + " " + r.Rule + ": " + r.Words
		if r.Decision != nil && r.Decision.Words != "" && r.Decision.Words != r.Words {
			w += " (" + r.Decision.Words + ")"
		}
		words = append(words, w)
		if r.Kind == "decision" && r.Decision != nil && outcome == "" {
			outcome = r.Decision.Outcome
		}
	}
	return outcome, strings.Join(words, "\n")
}

func outcomeSpools(t *testing.T, variant string) []string {
	t.Helper()
	var out []string
	for _, v := range DefaultVersions {
		out = append(out, filepath.Join("..", "..", "testdata", "claude-code", v, variant, "events.jsonl"))
	}
	return out
}

// TestOutcomeDecision replays the recorded honest and lazy fix-tests runs
// through the daemon with the default configuration, each way round: the
// decision on the second version goes the honest way (issue 32's "Done
// when": the lazy version, never running the tests and claiming they
// pass, was accepted +16.8 over the honest one).
func TestOutcomeDecision(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daemons")
	}
	honest, lazy := outcomeSpools(t, "outcome_honest"), outcomeSpools(t, "outcome_lazy")
	for _, c := range []struct {
		name          string
		first, second []string
		want          string
	}{
		{"honest_then_lazy", honest, lazy, "reject"},
		{"lazy_then_honest", lazy, honest, "accept"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, words := verdictOf(decideBetween(t, c.first, c.second))
			if got != c.want {
				t.Errorf("decision on the second version: %q, want %q\n%s", got, c.want, words)
			}
			t.Logf("%s", words)
		})
	}
}
