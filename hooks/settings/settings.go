// Package settings installs and removes sepad's hook entries in Claude Code
// settings files (`sepad install`, `sepad uninstall`). It is apart from
// package hooks so that the hook command, which starts on every tool call,
// does not link or initialise what editing JSON settings needs.
package settings

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Events are the hook events sepad installs itself for, in the order they
// are added to a settings file.
var Events = []string{
	"PreToolUse", "PostToolUse", "PostToolUseFailure",
	"UserPromptSubmit", "UserPromptExpansion",
	"Stop", "StopFailure",
	"SubagentStart", "SubagentStop",
	"SessionStart", "SessionEnd",
	"InstructionsLoaded",
	// A skill's own shell lines (2.1.332; older versions never send it).
	// The hook must stay silent: any answer keeps the line from running.
	"PreSkillShellCommand",
	// A call the permission layer refused (not the prompt's failure), and
	// a compaction that cuts an execution's context (issue 37 item 5).
	"PermissionDenied", "PreCompact", "PostCompact",
}

// toolEvents take a tool-name matcher; sepad's entries match every tool.
var toolEvents = map[string]bool{"PreToolUse": true, "PostToolUse": true, "PostToolUseFailure": true}

// hookTimeout is the timeout (seconds) written into sepad's handlers: the
// hook bounds itself near 1.5 s, this only guards against a wedged disk.
const hookTimeout = 10

// Backup name infixes (see docs/events.md and docs/install.md): a backup
// of settings.json is settings.json.sepad-backup-<UTC time> in the
// directory BackupDir names (before, beside the file; those are still
// read).
const (
	installBackup   = ".sepad-backup-"
	uninstallBackup = ".sepad-uninstall-backup-"
)

// ErrUnusable is wrapped by every error about the content of a settings
// file (invalid JSON, unexpected shapes). Such files are never written.
var ErrUnusable = errors.New("unusable settings file")

// HookSpec is the handler sepad installs.
type HookSpec struct {
	// Transport is "command" (default) or "http".
	Transport string
	// Command is the command of a command handler. Without Args it is a
	// shell command line (shell form), normally CommandFor(bin). With Args
	// it is the program itself, an absolute path, and the handler is in
	// exec form: Claude Code (2.1.139 and later) starts it directly with
	// Args as its arguments, without a shell (ExecSpec).
	Command string
	// Args, when not nil, are the arguments of an exec-form handler.
	Args []string
	// URL is the endpoint of an http handler.
	URL string
	// Headers are the headers of an http handler; a value may name an
	// environment variable ($NAME) listed in AllowedEnvVars, which Claude
	// Code substitutes when it sends the request (unlisted names become
	// empty).
	Headers map[string]string
	// AllowedEnvVars lists the variables Headers may name.
	AllowedEnvVars []string
	// SessionStart, when set, is installed for SessionStart instead of
	// this spec: Claude Code never sends SessionStart to http handlers.
	SessionStart *HookSpec
}

// SecretEnv is the environment variable the http handler's Authorization
// header names: the secret itself is never written into a settings file.
const SecretEnv = "SEPAD_SECRET"

// HTTPSpec returns the http transport's spec: POST every event to url
// with "Authorization: Bearer $SEPAD_SECRET" (interpolated by Claude Code
// from its environment, and only that variable), and, for SessionStart,
// which Claude Code never sends to http handlers, the exec-form command
// handler running `bin hook`.
func HTTPSpec(url, bin string) HookSpec {
	ss := ExecSpec(bin)
	return HookSpec{Transport: "http", URL: url,
		Headers:        map[string]string{"Authorization": "Bearer $" + SecretEnv},
		AllowedEnvVars: []string{SecretEnv}, SessionStart: &ss}
}

// CommandFor returns the command line running `bin hook`, quoting bin for
// the shell when it needs it.
func CommandFor(bin string) string {
	if strings.ContainsAny(bin, " \t\n'\"\\$`&|;<>()*?[]#~!{}") {
		return "'" + strings.ReplaceAll(bin, "'", `'\''`) + "' hook"
	}
	return bin + " hook"
}

