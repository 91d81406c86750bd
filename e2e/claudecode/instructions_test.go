package claudecode

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/internal/fakeclaude"
)

// Issue 13 items 4 and 12: the session's base prompt (_session) is every
// instruction file Claude Code loaded at start, and its version is the
// manifest the hook lists at SessionStart, from the first execution of a
// new project on.

func init() {
	scenarios = append(scenarios, instructionScenarios...)
	scenarios = append(scenarios, instructionsConfigDir)
}

// liveSpool is the spool of the scenario just run, per Claude Code
// version; a check of a recording reads the recorded spool instead.
var liveSpool = map[string]string{}

func spoolFor(version, name string) string {
	if p, ok := liveSpool[version+"/"+name]; ok {
		return p
	}
	return filepath.Join("..", "..", "testdata", "claude-code", version, name, "events.jsonl")
}

var instructionScenarios = []scenario{
	{
		name: "instructions",
		run: func(e *env) {
			user := filepath.Join(e.Home, ".claude")
			e.write(filepath.Join(user, "CLAUDE.md"), "# User\nBe kind.\n")
			e.write(filepath.Join(user, "rules", "style.md"), "# User rule\nShort lines.\n")
			e.write(filepath.Join(user, "rules", "go.md"), "---\npaths:\n  - \"**/*.go\"\n---\n# Go only\n")
			e.write("CLAUDE.md", "# Project\nFollow @docs/guide.md for tests.\n\n```\n@docs/not-an-import.md\n```\n")
			e.write("docs/guide.md", "# Guide\nTest first.\n")
			e.write("docs/not-an-import.md", "# no\n")
			e.write("CLAUDE.local.md", "# Local\nUse the staging db.\n")
			e.write("sub/CLAUDE.md", "# Sub\n")
			e.write("sub/file.txt", "hello\n")
			e.API.Set("instr", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{bash("echo hi")}},
				{Tools: []fakeclaude.Tool{{Name: "Read", Input: map[string]any{"file_path": filepath.Join(e.Project, "sub", "file.txt")}}}},
				{Text: answer},
				{Tools: []fakeclaude.Tool{bash("echo again")}},
				{Text: answer},
			})
			out, _ := e.claude("-p", "look around @@instr@@")
			// An edit to the user's CLAUDE.md: the resumed session's
			// _session is a new version, whose manifest differs there.
			e.write(filepath.Join(user, "CLAUDE.md"), "# User\nBe kind and brief.\n")
			e.claude("-p", "once more", "--resume", sessionID(e.t, out))
			liveSpool[e.c.Version+"/instructions"] = filepath.Join(e.State, "events.jsonl")
		},
		check: func(t *testing.T, v string, xs []scored) {
			ss := bySkill(xs, "_session")
			if len(ss) != 2 {
				t.Fatalf("want 2 _session executions (start and resume), got %d:\n%s", len(ss), dump(xs))
			}
			sp := readSpool(t, spoolFor(v, "instructions"))
			if len(sp.manifests) != 2 {
				t.Fatalf("want a manifest on each of the 2 SessionStart lines, got %d", len(sp.manifests))
			}
			// Recordings list executions by ID: match them by version.
			got := []string{ss[0].SkillVersion, ss[1].SkillVersion}
			want := []string{sp.manifests[0].Version, sp.manifests[1].Version}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("_session versions %q, the SessionStart manifests' %q", got, want)
			}
			for i, m := range sp.manifests {
				var names []string
				for _, f := range m.Files {
					names = append(names, relName(f.Path))
				}
				want := []string{"home/.claude/CLAUDE.md", "home/.claude/rules/style.md", "home/proj/CLAUDE.local.md", "home/proj/CLAUDE.md", "home/proj/docs/guide.md"}
				if !slices.Equal(names, want) {
					t.Errorf("manifest %d: %q, want %q", i, names, want)
				}
				// What Claude Code says it loaded at start is what the hook
				// found on disk, file for file and hash for hash.
				loaded := sp.loadedAtStart[i]
				for _, f := range m.Files {
					if h, ok := loaded[f.Path]; !ok || h != f.Hash {
						t.Errorf("session %d: %s in the manifest (hash %s), InstructionsLoaded: %q %v", i, relName(f.Path), f.Hash, h, ok)
					}
				}
				if len(loaded) != len(m.Files) {
					t.Errorf("session %d: InstructionsLoaded at start named %d files, the manifest %d: %v", i, len(loaded), len(m.Files), loaded)
				}
			}
			if want[0] == want[1] {
				t.Errorf("the user's CLAUDE.md changed before the resume, the version did not: %s", want[0])
			}
			a, b := sp.manifests[0].Files, sp.manifests[1].Files
			for i := range a {
				if changed := a[i].Hash != b[i].Hash; changed != strings.HasSuffix(a[i].Path, ".claude/CLAUDE.md") {
					t.Errorf("%s: changed %v between the two manifests", relName(a[i].Path), changed)
				}
			}
			if !slices.ContainsFunc(sp.later, func(p string) bool { return strings.HasSuffix(p, "sub/CLAUDE.md") }) {
				t.Errorf("no nested_traversal for sub/CLAUDE.md: %q", sp.later)
			}
		},
	},
}

