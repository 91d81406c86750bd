// Package settings installs and removes sepad's hook entries in Claude Code
// settings files (`sepad install`, `sepad uninstall`). It is apart from
// package hooks so that the hook command, which starts on every tool call,
// does not link or initialise what editing JSON settings needs.
package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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
}

// toolEvents take a tool-name matcher; sepad's entries match every tool.
var toolEvents = map[string]bool{"PreToolUse": true, "PostToolUse": true, "PostToolUseFailure": true}

// hookTimeout is the timeout (seconds) written into sepad's handlers: the
// hook bounds itself near 1.5 s, this only guards against a wedged disk.
const hookTimeout = 10

// Backup name infixes (see docs/events.md and README.md, "Install for real").
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
// original first. A second Install changes nothing. With dryRun it only
// computes the result. A file that is not valid JSON, or whose "hooks" is
// not an object of arrays, is refused (ErrUnusable) and left untouched.
func Install(path string, spec HookSpec, dryRun bool, now time.Time) (Change, error) {
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
	bk := path + installBackup + stamp(now)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return ch, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	if err := writeFileAtomic(bk, before, modeOf(path, 0o600)); err != nil {
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
// added to it. A backup of the current file is written first.
func Uninstall(path string, dryRun bool, now time.Time) (Change, error) {
	ch := Change{Path: path}
	before, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return ch, nil
	}
	if err != nil {
		return ch, fmt.Errorf("read %s: %w", path, err)
	}
	ch.Before = before
	orig, haveOrig := originalSettings(path)
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
	bk := path + uninstallBackup + stamp(now)
	if err := writeFileAtomic(bk, before, modeOf(path, 0o600)); err != nil {
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
// entry. orig is nil when that backup records a file that did not exist;
// ok is false when there is no usable backup.
func originalSettings(path string) (orig []byte, ok bool) {
	bks, _ := filepath.Glob(path + installBackup + "*")
	sort.Sort(sort.Reverse(sort.StringSlice(bks)))
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

// MergeHooks returns data with sepad's handler present once for every
// event in Events, and the events it changed. An existing sepad handler is
// updated in place (a moved binary, another transport) unless it is a
// command with extra arguments, which the user owns and which is kept;
// further sepad handlers in the same event are removed (each would record
// the event again); missing ones are added as a new matcher group at the
// end of the event's array. Everything
// else is kept byte for byte where the enclosing object or array is not
// changed, and value for value (same order) where it is.
func MergeHooks(data []byte, spec HookSpec) ([]byte, []string, error) {
	want, err := spec.handler()
	if err != nil {
		return nil, nil, err
	}
	wantFor := map[string]*jnode{}
	if spec.SessionStart != nil {
		if spec.SessionStart.SessionStart != nil {
			return nil, nil, errors.New("a SessionStart spec has no SessionStart spec of its own")
		}
		if wantFor["SessionStart"], err = spec.SessionStart.handler(); err != nil {
			return nil, nil, err
		}
	}
	doc, err := parseSettings(data)
	if err != nil {
		return nil, nil, err
	}
	hooks := doc.root.get("hooks")
	if hooks == nil {
		hooks = &jnode{kind: '{'}
		doc.root.set("hooks", hooks)
	} else if hooks.kind != '{' {
		return nil, nil, fmt.Errorf("%w: \"hooks\" is not an object", ErrUnusable)
	}
	var changed []string
	for _, ev := range Events {
		arr := hooks.get(ev)
		if arr == nil {
			arr = &jnode{kind: '['}
			hooks.set(ev, arr)
		} else if arr.kind != '[' {
			return nil, nil, fmt.Errorf("%w: hooks.%s is not an array", ErrUnusable, ev)
		}
		w := want
		if wf := wantFor[ev]; wf != nil {
			w = wf
		}
		if mergeEvent(arr, ev, w) {
			changed = append(changed, ev)
			hooks.dirty, doc.root.dirty = true, true
		}
	}
	if len(changed) == 0 {
		return data, nil, nil
	}
	return doc.bytes(), changed, nil
}

// mergeEvent makes arr hold exactly one sepad handler, equal to want; it
// reports whether it changed arr.
func mergeEvent(arr *jnode, ev string, want *jnode) bool {
	found, changed := false, false
	for gi := 0; gi < len(arr.elems); gi++ {
		g := arr.elems[gi]
		hs := g.get("hooks")
		if g.kind != '{' || hs == nil || hs.kind != '[' {
			continue
		}
		for hi := 0; hi < len(hs.elems); hi++ {
			h := hs.elems[hi]
			if !isSepadHandler(h) {
				continue
			}
			switch {
			case !found && (sameHandler(h, want) || customised(h, want)):
				found = true
			case !found:
				hs.elems[hi] = want.clone()
				found = true
				hs.dirty, g.dirty, changed = true, true, true
			default: // a duplicate: Claude Code would run it twice
				hs.elems = append(hs.elems[:hi], hs.elems[hi+1:]...)
				hi--
				hs.dirty, g.dirty, changed = true, true, true
			}
		}
	}
	if !found {
		g := &jnode{kind: '{', dirty: true}
		if toolEvents[ev] {
			g.set("matcher", str("*"))
		}
		g.set("hooks", &jnode{kind: '[', dirty: true, elems: []*jnode{want.clone()}})
		arr.elems = append(arr.elems, g)
		changed = true
	}
	if changed {
		arr.dirty = true
	}
	return changed
}

// RemoveHooks returns data without sepad's handlers, and the events it
// changed. orig is the file before the first install (nil if it did not
// exist) when haveOrig; containers emptied by the removal are dropped
// unless orig had them.
func RemoveHooks(data, orig []byte, haveOrig bool) ([]byte, []string, error) {
	doc, err := parseSettings(data)
	if err != nil {
		return nil, nil, err
	}
	var pre *jnode // the original root, when known
	if haveOrig && orig != nil {
		if d, err := parseSettings(orig); err == nil {
			pre = d.root
		}
	}
	existed := func(keys ...string) bool {
		if !haveOrig {
			return false
		}
		n := pre
		for _, k := range keys {
			if n == nil {
				return false
			}
			n = n.get(k)
		}
		return n != nil
	}
	hooks := doc.root.get("hooks")
	if hooks == nil || hooks.kind != '{' {
		return data, nil, nil
	}
	var changed []string
	for mi := 0; mi < len(hooks.members); mi++ {
		ev, arr := hooks.members[mi].key, hooks.members[mi].val
		if arr.kind != '[' {
			continue
		}
		removed := false
		for gi := 0; gi < len(arr.elems); gi++ {
			g := arr.elems[gi]
			hs := g.get("hooks")
			if g.kind != '{' || hs == nil || hs.kind != '[' {
				continue
			}
			n := len(hs.elems)
			kept := hs.elems[:0:0]
			for _, h := range hs.elems {
				if !isSepadHandler(h) {
					kept = append(kept, h)
				}
			}
			if len(kept) == n {
				continue
			}
			removed = true
			hs.elems, hs.dirty, g.dirty = kept, true, true
			if len(kept) == 0 && g.onlyKeys("matcher", "hooks") {
				arr.elems = append(arr.elems[:gi], arr.elems[gi+1:]...)
				gi--
			}
		}
		if !removed {
			continue
		}
		changed = append(changed, ev)
		arr.dirty, hooks.dirty, doc.root.dirty = true, true, true
		if len(arr.elems) == 0 && !existed("hooks", ev) {
			hooks.members = append(hooks.members[:mi], hooks.members[mi+1:]...)
			mi--
		}
	}
	if len(changed) == 0 {
		return data, nil, nil
	}
	if len(hooks.members) == 0 && !existed("hooks") {
		doc.root.del("hooks")
	}
	return doc.bytes(), changed, nil
}

func (s HookSpec) handler() (*jnode, error) {
	h := &jnode{kind: '{', dirty: true}
	switch s.Transport {
	case "", "command":
		if s.Command == "" {
			return nil, errors.New("no command for the command transport")
		}
		h.set("type", str("command"))
		h.set("command", str(s.Command))
		if s.Args != nil {
			args := &jnode{kind: '[', dirty: true}
			for _, a := range s.Args {
				args.elems = append(args.elems, str(a))
			}
			h.set("args", args)
		}
	case "http":
		if !isSepadURL(s.URL) {
			return nil, fmt.Errorf("url %q: want http://127.0.0.1:PORT/v1/hook (loopback only)", s.URL)
		}
		h.set("type", str("http"))
		h.set("url", str(s.URL))
		if len(s.Headers) > 0 {
			hd := &jnode{kind: '{', dirty: true}
			keys := make([]string, 0, len(s.Headers))
			for k := range s.Headers {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				hd.set(k, str(s.Headers[k]))
			}
			h.set("headers", hd)
		}
		if len(s.AllowedEnvVars) > 0 {
			ev := &jnode{kind: '[', dirty: true}
			for _, v := range s.AllowedEnvVars {
				ev.elems = append(ev.elems, str(v))
			}
			h.set("allowedEnvVars", ev)
		}
	default:
		return nil, fmt.Errorf("unknown transport %q (want command or http)", s.Transport)
	}
	h.set("timeout", &jnode{raw: []byte(fmt.Sprint(hookTimeout))})
	return h, nil
}

// Found is one of sepad's handlers in a settings file.
type Found struct {
	// Event is the hook event it is registered for.
	Event string
	// Transport is "command" or "http".
	Transport string
	// Program is the binary a command handler runs ("" for http).
	Program string
	// Exec is set for a command handler in exec form (no shell).
	Exec bool
	// URL and Headers are an http handler's endpoint and headers (values
	// as written, $NAME not substituted); AllowedEnvVars its variables.
	URL            string
	Headers        map[string]string
	AllowedEnvVars []string
}

// Find lists sepad's handlers in a settings file, in file order; a file
// that is not valid JSON, or whose hooks are not shaped as Claude Code
// reads them, is ErrUnusable.
func Find(data []byte) ([]Found, error) {
	doc, err := parseSettings(data)
	if err != nil {
		return nil, err
	}
	var out []Found
	hooks := doc.root.get("hooks")
	if hooks == nil || hooks.kind != '{' {
		return nil, nil
	}
	for _, m := range hooks.members {
		for _, g := range m.val.elems {
			for _, h := range g.get("hooks").elemsOrNil() {
				if !isSepadHandler(h) {
					continue
				}
				f := Found{Event: m.key, Transport: h.str("type")}
				switch f.Transport {
				case "command":
					f.Program, _, _ = commandWords(h)
					f.Exec = h.get("args") != nil
				case "http":
					f.URL = h.str("url")
					if hd := h.get("headers"); hd != nil && hd.kind == '{' {
						f.Headers = map[string]string{}
						for _, m := range hd.members {
							f.Headers[m.key] = hd.str(m.key)
						}
					}
					for _, e := range h.get("allowedEnvVars").elemsOrNil() {
						var v string
						if e.kind == 0 && json.Unmarshal(e.raw, &v) == nil {
							f.AllowedEnvVars = append(f.AllowedEnvVars, v)
						}
					}
				}
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// isSepadHandler recognises a handler sepad installed: a command whose
// program is named sepad or sepad-hook (or with .exe) and whose first
// argument is "hook", in shell form (`/path/sepad hook`) or exec form
// ("command": "/path/sepad", "args": ["hook", ...]), or an http handler
// posting to a loopback /v1/hook URL.
func isSepadHandler(h *jnode) bool {
	if h.kind != '{' {
		return false
	}
	switch h.str("type") {
	case "command":
		prog, args, ok := commandWords(h)
		if !ok || len(args) < 1 || args[0] != "hook" {
			return false
		}
		base := prog
		if i := strings.LastIndexAny(base, `/\`); i >= 0 {
			base = base[i+1:]
		}
		return base == "sepad" || base == "sepad-hook" || strings.EqualFold(base, "sepad.exe") || strings.EqualFold(base, "sepad-hook.exe")
	case "http":
		return isSepadURL(h.str("url"))
	}
	return false
}

// isSepadURL accepts http://HOST[:PORT]/v1/hook with a loopback HOST
// (127.0.0.1, localhost, [::1]). It is parsed by hand to keep net/url (and
// its init) out of the hook binary's dependencies.
func isSepadURL(s string) bool {
	rest, ok := strings.CutPrefix(s, "http://")
	if !ok {
		return false
	}
	host, path, _ := strings.Cut(rest, "/")
	if "/"+path != "/v1/hook" {
		return false
	}
	if h, port, found := strings.Cut(host, "]:"); found && strings.HasPrefix(h, "[") {
		host = h + "]"
		if !digits(port) {
			return false
		}
	} else if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasPrefix(host, "[") {
		if !digits(host[i+1:]) {
			return false
		}
		host = host[:i]
	}
	switch host {
	case "127.0.0.1", "localhost", "[::1]":
		return true
	}
	return false
}

func digits(s string) bool {
	if s == "" || len(s) > 5 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// commandWords returns a command handler's program and arguments: the
// "command" and "args" of exec form (ok is false when "args" is not an
// array of strings), or the words of the shell-form command line.
func commandWords(h *jnode) (prog string, args []string, ok bool) {
	a := h.get("args")
	if a == nil {
		w := shellWords(h.str("command"))
		if len(w) == 0 {
			return "", nil, true
		}
		return w[0], w[1:], true
	}
	if a.kind != '[' {
		return "", nil, false
	}
	args = []string{}
	for _, e := range a.elems {
		var v string
		if e.kind != 0 || json.Unmarshal(e.raw, &v) != nil {
			return "", nil, false
		}
		args = append(args, v)
	}
	return h.str("command"), args, true
}

// sameHandler reports whether h is the handler want: same type, command,
// form (exec or shell), arguments and URL.
func sameHandler(h, want *jnode) bool {
	if h.str("type") != want.str("type") || h.str("command") != want.str("command") || h.str("url") != want.str("url") {
		return false
	}
	if !sameValue(h.get("headers"), want.get("headers")) || !sameValue(h.get("allowedEnvVars"), want.get("allowedEnvVars")) {
		return false
	}
	if (h.get("args") == nil) != (want.get("args") == nil) {
		return false
	}
	_, ha, _ := commandWords(h)
	_, wa, _ := commandWords(want)
	return slices.Equal(ha, wa)
}

// sameValue reports whether two JSON values (nil: absent) are equal.
func sameValue(a, b *jnode) bool {
	if a == nil || b == nil {
		return a == b
	}
	var va, vb any
	if json.Unmarshal(a.emit(nil, 0, ""), &va) != nil || json.Unmarshal(b.emit(nil, 0, ""), &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// customised reports whether h is a sepad command handler the user gave
// extra arguments (`sepad hook --home DIR`, or "args": ["hook", "--home",
// DIR]): Install keeps it as it is, in whichever form it is.
func customised(h, want *jnode) bool {
	if h.str("type") != "command" || want.str("type") != "command" {
		return false
	}
	_, args, _ := commandWords(h)
	return len(args) > 1
}

// shellWords splits a command line into words, honouring single and
// double quotes and backslashes the way sh does for simple commands.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case quote == '"':
			if c == '"' {
				quote = 0
			} else if c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
				i++
				cur.WriteByte(s[i])
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// ---- an order-preserving JSON tree for settings files ----

// jnode is a JSON value. Values that are not changed keep their original
// bytes (raw) and are written back as they were; changed (dirty) objects
// and arrays are re-emitted with the file's indentation.
type jnode struct {
	kind    byte // '{', '[', or 0 for a scalar
	raw     []byte
	members []jmember
	elems   []*jnode
	dirty   bool
}

type jmember struct {
	key    string
	keyRaw []byte
	val    *jnode
}

type settingsDoc struct {
	lead, trail []byte // bytes before and after the top-level value
	indent      string // one indentation level; "" for compact files
	root        *jnode
}

func str(s string) *jnode {
	b, _ := json.Marshal(s)
	return &jnode{raw: b}
}

func (n *jnode) get(key string) *jnode {
	if n == nil || n.kind != '{' {
		return nil
	}
	for i := len(n.members) - 1; i >= 0; i-- { // the last duplicate wins, as in Claude Code
		if n.members[i].key == key {
			return n.members[i].val
		}
	}
	return nil
}

func (n *jnode) set(key string, v *jnode) {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			n.members[i].val, n.dirty = v, true
			return
		}
	}
	kr, _ := json.Marshal(key)
	n.members = append(n.members, jmember{key: key, keyRaw: kr, val: v})
	n.dirty = true
}

func (n *jnode) del(key string) {
	for i := range n.members {
		if n.members[i].key == key {
			n.members = append(n.members[:i], n.members[i+1:]...)
			n.dirty = true
			return
		}
	}
}

func (n *jnode) str(key string) string {
	v := n.get(key)
	if v == nil || v.kind != 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v.raw, &s) != nil {
		return ""
	}
	return s
}

func (n *jnode) onlyKeys(keys ...string) bool {
	for _, m := range n.members {
		ok := false
		for _, k := range keys {
			ok = ok || m.key == k
		}
		if !ok {
			return false
		}
	}
	return true
}

func (n *jnode) clone() *jnode {
	c := *n
	c.members = append([]jmember(nil), n.members...)
	c.elems = append([]*jnode(nil), n.elems...)
	return &c
}

func (d *settingsDoc) hasSepad() bool {
	hooks := d.root.get("hooks")
	if hooks == nil {
		return false
	}
	for _, m := range hooks.members {
		for _, g := range m.val.elems {
			for _, h := range g.get("hooks").elemsOrNil() {
				if isSepadHandler(h) {
					return true
				}
			}
		}
	}
	return false
}

func (n *jnode) elemsOrNil() []*jnode {
	if n == nil {
		return nil
	}
	return n.elems
}

func isEmptyObject(b []byte) bool {
	d, err := parseSettings(b)
	return err == nil && len(d.root.members) == 0
}

// parseSettings parses a settings file. Empty (or all white space) counts
// as an empty object. Errors wrap ErrUnusable and give line and column.
func parseSettings(data []byte) (*settingsDoc, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return &settingsDoc{root: &jnode{kind: '{', raw: []byte("{}")}, indent: "  ", trail: []byte("\n")}, nil
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, max(int(se.Offset)-1, 0))
			return nil, fmt.Errorf("%w: invalid JSON at line %d, column %d: %v", ErrUnusable, line, col, se)
		}
		return nil, fmt.Errorf("%w: invalid JSON: %v", ErrUnusable, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("%w: the top level is not a JSON object", ErrUnusable)
	}
	p := jparser{b: data}
	p.ws()
	d := &settingsDoc{lead: data[:p.i]}
	d.root = p.value()
	d.trail = data[p.i:]
	d.indent = detectIndent(data)
	return d, nil
}

func lineCol(b []byte, off int) (line, col int) {
	if off > len(b) {
		off = len(b)
	}
	line = 1 + bytes.Count(b[:off], []byte{'\n'})
	col = off - bytes.LastIndexByte(b[:off], '\n')
	return line, col
}

// detectIndent returns the white space starting the first indented line,
// which in a file written by Claude Code or an editor is one level; ""
// for a file on one line.
func detectIndent(b []byte) string {
	lines := bytes.Split(b, []byte{'\n'})
	if len(lines) < 2 {
		return ""
	}
	for _, l := range lines[1:] {
		t := bytes.TrimLeft(l, " \t")
		if len(t) < len(l) && len(bytes.TrimSpace(t)) > 0 {
			return string(l[:len(l)-len(t)])
		}
	}
	return "  "
}

// jparser builds a jnode tree from JSON already known to be valid.
type jparser struct {
	b []byte
	i int
}

func (p *jparser) ws() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *jparser) value() *jnode {
	start := p.i
	n := &jnode{}
	switch p.b[p.i] {
	case '{':
		n.kind = '{'
		p.i++
		p.ws()
		for p.b[p.i] != '}' {
			ks := p.i
			p.i = skipString(p.b, p.i)
			m := jmember{keyRaw: p.b[ks:p.i]}
			json.Unmarshal(m.keyRaw, &m.key)
			p.ws()
			p.i++ // ':'
			p.ws()
			m.val = p.value()
			n.members = append(n.members, m)
			p.ws()
			if p.b[p.i] == ',' {
				p.i++
				p.ws()
			}
		}
		p.i++
	case '[':
		n.kind = '['
		p.i++
		p.ws()
		for p.b[p.i] != ']' {
			n.elems = append(n.elems, p.value())
			p.ws()
			if p.b[p.i] == ',' {
				p.i++
				p.ws()
			}
		}
		p.i++
	case '"':
		p.i = skipString(p.b, p.i)
	default:
		for p.i < len(p.b) && !strings.ContainsRune(" \t\r\n,]}", rune(p.b[p.i])) {
			p.i++
		}
	}
	n.raw = p.b[start:p.i]
	return n
}

func (d *settingsDoc) bytes() []byte {
	var b []byte
	b = append(b, d.lead...)
	b = d.root.emit(b, 0, d.indent)
	trail := d.trail
	if len(trail) == 0 && d.indent != "" {
		trail = []byte("\n")
	}
	return append(b, trail...)
}

func (n *jnode) emit(b []byte, depth int, ind string) []byte {
	if !n.dirty && n.raw != nil {
		return append(b, n.raw...)
	}
	nl := func(b []byte, d int) []byte {
		if ind == "" {
			return b
		}
		b = append(b, '\n')
		for i := 0; i < d; i++ {
			b = append(b, ind...)
		}
		return b
	}
	switch n.kind {
	case '{':
		if len(n.members) == 0 {
			return append(b, "{}"...)
		}
		b = append(b, '{')
		for i, m := range n.members {
			if i > 0 {
				b = append(b, ',')
			}
			b = nl(b, depth+1)
			b = append(b, m.keyRaw...)
			b = append(b, ':')
			if ind != "" {
				b = append(b, ' ')
			}
			b = m.val.emit(b, depth+1, ind)
		}
		b = nl(b, depth)
		return append(b, '}')
	case '[':
		if len(n.elems) == 0 {
			return append(b, "[]"...)
		}
		b = append(b, '[')
		for i, e := range n.elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = nl(b, depth+1)
			b = e.emit(b, depth+1, ind)
		}
		b = nl(b, depth)
		return append(b, ']')
	}
	return append(b, n.raw...)
}

// skipString returns the index after the JSON string starting at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

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
