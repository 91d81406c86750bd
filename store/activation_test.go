package store

import (
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/sepad/sepad/activation"
	"github.com/sepad/sepad/record"
)

// The activation counts follow the executions committed, in separate
// commits and a reopen; both listings (with content and without) give
// them with each version's description; forgetting the skill drops them.
func TestActivationCounts(t *testing.T) {
	db, path := openTest(t, Options{})
	t0 := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	key := "/p/.claude/skills/deploy/SKILL.md"
	v1 := []byte("---\nname: deploy\ndescription: Deploy the app.\n---\nDo it.\n")
	v2 := []byte("---\nname: deploy\ndescription: Deploy the app.\n---\nDo it well.\n")
	v3 := []byte("---\nname: deploy\ndescription: Deploy the app to staging or production. Use when asked to ship.\n---\nDo it well.\n")
	for _, c := range [][]byte{v1, v2, v3} {
		if _, err := db.PutVersion(record.Skill{Key: key, Name: "deploy", Kind: "skill", Project: "/p", Path: key},
			record.Version{Hash: hashOf(c), ContentKnown: true, Content: c, FirstSeen: t0, Source: "edit"}); err != nil {
			t.Fatal(err)
		}
	}
	marks := []struct {
		version, by string
		missed      bool
	}{
		{hashOf(v1), "user", false}, {hashOf(v1), "user", true}, {hashOf(v2), "user", true}, {hashOf(v2), "claude", false},
		{hashOf(v3), "claude", false}, {hashOf(v3), "claude", false}, {hashOf(v3), "user", true}, {hashOf(v3), "", false},
	}
	for i, m := range marks {
		s := scored(fmt.Sprintf("a%011d", i), "deploy", m.version, 70, t0.Add(time.Duration(i)*time.Minute))
		s.Exec.InvokedBy, s.Exec.MissedActivation = m.by, m.missed
		if err := db.Commit(&Batch{Executions: []record.Scored{s}}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	db2, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	*db = *db2
	want := map[string]activation.Counts{
		hashOf(v1): {User: 2, Missed: 1},
		hashOf(v2): {Claude: 1, User: 1, Missed: 1},
		hashOf(v3): {Claude: 2, User: 1, Missed: 1},
	}
	desc := map[string]string{hashOf(v1): activation.DescriptionHash(v1), hashOf(v2): activation.DescriptionHash(v1), hashOf(v3): activation.DescriptionHash(v3)}
	full, err := db.Skill(key)
	if err != nil {
		t.Fatal(err)
	}
	lite, err := db.SkillsByKey([]string{key})
	if err != nil || len(lite) != 1 {
		t.Fatal(err, len(lite))
	}
	for name, vs := range map[string][]record.Version{"Skill": full.Versions, "SkillsByKey": lite[0].Versions} {
		if len(vs) != 3 {
			t.Fatalf("%s: %d versions", name, len(vs))
		}
		for _, v := range vs {
			if v.Activation == nil || *v.Activation != want[v.Hash] {
				t.Errorf("%s v%d: activation %+v, want %+v", name, v.Seq, v.Activation, want[v.Hash])
			}
			if v.Description != desc[v.Hash] || v.Description == activation.NoDescription {
				t.Errorf("%s v%d: description %q, want %q", name, v.Seq, v.Description, desc[v.Hash])
			}
		}
	}
	if _, err := db.ForgetSkill(key); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutVersion(record.Skill{Key: key, Name: "deploy", Kind: "skill", Project: "/p", Path: key},
		record.Version{Hash: hashOf(v1), ContentKnown: true, Content: v1, FirstSeen: t0, Source: "edit"}); err != nil {
		t.Fatal(err)
	}
	again, err := db.Skill(key)
	if err != nil {
		t.Fatal(err)
	}
	if a := again.Versions[0].Activation; a != nil {
		t.Errorf("forgotten skill's activation came back: %+v", a)
	}
}

func hashOf(b []byte) string { return fmt.Sprintf("%x", sha256.Sum256(b))[:12] }
