package claudecode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sepad/sepad/internal/fakeclaude"
)

// The sepad plugin (plugin/, .claude-plugin/marketplace.json) on the real
// client: installed from a local clone of the repository, offline, alone
// and beside the settings hook.

func init() {
	scenarios = append(scenarios, pluginScenarios...)
}

// repoRoot is the repository holding the plugin marketplace.
func repoRoot(t testing.TB) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// cloneMarketplace copies what a clone of the repository holds of the
// marketplace (.claude-plugin/ and plugin/, modes kept) to dst: the
// working tree's files, so a test sees uncommitted changes too.
func cloneMarketplace(t testing.TB, dst string) {
	t.Helper()
	root := repoRoot(t)
	for _, top := range []string{".claude-plugin", "plugin"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			to := filepath.Join(dst, rel)
			if d.IsDir() {
				return os.MkdirAll(to, 0o755)
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, b, fi.Mode().Perm())
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// claudeCLI runs a non-session claude command (plugin management) in the
// scratch environment and fails the test on a non-zero exit.
func (e *env) claudeCLI(args ...string) string {
	e.t.Helper()
	cmd := exec.Command(e.c.Bin, args...)
	cmd.Env = append(e.claudeEnv(), e.Extra...)
	cmd.Dir = e.Project
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// installPlugin adds a local clone of the repository as a marketplace and
// installs sepad@sepad from it, as a user would, offline.
func (e *env) installPlugin() {
	e.t.Helper()
	clone := filepath.Join(e.Root, "sepad-clone")
	cloneMarketplace(e.t, clone)
	e.claudeCLI("plugin", "marketplace", "add", clone)
	e.claudeCLI("plugin", "install", "sepad@sepad")
}

// uninstallSettings removes the settings hook newEnv installed.
func (e *env) uninstallSettings() {
	e.t.Helper()
	if out, errOut, code := e.sepad("uninstall", "--project", e.Project); code != 0 {
		e.t.Fatalf("sepad uninstall: exit %d\n%s%s", code, out, errOut)
	}
}

// pluginLine is the part of a spool line the plugin checks read.
type pluginLine struct {
	Event string `json:"hook_event_name"`
	Sepa  struct {
		Via string `json:"via"`
	} `json:"sepa"`
}

// eachEventOnce fails when two spool lines carry the same payload (the
// line without its sepa object): an event recorded twice.
func eachEventOnce(t *testing.T, spool []byte) (lines []pluginLine) {
	t.Helper()
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(spool))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		l := sc.Bytes()
		var sl pluginLine
		if err := json.Unmarshal(l, &sl); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		lines = append(lines, sl)
		i := bytes.LastIndex(l, []byte(`"sepa":{`))
		key := string(l[:max(i, 0)])
		if prev, dup := seen[key]; dup {
			t.Errorf("lines %d and %d hold the same %s event", prev, n, sl.Event)
		}
		seen[key] = n
	}
	if len(lines) == 0 {
		t.Fatal("empty spool")
	}
	return lines
}

// pluginSession is the session the plugin scenarios run: a project skill
// and two tool calls, so every common event fires.
func pluginSession(e *env, key string) {
	e.write(".claude/skills/deploy/SKILL.md", deploySkill)
	e.API.Set(key, fakeclaude.Script{
		{Tools: []fakeclaude.Tool{bash("echo hi")}},
		{Tools: []fakeclaude.Tool{skillCall("deploy")}},
		{Tools: []fakeclaude.Tool{bash("echo checks ok")}},
		{Text: answer},
	})
	e.claude("-p", "deploy @@"+key+"@@")
}

func checkPluginSession(t *testing.T, v string, xs []scored) {
	d := one(t, xs, "deploy")
	if d.ToolCalls != 2 || d.SkillVersion == "" || !d.HasOutput || !d.Complete {
		t.Errorf("deploy: %+v", d)
	}
	if s := one(t, xs, "_session"); s.ToolCalls != 1 {
		t.Errorf("_session: %+v", s)
	}
}

var pluginScenarios = []scenario{
	{
		name:     "plugin_only",
		versions: []string{"2.1.328"},
		run: func(e *env) {
			e.uninstallSettings()
			e.installPlugin()
			pluginSession(e, "pluginonly")
		},
		check: checkPluginSession,
		spoolCheck: func(t *testing.T, spool []byte) {
			for _, l := range eachEventOnce(t, spool) {
				if l.Sepa.Via != "plugin" {
					t.Errorf("a %s line without sepa.via plugin in a plugin-only install", l.Event)
				}
			}
		},
	},
	{
		name:     "plugin_and_settings",
		versions: []string{"2.1.328"},
		run: func(e *env) {
			e.installPlugin()
			out, errOut, code := e.sepad("install", "--project", e.Project)
			if code != 0 || !strings.Contains(out+errOut, "plugin") {
				e.t.Errorf("sepad install with the plugin enabled does not say so (exit %d):\n%s%s", code, out, errOut)
			}
			out, errOut, _ = e.sepad("doctor")
			if !strings.Contains(out+errOut, "installed twice") {
				e.t.Errorf("sepad doctor does not name the double install:\n%s%s", out, errOut)
			}
			pluginSession(e, "both")
		},
		check: checkPluginSession,
		spoolCheck: func(t *testing.T, spool []byte) {
			events := map[string]bool{}
			for _, l := range eachEventOnce(t, spool) {
				events[l.Event] = true
			}
			for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"} {
				if !events[ev] {
					t.Errorf("no %s in the spool", ev)
				}
			}
		},
	},
}

