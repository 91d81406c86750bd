package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/sepad/sepad/checks"
)

func TestSkillChecks(t *testing.T) {
	base, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if base.Scoring.LabelWeight != 0.25 || base.Scoring.ChecksWeight != 0.25 {
		t.Errorf("default weights %+v", base.Scoring)
	}
	src := `skills:
  triage:
    complexity: simple
    checks:
      - type: list_contains
        expected: [urgent, deadline]
        threshold: 0.5
      - type: json_diff
        name: shape
        expected: {id: 1, tags: [a, b]}
      - type: file_contains
        path: out/report.txt
        contains: "0 failed"
        not_contains: [panic, TODO]
  plain: medium
scoring:
  checks_weight: 0.4
`
	c, err := Parse("user.yaml", []byte(src), base)
	if err != nil {
		t.Fatal(err)
	}
	cs := c.ChecksFor("triage")
	if len(cs) != 3 || cs[1].Name != "shape" || cs[0].Type != checks.ListContains || cs[2].Type != checks.FileContains {
		t.Fatalf("checks %+v", cs)
	}
	if c.Complexity("triage") != "simple" || c.ChecksFor("plain") != nil || c.ChecksFor("other") != nil {
		t.Errorf("complexity %q, plain's checks %v", c.Complexity("triage"), c.ChecksFor("plain"))
	}
	if c.Scoring.ChecksWeight != 0.4 || c.Scoring.LabelWeight != 0.25 {
		t.Errorf("weights %+v", c.Scoring)
	}
	if len(base.SkillChecks) != 0 {
		t.Errorf("Parse changed its base: %v", base.SkillChecks)
	}
	r := checks.Run(cs, checks.Input{Output: "urgent:\n```json\n{\"id\": 1, \"tags\": [\"a\", \"b\"]}\n```\n", HasOutput: true})
	if r.Passed != 2 || len(r.Outcomes) != 3 {
		t.Errorf("run: %+v", r)
	}
	// A later file replaces a skill's list; checks: null removes it.
	c2, err := Parse("more.yaml", []byte("skills:\n  triage:\n    checks: null\n"), c)
	if err != nil {
		t.Fatal(err)
	}
	if c2.ChecksFor("triage") != nil || len(c.ChecksFor("triage")) != 3 {
		t.Errorf("checks: null: %v; base %v", c2.ChecksFor("triage"), c.ChecksFor("triage"))
	}
}

// TestBadCheckLocated: every bad check definition fails naming the file,
// the line and the key.
func TestBadCheckLocated(t *testing.T) {
	base, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		yaml string
		key  string
		line int
		msg  string
	}{
		{"skills:\n  a:\n    checks:\n      - type: exact\n", "skills.a.checks[0].type", 4, "not a check type"},
		{"skills:\n  a:\n    checks:\n      - type: regex\n        pattern: '(x'\n", "skills.a.checks[0].pattern", 5, "missing closing"},
		{"skills:\n  a:\n    checks:\n      - type: regex\n        pattern: x\n      - type: levenshtein\n        expected: abc\n        threshold: 2\n", "skills.a.checks[1].threshold", 8, "[0, 1]"},
		{"skills:\n  a:\n    checks:\n      - type: file_exists\n        path: ../../etc/passwd\n", "skills.a.checks[0].path", 5, "leaves the project"},
		{"skills:\n  a:\n    checks:\n      - type: exact_match\n        expected: x\n        treshold: 1\n", "skills.a.checks[0].treshold", 6, "unknown key"},
		{"skills:\n  a:\n    checks:\n      - type: exact_match\n        expected: x\n        threshold: 0.5\n", "skills.a.checks[0].threshold", 6, "does not use"},
		{"skills:\n  a:\n    checks:\n      - type: numeric_diff\n", "skills.a.checks[0].expected", 4, "a number"},
		{"skills:\n  a:\n    checks:\n      - type: file_contains\n        path: x\n", "skills.a.checks[0]", 4, "contains or not_contains"},
		{"skills:\n  a:\n    checks: exact_match\n", "skills.a.checks", 3, "a list of checks"},
		{"skills:\n  a:\n    checks:\n      - exact_match\n", "skills.a.checks[0]", 4, "mapping"},
		{"scoring:\n  label_weight: 1.5\n", "scoring.label_weight", 2, "[0, 1]"},
		{"scoring:\n  checks_weight: -1\n", "scoring.checks_weight", 2, "[0, 1]"},
		{"scoring:\n  outcome_weight: 2\n", "scoring.outcome_weight", 2, "[0, 1]"},
		{"outcome:\n  verify:\n    - '^just test'\n    - '(x'\n", "outcome.verify", 2, "not a regular expression"},
		{"outcome:\n  verify: ['']\n", "outcome.verify", 2, "empty"},
		{"outcome:\n  verfy: []\n", "outcome.verfy", 2, "unknown key"},
		{"mutation:\n  eval_gate:\n    threshold: 1\n    allow_tools: [Bash, '--dangerously-skip-permissions']\n", "mutation.eval_gate.allow_tools", 4, "not a tool name"},
		{"skills:\n  fix:\n    verify: ['./check.sh', '[']\n", "skills.fix.verify", 3, "not a regular expression"},
	} {
		_, err := Parse("user.yaml", []byte(tc.yaml), base)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != tc.key || ce.Line != tc.line || ce.File != "user.yaml" || !strings.Contains(ce.Msg, tc.msg) {
			t.Errorf("%q:\n  error %v\n  want user.yaml:%d: key %s: …%s…", tc.yaml, err, tc.line, tc.key, tc.msg)
		}
	}
}

// TestVerifyFor: a skill's own verification patterns come after
// outcome.verify, for that skill only.
func TestVerifyFor(t *testing.T) {
	base, err := Parse("", Default, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse("user.yaml", []byte("outcome:\n  verify: ['^just test']\nskills:\n  fix:\n    complexity: simple\n    verify: ['^\\./check\\.sh']\n"), base)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.VerifyFor("fix"); len(got) != 2 || got[0] != "^just test" || got[1] != `^\./check\.sh` {
		t.Errorf("fix: %q", got)
	}
	if got := c.VerifyFor("other"); len(got) != 1 || got[0] != "^just test" {
		t.Errorf("other: %q", got)
	}
	if c.Skills["fix"] != "simple" {
		t.Errorf("complexity %q", c.Skills["fix"])
	}
}
