package evalgate

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/mutation"
)

// TestEvalGateWiring runs the configured gate with a stand-in for claude
// (a shell script whose score is 0 when the SKILL.md it is given says
// "skip"): off without mutation.eval_gate or without a suite; with
// max_drop and no recorded baseline score, the baseline's suite runs
// first; both runs are recorded as evidence; a failing candidate is
// refused naming its case.
func TestEvalGateWiring(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in for claude is a shell script")
	}
	home := t.TempDir()
	skill := filepath.Join(t.TempDir(), ".claude", "skills", "deploy", "SKILL.md")
	os.MkdirAll(filepath.Join(filepath.Dir(skill), "evals", "rollback"), 0o755)
	os.WriteFile(skill, []byte("---\nname: deploy\n---\nRun the checks.\n"), 0o644)
	log := filepath.Join(t.TempDir(), "calls")
	bin := filepath.Join(t.TempDir(), "claude")
	script := `#!/bin/sh
s=1; grep -q skip "$3/SKILL.md" && s=0
echo "$@" >> ` + log + `
printf '{"schemaVersion":1,"suite":{"threshold":1},"cases":[{"name":"rollback","aggregates":{"score":%s}}],"aggregates":{"overallScore":%s}}' $s $s > "$5"
`
	os.WriteFile(bin, []byte(script), 0o755)
	cfg, err := config.Load("")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Mutation.Claude = bin
	gate := New(func() *config.Config { return cfg }, home)
	c := mutation.GateCandidate{SkillKey: skill, Skill: "deploy", Path: skill, Baseline: "b00000000000", BaselineContent: []byte("---\nname: deploy\n---\nRun the checks.\n"),
		Candidate: "c00000000000", Content: []byte("---\nname: deploy\n---\nDeploy fast: skip the checks.\n")}
	if v, err := gate(context.Background(), c); v != nil || err != nil {
		t.Fatalf("the gate is off by default: %+v %v", v, err)
	}
	drop, threshold := 0.1, 0.5
	cfg.Mutation.EvalGate = config.EvalGate{Threshold: &threshold, MaxDrop: &drop}
	if v, err := gate(context.Background(), c); v != nil || err != nil {
		t.Fatalf("a skill without a suite is gated: %+v %v", v, err)
	}
	os.WriteFile(filepath.Join(filepath.Dir(skill), "evals", "rollback", "prompt.md"), []byte("Roll back\n"), 0o644)
	v, err := gate(context.Background(), c)
	if err != nil || v == nil || v.Held || v.Baseline != "b00000000000" || v.BaselineScore == nil || *v.BaselineScore != 1 || len(v.Failing) != 1 {
		t.Fatalf("a failing candidate: %+v %v", v, err)
	}
	if !strings.Contains(v.Words, "case rollback (0.00) is below the threshold 0.50") {
		t.Errorf("words %q", v.Words)
	}
	b, _ := os.ReadFile(log)
	if calls := strings.Split(strings.TrimSpace(string(b)), "\n"); len(calls) != 2 || !strings.HasSuffix(calls[0], "--threshold 0.5") {
		t.Errorf("claude calls:\n%s", b)
	}
	all, _ := evals.Load(home)
	if len(all) != 2 || all[0].Version != "b00000000000" || all[1].Version != "c00000000000" || all[1].Source != "eval gate" {
		t.Fatalf("evidence %+v", all)
	}
	// The baseline's score is recorded now: only the candidate runs.
	c.Content, c.Candidate = []byte("---\nname: deploy\n---\nRun the checks, then deploy.\n"), "d00000000000"
	if v, err = gate(context.Background(), c); err != nil || !v.Held {
		t.Fatalf("a passing candidate: %+v %v", v, err)
	}
	if b, _ := os.ReadFile(log); strings.Count(string(b), "\n") != 3 {
		t.Errorf("claude calls:\n%s", b)
	}
	// allow_tools: the operator's grant goes to every suite run.
	cfg.Mutation.EvalGate.AllowTools = []string{"Bash", "Bash(go test:*)"}
	c.Content, c.Candidate = []byte("---\nname: deploy\n---\nRun the checks, then ship.\n"), "e00000000000"
	if v, err = gate(context.Background(), c); err != nil || !v.Held {
		t.Fatalf("with allow_tools: %+v %v", v, err)
	}
	b, _ = os.ReadFile(log)
	if calls := strings.Split(strings.TrimSpace(string(b)), "\n"); !strings.HasSuffix(calls[len(calls)-1], "--threshold 0.5 --allow-tools Bash Bash(go test:*)") {
		t.Errorf("claude calls:\n%s", b)
	}
}

