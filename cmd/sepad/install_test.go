package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/hooks/settings"
	"github.com/sepad/sepad/promptfile"
)

func runInstallCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if !strings.HasPrefix(os.Getenv("SEPA_HOME"), os.TempDir()) {
		t.Setenv("SEPA_HOME", t.TempDir()) // install records projects there: never the real one
	}
	var o, e bytes.Buffer
	code = runMain(args, strings.NewReader(""), &o, &e)
	return code, o.String(), e.String()
}

func TestInstallUsage(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"install", "--project", dir, "--user"},
		{"install", "--project", dir, "--transport", "grpc"},
		{"install", "--project", dir, "--transport", "http"},
		{"install", "--project", dir, "--url", "http://127.0.0.1:1/v1/hook"},
		{"install", "--project", dir, "extra"},
		{"install", "--project", dir, "--transport", "http", "--url", "http://127.0.0.1:1/v1/hook", "--shell-form"},
		{"install", "--service", "--shell-form"},
		{"install", "--project", filepath.Join(dir, "missing")},
		{"uninstall", "--project", dir, "--user"},
		// uninstall removes sepad's hook in any form: install's
		// --transport, --url, --shell-form and --no-start are not its flags.
		{"uninstall", "--project", dir, "--shell-form"},
		{"uninstall", "--project", dir, "--transport", "http"},
		{"uninstall", "--service", "--no-start"},
	} {
		code, out, errs := runInstallCmd(t, args...)
		if code != exitUsage || out != "" || errs == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude")); !os.IsNotExist(err) {
		t.Fatal("a usage error wrote files")
	}
}

// uninstall's help lists the flags it takes, not install's (a walk found
// "--no-start  with --service: write the unit but do not enable or start
// it" on uninstall's page).
func TestUninstallHelpHasItsFlags(t *testing.T) {
	code, out, _ := runInstallCmd(t, "help", "uninstall")
	if code != 0 {
		t.Fatalf("help uninstall: exit %d", code)
	}
	for _, f := range []string{"--no-start", "--transport", "--url", "--shell-form", "write the unit"} {
		if strings.Contains(strings.SplitN(out, "flags:", 2)[1], f) {
			t.Errorf("sepad help uninstall lists %q:\n%s", f, out)
		}
	}
	for _, f := range []string{"--project", "--user", "--dry-run", "--service", "--home"} {
		if !strings.Contains(out, f) {
			t.Errorf("sepad help uninstall lacks %s:\n%s", f, out)
		}
	}
}

func TestInstallDryRun(t *testing.T) {
	dir := t.TempDir()
	n := len(settings.Events)
	settingsFile := filepath.Join(dir, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settingsFile), 0o755)
	orig := []byte("{\n  \"model\": \"opus\"\n}\n")
	os.WriteFile(settingsFile, orig, 0o644)
	code, out, errs := runInstallCmd(t, "install", "--project", dir, "--dry-run")
	if code != 0 || !strings.Contains(errs, "nothing written") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var v struct {
		Model string
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct {
				Type, Command string
				Args          []string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Model != "opus" || len(v.Hooks) != n {
		t.Fatalf("dry run output is not the resulting file (%v):\n%s", err, out)
	}
	// Exec form by default: the binary's absolute path, "hook" as argument.
	bin, _ := os.Executable()
	if h := v.Hooks["PostToolUse"]; len(h) != 1 || h[0].Matcher != "*" || h[0].Hooks[0].Command != bin || len(h[0].Hooks[0].Args) != 1 || h[0].Hooks[0].Args[0] != "hook" {
		t.Fatalf("PostToolUse entry %+v", h)
	}
	if b, _ := os.ReadFile(settingsFile); !bytes.Equal(b, orig) {
		t.Fatal("dry run changed the file")
	}
	if ents, _ := os.ReadDir(filepath.Dir(settingsFile)); len(ents) != 1 {
		t.Fatalf("dry run wrote files: %v", ents)
	}
	// --shell-form: a shell command line and no "args".
	code, out, _ = runInstallCmd(t, "install", "--project", dir, "--dry-run", "--shell-form")
	if code != 0 || strings.Count(out, `"command": "`+bin+` hook"`) != len(settings.Events) || strings.Contains(out, `"args"`) {
		t.Fatalf("shell form dry run: exit %d\n%s", code, out)
	}
	// http transport, dry run.
	code, out, _ = runInstallCmd(t, "install", "--project", dir, "--dry-run", "--transport", "http", "--url", "http://127.0.0.1:7391/v1/hook")
	if code != 0 || strings.Count(out, `"url": "http://127.0.0.1:7391/v1/hook"`) != n-1 || strings.Count(out, `"command": "`+bin+`"`) != 1 ||
		strings.Count(out, `"Authorization": "Bearer $SEPAD_SECRET"`) != n-1 || strings.Count(out, `"allowedEnvVars"`) != n-1 {
		t.Fatalf("http dry run (an http handler with the header for every event but SessionStart, a command for it): exit %d\n%s", code, out)
	}
	// A non-loopback URL is refused.
	if code, _, errs := runInstallCmd(t, "install", "--project", dir, "--transport", "http", "--url", "http://10.0.0.1:80/v1/hook"); code != exitFail || !strings.Contains(errs, "loopback") {
		t.Fatalf("non-loopback url: exit %d, %q", code, errs)
	}
}

// TestInstallHTTPKeepsTheSecretOut: the http install writes the header
// naming $SEPAD_SECRET, never the secret, which it creates in $SEPA_HOME
// (0600) and tells how to export; the project is recorded as a write
// root, and forgotten on uninstall.
func TestInstallHTTPKeepsTheSecretOut(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	t.Setenv("SEPA_HOME", home)
	code, out, errs := runInstallCmd(t, "install", "--project", dir, "--transport", "http", "--url", "http://127.0.0.1:7391/v1/hook")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	secret, err := api.LoadSecret(home)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ".claude", "settings.json"))
	if bytes.Contains(b, []byte(secret)) || !bytes.Contains(b, []byte("$SEPAD_SECRET")) {
		t.Fatalf("settings.json:\n%s", b)
	}
	if strings.Contains(out, secret) || !strings.Contains(out, "export SEPAD_SECRET=") || !strings.Contains(out, api.SecretPath(home)) {
		t.Fatalf("output:\n%s", out)
	}
	if settings.SecretEnv != api.SecretEnv {
		t.Fatalf("the settings name %s, the API %s", settings.SecretEnv, api.SecretEnv)
	}
	if got := promptfile.InstalledRoots(home); len(got) != 1 || got[0] != dir {
		t.Fatalf("installed roots %v, want [%s]", got, dir)
	}
	if code, _, errs := runInstallCmd(t, "uninstall", "--project", dir); code != 0 {
		t.Fatalf("uninstall: %s", errs)
	}
	if got := promptfile.InstalledRoots(home); len(got) != 0 {
		t.Fatalf("installed roots after uninstall %v", got)
	}
}

