package reward

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// SourceInsights is the Source of a label imported from Claude Code's
// /insights facets (ParseFacet).
const SourceInsights = "insights"

// MaxFacet bounds a facets file read.
const MaxFacet = 1 << 20

// ErrBadFacet is wrapped by every refusal of ParseFacet.
var ErrBadFacet = errors.New("bad /insights facet")

// The /insights outcomes, worst last.
const (
	FullyAchieved     = "fully_achieved"
	MostlyAchieved    = "mostly_achieved"
	PartiallyAchieved = "partially_achieved"
	NotAchieved       = "not_achieved"
	Unclear           = "unclear_from_transcript"
)

// facetLabels maps an /insights outcome to the label it gives: achieved
// fully or mostly is a success, partially or not a failure; the score
// keeps the degree.
var facetLabels = map[string]struct {
	outcome string
	score   float64
}{
	FullyAchieved:     {Success, 1},
	MostlyAchieved:    {Success, 0.75},
	PartiallyAchieved: {Failure, 0.25},
	NotAchieved:       {Failure, 0},
}

// Facet is Claude Code's /insights judgement of one session, cached in
// <claude config dir>/usage-data/facets/<session_id>.json when the person
// runs /insights: a model reads the session's transcript and says whether
// its goal was achieved. Only the fields sepad uses are kept.
type Facet struct {
	SessionID string `json:"session_id"`
	// Outcome is one of the /insights outcomes (FullyAchieved …).
	Outcome string `json:"outcome"`
	// Summary is the facet's brief_summary, kept in the label's note.
	Summary string `json:"brief_summary"`
}

// ParseFacet reads one facets file; name is its path, whose base name
// (without .json) is the session id when the document has none. A file
// that is not a JSON object, names no session, or has no outcome is
// refused with ErrBadFacet.
func ParseFacet(name string, data []byte) (Facet, error) {
	if len(data) > MaxFacet {
		return Facet{}, fmt.Errorf("%w: %s is over %d bytes", ErrBadFacet, name, MaxFacet)
	}
	var f Facet
	if err := json.Unmarshal(data, &f); err != nil {
		return Facet{}, fmt.Errorf("%w: %s: %v", ErrBadFacet, name, err)
	}
	base := strings.TrimSuffix(filepath.Base(name), ".json")
	if f.SessionID == "" {
		f.SessionID = base
	}
	if !sessionIDOK(f.SessionID) {
		return Facet{}, fmt.Errorf("%w: %s: session id %q is not one", ErrBadFacet, name, f.SessionID)
	}
	f.Outcome = strings.ToLower(strings.TrimSpace(f.Outcome))
	if f.Outcome == "" {
		return Facet{}, fmt.Errorf("%w: %s: no outcome", ErrBadFacet, name)
	}
	return f, nil
}

// sessionIDOK accepts what Claude Code names sessions with (UUIDs), and
// nothing that could be a path or a query.
func sessionIDOK(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// maxFacetNote bounds the summary kept in a label's note.
const maxFacetNote = 500

// Label is the label the facet gives each of its session's executions,
// and false when its outcome says nothing (unclear_from_transcript, or
// an outcome this version does not know).
func (f Facet) Label() (Input, bool) {
	m, ok := facetLabels[f.Outcome]
	if !ok {
		return Input{}, false
	}
	score := m.score
	note := "/insights: " + f.Outcome
	if s := strings.Join(strings.Fields(f.Summary), " "); s != "" {
		if len(s) > maxFacetNote {
			cut := maxFacetNote
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			s = s[:cut] + "…"
		}
		note += ": " + s
	}
	return Input{Outcome: m.outcome, Score: &score, Note: note, Source: SourceInsights}, true
}