// TestEvalGatePerSkillWiring: skills.NAME.mutation.eval_gate turns the
// gate off for one skill while it is on for the others.
func TestEvalGatePerSkillWiring(t *testing.T) {
	base, err := config.Load("")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse("user.yaml", []byte("mutation:\n  claude: /nonexistent/claude\n  eval_gate: {threshold: 1}\nskills:\n  lint:\n    mutation:\n      eval_gate: {}\n"), base)
	if err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(t.TempDir(), "deploy", "SKILL.md")
	os.MkdirAll(filepath.Join(filepath.Dir(skill), "evals", "a"), 0o755)
	os.WriteFile(filepath.Join(filepath.Dir(skill), "evals", "a", "prompt.md"), []byte("x\n"), 0o644)
	gate := New(func() *config.Config { return cfg }, t.TempDir())
	if v, err := gate(context.Background(), mutation.GateCandidate{Skill: "lint", Path: skill}); v != nil || err != nil {
		t.Errorf("lint's gate is off: %+v %v", v, err)
	}
	if _, err := gate(context.Background(), mutation.GateCandidate{Skill: "deploy", Path: skill}); err == nil || !strings.Contains(err.Error(), "/nonexistent/claude") {
		t.Errorf("deploy's gate runs the configured claude: %v", err)
	}
}

// TestEvalGateHeldOut: a mutator's text (GateCandidate.Cases) runs only
// the held-out cases, and is compared with the baseline's recorded score
// on those cases alone; its words say so.
func TestEvalGateHeldOut(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in for claude is a shell script")
	}
	home := t.TempDir()
	skill := filepath.Join(t.TempDir(), ".claude", "skills", "deploy", "SKILL.md")
	for _, c := range []string{"a", "b", "c"} {
		os.MkdirAll(filepath.Join(filepath.Dir(skill), "evals", c), 0o755)
		os.WriteFile(filepath.Join(filepath.Dir(skill), "evals", c, "prompt.md"), []byte("Do "+c+"\n"), 0o644)
	}
	log := filepath.Join(t.TempDir(), "calls")
	bin := filepath.Join(t.TempDir(), "claude")
	// Every case it is given scores 1, but b scores 0 on a text that
	// says "skip"; the overall score is claude's own (always 1 here).
	script := `#!/bin/sh
cases=""; for d in "$3"/evals/*/; do n=$(basename "$d"); s=1
  [ "$n" = b ] && grep -q skip "$3/SKILL.md" && s=0
  cases="$cases${cases:+,}{\"name\":\"$n\",\"aggregates\":{\"score\":$s}}"; echo "$n" >> ` + log + `; done
printf '{"schemaVersion":1,"suite":{"threshold":1},"cases":[%s],"aggregates":{"overallScore":1}}' "$cases" > "$5"
`
	os.WriteFile(bin, []byte(script), 0o755)
	cfg, err := config.Load("")
	if err != nil {
		t.Fatal(err)
	}
	drop, threshold := 0.1, 0.5
	cfg.Mutation.Claude, cfg.Mutation.EvalGate = bin, config.EvalGate{Threshold: &threshold, MaxDrop: &drop}
	if err := evals.Append(home, evals.Evidence{SkillKey: skill, Skill: "deploy", Version: "b00000000000", Score: 0.9, Threshold: 1, Runs: 1,
		Cases: []evals.Case{{Name: "a", Score: 1, Runs: 1}, {Name: "b", Score: 0.7, Runs: 1}, {Name: "c", Score: 1, Runs: 1}}}); err != nil {
		t.Fatal(err)
	}
	gate := New(func() *config.Config { return cfg }, home)
	c := mutation.GateCandidate{SkillKey: skill, Skill: "deploy", Path: skill, Baseline: "b00000000000", BaselineContent: []byte("---\nname: deploy\n---\nRun b.\n"),
		Candidate: "c00000000000", Content: []byte("---\nname: deploy\n---\nskip b.\n"), Cases: []string{"a", "c"}}
	v, err := gate(context.Background(), c)
	if err != nil || !v.Held || v.Cases != 2 || v.BaselineScore == nil || *v.BaselineScore != 1 ||
		!strings.HasSuffix(v.Words, "; held-out cases only (the mutator was shown the others): a, c") {
		t.Fatalf("held out a, c: %+v %v", v, err)
	}
	if b, _ := os.ReadFile(log); string(b) != "a\nc\n" {
		t.Errorf("cases run:\n%s", b)
	}
	c.Cases = []string{"b"}
	v, err = gate(context.Background(), c)
	if err != nil || v.Held || v.Cases != 1 || len(v.Failing) != 1 || *v.BaselineScore != 0.7 || !strings.Contains(v.Words, "baseline 0.70, drop 0.70") {
		t.Fatalf("held out b: %+v %v", v, err)
	}
}
