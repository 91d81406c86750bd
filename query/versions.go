package query

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// VersionContent is GET /v1/skills/{skill}/versions/{version} and
// `sepad show --json`: one version's row and its content as text.
type VersionContent struct {
	Skill   SkillRef `json:"skill"`
	Version GradeRow `json:"version"`
	// Source is how sepad learned of the version: edit, proposal,
	// rollback or observed (named by an execution before its content was
	// seen); Parent is the hash of the version it replaced.
	Source string `json:"source"`
	Parent string `json:"parent,omitempty"`
	// ContentKnown is false for a version only named by executions:
	// Content is then "".
	ContentKnown bool   `json:"content_known"`
	Content      string `json:"content"`
	// Files are, for a version of CLAUDE.md (the session's base prompt,
	// whose Content is its manifest: one "path  hash" line per file),
	// the instruction files it covers with their text (session_text.go).
	Files []FileText `json:"files,omitempty"`
}

// Diff is GET /v1/skills/{skill}/diff?from=A&to=B and `sepad diff
// --json`: the line changes from one version's content to another's, in
// hunks with three lines of context (a unified diff).
type Diff struct {
	Skill SkillRef `json:"skill"`
	From  GradeRow `json:"from"`
	To    GradeRow `json:"to"`
	// Hunks is empty when the contents are equal.
	Hunks []Hunk `json:"hunks"`
	// Edits is the mutator's edit list when `sepad evolve` wrote To
	// from From with one (docs/evolve.md, "Bounded edits").
	Edits []DiffEdit `json:"edits,omitempty"`
	// Files are, between two versions of CLAUDE.md, the instruction
	// files that differ and their diffs (Hunks are then the manifests').
	Files []FileDiff `json:"files,omitempty"`
}

// DiffEdit is one edit of a mutator's list, as the evolve attempt
// recorded it.
type DiffEdit struct {
	Op      string `json:"op"`
	Passage string `json:"passage,omitempty"`
	Text    string `json:"text,omitempty"`
	Reason  string `json:"reason"`
}

// Hunk is one group of changes. FromLine and ToLine are 1-based (0 when
// the hunk's side is empty), as in a unified diff's "@@ -l,s +l,s @@".
type Hunk struct {
	FromLine  int        `json:"from_line"`
	FromCount int        `json:"from_count"`
	ToLine    int        `json:"to_line"`
	ToCount   int        `json:"to_count"`
	Lines     []DiffLine `json:"lines"`
}

// DiffLine is one line of a hunk: Op is " " (in both), "-" (only in
// from) or "+" (only in to); Text is the line without its newline.
type DiffLine struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

// diffContext is the number of unchanged lines around each change.
const diffContext = 3

// GetVersion returns one version of one skill with its content. version
// is vN, N, a hash or a hash prefix of 4 or more characters; "" or
// "current" is the version in force.
func GetVersion(db *store.DB, arg, version string) (*VersionContent, error) {
	sk, rows, err := oneSkill(db, arg)
	if err != nil {
		return nil, err
	}
	row, err := pickVersion(sk, rows, version)
	if err != nil {
		return nil, err
	}
	v, err := db.Version(sk.Key, row.Hash)
	if err != nil {
		return nil, err
	}
	out := &VersionContent{Skill: refOf(sk), Version: *row, Source: v.Source, Parent: v.Parent, ContentKnown: v.ContentKnown}
	if v.ContentKnown {
		out.Content = string(v.Content)
	}
	if out.Files, err = manifestTexts(db, sk.Project, v); err != nil {
		return nil, err
	}
	return out, nil
}

