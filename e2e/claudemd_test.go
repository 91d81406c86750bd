package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sepad/sepad/api"
)

// TestDashboardNamesClaudeMD (issue 36 item 9): the dashboard names the
// session's base prompt "CLAUDE.md", never "_session", and its page lists
// the instruction files it covers. The state is the real Claude Code
// 2.1.332 session of the `instructions` scenario (its recorded spool:
// user and project CLAUDE.md, a rule, an import, CLAUDE.local.md).
func TestDashboardNamesClaudeMD(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: not in -short")
	}
	home := filepath.Join(t.TempDir(), "state")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	spool, err := os.ReadFile(filepath.Join("..", "testdata", "claude-code", "2.1.332", "instructions", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "events.jsonl"), spool, 0o600); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, home, "--http", "127.0.0.1:0")
	d.waitUp()
	waitCaughtUp(t, home, 0)
	out, errOut, code := sepad(t, nil, nil, "dashboard", "--home", home, "--json")
	var l api.Login
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil || l.URL == "" {
		t.Fatalf("sepad dashboard: %d %s %s", code, out, errOut)
	}
	ctx := browser(t)
	browse(t, ctx, "log in", chromedp.Navigate(l.URL), chromedp.WaitVisible(chromedp.CSS("#skills")))
	root := browseValue(t, ctx, "the overview's address", chromedp.Location())
	names := browseValue(t, ctx, "the skills' names", chromedp.Evaluate[[]string](`[...document.querySelectorAll("#skills tbody a")].map(a => a.textContent)`))
	links := browseValue(t, ctx, "the skills' pages", chromedp.Evaluate[[]string](`[...document.querySelectorAll("#skills tbody a")].map(a => a.href)`))
	if len(names) != 1 || names[0] != "CLAUDE.md" {
		t.Fatalf("the overview names %q, want CLAUDE.md", names)
	}
	browse(t, ctx, "the skill page", chromedp.Navigate(links[0]), chromedp.WaitVisible(chromedp.CSS("main")))
	h1 := browseValue(t, ctx, "the heading", chromedp.Evaluate[string](`document.querySelector("h1").textContent`))
	covers := browseValue(t, ctx, "the files covered", chromedp.Evaluate[string](`(document.querySelector("#covers") || {}).textContent || ""`))
	if !strings.HasPrefix(h1, "CLAUDE.md") {
		t.Errorf("the skill page's heading: %q", h1)
	}
	for _, f := range []string{"CLAUDE.md", "CLAUDE.local.md", "docs/guide.md", "/scratch/home/.claude/CLAUDE.md", "/scratch/home/.claude/rules/style.md"} {
		if !strings.Contains(covers, f) {
			t.Errorf("the files covered lack %s: %q", f, covers)
		}
	}
	var execs struct {
		Executions []struct{ ID string } `json:"executions"`
	}
	out, _, _ = sepad(t, nil, nil, "executions", "--json", "--home", home)
	if json.Unmarshal([]byte(out), &execs) != nil || len(execs.Executions) == 0 {
		t.Fatalf("executions: %s", out)
	}
	for _, p := range []string{root, root + "decisions", links[0], root + "execution/" + execs.Executions[0].ID} {
		browse(t, ctx, "open "+p, chromedp.Navigate(p), chromedp.WaitVisible(chromedp.CSS("main")))
		text := browseValue(t, ctx, "the text of "+p, chromedp.Evaluate[string](`document.title + "\n" + document.body.innerText`))
		if strings.Contains(text, "_session") {
			t.Errorf("%s shows _session:\n%s", p, text)
		}
		if !strings.HasSuffix(p, "decisions") && !strings.Contains(text, "CLAUDE.md") { // no decision yet
			t.Errorf("%s does not name CLAUDE.md:\n%s", p, text)
		}
	}
	d.stop(t)
}
