package evals

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// The result of a real `claude plugin eval --json` (2.1.328, against the
// fake model server; paths replaced).
func TestParseReal(t *testing.T) {
	b, err := os.ReadFile("testdata/aggregate-result.json")
	if err != nil {
		t.Fatal(err)
	}
	e, err := Parse("aggregate-result.json", b)
	if err != nil {
		t.Fatal(err)
	}
	if e.ClaudeVersion != "2.1.328" || e.Plugin != "acme" || e.PluginVersion != "1.2.0" || e.Threshold != 1 {
		t.Errorf("suite: %+v", e)
	}
	if len(e.Cases) != 1 || e.Cases[0].Name != "ships" || e.Cases[0].Score != 1 || !e.Cases[0].Passed || e.Cases[0].Runs != 1 {
		t.Errorf("cases: %+v", e.Cases)
	}
	if e.Score != 1 || e.PassRate != 1 || e.Delta == nil || *e.Delta != 0 || e.CostUSD <= 0 || !e.Passed() {
		t.Errorf("aggregates: %+v", e)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{`, "unexpected EOF"},
		{`{"a" 1}`, "invalid JSON at byte"},
		{`[]`, "cannot unmarshal"},
		{`{"suite":{},"cases":[],"aggregates":{"overallScore":1}}`, "no schemaVersion"},
		{`{"schemaVersion":2}`, "schemaVersion 2"},
		{`{"schemaVersion":1,"aggregates":{"overallScore":1},"cases":[{"name":"a","aggregates":{"score":1}}]}`, "no suite"},
		{`{"schemaVersion":1,"suite":{},"cases":[{"name":"a","aggregates":{"score":1}}]}`, "no aggregates.overallScore"},
		{`{"schemaVersion":1,"suite":{},"aggregates":{"overallScore":1},"cases":[]}`, "no cases"},
		{`{"schemaVersion":1,"suite":{},"aggregates":{"overallScore":1},"cases":[{"aggregates":{"score":1}}]}`, "cases[0]: no name"},
		{`{"schemaVersion":1,"suite":{},"aggregates":{"overallScore":1},"cases":[{"name":"a"}]}`, "cases[0] (a): no aggregates.score"},
		{`{"schemaVersion":1,"suite":{},"aggregates":{"overallScore":"x"},"cases":[]}`, "aggregates.overallScore"},
	} {
		_, err := Parse("r.json", []byte(tc.in))
		if err == nil || !errors.Is(err, ErrBadResult) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "r.json: ") {
			t.Errorf("Parse(%s) = %v, want an error with %q", tc.in, err, tc.want)
		}
	}
}

func TestSummaryAndThreshold(t *testing.T) {
	in := `{"schemaVersion":1,"suite":{"threshold":0.8},"aggregates":{"overallScore":0.75,"overallPassRate":0.5,"meanDelta":0.31},
	"cases":[{"name":"ships","arms":{"with":[{},{},{"error":"timeout"}]},"aggregates":{"score":0.9,"passRate":1}},
	         {"name":"rolls-back","arms":{"with":[{},{},{}]},"aggregates":{"score":0.6,"passRate":0}}]}`
	e, err := Parse("r.json", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if e.Passed() || len(e.Failing()) != 1 || e.Failing()[0] != "rolls-back" || e.Cases[0].Errors != 1 {
		t.Fatalf("%+v", e)
	}
	if got, want := e.Summary(), "evals 0.75 over 2 cases × 3 runs, +0.31 against no skill, failing rolls-back"; got != want {
		t.Fatalf("Summary() = %q, want %q", got, want)
	}
}

func TestAppendLoad(t *testing.T) {
	home := t.TempDir()
	if ev, err := Load(home); ev != nil || err != nil {
		t.Fatalf("no file: %v %v", ev, err)
	}
	if Stamp(home) != "" {
		t.Fatal("a stamp without a file")
	}
	t0 := time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC)
	for i, v := range []string{"aaa", "bbb", "aaa"} {
		if err := Append(home, Evidence{SkillKey: "k", Skill: "acme:deploy", Version: v, At: t0.Add(time.Duration(i) * time.Minute), Score: float64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := Append(home, Evidence{Skill: "x"}); err == nil {
		t.Fatal("evidence without a key was recorded")
	}
	all, err := Load(home)
	if err != nil || len(all) != 3 {
		t.Fatalf("Load = %d, %v", len(all), err)
	}
	if l := Latest(all)[[2]string{"k", "aaa"}]; l == nil || l.Score != 2 {
		t.Fatalf("latest of aaa: %+v", l)
	}
	if fi, _ := os.Stat(Path(home)); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	os.WriteFile(Path(home), []byte("{\"skill_key\":\"k\"}\nnot json\n"), 0o600)
	if _, err := Load(home); err == nil || !strings.Contains(err.Error(), "evals.jsonl:2") {
		t.Fatalf("a bad line: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	b, _ := os.ReadFile("testdata/aggregate-result.json")
	f.Add(b)
	f.Add([]byte(`{"schemaVersion":1,"suite":{},"aggregates":{"overallScore":1},"cases":[{"name":"a","aggregates":{"score":1}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := Parse("f", b)
		if err == nil && (len(e.Cases) == 0 || e.Summary() == "") {
			t.Fatalf("accepted %q as %+v", b, e)
		}
	})
}
