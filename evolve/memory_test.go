package evolve

import (
	"context"
	"strings"
	"testing"

	"github.com/sepad/sepad/mutation"
)

// TestEvolveRemembersRejected: a candidate that made things worse is
// rolled back; the next request lists it under "Already tried", and an
// answer that repeats it (the same text, or the same change made to
// another version) is refused before it is written, saying so.
func TestEvolveRemembersRejected(t *testing.T) {
	r := newRig(t)
	h1 := r.weak()
	a, err := r.ev.Run(context.Background(), r.key(), RunOptions{})
	if err != nil || !a.Applied {
		t.Fatalf("%+v %v", a, err)
	}
	for i := 0; i < 6 && r.file() != v1; i++ {
		r.run(a.To, 20, 0.5)
	}
	if r.file() != v1 {
		t.Fatalf("the worse candidate was not rolled back: %q", r.file())
	}
	rs, err := mutation.RejectedEdits(r.db, r.key())
	if err != nil || len(rs) != 1 || rs[0].Hash != a.To || rs[0].Parent != h1 || rs[0].Words == "" || rs[0].Delta >= 0 {
		t.Fatalf("rejected %+v %v", rs, err)
	}
	for i := 0; i < 3; i++ {
		r.run(h1, 55, 0.5)
	}

	// The same text again.
	b, err := r.ev.Run(context.Background(), r.key(), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Applied || b.Outcome != OutcomeRefused || b.Rule != mutation.RuleRejectedBefore || !strings.Contains(b.Error, "the proposed text is v2") {
		t.Fatalf("a repeated rejected text: %+v", b)
	}
	req := r.request()
	if !strings.Contains(req, "## Already tried, made it worse\n\n### v2, rolled back") ||
		!strings.Contains(req, `"+Check the exit status of every step before the next."`) || !strings.Contains(req, "- why: ") {
		t.Errorf("the request does not show the rejected change:\n%s", req)
	}
	if r.file() != v1 {
		t.Error("a refused answer changed the file")
	}

	// The same change made to another version: a person's edit.
	v3 := strings.Replace(v1, "Use make rollback", "Use make undo", 1)
	h3 := r.write(v3)
	for i := 0; i < 3; i++ {
		r.run(h3, 55, 0.5)
	}
	c, err := r.ev.Run(context.Background(), r.key(), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Applied || c.Rule != mutation.RuleRejectedBefore || !strings.Contains(c.Error, "the proposed change is the one v2 made to v1") {
		t.Fatalf("a repeated rejected change: %+v", c)
	}
	if r.file() != v3 {
		t.Error("a refused answer changed the file")
	}

	// Something new goes through.
	r.mode = "novel"
	d, err := r.ev.Run(context.Background(), r.key(), RunOptions{})
	if err != nil || !d.Applied {
		t.Fatalf("a new change: %+v %v", d, err)
	}
}
