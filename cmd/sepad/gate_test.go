package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sepad score --fail-under gates recorded sessions (the demo's logs: a
// good deploy, an F-graded review, and _session).
func TestScoreFailUnder(t *testing.T) {
	logs := []string{filepath.Join("..", "..", "testdata", "demo", "01-deploy-v1.jsonl"), filepath.Join("..", "..", "testdata", "demo", "05-review-v2.jsonl")}
	strict := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(strict, []byte("aggregate:\n  min_samples: 1000\n"), 0o600)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--fail-under", "F"}, 0, ""},
		{[]string{"--fail-under", "B"}, 1, "1 skill below B:\n  review "},
		{[]string{"--fail-under", "B", "--skill", "deploy"}, 0, ""},
		{[]string{"--fail-under", "95", "--skill", "deploy"}, 1, "1 skill below 95:\n  deploy "},
		{[]string{"--fail-under", "B", "--skill", "_session"}, 0, ""},
		{[]string{"--fail-under", "B", "--skill", "CLAUDE.md"}, 0, ""},
		{[]string{"--fail-under", "B", "--skill", "nope"}, exitNothingToGate, "nothing to gate: no skill matches"},
		{[]string{"--fail-under", "B", "--config", strict}, exitNothingToGate, "none graded yet"},
		{[]string{"--skill", "deploy"}, exitUsage, "give --fail-under too"},
	} {
		code, out, errOut := runCmd(t, append(append([]string{"score"}, logs...), c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("score %v: exit %d, stderr %q; want %d with %q", c.args, code, errOut, c.code, c.msg)
		}
		if c.code != exitUsage && !strings.Contains(out, "executions, rubric") {
			t.Errorf("score %v printed no table:\n%s", c.args, out)
		}
	}
}
