package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"
)

// How a payload becomes a line (docs/events.md, "Enriched lines"):
//
//  1. walk.go: encoding/json's Decoder reads the payload token by token
//     and the walker writes each token as received, in order, without
//     the white space between them; what encoding/json would refuse or
//     change silently (invalid UTF-8, raw control characters, lone
//     surrogates…) is repaired first (repair.go), and values longer than
//     MaxField are cut to head and tail (cut.go);
//  2. skill.go, instructions.go (through package prompt): the top-level values the walk
//     kept (facts) say which prompt file and version the event belongs to;
//  3. here: the sepa object is appended (encoding/json, keys in the
//     documented order), and check.go holds the line to the collector's
//     own parser; a payload that fails any step is quarantined whole.

// DefaultMaxField is the default bound on the JSON text of one field.
const DefaultMaxField = 64 << 10

// DefaultMaxPayload is the default bound on a payload read by HandleReader:
// larger payloads are quarantined, never parsed.
const DefaultMaxPayload = 64 << 20

// DefaultLockTimeout is how long Handle waits for the spool lock before
// writing to the fallback file.
const DefaultLockTimeout = time.Second

// Options tune Enrich and Handle. The zero value means the defaults.
type Options struct {
	// MaxField bounds the JSON text of every value below the top level, in
	// bytes: longer strings, arrays and objects keep a head and a tail
	// (docs/events.md). 0 means DefaultMaxField; values under 256 are
	// raised to 256.
	MaxField int
	// UserHome is the user's home directory: it ends the search for
	// project skills in the parents of a cwd outside any repository, and
	// holds ~/.claude; "" means os.UserHomeDir().
	UserHome string
	// ClaudeDir is the user's Claude Code configuration directory, where
	// the user-level skills, commands and agents are; "" means
	// $CLAUDE_CONFIG_DIR when set, else UserHome/.claude
	// (ClaudeConfigDir).
	ClaudeDir string
	// GOOS selects the path rules used to normalise cwd; "" means
	// runtime.GOOS. Tests set it to check the Windows rules anywhere.
	GOOS string
	// NoFiles keeps Enrich off the file system: no repo root lookup
	// (sepa.project is the normalised cwd) and no skill file resolution
	// (sepa.skill is still recorded). The fuzz target uses it.
	NoFiles bool

	// Home is the state directory Handle appends to; "" means spool.Home().
	Home string
	// LockTimeout bounds Handle's wait for the spool lock; 0 means
	// DefaultLockTimeout.
	LockTimeout time.Duration
	// MaxPayload bounds HandleReader's read; 0 means DefaultMaxPayload.
	MaxPayload int64
	// Now is Handle's clock; nil means time.Now.
	Now func() time.Time
	// Plugin says the hook runs as the sepad plugin's copy
	// (CLAUDE_PLUGIN_ROOT set): its line gets sepa.via "plugin", and
	// Handle drops it when the settings copy already wrote the event
	// (dedup.go).
	Plugin bool
}

func (o Options) maxField() int {
	switch {
	case o.MaxField <= 0:
		return DefaultMaxField
	case o.MaxField < 256:
		return 256
	}
	return o.MaxField
}

// Enrich turns one hook payload into one spool line (without the newline):
// the payload's members, in their order, with insignificant whitespace
// removed, values over opts.MaxField cut to head and tail, invalid UTF-8,
// raw control characters and lone surrogates repaired, and a "sepa" object
// appended (docs/events.md). Whatever the input, the result is one line of
// valid JSON that event.ParseLine accepts, or a Quarantined line holding
// the payload as a string. It reads no file except skill prompt files and
// instruction files (CLAUDE.md, rules, imports: instructions.go).
func Enrich(payload []byte, now time.Time, opts Options) []byte {
	return enrich(payload, now, opts).line
}

// enriched is a line and what Handle needs to know of it.
type enriched struct {
	line        []byte
	quarantined bool
	// event is the payload's hook_event_name and project its sepa.project
	// (for the notices of a SessionStart, notice.go).
	event, project string
}

// enrich is Enrich, also telling whether the line is a quarantine, and
// the event's name and project.
func enrich(payload []byte, now time.Time, opts Options) enriched {
	line, f, s, reason := rewrite(payload, now, opts)
	if reason == "" {
		reason = checkLine(line)
	}
	if reason != "" {
		return enriched{line: quarantine(payload, reason, now, opts, int64(len(payload)), nil), quarantined: true}
	}
	return enriched{line: line, event: f.event, project: s.Project}
}

