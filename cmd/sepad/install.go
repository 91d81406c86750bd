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
	"github.com/sepad/sepad/render"
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
	fs.StringVar(&f.project, "project", "", "the project `DIR` whose .claude/settings.json to edit (default: current directory)")
	fs.BoolVar(&f.user, "user", false, "edit the user's settings.json instead: in $CLAUDE_CONFIG_DIR when set, else ~/.claude")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the resulting settings file and write nothing")
	fs.StringVar(&f.home, "home", "", "with --service: the daemon's state directory `DIR` (default $SEPA_HOME, ~/.local/state/sepa)")
	if name == "install" {
		// How the hook is written, and whether the service starts:
		// uninstall removes sepad's hook in any form.
		fs.StringVar(&f.transport, "transport", "command", "the hook's `TRANSPORT`: command or http")
		fs.StringVar(&f.url, "url", "", "the `URL` for --transport http, e.g. http://127.0.0.1:PORT/v1/hook")
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
	r := &render.Installed{Path: path, Change: &ch, DryRun: f.dryRun, Undo: strings.TrimSpace("sepad uninstall " + scopeArgs(f))}
	project := "" // the user's settings cover every project
	if !f.user {
		project = filepath.Dir(filepath.Dir(path))
	}
	configDir, err := prompt.ConfigDir()
	if err != nil {
		configDir = ""
	}
	r.Plugins = settings.SepadPluginEnabled(configDir, project)
	if f.transport == "http" && !f.dryRun {
		// The settings file names $SEPAD_SECRET: create the secret it
		// stands for, and say how Claude Code gets it.
		_, r.SecretErr = api.LoadOrCreateSecret(spool.Home())
		r.Secret = api.SecretPath(spool.Home())
	}
	if !f.dryRun {
		// The hook only spools events, the daemon grades them: with no
		// daemon, the next step is to start one.
		_, err := client.Status(spool.Home())
		r.DaemonUp = err == nil
	}
	render.Install(stdout, stderr, r)
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
	released := ""
	if claim {
		released = filepath.Join(filepath.Dir(path), promptfile.ClaimName)
	}
	render.Uninstall(stdout, stderr, path, &ch, f.dryRun, released)
	return nil
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
