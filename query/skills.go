package query

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// readChunk bounds the skills read in one store transaction.
const readChunk = 64

// MaxNameBytes bounds a skill argument.
const MaxNameBytes = 4096

// ValidateName checks a skill argument (a name, PROJECT#name or a key):
// non-empty, valid UTF-8, no control characters, at most MaxNameBytes.
func ValidateName(arg string) error {
	switch {
	case arg == "":
		return fmt.Errorf("%w: empty skill name", ErrBadRequest)
	case len(arg) > MaxNameBytes:
		return fmt.Errorf("%w: skill name longer than %d bytes", ErrBadRequest, MaxNameBytes)
	case !utf8.ValidString(arg):
		return fmt.Errorf("%w: skill name is not valid UTF-8", ErrBadRequest)
	case strings.IndexFunc(arg, unicode.IsControl) >= 0:
		return fmt.Errorf("%w: skill name contains control characters", ErrBadRequest)
	}
	return nil
}

// matchSkills returns the skills an argument names: the skill whose key it
// is; else, for PROJECT#name, the skills called name whose project is
// PROJECT or ends with /PROJECT; else every skill called arg, in any
// project. The result is sorted by name, project, key.
func matchSkills(all []record.Skill, arg string) []record.Skill {
	for _, s := range all {
		if s.Key == arg {
			return []record.Skill{s}
		}
	}
	var out []record.Skill
	if i := strings.LastIndexByte(arg, '#'); i > 0 && i < len(arg)-1 {
		proj, name := arg[:i], arg[i+1:]
		for _, s := range all {
			if s.Name == name && (s.Project == proj || strings.HasSuffix(s.Project, "/"+strings.TrimSuffix(proj, "/"))) {
				out = append(out, s)
			}
		}
		if len(out) > 0 {
			sortSkills(out)
			return out
		}
	}
	for _, s := range all {
		if s.Name == arg {
			out = append(out, s)
		}
	}
	sortSkills(out)
	return out
}

