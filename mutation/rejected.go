package mutation

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/proposal"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/render/words"
	"github.com/sepad/sepad/store"
)

// RuleRejectedBefore refuses a proposal that repeats a rejected candidate:
// the same text, or the same change made to its own parent.
const RuleRejectedBefore = "rejected_before"

// Rejected is a candidate the engine (or a person) rejected or rolled
// back, with what it changed and the evidence against it: the memory a
// mutator is shown ("already tried, made it worse") and a proposal is
// checked against. It is derived from the versions and decisions already
// stored, so nothing new is kept.
type Rejected struct {
	Hash string `json:"hash"`
	Seq  int    `json:"seq"`
	// Parent is the version the candidate replaced (its diff's base).
	Parent    string    `json:"parent,omitempty"`
	ParentSeq int       `json:"parent_seq,omitempty"`
	Status    string    `json:"status"`
	Time      time.Time `json:"time"`
	// Edit is the candidate's line changes against its parent ("-" and
	// "+" lines, each change after an "@@" line, no context).
	Edit []string `json:"edit"`
	// Words are the decision's or the rollback's words; Worst the signals
	// that lost most points (negative Points first, at most 3).
	Words string              `json:"words,omitempty"`
	Worst []decide.SignalDiff `json:"worst,omitempty"`
	// Delta is the score difference the decision measured (0 when none).
	Delta   float64 `json:"delta"`
	content []byte
}

// rejectedStatuses are the statuses of a candidate judged worse.
var rejectedStatuses = []string{StatusRejected, StatusRolledBack, StatusWouldRollBack, StatusConflict}

// RejectedEdits lists a skill's rejected or rolled-back versions whose
// text is known, newest first.
func RejectedEdits(db *store.DB, key string) ([]Rejected, error) {
	sk, err := db.Skill(key)
	if err != nil {
		return nil, err
	}
	st, err := Statuses(db, key)
	if err != nil {
		return nil, err
	}
	return rejectedOf(db, sk, st)
}

func rejectedOf(db *store.DB, sk *record.Skill, status map[string]string) ([]Rejected, error) {
	byHash := map[string]*record.Version{}
	for i := range sk.Versions {
		byHash[sk.Versions[i].Hash] = &sk.Versions[i]
	}
	var want []*record.Version
	for i := range sk.Versions {
		v := &sk.Versions[i]
		if v.ContentKnown && slices.Contains(rejectedStatuses, status[v.Hash]) {
			want = append(want, v)
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	ds, err := db.Decisions(sk.Key, 0)
	if err != nil {
		return nil, err
	}
	var out []Rejected
	for _, v := range want {
		r := Rejected{Hash: v.Hash, Seq: v.Seq, Status: status[v.Hash], Time: v.FirstSeen, content: v.Content}
		// The newest record about the version: its decision or rollback.
		var to string
		for _, d := range ds {
			var rec Record
			if json.Unmarshal(d.Payload, &rec) != nil || rec.From != v.Hash || rec.Kind == "proposal" {
				continue
			}
			r.Time, r.Words, to = d.Time, rec.Words, rec.To
			var sigs []decide.SignalDiff
			switch {
			case rec.Decision != nil:
				r.Delta, sigs = rec.Decision.Delta, rec.Decision.Signals
			case rec.Evidence != nil:
				r.Delta, sigs = rec.Evidence.Delta, rec.Evidence.Signals
			}
			for _, s := range sigs {
				if s.Points < 0 && len(r.Worst) < 3 {
					r.Worst = append(r.Worst, s)
				}
			}
			break
		}
		parent := byHash[v.Parent]
		if parent == nil || !parent.ContentKnown {
			parent = byHash[to]
		}
		if parent != nil && parent.ContentKnown && parent.Hash != v.Hash {
			r.Parent, r.ParentSeq = parent.Hash, parent.Seq
			r.Edit = EditLines(parent.Content, v.Content)
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b Rejected) int { return b.Time.Compare(a.Time) })
	return out, nil
}

// checkRejected refuses a proposal whose text is a rejected version's, or
// whose change to cur (the version in the file) is the change a rejected
// version made to its parent.
func checkRejected(rs []Rejected, cur, proposed []byte) error {
	edit := strings.Join(EditLines(cur, proposed), "\n")
	for _, r := range rs {
		when := r.Time.UTC().Format(time.RFC3339)
		why := ""
		if r.Words != "" {
			why, _, _ = strings.Cut(r.Words, "\n")
			why = ": " + why
		}
		if promptfile.Hash(proposed) == r.Hash {
			return &proposal.RefusalError{Rule: RuleRejectedBefore, Detail: fmt.Sprintf("the proposed text is v%d (%s), %s at %s%s", r.Seq, r.Hash, r.Status, when, why)}
		}
		if edit != "" && len(r.Edit) > 0 && edit == strings.Join(r.Edit, "\n") {
			return &proposal.RefusalError{Rule: RuleRejectedBefore, Detail: fmt.Sprintf("the proposed change is the one v%d made to v%d (%d changed lines), %s at %s%s", r.Seq, r.ParentSeq, changed(r.Edit), r.Status, when, why)}
		}
	}
	return nil
}

func changed(edit []string) int {
	n := 0
	for _, l := range edit {
		if !strings.HasPrefix(l, "@@") {
			n++
		}
	}
	return n
}

// EditLines is the change from a to b by lines: each run of changed lines
// after an "@@" line, removed lines as "-line", added as "+line", without
// context or line numbers, so that the same change made to two texts
// gives the same lines. Trailing white space is ignored.
func EditLines(a, b []byte) []string {
	x, y := textLines(a), textLines(b)
	n, m := len(x), len(y)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	inRun := false
	emit := func(s string) {
		if !inRun {
			out = append(out, "@@")
			inRun = true
		}
		out = append(out, s)
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && x[i] == y[j]:
			inRun = false
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			emit("-" + x[i])
			i++
		default:
			emit("+" + y[j])
			j++
		}
	}
	return out
}

func textLines(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil
	}
	ls := strings.Split(s, "\n")
	for i := range ls {
		ls[i] = strings.TrimRight(ls[i], " \t\r")
	}
	return ls
}

// String names a rejected version in a few words: "v3 (rolled back,
// −12.50 points)".
func (r Rejected) String() string {
	return fmt.Sprintf("v%d (%s, %s points)", r.Seq, r.Status, words.Signed(r.Delta, 2))
}