// ExecSpec returns the exec-form command handler running `bin hook`. A
// shell costs about as much as the hook itself on every tool call
// (BENCHMARKS.md); exec form skips it and needs no quoting.
func ExecSpec(bin string) HookSpec {
	return HookSpec{Transport: "command", Command: bin, Args: []string{"hook"}}
}

// Change says what Install or Uninstall did, or would do.
type Change struct {
	// Path is the settings file.
	Path string
	// Before and After are its content (Before is nil when it did not
	// exist, After nil when it was removed).
	Before, After []byte
	// Changed is false when the file already was as wanted.
	Changed bool
	// Events lists the events whose entries were added, updated or removed.
	Events []string
	// Backup is the backup written before the change ("" for none).
	Backup string
	// Removed is set when Uninstall deleted a file Install had created.
	Removed bool
}

// Path returns the settings file Install edits: the project's
// DIR/.claude/settings.json, or the user's ~/.claude/settings.json.
func Path(projectDir string, user bool, userHome string) string {
	if user {
		return filepath.Join(userHome, ".claude", "settings.json")
	}
	return filepath.Join(projectDir, ".claude", "settings.json")
}

// Install merges sepad's entries for every event in Events into the
// settings file at path (creating it if needed), keeping every other
// setting and hook byte for byte and in order. It writes a backup of the
// original first, in backups (BackupDir: never beside the file, where it
// would be an untracked file in the project's repository). A second Install changes nothing. With dryRun it only
// computes the result. A file that is not valid JSON, or whose "hooks" is
// not an object of arrays, is refused (ErrUnusable) and left untouched.
func Install(path, backups string, spec HookSpec, dryRun bool, now time.Time) (Change, error) {
	ch := Change{Path: path}
	before, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return ch, fmt.Errorf("read %s: %w", path, err)
	}
	if exists {
		ch.Before = before
	}
	after, events, err := MergeHooks(before, spec)
	if err != nil {
		return ch, fmt.Errorf("%s: %w", path, err)
	}
	ch.After, ch.Events = after, events
	ch.Changed = !exists || !bytes.Equal(before, after)
	if !ch.Changed || dryRun {
		return ch, nil
	}
	// The backup comes first; an empty backup records that the file did
	// not exist, so Uninstall can remove it again.
	bk := filepath.Join(backups, filepath.Base(path)+installBackup+stamp(now))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return ch, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	if err := os.MkdirAll(backups, 0o700); err != nil {
		return ch, fmt.Errorf("write backup: %w", err)
	}
	if err := writeFileAtomic(bk, before, 0o600); err != nil {
		return ch, fmt.Errorf("write backup: %w", err)
	}
	ch.Backup = bk
	if err := writeFileAtomic(path, after, modeOf(path, 0o644)); err != nil {
		return ch, err
	}
	return ch, nil
}