func sortSkills(ss []record.Skill) {
	sort.Slice(ss, func(i, j int) bool {
		a, b := ss[i], ss[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		if a.Project != b.Project {
			return a.Project < b.Project
		}
		return a.Key < b.Key
	})
}

func refOf(s *record.Skill) SkillRef {
	return SkillRef{Key: s.Key, Name: s.Name, Display: s.Display(), Kind: s.Kind, Project: s.Project, Path: s.Path}
}

// Resolve returns the one skill arg names, ErrNotFound when none, and an
// *AmbiguousError when several.
func Resolve(db *store.DB, arg string) (SkillRef, error) {
	ss, err := resolveAll(db, arg)
	if err != nil {
		return SkillRef{}, err
	}
	if len(ss) > 1 {
		e := &AmbiguousError{Arg: arg}
		for i := range ss {
			e.Candidates = append(e.Candidates, refOf(&ss[i]))
		}
		return SkillRef{}, e
	}
	return refOf(&ss[0]), nil
}

// resolveAll returns every skill arg names (ErrNotFound when none).
func resolveAll(db *store.DB, arg string) ([]record.Skill, error) {
	if err := ValidateName(arg); err != nil {
		return nil, err
	}
	all, err := db.SkillList()
	if err != nil {
		return nil, err
	}
	ss := matchSkills(all, record.SkillArg(arg))
	if len(ss) == 0 {
		return nil, unknownSkill(arg, all) // names the known skills (errors.go)
	}
	return ss, nil
}

// loadSkills reads the skills' versions and aggregates, readChunk skills
// per transaction, in the order given.
func loadSkills(db *store.DB, ss []record.Skill) ([]record.Skill, error) {
	out := make([]record.Skill, 0, len(ss))
	for i := 0; i < len(ss); i += readChunk {
		keys := make([]string, 0, readChunk)
		for _, s := range ss[i:min(i+readChunk, len(ss))] {
			keys = append(keys, s.Key)
		}
		got, err := db.SkillsByKey(keys)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// GradesRequest selects the rows of Grades.
type GradesRequest struct {
	// Match is a skill argument ("" for every skill).
	Match string
	// AllVersions gives one row per version instead of one per skill.
	AllVersions bool
}

// ListGrades returns one row per skill (its current version), or per version
// with AllVersions, sorted by skill name, project and key, versions newest
// first. A Match that names nothing is ErrNotFound.
func ListGrades(db *store.DB, r GradesRequest) (*Grades, error) {
	o := db.AggregateOptions()
	out := &Grades{RubricVersion: db.Rubric(), MinSamples: minSamples(o), Grades: []GradeRow{}}
	var ss []record.Skill
	var err error
	if r.Match != "" {
		ss, err = resolveAll(db, r.Match)
	} else {
		ss, err = db.SkillList()
		sortSkills(ss)
	}
	if err != nil {
		return nil, err
	}
	full, err := loadSkills(db, ss)
	if err != nil {
		return nil, err
	}
	for i := range full {
		rows := versionRows(&full[i])
		if r.AllVersions {
			out.Grades = append(out.Grades, rows...)
		} else if c := currentRow(rows); c != nil {
			out.Grades = append(out.Grades, *c)
		}
	}
	AttachFiles(db, out.Grades)
	return out, nil
}

// GetSkill returns one skill with the row of its current version.
func GetSkill(db *store.DB, arg string) (*SkillDetail, error) {
	sk, rows, err := oneSkill(db, arg)
	if err != nil {
		return nil, err
	}
	AttachFiles(db, rows)
	o := db.AggregateOptions()
	d := &SkillDetail{RubricVersion: db.Rubric(), MinSamples: minSamples(o), Skill: SkillInfo{
		SkillRef: refOf(sk), Executions: sk.Executions, LastSeen: timePtr(sk.LastSeen), VersionCount: sk.VersionCount,
		Current: currentRow(rows)}}
	return d, nil
}

// ListVersions returns every version of one skill, newest first.
func ListVersions(db *store.DB, arg string) (*SkillVersions, error) {
	sk, rows, err := oneSkill(db, arg)
	if err != nil {
		return nil, err
	}
	AttachFiles(db, rows)
	if err := AttachCompared(db, sk.Key, rows); err != nil {
		return nil, err
	}
	o := db.AggregateOptions()
	return &SkillVersions{RubricVersion: db.Rubric(), MinSamples: minSamples(o), Skill: refOf(sk), Versions: rows}, nil
}

// oneSkill resolves arg to one skill and reads it with its version rows
// (newest first), from one snapshot.
func oneSkill(db *store.DB, arg string) (*record.Skill, []GradeRow, error) {
	if err := ValidateName(arg); err != nil {
		return nil, nil, err
	}
	// A key (what tools and URLs mostly pass) needs no name matching.
	if got, err := db.SkillsByKey([]string{arg}); err != nil {
		return nil, nil, err
	} else if len(got) == 1 {
		return &got[0], versionRows(&got[0]), nil
	}
	ref, err := Resolve(db, arg)
	if err != nil {
		return nil, nil, err
	}
	got, err := db.SkillsByKey([]string{ref.Key})
	if err != nil {
		return nil, nil, err
	}
	if len(got) == 0 {
		return nil, nil, fmt.Errorf("no skill named %q: %w", arg, ErrNotFound)
	}
	return &got[0], versionRows(&got[0]), nil
}

func minSamples(o aggregate.Options) int { return max(o.MinSamples, 1) }

// currentRow returns the row marked current (rows are never empty for a
// stored skill, which has at least the version its first execution ran).
func currentRow(rows []GradeRow) *GradeRow {
	for i := range rows {
		if rows[i].Current {
			return &rows[i]
		}
	}
	if len(rows) > 0 {
		return &rows[0]
	}
	return nil
}

// versionRows builds the rows of a skill's versions (sk.Versions oldest
// first), newest first, with the statuses of the mutation engine's state
// read in the same snapshot (sk.State).
func versionRows(sk *record.Skill) []GradeRow {
	vs := sk.Versions
	statuses := deriveStatuses(vs, sk.State)
	current := sk.Current
	if h, ok := InForce(sk); ok {
		current = h
	} else if current == "" && len(vs) > 0 {
		current = vs[len(vs)-1].Hash
	}
	rows := make([]GradeRow, len(vs))
	acts := activationRows(sk)
	var prev *record.Version // nearest older graded version
	for i := range vs {
		v := &vs[i]
		a := v.Aggregate
		r := GradeRow{SkillKey: sk.Key, Skill: sk.Name, Display: sk.Display(), Kind: sk.Kind, Project: sk.Project,
			Version: v.Seq, Hash: v.Hash, Current: v.Hash == current, Status: statuses[i], N: a.N,
			FailRate: round4(v.FailRate), FirstSeen: timePtr(v.FirstSeen), OverClaims: v.OverClaims, Claims: v.Claims,
			Source: v.Source, Parent: v.Parent, ContentKnown: v.ContentKnown, Tokens: tokensOf(v.Tokens), Models: modelsOf(v.Models)}
		if a.N > 0 {
			r.Aggregate, r.Mean, r.SD, r.LastScore = ptr(a.Value), ptr(a.Mean), ptr(a.SD), ptr(a.Last)
		}
		g := fitness.Ungraded
		if a.Graded {
			g = fitness.GradeOf(a.Value)
			if prev != nil {
				r.Change, r.ChangeFrom = ptr(round4(a.Value-prev.Aggregate.Value)), prev.Seq
				r.TokenChange = tokenChange(v, prev)
			}
			// A rejected or rolled-back version is no one's baseline:
			// the next version is compared with the one before it.
			if st := statuses[i]; st != StatusRejected && st != StatusRolledBack {
				prev = v
			}
		}
		r.Grade, r.Advice = string(g), g.Advice()
		if acts != nil {
			r.Activation = acts[i]
		}
		rows[len(vs)-1-i] = r
	}
	markPending(rows, sk.State)
	return rows
}

// deriveStatuses returns the status of each version (vs oldest first). It
// is the one function that decides statuses. state is the mutation
// engine's per-skill state (mutation.SkillState as stored): its baseline
// and per-version statuses (candidate, accepted, rejected, rolled back,
// superseded) win; a version it does not know is "ungraded" below
// min_samples. Without a state (the engine never evaluated the skill, or
// its blob is unreadable), statuses are derived from the aggregates alone:
// the newest graded version is the "baseline", older graded versions are
// "superseded".
func deriveStatuses(vs []record.Version, state []byte) []string {
	out := make([]string, len(vs))
	var st struct {
		Baseline string            `json:"baseline"`
		Status   map[string]string `json:"status"`
		Pinned   string            `json:"pinned"`
	}
	if len(state) > 0 && json.Unmarshal(state, &st) == nil && (st.Baseline != "" || len(st.Status) > 0 || st.Pinned != "") {
		for i := range vs {
			s := st.Status[vs[i].Hash]
			switch {
			case vs[i].Hash == st.Pinned:
				s = StatusPinned
			case vs[i].Hash == st.Baseline && s != StatusWouldRollBack && s != StatusConflict:
				s = StatusBaseline
			case s == "" && !vs[i].Aggregate.Graded:
				s = StatusUngraded
			case s == "":
				s = StatusSuperseded
			}
			out[i] = s
		}
		return out
	}
	baseline := -1
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].Aggregate.Graded {
			baseline = i
			break
		}
	}
	for i := range vs {
		switch {
		case !vs[i].Aggregate.Graded:
			out[i] = StatusUngraded
		case i == baseline:
			out[i] = StatusBaseline
		default:
			out[i] = StatusSuperseded
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// timePtr is nil for the zero time, else the time in UTC.
func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return ptr(t.UTC())
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }
