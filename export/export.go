// Package export writes the stored executions as training and analysis
// data, streaming from the store in commit order (docs/export.md): csv and
// jsonl (one row per execution, every signal, tokens and cost, the label,
// the value and integrity, the version), and training data from labelled
// runs: reward (every labelled execution with what its label means), sft
// (instruction and response of the SFT-eligible ones) and preference
// (chosen/rejected pairs per skill), in the formats docs/export.md defines.
package export

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/reward"
	"github.com/sepad/sepad/store"
)

// Formats.
const (
	CSV        = "csv"
	JSONL      = "jsonl"
	Reward     = "reward"
	SFT        = "sft"
	Preference = "preference"
)

// Formats lists the formats, in the order the docs give them.
var Formats = []string{CSV, JSONL, Reward, SFT, Preference}

// SchemaVersion is the version of the row schemas below; fields are only
// ever added within a version.
const SchemaVersion = 1

// ErrFormat: no such format.
var ErrFormat = errors.New("unknown export format")

// Options select what is exported.
type Options struct {
	Format string
	// Skill, when set, keeps the executions of skills with this name, or
	// this skill key (PROJECT#name, or the prompt file's path).
	Skill string
	// Since keeps the executions that ended (else started) at or after it.
	Since time.Time
	// MinValue keeps the executions whose value score is at least it
	// (executions without a value are left out when it is set).
	MinValue *float64
}

// Stats says what was written: of Read executions, Kept matched the
// options' selection, Labelled of those had a label, Written rows came
// out (for preference, pairs). A person is told why when Written is 0.
type Stats struct {
	Read     int `json:"read"`
	Kept     int `json:"kept"`
	Labelled int `json:"labelled"`
	Written  int `json:"written"`
}

// Write streams the export of db to w.
func Write(w io.Writer, db *store.DB, o Options) (Stats, error) {
	o.Skill = record.SkillArg(o.Skill) // CLAUDE.md is _session
	var st Stats
	var rows rowWriter
	switch o.Format {
	case CSV:
		rows = newCSV(w)
	case JSONL:
		rows = &jsonlRows{enc: encoder(w), fn: fullRow}
	case Reward:
		rows = &jsonlRows{enc: encoder(w), fn: rewardRow}
	case SFT:
		rows = &jsonlRows{enc: encoder(w), fn: sftRow}
	case Preference:
		return writePreference(w, db, o)
	default:
		return st, fmt.Errorf("%w %q: want one of %s", ErrFormat, o.Format, strings.Join(Formats, ", "))
	}
	seqs := versionSeqs{db: db, m: map[string]map[string]int{}}
	err := db.Each(func(s *record.Scored, l *reward.Label) error {
		st.Read++
		if !o.keep(s) {
			return nil
		}
		st.Kept++
		if l != nil {
			st.Labelled++
		}
		ok, err := rows.row(s, l, seqs.of(s))
		if ok {
			st.Written++
		}
		return err
	})
	if err == nil {
		err = rows.flush()
	}
	return st, err
}

func (o *Options) keep(s *record.Scored) bool {
	if o.Skill != "" && s.Exec.Skill != o.Skill && s.SkillKey != o.Skill {
		return false
	}
	if !o.Since.IsZero() {
		t := s.Exec.EndedAt
		if t.IsZero() {
			t = s.Exec.StartedAt
		}
		if t.IsZero() {
			t = s.Stored
		}
		if t.Before(o.Since) {
			return false
		}
	}
	if o.MinValue != nil && (s.Value == nil || s.Value.Score < *o.MinValue) {
		return false
	}
	return true
}

// versionSeqs numbers versions (v1, v2, …) per skill, read once per skill.
type versionSeqs struct {
	db *store.DB
	m  map[string]map[string]int
}

func (v *versionSeqs) of(s *record.Scored) int {
	m, ok := v.m[s.SkillKey]
	if !ok {
		m, _ = v.db.VersionSeqs(s.SkillKey)
		v.m[s.SkillKey] = m
	}
	return m[s.Version]
}

type rowWriter interface {
	// row writes s (with its newest label and version number) when the
	// format takes it, and says whether it did.
	row(s *record.Scored, l *reward.Label, seq int) (bool, error)
	flush() error
}

func encoder(w io.Writer) *json.Encoder {
	e := json.NewEncoder(w)
	e.SetEscapeHTML(false)
	return e
}

type jsonlRows struct {
	enc *json.Encoder
	fn  func(s *record.Scored, l *reward.Label, seq int) any
}

func (j *jsonlRows) row(s *record.Scored, l *reward.Label, seq int) (bool, error) {
	v := j.fn(s, l, seq)
	if v == nil {
		return false, nil
	}
	return true, j.enc.Encode(v)
}

func (j *jsonlRows) flush() error { return nil }

// LabelRow is an execution's newest label with what it means for
// training data (reward.Derive).
type LabelRow struct {
	reward.Label
	reward.Derived
}

func labelRow(l *reward.Label) *LabelRow {
	if l == nil {
		return nil
	}
	return &LabelRow{Label: *l, Derived: reward.Derive(*l)}
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// scoreOf is the execution's score, nil when unscored.
func scoreOf(r *fitness.Result) *float64 {
	if !r.Scored {
		return nil
	}
	s := r.Score
	return &s
}