// newerEvents are the hook events the plugin installs that a pinned
// version older than the newest does not know (it ignores them at run
// time and its validator warns): PreSkillShellCommand since 2.1.332.
var newerEvents = map[string][]string{"2.1.328": {"PreSkillShellCommand"}}

// TestPluginValidate runs `claude plugin validate --strict` on the plugin
// and on the marketplace with the newest pinned version (2.1.332), and
// without --strict with 2.1.328: there the only warnings are the events it
// does not know yet, each "entry ignored at runtime".
func TestPluginValidate(t *testing.T) {
	for _, c := range clients(t) {
		strict := c.Version == "2.1.332"
		if !strict && c.Version != "2.1.328" {
			continue
		}
		for _, dir := range []string{"plugin", "."} {
			args := []string{"plugin", "validate", dir}
			if strict {
				args = []string{"plugin", "validate", "--strict", dir}
			}
			cmd := exec.Command(c.Bin, args...)
			cmd.Dir = repoRoot(t)
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "Validation passed") {
				t.Errorf("claude %s %s: %v\n%s", c.Version, strings.Join(args, " "), err, out)
			}
			if strict {
				continue
			}
			for _, l := range strings.Split(string(out), "\n") {
				if !strings.Contains(l, "❯ hooks: hooks.") {
					continue
				}
				known := false
				for _, ev := range newerEvents[c.Version] {
					known = known || strings.Contains(l, "hooks."+ev+": unknown hook event; entry ignored at runtime")
				}
				if !known {
					t.Errorf("claude %s plugin validate %s warns: %s", c.Version, dir, strings.TrimSpace(l))
				}
			}
		}
	}
}

