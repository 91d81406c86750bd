package prompt

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/internal/treetest"
)

// TestScanInstructions: the instruction set Claude Code loads at start
// (as seen on 2.1.328 and 2.1.197, e2e/claudecode "instructions"), on
// literal trees. Paths are relative to a temporary base; cwd is
// base/home/proj unless a case says otherwise, the user's directory
// base/home/.claude or base/cfg ($CLAUDE_CONFIG_DIR).
func TestScanInstructions(t *testing.T) {
	cases := []struct {
		name string
		tree map[string]string
		cwd  string
		cfg  string
		want []string
	}{
		{
			name: "project CLAUDE.md alone",
			tree: map[string]string{"home/proj/CLAUDE.md": "# P\n", "home/proj/.git/HEAD": "ref"},
			want: []string{"home/proj/CLAUDE.md"},
		},
		{
			name: "nothing",
			tree: map[string]string{"home/proj/README.md": "x"},
			want: nil,
		},
		{
			name: "imports relative to the importing file, nested, not in code, not outside cwd",
			tree: map[string]string{
				"home/proj/CLAUDE.md":        "See @docs/guide.md and @./in.md too; @b.md. is no import (Claude Code takes the dot as part of the name).\n\n```\n@docs/fenced.md\n```\n`@docs/span.md`\nmail a@b.md\n@../outside.md @~/notes.md\n",
				"home/proj/docs/guide.md":    "@deeper.md\n",
				"home/proj/docs/deeper.md":   "# deeper\n",
				"home/proj/docs/fenced.md":   "x",
				"home/proj/docs/span.md":     "x",
				"home/proj/in.md":            "x",
				"home/proj/b.md":             "x",
				"home/outside.md":            "x",
				"home/notes.md":              "x",
				"home/proj/docs/missing.txt": "x",
			},
			want: []string{"home/proj/CLAUDE.md", "home/proj/docs/deeper.md", "home/proj/docs/guide.md", "home/proj/in.md"},
		},
		{
			name: "import cycle and depth",
			tree: map[string]string{
				"home/proj/CLAUDE.md": "@a.md\n", "home/proj/a.md": "@b.md\n", "home/proj/b.md": "@c.md @a.md\n",
				"home/proj/c.md": "@d.md\n", "home/proj/d.md": "@e.md\n", "home/proj/e.md": "@f.md\n", "home/proj/f.md": "too deep",
			},
			want: []string{"home/proj/CLAUDE.md", "home/proj/a.md", "home/proj/b.md", "home/proj/c.md", "home/proj/d.md", "home/proj/e.md"},
		},
		{
			name: "rules with and without paths, nested, hidden, not markdown",
			tree: map[string]string{
				"home/proj/.claude/rules/always.md":     "# always\n",
				"home/proj/.claude/rules/desc.md":       "---\ndescription: x\n---\n# has front matter, no paths\n",
				"home/proj/.claude/rules/go.md":         "---\npaths: \"**/*.go\"\n---\n# go\n",
				"home/proj/.claude/rules/list.md":       "---\r\ndescription: y\r\npaths:\r\n  - \"*.ts\"\r\n---\r\n",
				"home/proj/.claude/rules/sub/nested.md": "# nested\n",
				"home/proj/.claude/rules/.hidden.md":    "# hidden\n",
				"home/proj/.claude/rules/notes.txt":     "not a rule",
				"home/proj/.claude/rules/late.md":       "# body\n---\npaths: x\n",
			},
			want: []string{"home/proj/.claude/rules/always.md", "home/proj/.claude/rules/desc.md", "home/proj/.claude/rules/late.md", "home/proj/.claude/rules/sub/nested.md"},
		},
		{
			name: "parents, .claude/CLAUDE.md, CLAUDE.local.md and the user's files",
			tree: map[string]string{
				"CLAUDE.md":                   "# base\n",
				".claude/rules/r.md":          "# base rule\n",
				"CLAUDE.local.md":             "# base local\n",
				"home/CLAUDE.md":              "# home dir\n",
				"home/.claude/CLAUDE.md":      "# user\n@imp/extra.md\n@/../../outside-user.md\n",
				"home/.claude/imp/extra.md":   "# user import\n",
				"home/.claude/rules/s.md":     "# user rule\n",
				"home/.claude/rules/c.md":     "---\npaths: [\"*.go\"]\n---\n",
				"home/proj/CLAUDE.md":         "# proj\n",
				"home/proj/.claude/CLAUDE.md": "# dot\n",
				"home/proj/CLAUDE.local.md":   "# local\n",
				"home/proj/sub/CLAUDE.md":     "# nested: loaded later\n",
			},
			want: []string{
				".claude/rules/r.md", "CLAUDE.local.md", "CLAUDE.md",
				"home/.claude/CLAUDE.md", "home/.claude/imp/extra.md", "home/.claude/rules/s.md", "home/CLAUDE.md",
				"home/proj/.claude/CLAUDE.md", "home/proj/CLAUDE.local.md", "home/proj/CLAUDE.md",
			},
		},
		{
			// Claude Code 2.1.328 then still reads ~/.claude's CLAUDE.md and
			// rules, as those of a parent directory of the project.
			name: "CLAUDE_CONFIG_DIR is the user's directory",
			tree: map[string]string{
				"home/.claude/rules/u.md": "# read as a parent's\n",
				"cfg/CLAUDE.md":           "# cfg\n",
				"cfg/rules/x.md":          "# cfg rule\n",
				"home/proj/CLAUDE.md":     "# proj\n",
			},
			cfg:  "cfg",
			want: []string{"cfg/CLAUDE.md", "cfg/rules/x.md", "home/.claude/rules/u.md", "home/proj/CLAUDE.md"},
		},
		{
			name: "cwd below the project",
			tree: map[string]string{"home/proj/CLAUDE.md": "# p\n", "home/proj/api/CLAUDE.md": "# api\n", "home/proj/web/CLAUDE.md": "# web\n"},
			cwd:  "home/proj/api",
			want: []string{"home/proj/CLAUDE.md", "home/proj/api/CLAUDE.md"},
		},
		{
			name: "a directory named CLAUDE.md is no file",
			tree: map[string]string{"home/proj/CLAUDE.md": "DIR", "home/proj/CLAUDE.local.md": "x"},
			want: []string{"home/proj/CLAUDE.local.md"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			treetest.Write(t, base, c.tree)
			cwd := filepath.Join(base, "home", "proj")
			if c.cwd != "" {
				cwd = filepath.Join(base, filepath.FromSlash(c.cwd))
			}
			cfg := filepath.Join(base, "home", ".claude")
			if c.cfg != "" {
				cfg = filepath.Join(base, c.cfg)
			}
			t.Setenv("HOME", filepath.Join(base, "home"))
			version, files := ScanInstructions(cwd, cfg)
			var got []string
			for _, f := range files {
				rel, _ := filepath.Rel(base, f.Path)
				got = append(got, filepath.ToSlash(rel))
				if len(f.Hash) != 12 {
					t.Errorf("%s: hash %q", rel, f.Hash)
				}
			}
			// Files above base (the temporary directory's parents) are
			// not the test's.
			got = slices.DeleteFunc(got, func(p string) bool { return strings.HasPrefix(p, "..") })
			if !slices.Equal(got, c.want) {
				t.Errorf("files:\n got %q\nwant %q", got, c.want)
			}
			if want := event.ManifestVersion(files); version != want {
				t.Errorf("version %s, event.ManifestVersion says %s", version, want)
			}
		})
	}
}

