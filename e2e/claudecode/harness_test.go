// Package claudecode is the real-client suite: real Claude Code sessions,
// run headless against a scripted fake Messages API on loopback, with sepad
// installed as their hook. Each scenario checks what sepad makes of the
// events, and records the spool per Claude Code version under
// testdata/claude-code/<version>/<scenario>/ with the executions `sepad
// score` finds there, so that plain `go test ./...` checks them on machines
// without the CLI too (golden_test.go).
//
// The CLI comes from scripts/claude-code.sh VERSION; without it the live
// tests skip with one line (SEPAD_REQUIRE_CLAUDE=1, as .ci/run sets, makes
// that a failure). SEPAD_CLAUDE_VERSIONS picks the versions (default
// "2.1.328 2.1.197"); `go test ./e2e/claudecode -update` re-records.
package claudecode

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/internal/fakeclaude"
	"github.com/sepad/sepad/internal/testbin"
)

var update = flag.Bool("update", false, "re-record the spools and golden executions under testdata/claude-code")

// Binaries built once for the suite.
var (
	sepadBin string
	hookBin  string
	binDir   string
)

// DefaultVersions are the Claude Code versions the suite runs on.
var DefaultVersions = []string{"2.1.332", "2.1.328", "2.1.197"}

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "sepad-cc-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	// Linked at most once per source tree (internal/testbin).
	bins, err := testbin.Build(dir, "sepad", "sepad-hook")
	if err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
	sepadBin, hookBin = bins[0], bins[1]
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// client is one installed Claude Code.
type client struct {
	Version string
	Bin     string
}

// clients returns the installed Claude Codes, skipping (or failing, with
// SEPAD_REQUIRE_CLAUDE=1) when one is missing.
func clients(t *testing.T) []client {
	t.Helper()
	if testing.Short() {
		t.Skip("real-client suite: skipped in -short mode")
	}
	var out []client
	for _, v := range testbin.ClaudeVersions(DefaultVersions...) {
		out = append(out, client{Version: v, Bin: testbin.Claude(t, v)})
	}
	return out
}

// env is one scratch machine: a HOME, a project with sepad installed, a
// state directory and a fake model server.
type env struct {
	t       *testing.T
	c       client
	Root    string // everything lives below it
	Home    string
	Project string
	State   string // SEPA_HOME
	API     *fakeclaude.Server
	Extra   []string // more environment for claude
	// Env is more environment for both sepad and claude (e.g.
	// CLAUDE_CONFIG_DIR, which baseEnv otherwise leaves out).
	Env []string
	// PermissionMode is claude's --permission-mode ("" is
	// bypassPermissions; "default" runs without the flag, as a person
	// would, so a call that needs a permission is denied in -p mode).
	PermissionMode string
	// Cwd is where claude runs ("" is Project).
	Cwd string
}

// newEnv makes a scratch project with a git repository and sepad
// installed in exec form (installArgs add to `sepad install`).
func newEnv(t *testing.T, c client, installArgs ...string) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{t: t, c: c, Root: root, Home: filepath.Join(root, "home"), State: filepath.Join(root, "state")}
	e.Project = filepath.Join(e.Home, "proj")
	for _, d := range []string{e.Project, e.State} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	git := exec.Command("git", "init", "-q", e.Project)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	srv, err := fakeclaude.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	e.API = srv
	if installArgs != nil || true {
		args := append([]string{"install", "--project", e.Project}, installArgs...)
		out, errOut, code := e.sepad(args...)
		if code != 0 {
			t.Fatalf("sepad install: exit %d\n%s%s", code, out, errOut)
		}
	}
	return e
}

// write creates a file under the project (or an absolute path).
func (e *env) write(rel, content string) string {
	e.t.Helper()
	p := rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.Project, rel)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) baseEnv() []string {
	var keep []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "ANTHROPIC_"), strings.HasPrefix(k, "CLAUDE"), k == "HOME", k == "SEPA_HOME",
			k == "XDG_CONFIG_HOME", k == "XDG_STATE_HOME", k == "XDG_CACHE_HOME", k == "SEPA_CONFIG":
			continue
		}
		keep = append(keep, kv)
	}
	return append(append(keep,
		"HOME="+e.Home,
		"SEPA_HOME="+e.State,
		"SEPA_CONFIG=",
		"XDG_CONFIG_HOME="+filepath.Join(e.Home, ".config"),
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
	), e.Env...)
}