// rewrite is the walk and the sepa object: the payload rewritten as a
// line, or the reason it is not a JSON object. The line is not yet checked
// against the collector's parser (checkLine).
func rewrite(payload []byte, now time.Time, opts Options) (line []byte, f facts, s sepaObj, reason string) {
	w, repairs, reason := walk(payload, opts.maxField())
	if reason != "" {
		return nil, facts{}, s, reason
	}
	s = sepaObj{V: schemaVersion, TS: now.UTC().Format(time.RFC3339Nano)}
	if opts.Plugin {
		s.Via = viaPlugin
	}
	w.facts.attribute(&s, opts)
	s.Cut = w.cuts
	s.Repaired = repairedNames(repairs)
	line = w.out[:len(w.out)-1] // drop the closing brace
	if w.members > 0 {
		line = append(line, ',')
	}
	line = append(line, `"sepa":`...)
	line = s.appendTo(line)
	return append(line, '}'), w.facts, s, ""
}

// sepaObj is the sepa object (docs/events.md, "The sepa object").
type sepaObj struct {
	V                              int
	TS                             string // RFC 3339 with nanoseconds, UTC
	Skill, SkillPath, SkillVersion string
	SkillLink                      string // "outside_project": SkillPath leads out of its project (skill.go)
	Plugin, PluginVersion          string // the plugin whose prompt SkillPath is (plugin.go)
	Project                        string
	Instructions                   *instructionSet   // SessionStart, InstructionsLoaded (instructions.go)
	PluginPrompts                  map[string]string // SessionStart: the session's plugin prompt files
	Via                            string            // "plugin" for the plugin's copy of the hook (dedup.go)
	Quarantine, Raw                string
	Cut                            []cutRec
	Repaired                       []string
}

// appendTo appends the sepa object to b: its members in the documented
// order, those that are empty left out, each value as encoding/json
// writes it. (Encoding the struct itself would build its encoder by
// reflection in every hook process, a third of the hook's own cost.)
// dedup.go reads a line's "v", "ts" and "via" as written here.
func (s *sepaObj) appendTo(b []byte) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(s.V), 10)
	for _, m := range []struct {
		key   string
		value any
		empty bool
	}{
		{"ts", s.TS, false},
		{"skill", s.Skill, s.Skill == ""},
		{"skill_path", s.SkillPath, s.SkillPath == ""},
		{"skill_version", s.SkillVersion, s.SkillVersion == ""},
		{"skill_link", s.SkillLink, s.SkillLink == ""},
		{"plugin", s.Plugin, s.Plugin == ""},
		{"plugin_version", s.PluginVersion, s.PluginVersion == ""},
		{"project", s.Project, s.Project == ""},
		{"instructions", s.Instructions, s.Instructions == nil},
		{"plugin_prompts", s.PluginPrompts, s.PluginPrompts == nil},
		{"via", s.Via, s.Via == ""},
		{"quarantine", s.Quarantine, s.Quarantine == ""},
		{"raw", s.Raw, s.Raw == ""},
		{"cut", s.Cut, len(s.Cut) == 0},
		{"repaired", s.Repaired, len(s.Repaired) == 0},
	} {
		if !m.empty {
			b = append(b, `,"`...)
			b = append(b, m.key...)
			b = append(b, `":`...)
			b = appendJSON(b, m.value)
		}
	}
	return append(b, '}')
}

// appendJSON appends v as encoding/json writes it, less the HTML escaping
// of <, > and & (the line is read by programs, not put in a page) and the
// final newline. The values the hook encodes (strings, numbers, slices,
// maps of strings) cannot fail to encode.
func appendJSON(b []byte, v any) []byte {
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	out := buf.Bytes()
	return out[:len(out)-1]
}

// quarantine builds the line for a payload that cannot be kept as JSON:
// the payload becomes sepa.raw, a string (invalid UTF-8 becomes U+FFFD)
// cut to head and tail beyond MaxField; the cut record then holds total
// (the payload's full length) and sum (its sha256, computed here when
// nil).
func quarantine(payload []byte, reason string, now time.Time, opts Options, total int64, sum []byte) []byte {
	max := opts.maxField()
	s := sepaObj{V: schemaVersion, TS: now.UTC().Format(time.RFC3339Nano), Quarantine: reason, Raw: string(payload)}
	if len(payload) > max || total > int64(len(payload)) || len(appendJSON(nil, s.Raw)) > max {
		if sum == nil {
			h := sha256.Sum256(payload)
			sum = h[:]
		}
		s.Raw = shorten(s.Raw, max)
		s.Cut = []cutRec{{Field: "/sepa/raw", Len: total, SHA256: hex.EncodeToString(sum)}}
	}
	b := append([]byte(nil), `{"hook_event_name":"`+evQuarantined+`","sepa":`...)
	b = s.appendTo(b)
	return append(b, '}')
}

// Quarantine returns the Quarantined line for a payload kept only in part:
// head is what was read, total the payload's full length and sum its
// sha256. HandleReader uses it for payloads over MaxPayload.
func Quarantine(head []byte, reason string, now time.Time, opts Options, total int64, sum []byte) []byte {
	return quarantine(head, reason, now, opts, total, sum)
}
