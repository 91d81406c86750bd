package evals

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// skillDir writes a project skill with a suite of one case, a past
// result, and everything that would run code in an eval run trusted with
// --trust-plugin, and returns its SKILL.md.
func skillDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".claude", "skills", "Deploy_App")
	for name, body := range map[string]string{
		"SKILL.md":                         "---\nname: deploy\n---\nbaseline\n",
		"scripts/check.sh":                 "#!/bin/sh\necho ok\n",
		"evals/ships/prompt.md":            "Deploy\n",
		"evals/ships/graders/answer.md":    "---\ntype: regex\n---\n",
		"evals/results/old/aggregate.json": "{}",
		".claude-plugin/plugin.json":       `{"name":"not-copied"}`,
		"hooks/hooks.json":                 `{"hooks":"not-copied"}`,
		".mcp.json":                        `{"mcpServers":"not-copied"}`,
		".lsp.json":                        `{"not-copied":1}`,
		"settings.json":                    `{"hooks":"not-copied"}`,
		"bin/tool":                         "#!/bin/sh\necho not-copied\n",
		"monitors/m.json":                  `{"not-copied":1}`,
		"agents/a.md":                      "---\nname: a\nhooks: {Stop: []}\n---\nnot-copied\n",
		"commands/c.md":                    "not-copied !`touch /tmp/x`\n",
		"skills/sub/SKILL.md":              "---\nname: sub\nhooks: {Stop: []}\n---\nnot-copied\n",
		"scripts/hooks/hooks.json":         `{"hooks":"not-copied"}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "SKILL.md")
}

func TestSuiteDir(t *testing.T) {
	p := skillDir(t)
	if d, ok := SuiteDir(p); !ok || d != filepath.Join(filepath.Dir(p), "evals") {
		t.Errorf("SuiteDir = %q, %v", d, ok)
	}
	if _, ok := SuiteDir(filepath.Join(filepath.Dir(p), "other.md")); ok {
		t.Error("a prompt file that is not a SKILL.md has a suite")
	}
	os.RemoveAll(filepath.Join(filepath.Dir(p), "evals", "ships"))
	if _, ok := SuiteDir(p); ok {
		t.Error("an evals directory with results only is a suite")
	}
}

// TestRunSuite runs a stand-in for claude (a shell script) that records
// the plugin it was given and answers with a real result.
func TestRunSuite(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in for claude is a shell script")
	}
	p := skillDir(t)
	seen := filepath.Join(t.TempDir(), "seen")
	result, err := filepath.Abs("testdata/aggregate-result.json")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "claude")
	script := "#!/bin/sh\n# plugin eval DIR --json FILE ...\n" +
		"{ echo \"$@\"; cat \"$3/SKILL.md\" \"$3/.claude-plugin/plugin.json\"; stat -c %a \"$(dirname \"$3\")\" \"$3/evals/ships/prompt.md\"; cd \"$3\" && find . \\( -type f -o -type l \\) | sort; } > " + seen + "\n" +
		"cp " + result + " \"$5\"\necho progress >&2\nexit 1\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var progress strings.Builder
	e, code, err := RunSuite(context.Background(), RunOptions{Claude: bin, Prompt: p, Content: []byte("---\nname: deploy\n---\ncandidate\n"), Args: []string{"--threshold", "0.5"}, Progress: &progress})
	if err != nil || code != 1 {
		t.Fatalf("RunSuite: %v, exit %d", err, code)
	}
	if e.Score != 1 || len(e.Cases) != 1 || e.Plugin != "" {
		t.Errorf("evidence %+v", e)
	}
	b, _ := os.ReadFile(seen)
	got := string(b)
	for _, w := range []string{"--no-publish --trust-plugin --threshold 0.5", "/deploy-app --json ", "candidate\n", `"name":"deploy-app"`, "\n700\n600\n",
		"\n./.claude-plugin/plugin.json\n./SKILL.md\n./evals/ships/graders/answer.md\n./evals/ships/prompt.md\n"} {
		if !strings.Contains(got, w) {
			t.Errorf("the plugin lacks %q:\n%s", w, got)
		}
	}
	if n := strings.Count(got, "\n./"); n != 4 {
		t.Errorf("the plugin holds %d files, want 4 (the text, the manifest, the case):\n%s", n, got)
	}
	for _, w := range []string{"baseline", "not-copied", "results", "hooks", ".mcp.json", "settings", "bin/", "monitors", "check.sh"} {
		if strings.Contains(got, w) {
			t.Errorf("the plugin has %q:\n%s", w, got)
		}
	}
	if progress.String() != "progress\n" {
		t.Errorf("progress %q", progress.String())
	}
	if b, _ := os.ReadFile(p); !strings.Contains(string(b), "baseline") {
		t.Errorf("the skill's own file changed: %s", b)
	}
	if _, _, err := RunSuite(context.Background(), RunOptions{Claude: bin, Prompt: filepath.Join(t.TempDir(), "SKILL.md")}); !errors.Is(err, ErrNoSuite) {
		t.Errorf("no suite: %v", err)
	}
	if _, _, err := RunSuite(context.Background(), RunOptions{Claude: "/bin/false", Prompt: p}); err == nil || !strings.Contains(err.Error(), "exited 1 and wrote no result") {
		t.Errorf("a claude that writes nothing: %v", err)
	}
}

// TestRunSuiteCancelled: a cancelled context stops claude and its
// children promptly, and says so.
func TestRunSuiteCancelled(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in for claude is a shell script")
	}
	defer func(d time.Duration) { waitDelay = d }(waitDelay)
	waitDelay = 200 * time.Millisecond
	p := skillDir(t)
	bin := filepath.Join(t.TempDir(), "claude")
	// A child that outlives claude and keeps its output open.
	os.WriteFile(bin, []byte("#!/bin/sh\nsleep 3 &\nexec sleep 60\n"), 0o755)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := RunSuite(ctx, RunOptions{Claude: bin, Prompt: p, Progress: &strings.Builder{}})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("RunSuite cancelled: %v after %v", err, time.Since(start))
	}
}

// TestRunSuiteCases: with Cases set, the private plugin holds those cases
// and the suite's other files, not its other cases.
func TestRunSuiteCases(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in for claude is a shell script")
	}
	p := skillDir(t)
	suite := filepath.Join(filepath.Dir(p), "evals")
	for _, f := range []string{"alpha/prompt.md", "zulu/case.yaml", "fixtures/data.txt"} {
		os.MkdirAll(filepath.Dir(filepath.Join(suite, f)), 0o755)
		os.WriteFile(filepath.Join(suite, f), []byte("x\n"), 0o644)
	}
	if got := strings.Join(CaseNames(suite), ","); got != "alpha,ships,zulu" {
		t.Errorf("CaseNames = %s", got)
	}
	seen := filepath.Join(t.TempDir(), "seen")
	result, _ := filepath.Abs("testdata/aggregate-result.json")
	bin := filepath.Join(t.TempDir(), "claude")
	script := "#!/bin/sh\n{ cd \"$3/evals\" && find . -type f | sort; } > " + seen + "\ncp " + result + " \"$5\"\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := RunSuite(context.Background(), RunOptions{Claude: bin, Prompt: p, Content: []byte("---\nname: deploy\n---\nc\n"), Cases: []string{"ships", "zulu"}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(seen)
	if want := "./fixtures/data.txt\n./ships/graders/answer.md\n./ships/prompt.md\n./zulu/case.yaml\n"; string(b) != want {
		t.Errorf("the plugin's suite:\n%s\nwant:\n%s", b, want)
	}
}

// TestOnly: a part of a suite run has its cases' mean as its score.
func TestOnly(t *testing.T) {
	e := &Evidence{Score: 0.9, PassRate: 0.9, Runs: 3, Cases: []Case{{Name: "a", Score: 1, PassRate: 1, Runs: 3}, {Name: "b", Score: 0.5, PassRate: 0, Runs: 2}, {Name: "c", Score: 0, Runs: 3}}}
	o, ok := e.Only([]string{"a", "b"})
	if !ok || len(o.Cases) != 2 || o.Score != 0.75 || o.PassRate != 0.5 || o.Runs != 3 || e.Score != 0.9 || len(e.Cases) != 3 {
		t.Errorf("Only(a, b) = %+v %v", o, ok)
	}
	if o, ok := e.Only([]string{"b", "x"}); ok || len(o.Cases) != 1 || o.Score != 0.5 {
		t.Errorf("Only(b, x) = %+v %v", o, ok)
	}
}

// TestSuiteOf: a plugin's skill runs its plugin's suite, a skill in no
// plugin the suite beside its SKILL.md, and a skill with neither none.
func TestSuiteOf(t *testing.T) {
	root := t.TempDir()
	write := func(rel, body string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("acme/.claude-plugin/plugin.json", `{"name":"acme"}`)
	inPlugin := write("acme/skills/deploy/SKILL.md", "deploy\n")
	alone := write("proj/.claude/skills/review/SKILL.md", "review\n")
	write("proj/.claude/skills/review/evals/finds/prompt.md", "Review\n")
	none := write("proj/.claude/skills/ship/SKILL.md", "ship\n")
	claudeDir := filepath.Join(root, "claude")

	if plugin, dir, err := SuiteOf(inPlugin, claudeDir); err != nil || plugin != "acme" || dir != filepath.Join(root, "acme") {
		t.Errorf("a plugin's skill: %q %q %v", plugin, dir, err)
	}
	if plugin, dir, err := SuiteOf(alone, claudeDir); err != nil || plugin != "" || dir != "" {
		t.Errorf("a suite beside the SKILL.md: %q %q %v", plugin, dir, err)
	}
	_, _, err := SuiteOf(none, claudeDir)
	if err == nil || !strings.HasPrefix(err.Error(), none+" has no eval suite: `claude plugin eval` runs a plugin's suite") {
		t.Errorf("no suite: %v", err)
	}
}