// TestPluginWithoutSepad runs a session with the plugin installed but no
// sepad anywhere: no hook error, nothing recorded, and one message, at
// SessionStart, saying how to install sepad.
func TestPluginWithoutSepad(t *testing.T) {
	for _, c := range clients(t) {
		if c.Version != "2.1.328" {
			continue
		}
		e := newEnv(t, c)
		e.uninstallSettings()
		e.installPlugin()
		e.Env = append(e.Env, "PATH=/usr/local/bin:/usr/bin:/bin")
		e.write(".claude/skills/deploy/SKILL.md", deploySkill)
		e.API.Set("nosepad", fakeclaude.Script{
			{Tools: []fakeclaude.Tool{bash("echo hi")}},
			{Text: answer},
		})
		out, code := e.claude("-p", "hello @@nosepad@@", "--include-hook-events")
		if code != 0 {
			t.Fatalf("claude exited %d:\n%s", code, out)
		}
		var responses, messages int
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var r struct {
				Type      string `json:"type"`
				Subtype   string `json:"subtype"`
				HookEvent string `json:"hook_event"`
				Stdout    string `json:"stdout"`
				Stderr    string `json:"stderr"`
				ExitCode  *int   `json:"exit_code"`
				Outcome   string `json:"outcome"`
			}
			if json.Unmarshal(sc.Bytes(), &r) != nil || r.Subtype != "hook_response" {
				continue
			}
			responses++
			if r.ExitCode != nil && *r.ExitCode != 0 || r.Stderr != "" || r.Outcome != "" && r.Outcome != "success" {
				t.Errorf("a hook failed: %s", sc.Text())
			}
			if strings.Contains(r.Stdout, "systemMessage") {
				messages++
				if r.HookEvent != "SessionStart" || !strings.Contains(r.Stdout, "git clone") || !strings.Contains(r.Stdout, "go install ./cmd/...") || strings.Contains(r.Stdout, "@latest") {
					t.Errorf("the not-installed message: %s", sc.Text())
				}
			} else if r.Stdout != "" {
				t.Errorf("a hook printed: %s", sc.Text())
			}
		}
		if responses < 4 || messages != 1 {
			t.Errorf("%d hook responses, %d not-installed messages; want several and 1:\n%s", responses, messages, out)
		}
		if _, err := os.Stat(filepath.Join(e.State, "events.jsonl")); !os.IsNotExist(err) {
			t.Errorf("a spool without sepad (%v)", err)
		}
	}
}

// TestPluginGradesCommand: /sepad:grades runs `sepad grades` and its
// output reaches the model's prompt (the fake server's request log).
func TestPluginGradesCommand(t *testing.T) {
	for _, c := range clients(t) {
		if c.Version != "2.1.328" {
			continue
		}
		e := newEnv(t, c)
		e.uninstallSettings()
		e.installPlugin()
		pluginSession(e, "gradesrun")
		d := e.startDaemon("--http", freeAddr(t))
		d.waitExecutions(2)
		e.API.Set("gradescmd", fakeclaude.Script{{Text: "deploy grades well."}})
		// The answer comes from the fake server's default: the check is
		// on what Claude Code sent it.
		out, code := e.claude("-p", "/sepad:grades deploy")
		if code != 0 {
			t.Fatalf("claude exited %d:\n%s", code, out)
		}
		// Issue 36 item 16: sepad's own command is not one of the
		// person's prompts: once its session ended and was read, the
		// skills are still the first session's two.
		waitUntil(t, "the second session read", func() bool {
			out, _, code := e.sepad("status", "--json")
			var st struct {
				Events map[string]int64 `json:"events"`
				Lag    int64            `json:"lag_events"`
				Open   int              `json:"open_executions"`
			}
			return code == 0 && json.Unmarshal([]byte(out), &st) == nil && st.Events["SessionEnd"] == 2 && st.Lag == 0 && st.Open == 0
		})
		gj, _, _ := e.sepad("grades", "--json")
		var gd struct {
			Grades []struct{ Skill string } `json:"grades"`
		}
		if err := json.Unmarshal([]byte(gj), &gd); err != nil {
			t.Fatalf("grades --json: %v\n%s", err, gj)
		}
		var skills []string
		for _, g := range gd.Grades {
			skills = append(skills, g.Skill)
		}
		slices.Sort(skills)
		if !slices.Equal(skills, []string{"_session", "deploy"}) {
			t.Errorf("skills after /sepad:grades: %q, want _session and deploy only", skills)
		}
		d.stop()
		var found bool
		for _, r := range e.API.Requests() {
			b := string(r.Body)
			if testing.Verbose() {
				t.Logf("request: %s", b)
			}
			// The grades table as `sepad grades` prints it, not the
			// command's own text.
			if strings.Contains(b, `SKILL   PROJECT  VERSION`) && regexp.MustCompile(`\\ndeploy +proj +v1 [0-9a-f]{8}`).MatchString(b) {
				found = true
			}
		}
		if !found {
			var bodies []string
			for _, r := range e.API.Requests() {
				bodies = append(bodies, string(r.Body))
			}
			t.Fatalf("no request holds the output of sepad grades:\n%s", strings.Join(bodies, "\n----\n"))
		}
	}
}

