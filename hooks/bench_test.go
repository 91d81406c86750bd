package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/internal/treetest"
	"github.com/sepad/sepad/spool"
)

// benchPayloads: the ~2 KB PostToolUse of hooks/bench/hookbench.sh and a
// 5 MB Read response.
func benchPayloads(b *testing.B) map[string][]byte {
	var out strings.Builder
	for i := 0; i < 40; i++ {
		out.WriteString("ok  \tgithub.com/acme/shop/pkg\t0.012s\n")
	}
	small, _ := json.Marshal(map[string]any{
		"session_id": "9a1f0c3e-5b7d-4e2a-8c61-2f3d4e5a6b7c", "transcript_path": "/home/ana/.claude/projects/x/9a1f.jsonl",
		"cwd": "/home/ana/src/shop", "permission_mode": "default", "hook_event_name": "PostToolUse", "tool_name": "Bash",
		"tool_input":    map[string]any{"command": "go test ./...", "description": "Run the tests"},
		"tool_response": map[string]any{"stdout": out.String(), "stderr": "", "interrupted": false, "isImage": false},
		"tool_use_id":   "toolu_01ABCDEF", "duration_ms": 2300,
	})
	var content strings.Builder
	for content.Len() < 5<<20 {
		content.WriteString("\tfmt.Println(\"a line of Go source\") // é\n")
	}
	big, _ := json.Marshal(map[string]any{
		"session_id": "s", "hook_event_name": "PostToolUse", "cwd": "/home/ana/src/shop", "tool_name": "Read",
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": "/x.go", "content": content.String()}},
	})
	return map[string][]byte{"2KB": small, "5MB": big}
}

// BenchmarkEnrich against BenchmarkCompact (encoding/json.Compact of the
// same payload, the least any JSON rewriter does): compare them as a ratio.
func BenchmarkEnrich(b *testing.B) {
	for name, p := range benchPayloads(b) {
		b.Run(name, func(b *testing.B) {
			opts := Options{NoFiles: true}
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				Enrich(p, time.Now(), opts)
			}
		})
	}
}

func BenchmarkCompact(b *testing.B) {
	for name, p := range benchPayloads(b) {
		b.Run(name, func(b *testing.B) {
			var buf bytes.Buffer
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				buf.Reset()
				json.Compact(&buf, p)
			}
		})
	}
}

// BenchmarkAppend is the spool write of one 2 KB line (lock, open, write,
// close, unlock); BenchmarkWriteFile the bare O_APPEND open+write+close.
func BenchmarkAppend(b *testing.B) {
	home := b.TempDir()
	line := Enrich(benchPayloads(b)["2KB"], time.Now(), Options{NoFiles: true})
	for b.Loop() {
		if _, err := spool.Append(home, line, time.Second); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteFile(b *testing.B) {
	path := spool.Path(b.TempDir())
	line := append(Enrich(benchPayloads(b)["2KB"], time.Now(), Options{NoFiles: true}), '\n')
	for b.Loop() {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			b.Fatal(err)
		}
		f.Write(line)
		f.Close()
	}
}

// BenchmarkEnrichSkill is Enrich of a Skill call with the file system: a
// name found at the user level, at the project level, nested below the
// project (apps/web/.claude/skills), scoped (apps/web:NAME), and a miss
// (a plugin skill called by its bare name), which searches the whole
// bounded tree. The repository has 10 apps of 3 levels of 8 directories
// (about 700 directories) and a node_modules of 2,000 the search skips.
func BenchmarkEnrichSkill(b *testing.B) {
	b.Setenv("CLAUDE_CONFIG_DIR", "")
	base := b.TempDir()
	home, repo := filepath.Join(base, "home"), filepath.Join(base, "repo")
	tree := map[string]string{
		"home/.claude/skills/mine/SKILL.md":             "user",
		"repo/.git/HEAD":                                "ref",
		"repo/.claude/skills/lint/SKILL.md":             "project",
		"repo/apps/app9/.claude/skills/deploy/SKILL.md": "nested",
	}
	for a := 0; a < 10; a++ {
		for i := 0; i < 8; i++ {
			for j := 0; j < 8; j++ {
				tree[fmt.Sprintf("repo/apps/app%d/d%d/e%d/main.go", a, i, j)] = "package x"
			}
		}
	}
	for i := 0; i < 2000; i++ {
		tree[fmt.Sprintf("repo/node_modules/p%d/index.js", i)] = "x"
	}
	treetest.Write(b, base, tree)
	for _, name := range []string{"mine", "lint", "deploy", "apps/app9:deploy", "miss", "plugin:miss"} {
		p, _ := json.Marshal(map[string]any{"session_id": "s", "hook_event_name": "PreToolUse", "cwd": filepath.Join(repo, "apps"),
			"tool_name": "Skill", "tool_input": map[string]any{"skill": name}, "tool_use_id": "toolu_1"})
		b.Run(strings.ReplaceAll(name, "/", "_"), func(b *testing.B) {
			opts := Options{UserHome: home}
			want := name != "miss" && name != "plugin:miss"
			if got := bytes.Contains(Enrich(p, time.Now(), opts), []byte(`"skill_path"`)); got != want {
				b.Fatalf("resolved %v, want %v", got, want)
			}
			for b.Loop() {
				Enrich(p, time.Now(), opts)
			}
		})
	}
}
