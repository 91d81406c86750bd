package evolve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/proposal"
)

// Edit operations a mutator may answer with instead of a whole text.
const (
	OpAdd     = "add"
	OpReplace = "replace"
	OpDelete  = "delete"
)

// Rules of an attempt refused before the proposal rules: an edit list
// that does not apply, and a change over the edit budget.
const (
	RuleEdits      = "edits"
	RuleEditBudget = "edit_budget"
)

// DefaultEditBudget is mutation.edit_budget's default: a change may
// touch at most 30% of the text's bytes; MinEditBytes is what any text
// may change however short it is.
const (
	DefaultEditBudget = 0.3
	MinEditBytes      = 256
)

// Edit is one bounded change of the mutator's answer.
type Edit struct {
	// Op is add, replace or delete.
	Op string `json:"op"`
	// Passage is the exact text replaced or deleted; for add, the exact
	// text after which Text goes ("" adds at the end). It must occur
	// exactly once in the current text.
	Passage string `json:"passage,omitempty"`
	// Text is what replaces Passage, or is added.
	Text   string `json:"text,omitempty"`
	Reason string `json:"reason"`
}

// ParseEdits reads an answer as an edit list: a JSON array of edits, or
// an object {"edits": [...]}. ok is false for anything else: the answer
// is then a whole text.
func ParseEdits(answer []byte) (edits []Edit, ok bool) {
	t := bytes.TrimSpace(answer)
	if first, rest, ok := bytes.Cut(t, []byte("\n")); ok && bytes.HasPrefix(first, []byte("```")) && bytes.HasSuffix(rest, []byte("```")) {
		t = bytes.TrimSpace(bytes.TrimSuffix(rest, []byte("```"))) // one fence around the list
	}
	if len(t) == 0 || (t[0] != '[' && t[0] != '{') {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(t))
	d.DisallowUnknownFields()
	if t[0] == '[' {
		if d.Decode(&edits) != nil || len(edits) == 0 {
			return nil, false
		}
		return edits, true
	}
	var doc struct {
		Edits []Edit `json:"edits"`
	}
	if d.Decode(&doc) != nil || len(doc.Edits) == 0 {
		return nil, false
	}
	return doc.Edits, true
}

// ApplyEdits applies edits to text, each located in text as it was
// measured (not in the text other edits made). A passage that is not
// found exactly once, an unknown op, or two edits on overlapping
// passages refuse the whole list (RuleEdits).
func ApplyEdits(text []byte, edits []Edit) ([]byte, error) {
	type span struct {
		start, end int
		with       string
		i          int
	}
	s := string(text)
	spans := make([]span, 0, len(edits))
	for i, e := range edits {
		n := i + 1
		switch e.Op {
		case OpAdd:
			if e.Text == "" {
				return nil, &proposal.RefusalError{Rule: RuleEdits, Detail: fmt.Sprintf("edit %d adds nothing", n)}
			}
			if e.Passage == "" {
				spans = append(spans, span{len(s), len(s), e.Text, i})
				continue
			}
		case OpReplace, OpDelete:
			if e.Passage == "" {
				return nil, &proposal.RefusalError{Rule: RuleEdits, Detail: fmt.Sprintf("edit %d (%s) names no passage", n, e.Op)}
			}
		default:
			return nil, &proposal.RefusalError{Rule: RuleEdits, Detail: fmt.Sprintf("edit %d has op %q (add, replace or delete)", n, e.Op)}
		}
		if c := strings.Count(s, e.Passage); c != 1 {
			return nil, &proposal.RefusalError{Rule: RuleEdits, Detail: fmt.Sprintf("edit %d (%s): its passage %s is found %d times in the current text, not exactly once", n, e.Op, quote(short(e.Passage)), c)}
		}
		at := strings.Index(s, e.Passage)
		switch e.Op {
		case OpAdd:
			end := at + len(e.Passage)
			spans = append(spans, span{end, end, e.Text, i})
		case OpReplace:
			spans = append(spans, span{at, at + len(e.Passage), e.Text, i})
		case OpDelete:
			spans = append(spans, span{at, at + len(e.Passage), "", i})
		}
	}
	sort.SliceStable(spans, func(a, b int) bool { return spans[a].start < spans[b].start })
	var b strings.Builder
	pos := 0
	for k, sp := range spans {
		if sp.start < pos {
			return nil, &proposal.RefusalError{Rule: RuleEdits, Detail: fmt.Sprintf("edits %d and %d touch the same passage", spans[k-1].i+1, sp.i+1)}
		}
		b.WriteString(s[pos:sp.start])
		b.WriteString(sp.with)
		pos = sp.end
	}
	b.WriteString(s[pos:])
	return []byte(b.String()), nil
}

// ChangedBytes measures a change by its line diff: for each run of
// changed lines, the bytes of the lines it removes or of those it adds,
// whichever is more. A whole-text answer and an edit list are measured
// alike.
func ChangedBytes(from, to []byte) int {
	total, rm, add := 0, 0, 0
	flush := func() { total += max(rm, add); rm, add = 0, 0 }
	for _, l := range mutation.EditLines(from, to) {
		switch {
		case l == "@@":
			flush()
		case strings.HasPrefix(l, "-"):
			rm += len(l) // the line and its newline
		default:
			add += len(l)
		}
	}
	flush()
	return total
}

// Budget is how many bytes a change of text may touch: share of its
// length, and at least MinEditBytes.
func Budget(text []byte, share float64) int {
	if share <= 0 {
		share = DefaultEditBudget
	}
	return max(int(share*float64(len(text))), MinEditBytes)
}

// checkBudget refuses a change over the budget.
func checkBudget(from, to []byte, share float64) (changed, allowed int, err error) {
	changed, allowed = ChangedBytes(from, to), Budget(from, share)
	if changed > allowed {
		if share <= 0 {
			share = DefaultEditBudget
		}
		return changed, allowed, &proposal.RefusalError{Rule: RuleEditBudget, Detail: fmt.Sprintf("the change touches %d bytes of the %d-byte text, more than the %d allowed (mutation.edit_budget %.2g of the text, at least %d bytes)",
			changed, len(from), allowed, share, MinEditBytes)}

	}
	return changed, allowed, nil
}

// editWords lists edits for the record: "replace "…" (reason); add …".
func editWords(edits []Edit) string {
	parts := make([]string, len(edits))
	for i, e := range edits {
		what := quote(cut(e.Passage, 60))
		if e.Op == OpAdd {
			what = quote(cut(e.Text, 60))
		}
		parts[i] = fmt.Sprintf("%s %s", e.Op, what)
		if e.Reason != "" {
			parts[i] += " (" + cut(e.Reason, 120) + ")"
		}
	}
	return strings.Join(parts, "; ")
}

// short is s, or its start when it is long.
func short(s string) string {
	if len(s) <= 80 {
		return s
	}
	return cut(s, 80)
}