// instructionsConfigDir: with $CLAUDE_CONFIG_DIR set, the user's files
// are there, and a ~/.claude above the project is read as a parent
// directory's (both versions): the hook's scan agrees.
var instructionsConfigDir = scenario{
	name: "instructions_config_dir",
	run: func(e *env) {
		cfg := filepath.Join(e.Root, "cfg")
		e.Extra = append(e.Extra, "CLAUDE_CONFIG_DIR="+cfg)
		e.write(filepath.Join(cfg, "CLAUDE.md"), "# User (config dir)\n")
		e.write(filepath.Join(cfg, "rules", "r.md"), "# User rule\n")
		e.write(filepath.Join(e.Home, ".claude", "CLAUDE.md"), "# Read as a parent's\n")
		e.write("CLAUDE.md", "# Project\n")
		e.API.Set("cfgdir", fakeclaude.Script{
			{Tools: []fakeclaude.Tool{bash("echo hi")}},
			{Text: answer},
		})
		// InstructionsLoaded hooks do not block the session: a `claude -p`
		// that exits at once may end before one of them has written its
		// line (2.1.197 once lost cfg/CLAUDE.md's under load). The session
		// stays open until all four are in the spool, as an interactive
		// one would.
		st := e.startStream()
		st.send("look @@cfgdir@@")
		e.waitCount(`"hook_event_name":"Stop"`, 1)
		e.waitCount(`"hook_event_name":"InstructionsLoaded"`, 4)
		st.end()
		liveSpool[e.c.Version+"/instructions_config_dir"] = filepath.Join(e.State, "events.jsonl")
	},
	check: func(t *testing.T, v string, xs []scored) {
		s := one(t, xs, "_session")
		sp := readSpool(t, spoolFor(v, "instructions_config_dir"))
		if len(sp.manifests) != 1 || s.SkillVersion != sp.manifests[0].Version {
			t.Fatalf("_session version %q, manifests %+v", s.SkillVersion, sp.manifests)
		}
		var names []string
		for _, f := range sp.manifests[0].Files {
			names = append(names, relName(f.Path))
			if h, ok := sp.loadedAtStart[0][f.Path]; !ok || h != f.Hash {
				t.Errorf("%s in the manifest, InstructionsLoaded: %q %v", f.Path, h, ok)
			}
		}
		if len(sp.loadedAtStart[0]) != len(names) {
			t.Errorf("InstructionsLoaded named %d files, the manifest %d: %v", len(sp.loadedAtStart[0]), len(names), sp.loadedAtStart[0])
		}
		for _, want := range []string{"cfg/CLAUDE.md", "cfg/rules/r.md", "home/.claude/CLAUDE.md", "home/proj/CLAUDE.md"} {
			if !slices.ContainsFunc(names, func(n string) bool { return strings.HasSuffix(n, want) }) {
				t.Errorf("manifest %q lacks %s", names, want)
			}
		}
	},
}

// relName names a path by what follows the scratch root.
func relName(p string) string {
	if i := strings.Index(p, "/home/"); i >= 0 {
		return p[i+1:]
	}
	return p
}

type spoolInstructions struct {
	manifests []*event.Instructions
	// loadedAtStart maps, per session start, each file InstructionsLoaded
	// reported with load_reason session_start or include to its hash.
	loadedAtStart []map[string]string
	// later lists the files loaded later (nested_traversal, path_glob_match).
	later []string
}

func readSpool(t *testing.T, path string) spoolInstructions {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// A hook that waited too long for the spool lock wrote its line to
	// the fallback file beside it, which the collector reads too.
	if fb, err := os.ReadFile(filepath.Join(filepath.Dir(path), "events.fallback.jsonl")); err == nil {
		b = append(b, fb...)
	}
	var out spoolInstructions
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		ev, err := event.ParseLine(sc.Bytes())
		if err != nil || ev.Sepa == nil {
			continue
		}
		switch ev.HookEvent {
		case event.SessionStart:
			if ev.Sepa.Instructions != nil {
				out.manifests = append(out.manifests, ev.Sepa.Instructions)
				out.loadedAtStart = append(out.loadedAtStart, map[string]string{})
			}
		case event.InstructionsLoaded:
			switch ev.LoadReason {
			case "session_start", "include":
				if n := len(out.loadedAtStart); n > 0 && ev.Sepa.Instructions != nil {
					out.loadedAtStart[n-1][ev.FilePath] = ev.Sepa.Instructions.Files[0].Hash
				}
			default:
				out.later = append(out.later, ev.FilePath)
			}
		}
	}
	return out
}
