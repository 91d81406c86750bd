package hooks

import (
	"bytes"
	"os"
	"path/filepath"
	"time"
)

// Double installs (docs/claude-code.md, "Double installs"). With sepad in
// a settings file and the sepad plugin enabled, Claude Code runs both
// hooks for every event with byte-identical payloads; only the plugin's
// copy has CLAUDE_PLUGIN_ROOT set. The plugin's copy marks its line
// (sepa.via "plugin"), and whichever copy takes the spool lock second
// finds the first one in the spool's tail and writes nothing. Two lines
// from the same side are never merged: they are two events. Since every
// pair of copies leaves exactly one line, an event repeated identically
// still counts right however the copies interleave.

const (
	// dedupWindow is how far apart (sepa.ts) two copies of one event may
	// be written: Claude Code starts both hooks at once.
	dedupWindow = 10 * time.Second
	// dedupTail is how much of the spool before the end is searched,
	// beyond the new line's own length: the lines other hooks wrote
	// between the two copies.
	dedupTail = 64 << 10
	// viaPlugin is sepa.via for a line written by the plugin's copy.
	viaPlugin = "plugin"
	// pluginMark is a file in the state directory that the plugin's copy
	// creates: its presence makes the settings copy look for duplicates
	// too, which a settings-only install never has to.
	pluginMark = "plugin-hook"
)

// PluginMarkPath is the file whose presence says a plugin copy of the
// hook has written to home's spool (sepad doctor reads it).
func PluginMarkPath(home string) string { return filepath.Join(home, pluginMark) }

// sepaStart begins the sepa object of every line Enrich writes.
var sepaStart = []byte(`"sepa":{"v":`)

// dedupCheck returns the check spool.AppendUnless runs under the spool lock for line,
// or nil when no copy from the other side can be there.
func dedupCheck(home string, line []byte, plugin bool) func(spool string) bool {
	if !plugin {
		if _, err := os.Lstat(PluginMarkPath(home)); err != nil {
			return nil // no plugin copy has ever written here
		}
	}
	return func(spool string) bool { return hasOtherCopy(spool, line, plugin, dedupWindow) }
}

// hasOtherCopy reports whether the tail of the spool at path holds a line
// equal to line but for its sepa object, written by the other side
// (sepa.via "plugin" exactly when plugin is false) within window of
// line's sepa.ts.
func hasOtherCopy(path string, line []byte, plugin bool, window time.Duration) bool {
	cut := bytes.LastIndex(line, sepaStart)
	if cut < 0 {
		return false
	}
	needle := line[:cut+len(sepaStart)]
	ts, ok := lineTime(line[cut:])
	if !ok {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() <= 0 {
		return false
	}
	size := fi.Size()
	off := max(size-int64(len(line))-dedupTail, 0)
	tail := make([]byte, size-off)
	if _, err := f.ReadAt(tail, off); err != nil {
		return false // io.EOF included: the spool shrank (rotated) meanwhile
	}
	for i := 0; ; {
		j := bytes.Index(tail[i:], needle)
		if j < 0 {
			return false
		}
		at := i + j
		i = at + 1
		if at == 0 && off > 0 || at > 0 && tail[at-1] != '\n' {
			continue // not a line's start
		}
		rest := tail[at+len(needle)-len(sepaStart):]
		end := bytes.IndexByte(rest, '\n')
		if end < 0 {
			return false // the last line has no newline yet: not written
		}
		sepa := rest[:end]
		if bytes.Contains(sepa, []byte(`,"via":"`+viaPlugin+`"`)) == plugin {
			continue // the same side: another event
		}
		if t, ok := lineTime(sepa); ok && t.Sub(ts) < window && ts.Sub(t) < window {
			return true
		}
	}
}

// lineTime reads sepa.ts from the sepa object at the start of b.
func lineTime(b []byte) (time.Time, bool) {
	const key = `,"ts":"`
	i := bytes.Index(b, []byte(key))
	if i < 0 || i > 32 {
		return time.Time{}, false
	}
	rest := b[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(rest[:j]))
	return t, err == nil
}

// markPlugin creates the plugin mark in home once.
func markPlugin(home string) {
	p := PluginMarkPath(home)
	if _, err := os.Lstat(p); err == nil {
		return
	}
	if f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o600); err == nil {
		f.Close()
	}
}
