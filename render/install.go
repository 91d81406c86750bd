package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/sepad/sepad/hooks/settings"
)

// Installed is what `sepad install` did to a settings file, and what
// follows from it.
type Installed struct {
	// Path is the settings file, Change what install did to it.
	Path   string
	Change *settings.Change
	DryRun bool
	// Undo is the command that takes the hook out again.
	Undo string
	// Plugins are where sepad's Claude Code plugin is enabled too, for
	// the sessions this settings file covers.
	Plugins []settings.PluginEnable
	// Secret, for an http hook, is the API secret's file (the help on
	// exporting it is printed), SecretErr why it could not be created.
	Secret    string
	SecretErr error
	// DaemonUp: a daemon answers, so no next step is printed.
	DaemonUp bool
}

// Install prints what `sepad install` did: the change to stdout, or on a
// dry run the resulting file to stdout and its words to stderr; then
// the plugin installed beside it, the http hook's secret and the next
// step.
func Install(stdout, stderr io.Writer, r *Installed) {
	ch, path := r.Change, r.Path
	switch {
	case r.DryRun:
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
		fmt.Fprintln(stdout, "undo with: "+r.Undo)
	default:
		fmt.Fprintf(stdout, "updated %s: sepad's hook for %s\n", path, strings.Join(ch.Events, ", "))
		fmt.Fprintf(stdout, "backup of the previous file: %s\n", ch.Backup)
		fmt.Fprintln(stdout, "undo with: "+r.Undo)
	}
	pluginToo(stdout, r.Plugins, r.Undo)
	if r.Secret != "" {
		secretHelp(stdout, r.Secret, r.SecretErr)
	}
	if !r.DryRun && !r.DaemonUp {
		fmt.Fprintln(stdout, "next: start the daemon: `sepad run` (in a terminal) or `sepad install --service` (now and at login); then `sepad doctor`")
	}
}

// pluginToo says so when sepad's Claude Code plugin is enabled too: both
// hooks then run for every event, and sepad keeps each event once; undo
// is the command that takes sepad's hook out of this settings file.
func pluginToo(w io.Writer, enabled []settings.PluginEnable, undo string) {
	for _, p := range enabled {
		fmt.Fprintf(w, "note: the sepad plugin (%s, enabled in %s) records every event too; with both, Claude Code runs two hooks per event and sepad keeps each event once. One is enough: `claude plugin disable %s` or `%s` (docs/claude-code.md, \"Double installs\")\n",
			p.ID, p.File, p.ID, undo)
	}
}

// secretHelp says how Claude Code gets the API secret (its file, secret;
// err when it could not be created): the settings file names
// $SEPAD_SECRET, which must be in the environment Claude Code starts
// from.
func secretHelp(w io.Writer, secret string, err error) {
	if err != nil {
		fmt.Fprintf(w, "warning: %v\n", err)
	}
	fmt.Fprintf(w, "The http hook sends \"Authorization: Bearer $%s\"; the secret is not in the settings file.\n", settings.SecretEnv)
	fmt.Fprintf(w, "Export it where Claude Code starts (e.g. in ~/.profile), then restart Claude Code:\n")
	fmt.Fprintf(w, "  export %s=\"$(cat %s)\"\n", settings.SecretEnv, secret)
	fmt.Fprintf(w, "SessionStart runs the command hook (Claude Code never sends it to http hooks). Check with `sepad doctor`.\n")
}

// Uninstall prints what `sepad uninstall` did to the settings file path:
// the change to stdout, or on a dry run the resulting file to stdout and
// its words to stderr; then the claim file it removed with the hook
// (claim, "" for none).
func Uninstall(stdout, stderr io.Writer, path string, ch *settings.Change, dryRun bool, claim string) {
	words := stdout
	if dryRun {
		words = stderr
	}
	switch {
	case !ch.Changed:
		if dryRun && ch.Before != nil {
			stdout.Write(ch.Before)
		}
		fmt.Fprintf(words, "%s has no sepad hook; nothing changed\n", path)
	case dryRun && ch.Removed:
		fmt.Fprintf(stderr, "dry run: would remove %s (sepad created it and nothing else is in it)\n", path)
	case dryRun:
		stdout.Write(ch.After)
		fmt.Fprintf(stderr, "dry run: would remove sepad's hook for %s from %s; nothing written\n", strings.Join(ch.Events, ", "), path)
	case ch.Removed:
		fmt.Fprintf(stdout, "removed %s (sepad had created it); backup: %s\n", path, ch.Backup)
	default:
		fmt.Fprintf(stdout, "updated %s: removed sepad's hook for %s\n", path, strings.Join(ch.Events, ", "))
		fmt.Fprintf(stdout, "backup of the previous file: %s\n", ch.Backup)
	}
	if claim != "" {
		verb := "removed"
		if dryRun {
			verb = "dry run: would remove"
		}
		fmt.Fprintf(words, "%s %s (it named this sepad home as the one that writes here)\n", verb, claim)
	}
}