// sepad runs a sepad command in the scratch environment.
func (e *env) sepad(args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	testbin.Consult() // the result depends on the binary's sources
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, sepadBin, args...)
	cmd.Env = e.baseEnv()
	cmd.Dir = e.Project
	var o, er bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &er
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("sepad %v: %v", args, err)
	}
	return o.String(), er.String(), code
}

func (e *env) claudeEnv() []string {
	return append(e.baseEnv(),
		"ANTHROPIC_BASE_URL="+e.API.URL,
		"ANTHROPIC_API_KEY=sk-ant-fake-key-for-tests",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"IS_SANDBOX=1",
	)
}

// claudeCmd prepares a headless Claude Code run in the project.
func (e *env) claudeCmd(ctx context.Context, args ...string) *exec.Cmd {
	base := []string{"--output-format", "stream-json", "--verbose"}
	switch e.PermissionMode {
	case "":
		base = append(base, "--permission-mode", "bypassPermissions")
	case "default":
	default:
		base = append(base, "--permission-mode", e.PermissionMode)
	}
	cmd := exec.CommandContext(ctx, e.c.Bin, append(base, args...)...)
	cmd.Env = append(e.claudeEnv(), e.Extra...)
	cmd.Dir = e.Project
	if e.Cwd != "" {
		cmd.Dir = e.Cwd
	}
	return cmd
}

// claude runs `claude -p PROMPT` to the end and returns its stream-json
// output. A non-zero exit is returned, not fatal: some scenarios end so.
func (e *env) claude(args ...string) (out string, code int) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := e.claudeCmd(ctx, args...)
	var o, er bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &er
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("claude %v: %v", args, err)
	}
	if ctx.Err() != nil {
		e.t.Fatalf("claude %v timed out\nstdout:\n%s\nstderr:\n%s", args, o.String(), er.String())
	}
	if testing.Verbose() && er.Len() > 0 {
		e.t.Logf("claude stderr: %s", er.String())
	}
	return o.String(), code
}

// sessionID is the session_id of a stream-json output's init record.
func sessionID(t *testing.T, streamJSON string) string {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(streamJSON))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r struct {
			Type      string `json:"type"`
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.SessionID != "" {
			return r.SessionID
		}
	}
	t.Fatalf("no session_id in the output:\n%s", streamJSON)
	return ""
}

// spool returns the spool's lines.
func (e *env) spool() []byte {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.State, "events.jsonl"))
	if err != nil {
		e.t.Fatalf("read spool: %v", err)
	}
	return b
}

// scored is one execution as `sepad score --json` prints it (the fields
// the scenarios check).
type scored struct {
	ID           string  `json:"id"`
	SessionID    string  `json:"session_id"`
	AgentID      string  `json:"agent_id"`
	Skill        string  `json:"skill"`
	SkillPath    string  `json:"skill_path"`
	SkillVersion string  `json:"skill_version"`
	Project      string  `json:"project"`
	ToolCalls    int     `json:"tool_calls"`
	ToolFailures int     `json:"tool_failures"`
	Errors       int     `json:"errors"`
	Complete     bool    `json:"complete"`
	Scored       bool    `json:"scored"`
	Score        float64 `json:"score"`
	Grade        string  `json:"grade"`
	DurationMS   int64   `json:"duration_ms"`
	Corrections  int     `json:"corrections"`
	// Omitted when 0, so the goldens of scenarios without them are
	// unchanged.
	Acceptances int    `json:"acceptances,omitempty"`
	Repairs     int    `json:"repairs,omitempty"`
	Retries     int    `json:"retries"`
	HasOutput   bool   `json:"has_output"`
	StopError   string `json:"stop_error"`
	Kind        string `json:"kind"`
	// Plugin and PluginVersion are omitted when empty, so the goldens of
	// scenarios without plugins are unchanged.
	Plugin        string `json:"plugin,omitempty"`
	PluginVersion string `json:"plugin_version,omitempty"`
	// ShellLines counts the skill's own shell lines (PreSkillShellCommand,
	// 2.1.332); omitted when 0.
	ShellLines int `json:"shell_lines,omitempty"`
	// Denied counts calls refused by the permission layer
	// (PermissionDenied), Compactions the compactions mid-run.
	Denied      int `json:"denied,omitempty"`
	Compactions int `json:"compactions,omitempty"`
	// InvokedBy and Missed are the activation marks (claude, user; a
	// missed activation), decoded apart so the goldens recorded before
	// them stay as they are; the activation scenarios check them.
	InvokedBy string `json:"-"`
	Missed    bool   `json:"-"`
}

