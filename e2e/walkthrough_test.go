package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewUserWalkthrough tries every command `sepad help` lists, as a new
// user would, with the daemon running as the service runs it: the command
// line of the unit `sepad install --service` writes, in the background.
// Each command runs without and with --json; a --json output must be one
// JSON document with the shape of its example in docs/api.md, and a
// command without --json must refuse the flag as a usage error. A
// command `sepad help` lists and this test does not know fails it: add it
// below.
func TestNewUserWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("drives the daemon through every command")
	}
	p := newProject(t)
	p.config("  auto_rollback: false\n")
	p.writeSkill("Run the checks, then make deploy.")
	env := p.env()

	// The service, as its unit runs it (there is no systemd user session
	// here): the unit's ExecStart, started in the background.
	if _, errOut, code := sepad(t, env, nil, "install", "--service", "--no-start", "--home", p.home); code != 0 {
		t.Fatalf("install --service: %s", errOut)
	}
	unit, err := os.ReadFile(filepath.Join(p.userHome, ".config", "systemd", "user", "sepad.service"))
	if err != nil {
		t.Fatal(err)
	}
	var argv []string
	for _, l := range strings.Split(string(unit), "\n") {
		if v, ok := strings.CutPrefix(l, "ExecStart="); ok {
			argv = strings.Fields(v)
		}
	}
	if len(argv) < 2 || argv[0] != sepadBin || argv[1] != "run" {
		t.Fatalf("the unit's ExecStart: %q", argv)
	}
	logPath := filepath.Join(t.TempDir(), "daemon.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &daemon{cmd: cmd, done: make(chan error, 1)}
	go func() { d.done <- cmd.Wait() }()
	t.Cleanup(func() {
		d.kill()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("daemon log:\n%s", b)
		}
	})
	waitFor(t, "the service's socket", func() bool { return status(t, p.home).Daemon.Running })
	t.Log("the daemon runs as the unit starts it")

	// Two versions of the skill, through the hook Claude Code would run.
	p.turns(5, 1, goodAnswer)
	p.release()
	p.edit("Deploy quickly; skip the checks.")
	p.turns(5, 2, "Deployed without checks.")
	p.release()
	waitFor(t, "ten executions of deploy", func() bool {
		out, _, code := sepad(t, env, nil, "executions", "--skill", "deploy", "--json", "--home", p.home)
		return code == 0 && strings.Count(out, `"id": `) >= 10
	})
	t.Log("two versions recorded")

	dir := t.TempDir()
	proposal := filepath.Join(dir, "proposal.md")
	writeFile(t, proposal, "---\nname: deploy\ndescription: deploy the shop\n---\n# Deploy\n\nRun the checks, deploy, then verify.\n")
	hookLog := filepath.Join(dir, "hooks.jsonl")
	spool, err := os.ReadFile(filepath.Join(p.home, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, hookLog, string(spool))
	out, _, _ := sepad(t, env, nil, "executions", "--skill", "deploy", "--limit", "1", "--json", "--home", p.home)
	var ex struct {
		Executions []struct{ ID string } `json:"executions"`
	}
	if err := json.Unmarshal([]byte(out), &ex); err != nil || len(ex.Executions) == 0 {
		t.Fatalf("executions --json: %v\n%s", err, out)
	}
	execID := ex.Executions[0].ID

	// Each step: the arguments, the doc heading its --json output follows
	// ("" for no --json flag; "-" for JSON without an example), and the
	// exit status expected without and with --json.
	type step struct {
		args    []string
		heading string
		example int
		code    int
		want    string // in the text output
	}
	steps := map[string][]step{
		"version":    {{[]string{"version"}, "GET /v1/version", 0, 0, "sepad "}},
		"help":       {{[]string{"help"}, "help", 0, 0, "commands:"}, {[]string{"help", "grades"}, "help", 0, 0, "usage: sepad grades"}},
		"status":     {{[]string{"status"}, "GET /v1/status", 0, 0, "daemon"}},
		"grades":     {{[]string{"grades"}, "GET /v1/skills", 0, 0, "deploy"}},
		"api":        {{[]string{"api", "/v1/skills"}, "GET /v1/skills", 0, 0, `"grades"`}},
		"versions":   {{[]string{"versions", "deploy"}, "GET /v1/skills/{skill}/versions", 0, 0, "v2"}},
		"show":       {{[]string{"show", "deploy@v1"}, "GET /v1/skills/{skill}/versions/{version}", 0, 0, "Run the checks, then make deploy."}},
		"diff":       {{[]string{"diff", "deploy", "v1", "v2"}, "GET /v1/skills/{skill}/diff", 0, 0, "+Deploy quickly; skip the checks."}},
		"history":    {{[]string{"history", "deploy"}, "GET /v1/skills/{skill}/history", 0, 0, "deploy"}},
		"executions": {{[]string{"executions"}, "GET /v1/executions", 0, 0, "deploy"}},
		"explain":    {{[]string{"explain", execID}, "GET /v1/executions/{id}", 0, 0, "tool success rate"}},
		"sessions":   {{[]string{"sessions"}, "GET /v1/sessions", 0, 0, p.session[:8]}},
		"quarantine": {{[]string{"quarantine"}, "GET /v1/quarantine", 0, 0, ""}},
		"decisions":  {{[]string{"decisions"}, "GET /v1/decisions", 0, 0, ""}},
		"notices":    {{[]string{"notices"}, "notices", 0, 0, ""}},
		"strategies": {{[]string{"strategies", "deploy"}, "GET /v1/strategies", 0, 0, "constraint_add"}},
		"completion": {{[]string{"completion", "bash"}, "", 0, 0, "complete -F _sepad sepad"}},
		"config":     {{[]string{"config", "show"}, "", 0, 0, "min_samples"}, {[]string{"config", "init", filepath.Join(dir, "config.yaml")}, "", 0, 0, ""}},
		"doctor":     {{[]string{"doctor", "--project", p.dir}, "", 0, -1, "OK    the daemon answers on"}},
		"install":    {{[]string{"install", "--project", p.dir, "--dry-run"}, "", 0, 0, ""}},
		"uninstall":  {{[]string{"uninstall", "--project", p.dir, "--dry-run"}, "", 0, 0, ""}},
		"score":      {{[]string{"score", hookLog}, "sepad score --json", 0, 0, "deploy"}},
		"import":     {{[]string{"import", hookLog}, "POST /v1/import", 0, 0, "imported 0 payloads"}},
		"reload":     {{[]string{"reload"}, "", 0, 0, "sent SIGHUP"}},
		"trust":      {{[]string{"trust", "--list"}, "", 0, 0, p.dir}},
		"run":        {{[]string{"run"}, "", 0, 1, ""}}, // a second daemon is refused
		"dashboard":  {{[]string{"dashboard"}, "Dashboard", 0, 0, "http://127.0.0.1:"}},
		"label":      nil, // a write: below
		"export":     {{[]string{"export", "--format", "jsonl"}, "jsonl", 0, 0, execID}},
		"evolve":     {{[]string{"evolve", "deploy", "--dry-run"}, "POST /v1/skills/{skill}/evolve", 2, 0, "=== BEGIN CURRENT TEXT ==="}},
		// Not a plugin's skill: refused in one line, with or without --json.
		"eval": {{[]string{"eval", "deploy", "--claude", filepath.Join(dir, "no-claude")}, "-", 0, 1, ""}},
		// No label, correction or eval yet (the labels are writes, below):
		// it says how to get verdicts.
		"validity": {{[]string{"validity", "deploy"}, "GET /v1/validity", 0, 0, "No verdicts on deploy's executions yet: label some"}},
		// No team database configured: refused in one line naming the
		// key to set, with or without --json.
		"team": {{[]string{"team", "status"}, "-", 0, 1, ""}, {[]string{"team", "init"}, "-", 0, 1, ""}},
		// The writes run below, each once without and once with --json.
		"propose": nil, "reject": nil, "rollback": nil, "accept": nil, "pin": nil, "unpin": nil, "prune": nil, "forget": nil,
		// Run by the walk-through itself: hook (every event above went
		// through it) and demo (below, on its own).
		"hook": nil,
		"demo": nil,
	}
	order := []string{"version", "help", "status", "grades", "api", "versions", "show", "diff", "history", "executions", "explain",
		"sessions", "quarantine", "decisions", "notices", "strategies", "completion", "config", "doctor", "install", "uninstall",
		"score", "import", "reload", "trust", "run", "dashboard", "export", "evolve", "eval", "validity", "team"}

	help, _, _ := sepad(t, env, nil, "help")
	sc := bufio.NewScanner(strings.NewReader(help))
	listed := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if !strings.HasPrefix(sc.Text(), "  ") || len(f) == 0 {
			continue
		}
		listed++
		if _, ok := steps[f[0]]; !ok {
			t.Errorf("`sepad help` lists %q, which this walk-through does not try: add it to the steps", f[0])
		}
	}
	if listed < 30 {
		t.Fatalf("`sepad help` listed %d commands:\n%s", listed, help)
	}

	// Offline commands take no --home (SEPA_HOME is set).
	offline := map[string]bool{"help": true, "config": true, "score": true, "version": true}
	for _, name := range order {
		for _, s := range steps[name] {
			args := append(append([]string{}, s.args...), "--home", p.home)
			if offline[name] {
				args = s.args
			}
			key := strings.Join(s.args, " ")
			out, errOut, code := sepad(t, env, nil, args...)
			if (s.code >= 0 && code != s.code) || (s.code < 0 && code > 1) {
				t.Errorf("sepad %s: exit %d, want %d\n%s%s", key, code, s.code, out, errOut)
			}
			if !strings.Contains(out, s.want) {
				t.Errorf("sepad %s: %q not in:\n%s%s", key, s.want, out, errOut)
			}
			if code != 0 && strings.Count(errOut, "\n") > 1 {
				t.Errorf("sepad %s: an error in more than one line:\n%s", key, errOut)
			}
			for _, l := range strings.Split(out, "\n") {
				if name == "diff" && strings.TrimSpace(l) == "" {
					continue // an empty line's context line is one space, as in any unified diff
				}
				if strings.TrimRight(l, " \t") != l {
					t.Errorf("sepad %s: a line ends in spaces: %q", key, l)
					break
				}
			}
			if name == "import" {
				continue // a write: its --json form runs below
			}
			jargs := append(append([]string{}, args...), "--json")
			jout, jerr, jcode := sepad(t, env, nil, jargs...)
			checkJSONStep(t, key, s.heading, s.example, s.code, jout, jerr, jcode)
		}
	}
	t.Log("every command ran without --json; the reads with --json")

	// The writes, each once as text and once with --json, in an order in
	// which each has something to do.
	props := make([]string, 5)
	for i := range props {
		props[i] = filepath.Join(dir, fmt.Sprintf("proposal%d.md", i))
		writeFile(t, props[i], fmt.Sprintf("---\nname: deploy\ndescription: deploy the shop\n---\n# Deploy\n\nRun the checks, deploy, then verify (%d).\n", i))
	}
	const writesDoc = "POST /v1/skills/{skill}/rollback, /accept, /reject, /propose"
	writes := []struct {
		args    []string
		json    bool
		heading string
		example int
		want    string
	}{
		{[]string{"propose", "deploy", props[0], "--strategy", "walk"}, true, writesDoc, 0, ""},
		{[]string{"reject", "deploy"}, false, "", 0, "rolled back"},
		{[]string{"propose", "deploy", props[1]}, false, "", 0, "proposal"},
		{[]string{"reject", "deploy"}, true, writesDoc, 0, ""},
		{[]string{"propose", "deploy", props[2]}, false, "", 0, ""},
		{[]string{"rollback", "deploy", "--to", "v1"}, true, writesDoc, 0, ""},
		{[]string{"propose", "deploy", props[3]}, false, "", 0, ""},
		{[]string{"accept", "deploy"}, true, writesDoc, 0, ""},
		{[]string{"rollback", "deploy", "--to", "v1"}, false, "", 0, "rolled back"},
		{[]string{"propose", "deploy", props[4]}, false, "", 0, ""},
		{[]string{"accept", "deploy"}, false, "", 0, "accepted"},
		{[]string{"pin", "deploy"}, true, "POST /v1/skills/{skill}/pin, /unpin", 0, ""},
		{[]string{"unpin", "deploy"}, false, "", 0, "unpinned"},
		{[]string{"pin", "deploy"}, false, "", 0, "pinned"},
		{[]string{"unpin", "deploy"}, true, "POST /v1/skills/{skill}/pin, /unpin", 1, ""},
		{[]string{"label", execID, "success", "--rater", "ana"}, false, "", 0, "success"},
		{[]string{"label", execID, "failure", "--rater", "ana", "--note", "edited the wrong file", "--rubric-version", "2.0.0"}, true, "POST /v1/executions/{id}/label", 0, ""},
		{[]string{"import", hookLog}, true, "POST /v1/import", 0, ""},
		{[]string{"prune", "--before", "2999-01-01", "--yes"}, false, "", 0, "pruned"},
		{[]string{"prune", "--before", "2999-01-01", "--yes"}, true, "POST /v1/prune", 0, ""},
		{[]string{"forget", "deploy", "--yes"}, true, "POST /v1/skills/{skill}/forget", 0, ""},
	}
	for _, w := range writes {
		args := append(append([]string{}, w.args...), "--home", p.home)
		key := strings.Join(w.args, " ")
		if w.json {
			args = append(args, "--json")
			key += " --json"
		}
		out, errOut, code := sepad(t, env, nil, args...)
		if code != 0 || !strings.Contains(out, w.want) {
			t.Errorf("sepad %s: exit %d, want 0 with %q in:\n%s%s", key, code, w.want, out, errOut)
			continue
		}
		if w.json {
			checkDocumented(t, w.heading, w.example, out)
		}
	}
	// forget as text: the skill is gone, in one line naming it.
	if _, errOut, code := sepad(t, env, nil, "forget", "deploy", "--yes", "--home", p.home); code != 1 || !strings.Contains(errOut, "deploy") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("forget of a forgotten skill: exit %d, %q", code, errOut)
	}
	t.Log("every write ran as text and with --json")

	// The demo, as a new user's first command, beside the running service.
	if out, errOut, code := sepad(t, env, nil, "demo"); code != 0 || !strings.Contains(out, "Grades per skill version:") {
		t.Errorf("demo: exit %d\n%s%s", code, out, errOut)
	}
	if st := status(t, p.home); !st.Daemon.Running {
		t.Error("the service stopped during the walk-through")
	}
}

