package mutation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/promptfile"
)

// The benchmarks pair what sepad does with a plain baseline, so that
// BENCHMARKS.md can record ratios measured in one run:
//
//	go test ./mutation -run '^$' -bench . -benchtime 2000x -count 3

func BenchmarkCheckProposal(b *testing.B) {
	prop := []byte(strings.Replace(baseSkill, "stop on failure", "stop at the first failure", 1))
	h := ProposalHistory{SinceChange: 5, Now: time.Now()}
	o := DefaultProposalOptions()
	b.Run("check", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			CheckProposal([]byte(baseSkill), prop, h, o)
		}
	})
	b.Run("hash_only", func(b *testing.B) { // the floor: reading the text once
		for i := 0; i < b.N; i++ {
			promptfile.Hash(prop)
		}
	})
}

func BenchmarkWrite(b *testing.B) {
	root := b.TempDir()
	p := filepath.Join(root, ".claude", "skills", "x", "SKILL.md")
	os.MkdirAll(filepath.Dir(p), 0o755)
	content := []byte(baseSkill)
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
			if err := promptfile.WriteFileAtomic(p, content, []string{root}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Rollback", func(b *testing.B) {
		other := []byte(baseSkill + "x")
		cur, _ := os.ReadFile(p)
		for i := 0; i < b.N; i++ {
			next := other
			if string(cur) == string(other) {
				next = content
			}
			if err := promptfile.Rollback(p, promptfile.Hash(cur), next, []string{root}); err != nil {
				b.Fatal(err)
			}
			cur = next
		}
	})
}
