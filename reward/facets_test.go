package reward

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseFacet(t *testing.T) {
	const id = "2221773c-f6cb-4eff-bf30-51479288d6ed"
	for _, c := range []struct {
		name, doc string
		err       bool
		outcome   string // the label's outcome, "" for none
		score     float64
	}{
		{id + ".json", `{"session_id":"` + id + `","underlying_goal":"fix the tests","outcome":"fully_achieved","brief_summary":"Fixed Sum.","claude_helpfulness":"very_helpful"}`, false, Success, 1},
		{id + ".json", `{"outcome":"mostly_achieved"}`, false, Success, 0.75},
		{"/x/facets/" + id + ".json", `{"outcome":"partially_achieved","friction_counts":{"wrong_approach":2}}`, false, Failure, 0.25},
		{id + ".json", `{"outcome":"Not_Achieved "}`, false, Failure, 0},
		{id + ".json", `{"outcome":"unclear_from_transcript"}`, false, "", 0},
		{id + ".json", `{"outcome":"a new outcome"}`, false, "", 0},
		{id + ".json", `{"brief_summary":"no outcome"}`, true, "", 0},
		{id + ".json", `[1, 2]`, true, "", 0},
		{id + ".json", `{"outcome":`, true, "", 0},
		{"not a session.json", `{"outcome":"fully_achieved"}`, true, "", 0},
		{id + ".json", `{"session_id":"a/b","outcome":"fully_achieved"}`, true, "", 0},
	} {
		f, err := ParseFacet(c.name, []byte(c.doc))
		if (err != nil) != c.err || (err != nil && !errors.Is(err, ErrBadFacet)) {
			t.Errorf("%s %s: err %v", c.name, c.doc, err)
			continue
		}
		if err != nil {
			continue
		}
		if f.SessionID != id {
			t.Errorf("%s: session %q", c.doc, f.SessionID)
		}
		in, ok := f.Label()
		if ok != (c.outcome != "") {
			t.Errorf("%s: label %v", c.doc, ok)
			continue
		}
		if !ok {
			continue
		}
		l, err := New("e1", in, time.Unix(0, 0))
		if err != nil || l.Outcome != c.outcome || l.Score != c.score || l.Source != SourceInsights || !strings.HasPrefix(l.Note, "/insights: ") {
			t.Errorf("%s: label %+v %v", c.doc, l, err)
		}
		if !strings.Contains(l.Words(), "from insights") {
			t.Errorf("words %q", l.Words())
		}
	}
}

func FuzzParseFacet(f *testing.F) {
	f.Add("s.json", []byte(`{"outcome":"fully_achieved","brief_summary":"ok"}`))
	f.Add("s.json", []byte(`{"session_id":"x","outcome":"not_achieved"}`))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		fc, err := ParseFacet(name, data)
		if err != nil {
			if !errors.Is(err, ErrBadFacet) {
				t.Fatalf("unwrapped error %v", err)
			}
			return
		}
		if !sessionIDOK(fc.SessionID) {
			t.Fatalf("session %q", fc.SessionID)
		}
		if in, ok := fc.Label(); ok {
			if _, err := New("e", in, time.Unix(0, 0)); err != nil {
				t.Fatalf("label refused: %v", err)
			}
		}
	})
}