// BenchmarkScanInstructions: the SessionStart scan on a project with a
// user CLAUDE.md and two rules, a CLAUDE.md with two imports, .claude/CLAUDE.md,
// CLAUDE.local.md and three project rules (one with paths:), four levels
// below the temporary directory.
func BenchmarkScanInstructions(b *testing.B) {
	base := b.TempDir()
	treetest.Write(b, base, map[string]string{
		"home/.claude/CLAUDE.md":            "# U\n" + strings.Repeat("Be kind.\n", 50),
		"home/.claude/rules/a.md":           "# a\n",
		"home/.claude/rules/b.md":           "---\npaths: x\n---\n",
		"home/src/proj/.git/HEAD":           "ref",
		"home/src/proj/CLAUDE.md":           "# P\nSee @docs/a.md and @docs/b.md\n" + strings.Repeat("Rule.\n", 200),
		"home/src/proj/docs/a.md":           "# a\n",
		"home/src/proj/docs/b.md":           "# b\n",
		"home/src/proj/.claude/CLAUDE.md":   "# d\n",
		"home/src/proj/CLAUDE.local.md":     "# l\n",
		"home/src/proj/.claude/rules/x.md":  "# x\n",
		"home/src/proj/.claude/rules/y.md":  "# y\n",
		"home/src/proj/.claude/rules/z.md":  "---\npaths: \"*.go\"\n---\n",
		"home/src/proj/.claude/settings.js": "{}",
	})
	cwd, cfg := filepath.Join(base, "home", "src", "proj"), filepath.Join(base, "home", ".claude")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, files := ScanInstructions(cwd, cfg); len(files) != 9 {
			b.Fatalf("%d files", len(files))
		}
	}
}