// checkJSONStep checks one command's --json run: with a heading, one
// JSON document of its example's shape; without, a usage error.
func checkJSONStep(t *testing.T, key, heading string, example, code int, out, errOut string, got int) {
	t.Helper()
	switch heading {
	case "help":
		// `sepad help --json` looks for a command "--json" (exit 2); `sepad
		// help COMMAND --json` prints COMMAND's help.
		if (got != 0 || !strings.Contains(out, "usage: sepad")) && (got != 2 || !strings.Contains(errOut, `"--json"`)) {
			t.Errorf("sepad %s --json: exit %d\n%s%s", key, got, out, errOut)
		}
		return
	case "":
		if got != 2 || !strings.Contains(errOut, "--json") {
			t.Errorf("sepad %s --json: exit %d, want 2 (no --json: a usage error naming it)\n%s%s", key, got, out, errOut)
		}
		return
	case "-":
		// Fails as without --json: the same exit status, one line.
		if got != code || strings.Count(errOut, "\n") != 1 {
			t.Errorf("sepad %s --json: exit %d, want %d with a one-line error\n%s%s", key, got, code, out, errOut)
		}
		return
	case "jsonl":
		// A stream of JSON objects, one per line (export's formats).
		for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if !json.Valid([]byte(l)) || !strings.HasPrefix(l, "{") {
				t.Errorf("sepad %s --json: line %d is not a JSON object: %.200s", key, i+1, l)
				break
			}
		}
		return
	case "notices":
		var doc struct {
			Notices json.RawMessage `json:"notices"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Notices == nil {
			t.Errorf("sepad %s --json: %v\n%s", key, err, out)
		}
		return
	}
	if code >= 0 && got != code {
		t.Errorf("sepad %s --json: exit %d, want %d\n%s%s", key, got, code, out, errOut)
		return
	}
	checkDocumented(t, heading, example, out)
}