// score runs `sepad score --json` over a spool file.
func score(t *testing.T, spool string) []scored {
	t.Helper()
	testbin.Consult() // the result depends on the binary's sources
	cmd := exec.Command(sepadBin, "score", "--json", spool)
	cmd.Env = append(os.Environ(), "SEPA_CONFIG=", "XDG_CONFIG_HOME="+t.TempDir())
	var o, er bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &er
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() > 1 {
			t.Fatalf("sepad score %s: %v\n%s", spool, err, er.String())
		}
	}
	var doc struct {
		Executions []scored `json:"executions"`
	}
	if err := json.Unmarshal(o.Bytes(), &doc); err != nil {
		t.Fatalf("sepad score --json: %v\n%s", err, o.String())
	}
	var marks struct {
		Executions []struct {
			InvokedBy string `json:"invoked_by"`
			Missed    bool   `json:"missed_activation"`
		} `json:"executions"`
	}
	if err := json.Unmarshal(o.Bytes(), &marks); err != nil || len(marks.Executions) != len(doc.Executions) {
		t.Fatalf("sepad score --json: activation marks: %v", err)
	}
	for i, m := range marks.Executions {
		doc.Executions[i].InvokedBy, doc.Executions[i].Missed = m.InvokedBy, m.Missed
	}
	return doc.Executions
}

// Scratch is what a recorded spool says instead of the test's temporary root.
const Scratch = "/scratch"

// record writes the scenario's spool and executions under testdata when
// -update is given, with the temporary root replaced by Scratch.
func (e *env) record(name string, spool []byte) {
	e.t.Helper()
	if !*update {
		return
	}
	dir := filepath.Join("..", "..", "testdata", "claude-code", e.c.Version, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	s := bytes.ReplaceAll(spool, []byte(e.Root), []byte(Scratch))
	s = bytes.ReplaceAll(s, []byte(jsonEscapePath(e.Root)), []byte(Scratch))
	// transcript_path names the project by its path with every
	// non-alphanumeric character turned into '-'.
	s = bytes.ReplaceAll(s, []byte(slug(e.Root)), []byte(slug(Scratch)))
	if err := os.WriteFile(filepath.Join(dir, "events.jsonl"), s, 0o644); err != nil {
		e.t.Fatal(err)
	}
	writeGolden(e.t, dir)
}

func slug(p string) string {
	return regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(p, "-")
}

func jsonEscapePath(p string) string {
	b, _ := json.Marshal(p)
	return strings.Trim(string(b), `"`)
}

// writeGolden scores a recorded spool and writes executions.golden.json.
func writeGolden(t *testing.T, dir string) {
	t.Helper()
	xs := score(t, filepath.Join(dir, "events.jsonl"))
	sort.SliceStable(xs, func(i, j int) bool { return xs[i].ID < xs[j].ID })
	b, err := json.MarshalIndent(xs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "executions.golden.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// bySkill returns the executions of one skill.
func bySkill(xs []scored, skill string) []scored {
	var out []scored
	for _, x := range xs {
		if x.Skill == skill {
			out = append(out, x)
		}
	}
	return out
}

func dump(xs []scored) string {
	b, _ := json.MarshalIndent(xs, "", "  ")
	return string(b)
}
