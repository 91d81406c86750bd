package promptfile

import (
	"os"
	"path/filepath"
	"testing"
)

// The benchmarks pair what sepad does with a plain baseline, so that
// BENCHMARKS.md can record ratios measured in one run:
//
//	go test ./promptfile -run '^$' -bench . -benchtime 2000x -count 3

// benchSkill is a prompt file of a usual size.
const benchSkill = "---\nname: deploy\ndescription: Deploy the shop to an environment\n---\n# Deploy\n\n" +
	"Deploy the shop safely to the environment the user names.\n\n## Steps\n\n" +
	"1. Run `make check` and stop on failure.\n2. Build the release with `make release`.\n"

func BenchmarkWrite(b *testing.B) {
	root := b.TempDir()
	p := filepath.Join(root, ".claude", "skills", "x", "SKILL.md")
	os.MkdirAll(filepath.Dir(p), 0o755)
	content := []byte(benchSkill)
	os.WriteFile(p, content, 0o644)
	b.Run("os.WriteFile", func(b *testing.B) { // not atomic, not durable
		for i := 0; i < b.N; i++ {
			os.WriteFile(p, content, 0o644)
		}
	})
	b.Run("os.WriteFile+fsync", func(b *testing.B) { // durable, not atomic
		for i := 0; i < b.N; i++ {
			f, _ := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
			f.Write(content)
			f.Sync()
			f.Close()
		}
	})
	b.Run("WriteFileAtomic", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := WriteFileAtomic(p, content, []string{root}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Rollback", func(b *testing.B) {
		other := []byte(benchSkill + "x")
		cur, _ := os.ReadFile(p)
		for i := 0; i < b.N; i++ {
			next := other
			if string(cur) == string(other) {
				next = content
			}
			if err := Rollback(p, Hash(cur), next, []string{root}); err != nil {
				b.Fatal(err)
			}
			cur = next
		}
	})
}
