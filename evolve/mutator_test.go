package evolve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sepad/sepad/internal/fakeclaude"
	"github.com/sepad/sepad/internal/testbin"
)

func TestParseClaudeResult(t *testing.T) {
	doc := `{"type":"result","subtype":"success","is_error":false,"result":"new text\n","total_cost_usd":0.0123,"usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":100}}`
	cases := []struct {
		name, in string
		text     string
		cost     float64
		err      string
	}{
		{"one document", doc, "new text\n", 0.0123, ""},
		{"stream of lines", `{"type":"system"}` + "\n" + doc + "\n", "new text\n", 0.0123, ""},
		{"verbose array", `[{"type":"system"},` + doc + `]`, "new text\n", 0.0123, ""},
		{"empty", "  \n", "", 0, "empty output"},
		{"not json", "Error: not logged in", "", 0, `no result document in 20 bytes of output (starts "Error: not logged in")`},
		{"no result", `{"type":"system"}`, "", 0, "no result document"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := ParseClaudeResult([]byte(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || r.Result != c.text || r.CostUSD != c.cost || r.Usage.CacheRead != 100 {
				t.Fatalf("%+v %v", r, err)
			}
		})
	}
}

func TestUnwrap(t *testing.T) {
	cases := []struct{ in, want string }{
		{"# A\n\ntext\n", "# A\n\ntext\n"},
		{"```markdown\n# A\n\ntext\n```", "# A\n\ntext\n"},
		{"```md\n# A\n```\n", "# A\n"},
		{"```\n# A\n```", "# A\n"},
		{"```go\nfunc f() {}\n```", "```go\nfunc f() {}\n```"}, // a code file, not a wrapped answer
		{"```sh\nls\n```\n\ntext\n\n```sh\nls\n```", "```sh\nls\n```\n\ntext\n\n```sh\nls\n```"},
		{"```\na\n```\nb\n```\nc\n```", "```\na\n```\nb\n```\nc\n```"}, // several blocks: kept
		{BeginText + "\n# A\n" + EndText + "\n", "# A\n"},
	}
	for _, c := range cases {
		if got := string(Unwrap([]byte(c.in))); got != c.want {
			t.Errorf("Unwrap(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzUnwrap(f *testing.F) {
	for _, s := range []string{"```markdown\n# A\n```", "# A", BeginText + "\nx\n" + EndText, "```\n```", "```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Unwrap([]byte(s))
		if len(got) > len(s)+1 {
			t.Fatalf("Unwrap grew %d bytes to %d", len(s), len(got))
		}
		if utf8.ValidString(s) && !utf8.Valid(got) {
			t.Fatalf("Unwrap broke UTF-8: %q → %q", s, got)
		}
	})
}

func FuzzParseClaudeResult(f *testing.F) {
	f.Add([]byte(`{"type":"result","result":"x","total_cost_usd":1}`))
	f.Add([]byte(`[{"type":"result"}]`))
	f.Add([]byte("{\"type\":\"x\"}\n{\"type\":\"result\"}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseClaudeResult(b)
		if err == nil && r.Type != "result" {
			t.Fatalf("accepted a document of type %q", r.Type)
		}
	})
}

func TestCommandMutator(t *testing.T) {
	env := append(os.Environ(), "EVOLVE_HELPER=echo")
	a, err := Command{Argv: []string{os.Args[0]}, Env: env}.Mutate(context.Background(), "hello request")
	if err != nil || string(a.Text) != "hello request" || a.HasCost {
		t.Fatalf("%+v %v", a, err)
	}
	if _, err := (Command{}).Mutate(context.Background(), "x"); !errors.Is(err, ErrMutator) {
		t.Errorf("empty argv: %v", err)
	}
	_, err = Command{Argv: []string{filepath.Join(t.TempDir(), "missing")}}.Mutate(context.Background(), "x")
	if !errors.Is(err, ErrMutator) || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing command: %v", err)
	}
}

// claudeBin is an installed Claude Code (scripts/claude-code.sh), or a
// skip in one line (a failure with SEPAD_REQUIRE_CLAUDE=1).
func claudeBin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("real Claude Code: skipped in -short mode")
	}
	return testbin.Claude(t, testbin.ClaudeVersions("2.1.328")[0])
}

