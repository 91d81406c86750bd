package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/hooks/settings"
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/service"
	"github.com/sepad/sepad/spool"
)

func init() {
	register("install", "add sepad's hook to Claude Code settings (--project DIR or --user)", runInstall)
	register("uninstall", "remove sepad's hook from Claude Code settings", runUninstall)
}

// installFlags are shared by install and uninstall.
type installFlags struct {
	project, transport, url string
	user, dryRun            bool
	// shellForm writes a shell command line instead of exec form, for
	// Claude Code before 2.1.139.
	shellForm bool
	// service installs the daemon as a user service instead of the hook.
	service, noStart bool
	home             string
}

func parseInstallFlags(name string, args []string, stderr io.Writer) (*installFlags, string, error) {
	fs := newFlagSet(name, stderr)
	f := &installFlags{transport: "command"}
	fs.StringVar(&f.project, "project", "", "project directory whose .claude/settings.json to edit (default: current directory)")
	fs.BoolVar(&f.user, "user", false, "edit the user's settings.json instead: in $CLAUDE_CONFIG_DIR when set, else ~/.claude")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the resulting settings file and write nothing")
	fs.StringVar(&f.home, "home", "", "with --service: the daemon's state directory (default $SEPA_HOME, ~/.local/state/sepa)")
	if name == "install" {
		// How the hook is written, and whether the service starts:
		// uninstall removes sepad's hook in any form.
		fs.StringVar(&f.transport, "transport", "command", "hook transport: command or http")
		fs.StringVar(&f.url, "url", "", "endpoint for --transport http, e.g. http://127.0.0.1:PORT/v1/hook")
		fs.BoolVar(&f.shellForm, "shell-form", false, "write the hook as a shell command line (for Claude Code before 2.1.139, which has no exec form)")
		fs.BoolVar(&f.service, "service", false, "install the daemon as a systemd user unit, launchd agent or Windows scheduled task instead of the hook")
		fs.BoolVar(&f.noStart, "no-start", false, "with --service: write the unit but do not enable or start it")
	} else {
		fs.BoolVar(&f.service, "service", false, "remove the daemon's systemd user unit, launchd agent or Windows scheduled task instead of the hook")
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return nil, "", err
	}
	if f.service {
		if len(pos) > 0 || f.project != "" || f.user || f.transport != "command" || f.url != "" || f.shellForm {
			only := "--home and --dry-run"
			if name == "install" {
				only = "--home, --no-start and --dry-run"
			}
			return nil, "", usageErrorf("--service takes only %s", only)
		}
		if f.home == "" {
			f.home = spool.Home()
		}
		return f, "", nil
	}
	if len(pos) > 0 {
		return nil, "", usageErrorf("unexpected argument %q", pos[0])
	}
	if f.user && f.project != "" {
		return nil, "", usageErrorf("--project and --user are exclusive")
	}
	switch f.transport {
	case "command":
		if f.url != "" {
			return nil, "", usageErrorf("--url needs --transport http")
		}
	case "http":
		if f.shellForm {
			return nil, "", usageErrorf("--shell-form is for --transport command")
		}
		if name == "install" && f.url == "" {
			return nil, "", usageErrorf("--transport http needs --url http://127.0.0.1:PORT/v1/hook")
		}
	default:
		return nil, "", usageErrorf("--transport must be command or http, not %q", f.transport)
	}
	var path string
	if f.user {
		// Claude Code reads the user's settings from $CLAUDE_CONFIG_DIR
		// when it is set, never from ~/.claude then.
		dir, err := prompt.ConfigDir()
		if err != nil {
			return nil, "", fmt.Errorf("find your Claude Code directory: %w", err)
		}
		path = filepath.Join(dir, "settings.json")
	} else {
		dir := f.project
		if dir == "" {
			dir = "."
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, "", err
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, "", usageErrorf("project directory %s does not exist", abs)
		}
		path = settings.Path(abs, false, "")
	}
	return f, path, nil
}

func runInstall(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f, path, err := parseInstallFlags("install", args, stderr)
	if err != nil {
		return err
	}
	if f.service {
		return service.Install(stdout, f.home, f.dryRun, f.noStart)
	}
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the sepad binary: %w", err)
	}
	if strings.Contains(bin, string(filepath.Separator)+"go-build") {
		fmt.Fprintf(stderr, "warning: %s is a temporary `go run` build; install sepad (go install) and run its install instead\n", bin)
	}
	spec := settings.SpecFor(settings.HookBinary(bin), f.transport, f.url, f.shellForm)
	ch, err := settings.Install(path, settings.BackupDir(spool.Home(), path), spec, f.dryRun, time.Now())
	if err != nil {
		return err
	}
	if !f.dryRun && !f.user {
		// Rollbacks write only in projects a person installed (or
		// configured): record this one.
		if err := promptfile.RecordInstalledRoot(spool.Home(), filepath.Dir(filepath.Dir(path))); err != nil {
			return err
		}
	}
	if !f.dryRun {
		defer nextStep(stdout) // deferred first: printed last
	}
	if f.transport == "http" && !f.dryRun {
		defer printSecretHelp(stdout)
	}
	if f.transport == "command" || f.transport == "http" {
		project := ""
		if !f.user {
			project = filepath.Dir(filepath.Dir(path))
		}
		defer notePluginToo(stdout, project)
	}
	switch {
	case f.dryRun:
		stdout.Write(ch.After)
		if ch.Changed {
			fmt.Fprintf(stderr, "dry run: %s would get sepad's hook for %s; nothing written\n", path, strings.Join(ch.Events, ", "))
		} else {
			fmt.Fprintf(stderr, "dry run: %s already has sepad's hook; nothing to do\n", path)
		}
	case !ch.Changed:
		fmt.Fprintf(stdout, "%s already has sepad's hook for every event; nothing changed\n", path)
	case ch.Before == nil:
		fmt.Fprintf(stdout, "created %s: sepad's hook for %s\n", path, strings.Join(ch.Events, ", "))
		fmt.Fprintf(stdout, "(%s records that there was no file before)\n", ch.Backup)
		fmt.Fprintln(stdout, "undo with: "+strings.TrimSpace("sepad uninstall "+scopeArgs(f)))
	default:
		fmt.Fprintf(stdout, "updated %s: sepad's hook for %s\n", path, strings.Join(ch.Events, ", "))
		fmt.Fprintf(stdout, "backup of the previous file: %s\n", ch.Backup)
		fmt.Fprintln(stdout, "undo with: "+strings.TrimSpace("sepad uninstall "+scopeArgs(f)))
	}
	return nil
}

