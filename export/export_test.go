package export

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/integrity"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/reward"
	"github.com/sepad/sepad/scoring"
	"github.com/sepad/sepad/store"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// fixture is a store of six executions of two skills: successes and
// failures, labelled by a person, by a model, without attribution, and
// not at all.
func fixture(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "sepa.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var xs []record.Scored
	for i := 0; i < 6; i++ {
		skill := []string{"deploy", "review"}[i%2]
		failed := i == 2 || i == 3
		x := execution.Execution{ID: fmt.Sprintf("e%011d", i), SessionID: fmt.Sprintf("s%d", i), Skill: skill, Kind: "skill",
			Project: "/srv/shop", SkillVersion: []string{"aaaaaaaaaaaa", "bbbbbbbbbbbb"}[i/4], Prompt: fmt.Sprintf("staging run %d", i),
			StartedAt: t0.Add(time.Duration(i) * time.Hour), EndedAt: t0.Add(time.Duration(i)*time.Hour + time.Minute),
			Complete: true, HasOutput: true, Output: map[bool]string{false: "Deployed to staging; all tests pass.", true: "All tests pass, deployed."}[failed],
			Calls: []execution.ToolCall{{Name: "Bash", Kind: execution.KindTest, Done: true, Failed: failed, Error: map[bool]string{true: "exit 1"}[failed]},
				{Name: "Bash", Kind: execution.KindDeploy, Done: true}}}
		if i == 1 {
			x.Usage = &execution.Usage{InputTokens: 1200, OutputTokens: 300, Messages: 2, Models: []string{"claude-sonnet-4-5"}, CostNanoUSD: 8_100_000, CostKnown: true}
		}
		// Scored and checked as the collector does before a commit.
		res := fitness.Score(&x, fitness.Limits{MaxTime: 2 * time.Minute, MaxTools: 15})
		xs = append(xs, record.Scored{Exec: x, Result: res, Integrity: integrity.Check(&x, res.Outcome)})
	}
	// Each execution's value is measured before the commit, as the
	// collector does.
	n := scoring.NewNovelty(db)
	for i := range xs {
		v, vec, err := n.Value(store.SkillKey(&xs[i].Exec), &xs[i].Exec, xs[i].Result)
		if err != nil {
			t.Fatal(err)
		}
		xs[i].Value, xs[i].Vector = &v, &vec
	}
	if err := db.Commit(&store.Batch{Executions: xs}); err != nil {
		t.Fatal(err)
	}
	score := func(f float64) *float64 { return &f }
	for i, in := range []reward.Input{
		{Outcome: "success", Score: score(0.9), Rater: "ana", RubricVersion: "r1", Note: "clean"},
		{Outcome: "success", Score: score(0.7), Model: "claude-opus-4", RubricVersion: "r1"},
		{Outcome: "failure", Score: score(0.8), Rater: "ana", RubricVersion: "r1", Note: "tests failed"},
		{Outcome: "failure", Score: score(0.75), Model: "claude-opus-4", RubricVersion: "r1"},
		{Outcome: "success", Score: score(0.95)}, // no rubric, no rater: not eligible
	} {
		l, err := reward.New(xs[i].Exec.ID, in, t0.Add(24*time.Hour+time.Duration(i)*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.PutLabel(l, nil); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// TestGolden writes every format of the fixture and compares it with
// testdata/<format>.golden (go test ./export -update to accept).
func TestGolden(t *testing.T) {
	db := fixture(t)
	for _, f := range Formats {
		t.Run(f, func(t *testing.T) {
			var b bytes.Buffer
			st, err := Write(&b, db, Options{Format: f})
			if err != nil {
				t.Fatal(err)
			}
			if st.Read != 6 && f != Preference || st.Written == 0 {
				t.Errorf("stats %+v", st)
			}
			golden := filepath.Join("testdata", f+".golden")
			if *update {
				os.WriteFile(golden, b.Bytes(), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("%s differs from %s:\n%s", f, golden, b.String())
			}
		})
	}
}

// TestSchemas checks what the golden files hold: one csv row per
// execution under the documented header, reward rows only for labelled
// executions with derived fields in step with reward.Derive, sft only the
// SFT-eligible, preference pairs of one skill's success and failure.
func TestSchemas(t *testing.T) {
	db := fixture(t)
	out := func(o Options) string {
		var b bytes.Buffer
		if _, err := Write(&b, db, o); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	recs, err := csv.NewReader(strings.NewReader(out(Options{Format: CSV}))).ReadAll()
	if err != nil || len(recs) != 7 || strings.Join(recs[0], ",") != strings.Join(csvColumns, ",") {
		t.Fatalf("csv: %d records, %v", len(recs), err)
	}
	for _, r := range recs[1:] {
		if len(r) != len(csvColumns) {
			t.Fatalf("csv row of %d fields, header %d", len(r), len(csvColumns))
		}
	}
	lines := func(s string) []map[string]any {
		var out []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			if l == "" {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
		return out
	}
	if rows := lines(out(Options{Format: JSONL})); len(rows) != 6 || rows[0]["value"] == nil || rows[2]["integrity"] == nil {
		t.Errorf("jsonl: %d rows; first %v", len(rows), rows[0])
	}
	rw := lines(out(Options{Format: Reward}))
	if len(rw) != 5 {
		t.Fatalf("reward: %d rows, want the 5 labelled", len(rw))
	}
	if rw[2]["signed_score"] != -0.8 || rw[2]["evaluation_label"] != "rejected" || rw[1]["grader_kind"] != "model" ||
		rw[4]["exportable_for_sft"] != false || len(rw[4]["sft_blockers"].([]any)) != 2 {
		t.Errorf("reward rows: %v", rw)
	}
	sft := lines(out(Options{Format: SFT}))
	if len(sft) != 2 || sft[0]["instruction"] != "/deploy staging run 0" || sft[1]["response"] == "" {
		t.Errorf("sft: %v", sft)
	}
	pref := lines(out(Options{Format: Preference}))
	if len(pref) != 2 || pref[0]["chosen_id"] != "e00000000000" || pref[0]["rejected_id"] != "e00000000002" || pref[1]["skill"] != "review" {
		t.Errorf("preference: %v", pref)
	}
	if n := len(lines(out(Options{Format: JSONL, Skill: "review"}))); n != 3 {
		t.Errorf("--skill review: %d rows", n)
	}
	if n := len(lines(out(Options{Format: JSONL, Since: t0.Add(3 * time.Hour)}))); n != 3 {
		t.Errorf("--since: %d rows", n)
	}
	hi := 2.0
	if n := len(lines(out(Options{Format: JSONL, MinValue: &hi}))); n != 0 {
		t.Errorf("--min-value 2: %d rows", n)
	}
	if _, err := Write(&bytes.Buffer{}, db, Options{Format: "xml"}); !errors.Is(err, ErrFormat) {
		t.Errorf("format xml: %v", err)
	}
}