// offlineEnv runs Claude Code against the fake model server in a scratch
// HOME.
func offlineEnv(t *testing.T, url string) []string {
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "CLAUDE") || k == "HOME" || strings.HasPrefix(k, "XDG_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "ANTHROPIC_BASE_URL="+url, "ANTHROPIC_API_KEY=sk-ant-fake-key-for-tests",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1")
}

func TestClaudeMutator(t *testing.T) {
	bin := claudeBin(t)
	srv, err := fakeclaude.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	newText := "---\nname: deploy\n---\n# Deploy\n\nRun the checks first.\n"
	srv.Set("mutate", fakeclaude.Script{{Text: "```markdown\n" + newText + "```", Usage: &fakeclaude.Usage{Input: 1000, Output: 200}}})
	srv.Set("broken", fakeclaude.Script{{Status: 400, ErrorMessage: "prompt is too long"}})
	c := Claude{Bin: bin, Timeout: 2 * time.Minute, Env: offlineEnv(t, srv.URL)}
	a, err := c.Mutate(context.Background(), "@@mutate@@ improve this file")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(Unwrap(a.Text)); got != newText {
		t.Fatalf("answer %q, want %q", got, newText)
	}
	if !a.HasCost || a.CostUSD <= 0 || a.OutputTokens != 200 {
		t.Errorf("cost %+v: want claude's reported cost and tokens", a)
	}
	// The model was asked with no tools at all, the request as the prompt.
	var asked bool
	for _, r := range srv.Requests() {
		if r.Key != "mutate" {
			continue
		}
		asked = true
		var body struct {
			Tools []json.RawMessage `json:"tools"`
		}
		json.Unmarshal(r.Body, &body)
		if len(body.Tools) != 0 {
			t.Errorf("the mutator's model was offered %d tools", len(body.Tools))
		}
		if !bytes.Contains(r.Body, []byte("improve this file")) {
			t.Error("the request did not reach the model")
		}
	}
	if !asked {
		t.Fatal("the fake model server saw no mutation request")
	}
	_, err = c.Mutate(context.Background(), "@@broken@@ improve")
	if !errors.Is(err, ErrMutator) {
		t.Fatalf("a failing model: %v, want ErrMutator", err)
	}
	if !strings.Contains(strings.ToLower(err.Error()), "claude: prompt is too long") {
		t.Errorf("the failure does not carry claude's words: %v", err)
	}
}

// TestClaudeNotLoggedIn: the real Claude Code CLI with no credentials in
// its environment (as a daemon started by a service manager has) answers
// "Not logged in"; the mutator's error says which environment claude ran
// with and how to give it credentials.
func TestClaudeNotLoggedIn(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real Claude Code CLI")
	}
	out, err := exec.Command("../scripts/claude-code.sh", "2.1.328").Output()
	if err != nil {
		t.Skipf("no Claude Code CLI: %v", err)
	}
	home := t.TempDir()
	m := Claude{Bin: strings.TrimSpace(string(out)), Timeout: time.Minute, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + home}}
	_, err = m.Mutate(context.Background(), "Rewrite this.")
	if !errors.Is(err, ErrMutator) {
		t.Fatalf("mutate without credentials: %v", err)
	}
	for _, want := range []string{"Not logged in", "runs claude with its own environment (HOME=" + home + ", ANTHROPIC_API_KEY unset)", "Environment=", "/login"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestLoginHint(t *testing.T) {
	if h := LoginHint("Rate limited", nil); h != "" {
		t.Errorf("hint for another error: %q", h)
	}
	h := LoginHint("Invalid API key · Please run /login", []string{"HOME=/h", "ANTHROPIC_API_KEY=sk-secret", "CLAUDE_CONFIG_DIR=/c"})
	if !strings.Contains(h, "HOME=/h, CLAUDE_CONFIG_DIR=/c, ANTHROPIC_API_KEY set") || strings.Contains(h, "sk-secret") {
		t.Errorf("hint %q", h)
	}
}