// GetDiff compares two versions of one skill, line by line.
func GetDiff(db *store.DB, arg, from, to string) (*Diff, error) {
	if from == "" || to == "" {
		return nil, fmt.Errorf("%w: give two versions to compare (from and to)", ErrBadRequest)
	}
	a, err := GetVersion(db, arg, from)
	if err != nil {
		return nil, err
	}
	b, err := GetVersion(db, arg, to)
	if err != nil {
		return nil, err
	}
	for _, v := range []*VersionContent{a, b} {
		if !v.ContentKnown {
			return nil, &NotFoundError{Msg: fmt.Sprintf("the content of %s v%d (%s) was never seen: executions named that version, but sepad never read the file while it held it",
				v.Skill.Name, v.Version.Version, v.Version.Hash)}
		}
	}
	edits, err := evolveEdits(db, a.Skill.Key, a.Version.Hash, b.Version.Hash)
	if err != nil {
		return nil, err
	}
	d := &Diff{Skill: a.Skill, From: a.Version, To: b.Version, Hunks: Hunks(splitLines(a.Content), splitLines(b.Content)), Edits: edits}
	if a.Files != nil && b.Files != nil {
		d.Files = fileDiffs(a.Files, b.Files)
	}
	return d, nil
}

// evolveEdits is the edit list of the evolve attempt that wrote to from
// from, if one did.
func evolveEdits(db *store.DB, key, from, to string) ([]DiffEdit, error) {
	ds, err := db.Decisions(key, 0)
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		var a struct {
			Kind  string     `json:"kind"`
			From  string     `json:"from"`
			To    string     `json:"to"`
			Edits []DiffEdit `json:"edits"`
		}
		if json.Unmarshal(d.Payload, &a) == nil && a.Kind == "evolve" && a.From == from && a.To == to && len(a.Edits) > 0 {
			return a.Edits, nil
		}
	}
	return nil, nil
}

// pickVersion finds the row a version argument names.
func pickVersion(sk *record.Skill, rows []GradeRow, version string) (*GradeRow, error) {
	if version == "" || version == "current" {
		if r := currentRow(rows); r != nil {
			return r, nil
		}
	}
	if len(version) > 200 {
		return nil, fmt.Errorf("%w: version too long", ErrBadRequest)
	}
	seq := -1
	if n, err := strconv.Atoi(strings.TrimPrefix(version, "v")); err == nil {
		seq = n
	}
	for i := range rows {
		r := &rows[i]
		if r.Version == seq || r.Hash == version || (len(version) >= 4 && strings.HasPrefix(r.Hash, version)) {
			return r, nil
		}
	}
	var known []string
	for i := len(rows) - 1; i >= 0; i-- {
		known = append(known, fmt.Sprintf("v%d (%s)", rows[i].Version, rows[i].Hash))
	}
	return nil, &NotFoundError{Msg: fmt.Sprintf("%s has no version %q; its versions: %s", DisplayName(sk.Name), version, strings.Join(known, ", "))}
}

// splitLines splits a text into lines without their newlines; a final
// newline ends the last line instead of starting an empty one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// Hunks diffs two texts' lines (longest common subsequence: prompt files
// are small) and groups the changes with diffContext lines around them.
func Hunks(a, b []string) []Hunk {
	type op struct {
		kind       byte
		text       string
		aIdx, bIdx int // 0-based positions before this line
	}
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, op{' ', a[i], i, j})
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', a[i], i, j})
			i++
		default:
			ops = append(ops, op{'+', b[j], i, j})
			j++
		}
	}
	hunks := []Hunk{}
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		// A change at k: the hunk starts diffContext lines before it and
		// runs until diffContext*2 unchanged lines separate two changes.
		start := max(0, k-diffContext)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*diffContext {
				end = min(end+diffContext, len(ops))
				break
			}
			end = run
		}
		h := Hunk{FromLine: ops[start].aIdx + 1, ToLine: ops[start].bIdx + 1}
		for _, o := range ops[start:end] {
			h.Lines = append(h.Lines, DiffLine{Op: string(o.kind), Text: o.text})
			if o.kind != '+' {
				h.FromCount++
			}
			if o.kind != '-' {
				h.ToCount++
			}
		}
		if h.FromCount == 0 {
			h.FromLine-- // unified diff: the line after which lines are added
		}
		if h.ToCount == 0 {
			h.ToLine--
		}
		hunks = append(hunks, h)
		k = end
	}
	return hunks
}

// NotFoundError is a "not found" with its own words (and, where one
// exists, a suggestion); it matches ErrNotFound.
type NotFoundError struct{ Msg string }

func (e *NotFoundError) Error() string { return e.Msg }

// Unwrap makes it match ErrNotFound.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }
