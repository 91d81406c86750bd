package store

import (
	"slices"
	"testing"
	"time"

	"github.com/sepad/sepad/record"
)

// TestSkillChanges: a reader with no mark reads all; then it is told the
// skills written since its mark, each write's skills, and to read all
// again after a write that may touch any (a prune).
func TestSkillChanges(t *testing.T) {
	db, _ := openTest(t, Options{})
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mark, keys, all := db.SkillChanges(0)
	if !all || keys != nil {
		t.Fatalf("first look: all %v keys %v", all, keys)
	}
	if _, keys, all = db.SkillChanges(mark); all || len(keys) != 0 {
		t.Fatalf("nothing written: all %v keys %v", all, keys)
	}
	commit := func(id, skill string) {
		t.Helper()
		if err := db.Commit(&Batch{Executions: []record.Scored{scored(id, skill, "aaaaaaaaaaaa", 70, at)}}); err != nil {
			t.Fatal(err)
		}
	}
	commit("a00000000001", "deploy")
	commit("a00000000002", "review")
	m2, keys, all := db.SkillChanges(mark)
	slices.Sort(keys)
	if all || !slices.Equal(keys, []string{"/p/.claude/skills/deploy/SKILL.md", "/p/.claude/skills/review/SKILL.md"}) {
		t.Fatalf("after two commits: all %v keys %v", all, keys)
	}
	if err := db.PutSkillState("/p/.claude/skills/review/SKILL.md", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	m3, keys, all := db.SkillChanges(m2)
	if all || !slices.Equal(keys, []string{"/p/.claude/skills/review/SKILL.md"}) {
		t.Fatalf("after a state: all %v keys %v", all, keys)
	}
	if _, err := db.Prune(at); err != nil {
		t.Fatal(err)
	}
	if _, _, all = db.SkillChanges(m3); !all {
		t.Fatal("after a prune: not told to read all")
	}
	if _, _, all = db.SkillChanges(m3 + 100); !all {
		t.Fatal("a mark from elsewhere: not told to read all")
	}
}