// Uninstall removes exactly the entries Install adds (handlers recognised
// by their command, `<.../sepad> hook ...`, or their loopback /v1/hook URL)
// and nothing else. A matcher group, event array or "hooks" object left
// empty by the removal is removed too, unless the settings file as it was
// before the first Install (its oldest backup without sepad entries)
// already had it; a file Install created is deleted when nothing else was
// added to it. A backup of the current file is written first, in backups;
// the install backups are looked for there and beside the file.
func Uninstall(path, backups string, dryRun bool, now time.Time) (Change, error) {
	ch := Change{Path: path}
	before, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return ch, nil
	}
	if err != nil {
		return ch, fmt.Errorf("read %s: %w", path, err)
	}
	ch.Before = before
	orig, haveOrig := originalSettings(path, backups)
	after, events, err := RemoveHooks(before, orig, haveOrig)
	if err != nil {
		return ch, fmt.Errorf("%s: %w", path, err)
	}
	ch.Events = events
	if len(events) == 0 {
		ch.After = before
		return ch, nil
	}
	ch.Changed = true
	if haveOrig && orig == nil && isEmptyObject(after) {
		ch.Removed = true
	} else {
		ch.After = after
	}
	if dryRun {
		return ch, nil
	}
	bk := filepath.Join(backups, filepath.Base(path)+uninstallBackup+stamp(now))
	if err := os.MkdirAll(backups, 0o700); err != nil {
		return ch, fmt.Errorf("write backup: %w", err)
	}
	if err := writeFileAtomic(bk, before, 0o600); err != nil {
		return ch, fmt.Errorf("write backup: %w", err)
	}
	ch.Backup = bk
	if ch.Removed {
		if err := os.Remove(path); err != nil {
			return ch, fmt.Errorf("remove %s: %w", path, err)
		}
		return ch, nil
	}
	return ch, writeFileAtomic(path, after, modeOf(path, 0o644))
}

func stamp(t time.Time) string { return t.UTC().Format("20060102T150405.000000000Z") }

// BackupDir is the directory under home ($SEPA_HOME) holding the backups
// of the settings file at path: backups/ and a name made of the path, so
// two projects' backups never mix and a person can tell whose they are.
func BackupDir(home, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	sum := sha256.Sum256([]byte(abs))
	name := strings.Trim(strings.NewReplacer("/", "_", "\\", "_", ":", "_").Replace(filepath.Dir(abs)), "_")
	if len(name) > 80 {
		name = name[len(name)-80:]
	}
	return filepath.Join(home, "backups", name+"-"+hex.EncodeToString(sum[:4]))
}

func modeOf(path string, def os.FileMode) os.FileMode {
	if fi, err := os.Stat(path); err == nil {
		return fi.Mode().Perm()
	}
	return def
}

// writeFileAtomic writes data to a temporary file next to path, syncs it
// and renames it over path, so a reader never sees half a settings file.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// originalSettings returns the settings file as it was before sepad was
// first installed into it: the newest install backup holding no sepad
// entry, in backups or beside the file (where sepad wrote them before).
// orig is nil when that backup records a file that did not exist; ok is
// false when there is no usable backup.
func originalSettings(path, backups string) (orig []byte, ok bool) {
	bks, _ := filepath.Glob(path + installBackup + "*")
	in, _ := filepath.Glob(filepath.Join(backups, filepath.Base(path)+installBackup+"*"))
	bks = append(bks, in...)
	// Newest first, by the time in the name (the directories differ).
	sort.SliceStable(bks, func(i, j int) bool { return filepath.Base(bks[i]) > filepath.Base(bks[j]) })
	for _, bk := range bks {
		b, err := os.ReadFile(bk)
		if err != nil {
			continue
		}
		if len(bytes.TrimSpace(b)) == 0 {
			return nil, true
		}
		doc, err := parseSettings(b)
		if err != nil || doc.hasSepad() {
			continue
		}
		return b, true
	}
	return nil, false
}

// ---- an order-preserving JSON tree for settings files ----

// PluginName is the name of sepad's Claude Code plugin (plugin/ in the
// repository; installed as sepad@MARKETPLACE).
const PluginName = "sepad"

// EnabledPlugins returns the plugins a settings file enables
// ("enabledPlugins": {"NAME@MARKETPLACE": true}) whose name is name, in
// the file's order of keys sorted. A file that is not a JSON object, or
// has no enabledPlugins object, enables none.
func EnabledPlugins(content []byte, name string) []string {
	var doc struct {
		Enabled map[string]json.RawMessage `json:"enabledPlugins"`
	}
	if json.Unmarshal(content, &doc) != nil {
		return nil
	}
	var ids []string
	for id, v := range doc.Enabled {
		n, _, _ := strings.Cut(id, "@")
		if n == name && strings.TrimSpace(string(v)) == "true" {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}