func runUninstall(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f, path, err := parseInstallFlags("uninstall", args, stderr)
	if err != nil {
		return err
	}
	if f.service {
		return service.Uninstall(stdout, f.home, f.dryRun)
	}
	ch, err := settings.Uninstall(path, settings.BackupDir(spool.Home(), path), f.dryRun, time.Now())
	if err != nil {
		return err
	}
	if !f.dryRun && !f.user {
		if err := promptfile.ForgetInstalledRoot(spool.Home(), filepath.Dir(filepath.Dir(path))); err != nil {
			return err
		}
	}
	// The claim this home's daemon made on the directory (.sepad-home)
	// goes with the hook; another home's claim is that home's.
	claim, err := promptfile.ReleaseClaim(filepath.Dir(path), spool.Home(), f.dryRun)
	if err != nil {
		return err
	}
	if claim {
		verb := "removed"
		if f.dryRun {
			verb = "dry run: would remove"
		}
		defer fmt.Fprintf(pick(f.dryRun, stderr, stdout), "%s %s (it named this sepad home as the one that writes here)\n",
			verb, filepath.Join(filepath.Dir(path), promptfile.ClaimName))
	}
	switch {
	case !ch.Changed:
		if f.dryRun && ch.Before != nil {
			stdout.Write(ch.Before)
		}
		fmt.Fprintf(pick(f.dryRun, stderr, stdout), "%s has no sepad hook; nothing changed\n", path)
	case f.dryRun && ch.Removed:
		fmt.Fprintf(stderr, "dry run: would remove %s (sepad created it and nothing else is in it)\n", path)
	case f.dryRun:
		stdout.Write(ch.After)
		fmt.Fprintf(stderr, "dry run: would remove sepad's hook for %s from %s; nothing written\n", strings.Join(ch.Events, ", "), path)
	case ch.Removed:
		fmt.Fprintf(stdout, "removed %s (sepad had created it); backup: %s\n", path, ch.Backup)
	default:
		fmt.Fprintf(stdout, "updated %s: removed sepad's hook for %s\n", path, strings.Join(ch.Events, ", "))
		fmt.Fprintf(stdout, "backup of the previous file: %s\n", ch.Backup)
	}
	return nil
}

// printSecretHelp creates the API secret if needed and says how Claude
// Code gets it: the settings file names $SEPAD_SECRET, which must be in
// the environment Claude Code starts from.
func printSecretHelp(stdout io.Writer) {
	home := spool.Home()
	if _, err := api.LoadOrCreateSecret(home); err != nil {
		fmt.Fprintf(stdout, "warning: %v\n", err)
	}
	fmt.Fprintf(stdout, "The http hook sends \"Authorization: Bearer $%s\"; the secret is not in the settings file.\n", settings.SecretEnv)
	fmt.Fprintf(stdout, "Export it where Claude Code starts (e.g. in ~/.profile), then restart Claude Code:\n")
	fmt.Fprintf(stdout, "  export %s=\"$(cat %s)\"\n", settings.SecretEnv, api.SecretPath(home))
	fmt.Fprintf(stdout, "SessionStart runs the command hook (Claude Code never sends it to http hooks). Check with `sepad doctor`.\n")
}

// nextStep ends an install with what to do next when no daemon answers:
// the hook only spools events, the daemon grades them.
func nextStep(w io.Writer) {
	if _, err := client.Status(spool.Home()); err == nil {
		return
	}
	fmt.Fprintln(w, "next: start the daemon: `sepad run` (in a terminal) or `sepad install --service` (now and at login); then `sepad doctor`")
}

func pick(cond bool, a, b io.Writer) io.Writer {
	if cond {
		return a
	}
	return b
}

func scopeArgs(f *installFlags) string {
	if f.user {
		return "--user"
	}
	if f.project != "" {
		return "--project " + f.project
	}
	return ""
}

// notePluginToo says so when sepad's Claude Code plugin is enabled too:
// both hooks then run for every event, and sepad keeps each event once.
func notePluginToo(w io.Writer, project string) {
	configDir, err := prompt.ConfigDir()
	if err != nil {
		configDir = ""
	}
	for _, p := range settings.SepadPluginEnabled(configDir, project) {
		fmt.Fprintf(w, "note: the sepad plugin (%s, enabled in %s) records every event too; with both, Claude Code runs two hooks per event and sepad keeps each event once. One is enough: `claude plugin disable %s` or `sepad uninstall %s` (docs/claude-code.md, \"Double installs\")\n",
			p.ID, p.File, p.ID, "--project "+project)
	}
}
