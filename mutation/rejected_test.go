package mutation

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/proposal"
)

func TestEditLines(t *testing.T) {
	a := []byte("# A\n\none\ntwo\nthree\n")
	b := []byte("# A\n\none\n2\nthree\nfour   \n")
	want := []string{"@@", "-two", "+2", "@@", "+four"}
	if got := EditLines(a, b); !slices.Equal(got, want) {
		t.Errorf("EditLines = %q, want %q", got, want)
	}
	// The same change made to a text with other lines elsewhere.
	c := []byte("# A\nintro\n\none\ntwo\nthree\n")
	d := []byte("# A\nintro\n\none\n2\nthree\nfour\n")
	if got := EditLines(c, d); !slices.Equal(got, want) {
		t.Errorf("EditLines of the same change elsewhere = %q, want %q", got, want)
	}
	if got := EditLines(a, a); got != nil {
		t.Errorf("no change gives %q", got)
	}
}

func TestCheckRejected(t *testing.T) {
	parent := []byte("# A\n\nRun it.\n")
	bad := []byte("# A\n\nRun it twice.\n")
	rs := []Rejected{{Hash: promptfile.Hash(bad), Seq: 2, ParentSeq: 1, Status: StatusRolledBack, Words: "reject: 12 points worse\nmore", Edit: EditLines(parent, bad)}}
	var re *proposal.RefusalError
	err := checkRejected(rs, parent, bad)
	if !errors.As(err, &re) || re.Rule != RuleRejectedBefore || !strings.Contains(err.Error(), "the proposed text is v2") || !strings.Contains(err.Error(), "rolled back") ||
		!strings.Contains(err.Error(), ": reject: 12 points worse") || strings.Contains(err.Error(), "more") {
		t.Errorf("same text: %v", err)
	}
	other := []byte("# A\nNote.\n\nRun it.\n")
	err = checkRejected(rs, other, []byte("# A\nNote.\n\nRun it twice.\n"))
	if !errors.As(err, &re) || re.Rule != RuleRejectedBefore || !strings.Contains(err.Error(), "the proposed change is the one v2 made to v1 (2 changed lines)") {
		t.Errorf("same change: %v", err)
	}
	if err := checkRejected(rs, parent, []byte("# A\n\nRun it once.\n")); err != nil {
		t.Errorf("a new change refused: %v", err)
	}
	if err := checkRejected(nil, parent, bad); err != nil {
		t.Errorf("no memory: %v", err)
	}
}