// TestPluginTrustCommand: with the plugin alone, doctor says sepad may
// not write the project's prompts and names `sepad trust`; /sepad:trust
// runs it in the project, after which doctor says it may.
func TestPluginTrustCommand(t *testing.T) {
	for _, c := range clients(t) {
		if c.Version != "2.1.328" {
			continue
		}
		e := newEnv(t, c)
		e.uninstallSettings()
		e.installPlugin()
		e.write(".claude/skills/deploy/SKILL.md", deploySkill)
		out, errOut, _ := e.sepad("doctor")
		want := "outside the roots sepad may write"
		if !strings.Contains(out, want) || !strings.Contains(out, "sepad trust "+e.Project) {
			t.Fatalf("doctor with the plugin alone does not say %q and `sepad trust %s`:\n%s%s", want, e.Project, out, errOut)
		}
		e.API.Set("trustcmd", fakeclaude.Script{{Text: "Trusted."}})
		if out, code := e.claude("-p", "/sepad:trust"); code != 0 {
			t.Fatalf("claude exited %d:\n%s", code, out)
		}
		list, errOut, code := e.sepad("trust", "--list")
		if code != 0 || strings.TrimSpace(list) != e.Project {
			t.Fatalf("sepad trust --list after /sepad:trust (exit %d): %q %s", code, list, errOut)
		}
		var found bool
		for _, r := range e.API.Requests() {
			found = found || strings.Contains(string(r.Body), "sepad may now write prompt files in "+e.Project)
		}
		if !found {
			t.Error("no request holds the output of sepad trust")
		}
		out, _, _ = e.sepad("doctor")
		if !strings.Contains(out, "OK    sepad may write the prompt files in "+e.Project) {
			t.Errorf("doctor after /sepad:trust:\n%s", out)
		}
	}
}

// TestPluginCommandRefusal: a plugin command whose sepad command refuses
// (exit 1: a rollback in a project the plugin alone records, which names
// `sepad trust`, not "read …: path is outside the roots") still reaches
// the model with sepad's words, so it can explain the refusal as the
// command asks; a walk found Claude Code ending the command with "Shell
// command failed for pattern …" and the raw stderr instead. The person's
// permission mode: the `!` line must pass the command's allowed-tools.
func TestPluginCommandRefusal(t *testing.T) {
	for _, c := range clients(t) {
		if c.Version != "2.1.328" {
			continue
		}
		e := newEnv(t, c)
		e.uninstallSettings()
		e.installPlugin()
		pluginSession(e, "refusalrun")
		d := e.startDaemon(freeAddr(t))
		d.waitExecutions(2)
		e.PermissionMode = "default"
		out, code := e.claude("-p", "/sepad:rollback deploy")
		d.stop()
		if code != 0 || strings.Contains(out, "Shell command failed") {
			t.Fatalf("claude exited %d, or the command failed:\n%s", code, out)
		}
		var found bool
		for _, r := range e.API.Requests() {
			b := string(r.Body)
			// The plugin alone: sepad may not write the project, and
			// says how to let it.
			found = found || strings.Contains(b, "path is outside the roots sepad may write: run `sepad trust "+e.Project+"`") && strings.Contains(b, "explain the refusal")
			if strings.Contains(b, "sepad rolled back") {
				t.Errorf("the command says sepad rolled back before sepad answered:\n%s", b)
			}
		}
		if !found {
			t.Fatal("no request holds sepad rollback's refusal with the command's instructions")
		}
	}
}