func TestInstallInvalidSettings(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	bad := []byte("{\"hooks\": {\"Stop\": [}\n")
	os.WriteFile(settings, bad, 0o644)
	for _, cmd := range []string{"install", "uninstall"} {
		code, out, errs := runInstallCmd(t, cmd, "--project", dir)
		if code != exitFail || out != "" || !strings.Contains(errs, settings) || !strings.Contains(errs, "line 1, column") {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", cmd, code, out, errs)
		}
	}
	if b, _ := os.ReadFile(settings); !bytes.Equal(b, bad) {
		t.Fatal("invalid file changed")
	}
}

func TestUninstallNothingInstalled(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runInstallCmd(t, "uninstall", "--project", dir)
	if code != 0 || !strings.Contains(out, "nothing changed") || errs != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestInstallMessages: a new settings file is reported as created (its
// empty backup only records that there was none), an existing one as
// updated with its backup, and both say how to undo.
func TestInstallMessages(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := runInstallCmd(t, "install", "--project", dir)
	if code != 0 || !strings.Contains(out, "created "+filepath.Join(dir, ".claude", "settings.json")) || !strings.Contains(out, "no file before") || !strings.Contains(out, "undo with: sepad uninstall") {
		t.Fatalf("new file: exit %d %q", code, out)
	}
	other := t.TempDir()
	p := filepath.Join(other, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"model": "opus"}`), 0o644)
	code, out, _ = runInstallCmd(t, "install", "--project", other)
	bk := filepath.Join(settings.BackupDir(os.Getenv("SEPA_HOME"), p), "settings.json.sepad-backup-")
	if code != 0 || !strings.Contains(out, "updated "+p) || !strings.Contains(out, "backup of the previous file: "+bk) {
		t.Fatalf("existing file: exit %d %q", code, out)
	}
	// The last line is the next step, and nothing is left in .claude
	// but the settings file (no backup for git to see).
	if lines := strings.Split(strings.TrimSpace(out), "\n"); !strings.HasPrefix(lines[len(lines)-1], "next: start the daemon: `sepad run`") {
		t.Fatalf("install does not end with the next step: %q", out)
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		t.Fatalf(".claude holds %v", ents)
	}
}

// TestInstallBesideThePlugin: with sepad's plugin enabled, install says
// both will run, and doctor names the double install.
func TestInstallBesideThePlugin(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	t.Setenv("SEPA_HOME", t.TempDir())
	dir := t.TempDir()
	code, out, _ := runInstallCmd(t, "install", "--project", dir)
	if code != 0 || strings.Contains(out, "plugin") {
		t.Fatalf("without the plugin: exit %d, %q", code, out)
	}
	os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{"enabledPlugins":{"sepad@sepad":true}}`), 0o600)
	code, out, _ = runInstallCmd(t, "install", "--project", dir)
	if code != 0 || !strings.Contains(out, "the sepad plugin (sepad@sepad") || !strings.Contains(out, "keeps each event once") {
		t.Fatalf("with the plugin: exit %d, %q", code, out)
	}
	// Doctor recognises sepad's entries by the binary's name (here a
	// test binary): install one as `sepad install` would from a real one.
	if _, err := settings.Install(settings.Path(dir, false, ""), settings.BackupDir(os.Getenv("SEPA_HOME"), settings.Path(dir, false, "")), settings.ExecSpec("/usr/local/bin/sepad-hook"), false, time.Now()); err != nil {
		t.Fatal(err)
	}
	_, out, _ = runInstallCmd(t, "doctor", "--project", dir, "--home", os.Getenv("SEPA_HOME"))
	if !strings.Contains(out, "sepad is installed twice") || !strings.Contains(out, "claude plugin disable sepad@sepad") {
		t.Fatalf("doctor:\n%s", out)
	}
	if _, err := settings.Uninstall(settings.Path(dir, false, ""), settings.BackupDir(os.Getenv("SEPA_HOME"), settings.Path(dir, false, "")), false, time.Now()); err != nil {
		t.Fatal(err)
	}
	_, out, _ = runInstallCmd(t, "doctor", "--project", dir, "--home", os.Getenv("SEPA_HOME"))
	if strings.Contains(out, "installed twice") || strings.Contains(out, "no sepad hook") || !strings.Contains(out, "the sepad plugin sepad@sepad is enabled") {
		t.Fatalf("doctor with the plugin only:\n%s", out)
	}
}
