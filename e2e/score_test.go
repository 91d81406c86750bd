package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sepad/sepad/fitness"
)

// The JSON shape of `sepad score --json` is a stable interface.
type scoreDoc struct {
	RubricVersion string `json:"rubric_version"`
	Executions    []struct {
		ID           string   `json:"id"`
		SessionID    string   `json:"session_id"`
		Skill        string   `json:"skill"`
		SkillPath    string   `json:"skill_path"`
		SkillVersion string   `json:"skill_version"`
		Project      string   `json:"project"`
		ToolCalls    int      `json:"tool_calls"`
		ToolFailures int      `json:"tool_failures"`
		Complexity   string   `json:"complexity"`
		Complete     bool     `json:"complete"`
		Scored       bool     `json:"scored"`
		Score        *float64 `json:"score"`
		Grade        string   `json:"grade"`
		Signals      []struct {
			Signal       string  `json:"signal"`
			Present      bool    `json:"present"`
			Contribution float64 `json:"contribution"`
		} `json:"signals"`
	} `json:"executions"`
	Skipped []struct {
		File   string `json:"file"`
		Line   int    `json:"line"`
		Reason string `json:"reason"`
	} `json:"skipped"`
}

func TestScoreEveryFixtureFormat(t *testing.T) {
	for _, f := range []string{"hook_raw", "enriched", "legacy", "old_claude_code", "garbage"} {
		t.Run(f, func(t *testing.T) {
			out, errOut, code := sepad(t, nil, nil, "score", "--json", "../testdata/sessions/"+f+".jsonl")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var doc scoreDoc
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if doc.RubricVersion == "" || len(doc.Executions) == 0 {
				t.Fatalf("empty report: %s", out)
			}
			names := []string{"tool_success_rate", "output_quality", "efficiency", "error_rate", "structure_score"}
			for _, x := range doc.Executions {
				// The five SEPA rows, then the optional ones present
				// (the person's verdict, the outcome).
				if len(x.Signals) < 5 {
					t.Fatalf("%s: %d signals", x.ID, len(x.Signals))
				}
				for _, s := range x.Signals[5:] {
					if !fitness.IsOptional(s.Signal) || !s.Present {
						t.Errorf("%s: row %q after the five SEPA rows (present %v)", x.ID, s.Signal, s.Present)
					}
				}
				sum := 0.0
				for i, s := range x.Signals {
					if i < 5 && s.Signal != names[i] {
						t.Errorf("signal %d = %q, want %q", i, s.Signal, names[i])
					}
					if s.Present {
						sum += s.Contribution
					}
				}
				if x.Scored && (x.Score == nil || *x.Score < 0 || *x.Score > 100 || abs(sum-*x.Score) > 0.011) {
					t.Errorf("%s: score %v, contributions sum %v", x.ID, x.Score, sum)
				}
			}
			if f == "garbage" && len(doc.Skipped) != 7 {
				t.Errorf("skipped %d lines, want 7 (the blank line is not an event): %+v", len(doc.Skipped), doc.Skipped)
			}
			if f != "garbage" && len(doc.Skipped) != 0 {
				t.Errorf("skipped %+v", doc.Skipped)
			}
		})
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func TestScoreStdinTableAndSkips(t *testing.T) {
	raw, err := os.ReadFile("../testdata/sessions/garbage.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out, _, code := sepad(t, nil, raw, "score", "-")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	contains(t, out, "SCORE")
	contains(t, out, "7 lines skipped")
	contains(t, out, "-:2: not a JSON object")
}

func TestScoreExitCodes(t *testing.T) {
	if _, _, code := sepad(t, nil, nil, "score"); code != 2 {
		t.Errorf("no files: exit %d, want 2", code)
	}
	if _, _, code := sepad(t, nil, nil, "score", "--bogus", "x"); code != 2 {
		t.Errorf("bad flag: exit %d, want 2", code)
	}
	_, errOut, code := sepad(t, nil, nil, "score", filepath.Join(t.TempDir(), "missing.jsonl"))
	if code != 1 || !strings.Contains(errOut, "missing.jsonl") {
		t.Errorf("missing file: exit %d %q, want 1 naming the file", code, errOut)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	writeFile(t, bad, "aggregate:\n  trim: lots\n")
	_, errOut, code = sepad(t, nil, nil, "score", "--config", bad, "../testdata/sessions/legacy.jsonl")
	if code != 1 || !strings.Contains(errOut, bad+":2") || !strings.Contains(errOut, "aggregate.trim") {
		t.Errorf("bad config: exit %d %q, want file:line and key", code, errOut)
	}
}

func TestScoreSameSkillTwoProjects(t *testing.T) {
	a, err := os.ReadFile("../testdata/sessions/hook_raw.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	b := strings.ReplaceAll(string(a), "/home/ana/src/shop", "/home/ana/src/blog")
	b = strings.ReplaceAll(b, "5f0c1e2a-1111", "5f0c1e2a-2222")
	in := filepath.Join(t.TempDir(), "two.jsonl")
	writeFile(t, in, string(a)+b)
	out, _, code := sepad(t, nil, nil, "score", "--json", in)
	if code != 0 {
		t.Fatal(code)
	}
	var doc scoreDoc
	json.Unmarshal([]byte(out), &doc)
	projects := map[string]bool{}
	for _, x := range doc.Executions {
		if x.Skill == "deploy" {
			projects[x.Project] = true
		}
	}
	if len(projects) != 2 {
		t.Fatalf("deploy in two projects seen as %v", projects)
	}
}
