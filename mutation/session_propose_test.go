package mutation

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/proposal"
	"github.com/sepad/sepad/record"
)

// TestSessionProposal (issue 36 item 10): a proposal for CLAUDE.md (the
// session's base prompt) is checked against the project file's text,
// writes that file only, and is recorded as the manifest the next
// session lists, so that session's runs are the candidate's; show and
// diff find its files' text.
func TestSessionProposal(t *testing.T) {
	r := newSessionRig(t, EngineOptions{})
	user := "# User\nBe kind.\n"
	r.put(r.userFile, user)
	r.put(r.projFile, "# Project\n\nRun the tests first.\n")
	for range 3 {
		r.session(80)
	}
	key := r.proj + "#_session"
	po := proposal.DefaultOptions()
	po.StableMean = 101 // never stable here
	// The text the mutator is shown is the project file's.
	sk := r.sessionSkill()
	text, err := SessionText(r.db, sk, &sk.Versions[0])
	if err != nil || string(text) != "# Project\n\nRun the tests first.\n" {
		t.Fatalf("SessionText: %q %v", text, err)
	}
	next := "# Project\n\nRun the tests first, then lint.\n"
	rec, err := r.e.Propose(key, []byte(next), "test", po)
	if err != nil || !rec.Applied {
		t.Fatalf("propose: %+v %v", rec, err)
	}
	if b, _ := os.ReadFile(r.projFile); string(b) != next {
		t.Errorf("CLAUDE.md holds %q", b)
	}
	if b, _ := os.ReadFile(r.userFile); string(b) != user {
		t.Errorf("the user's CLAUDE.md was written: %q", b)
	}
	v, err := r.db.Version(key, rec.To)
	if err != nil {
		t.Fatal(err)
	}
	files, ok := record.ManifestFiles(v)
	if !ok || len(files) != 2 || v.Source != "proposal" || !strings.Contains(string(v.Content), r.projFile+"  "+promptfile.Hash([]byte(next))) {
		t.Fatalf("the proposal's version: %+v (%v)", v, ok)
	}
	if b, ok, _ := r.db.InstructionFile(r.projFile, promptfile.Hash([]byte(next))); !ok || string(b) != next {
		t.Errorf("the proposed text is not kept: %q", b)
	}
	// The next session lists the files as they are: the candidate.
	if got := r.session(80); got != rec.To {
		t.Errorf("the next session's version %s, the proposal's %s", got, rec.To)
	}
	if st, _ := Statuses(r.db, key); st[rec.To] != StatusCandidate {
		t.Errorf("status of the proposal: %q", st[rec.To])
	}
	// A proposal that would halve the file is checked against its text,
	// not the manifest's.
	po.MinExecutions = 0
	_, err = r.e.Propose(key, []byte("# P\n"), "test", po)
	var re *proposal.RefusalError
	if !errors.As(err, &re) || re.Rule != proposal.RuleLength {
		t.Errorf("a too-short CLAUDE.md: %v", err)
	}
}
