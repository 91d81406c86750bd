package importer

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sepad/sepad/reward"
)

// TestFacetLabels: a facet labels every main-thread run of its session,
// leaves a hand label and the same label already imported alone, and says
// why; a subagent's run and a run of another session are not its.
func TestFacetLabels(t *testing.T) {
	facets := map[string]reward.Facet{
		"s1": {SessionID: "s1", Outcome: reward.NotAchieved, Summary: "Deployed the wrong branch."},
		"s2": {SessionID: "s2", Outcome: reward.Unclear},
	}
	runs := []FacetRun{{"a", "s1", "deploy"}, {"b", "s1", "review"}, {"c", "s1", "deploy"}, {"d", "s1", "deploy"}, {"e", "s2", "deploy"}, {"f", "s3", "deploy"}}
	in, _ := facets["s1"].Label()
	labels := map[string]*reward.Label{
		"c": {Outcome: reward.Success, Score: 1, Rater: "ana"},
		"d": {Outcome: in.Outcome, Score: *in.Score, Note: in.Note, Source: reward.SourceInsights},
	}
	var asked []string
	rep := FacetsReport{}
	writes, err := FacetLabels(facets, runs, &rep, func(id string) (bool, *reward.Label, error) {
		asked = append(asked, id)
		return id == "b", labels[id], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []FacetWrite{{"a", in}}; !reflect.DeepEqual(writes, want) {
		t.Errorf("writes %+v, want %+v", writes, want)
	}
	if want := []string{"a", "b", "c", "d"}; !reflect.DeepEqual(asked, want) {
		t.Errorf("looked up %v, want %v (a facet that says nothing, or another session, needs no look)", asked, want)
	}
	var kept []string
	for _, k := range rep.Kept {
		kept = append(kept, k.Execution+": "+k.Reason)
	}
	want := []string{"c: labelled by hand: " + labels["c"].Words(), "d: already imported", "e: the outcome says nothing: " + reward.Unclear}
	if !reflect.DeepEqual(kept, want) || rep.Sessions != 2 || len(rep.Labelled) != 1 || rep.Labelled[0].Outcome != reward.NotAchieved {
		t.Errorf("report %+v\nkept %q", rep, kept)
	}
	boom := errors.New("boom")
	if _, err := FacetLabels(facets, runs, &FacetsReport{}, func(string) (bool, *reward.Label, error) { return false, nil, boom }); !errors.Is(err, boom) {
		t.Errorf("a failed look-up: %v", err)
	}
}

// TestReadFacets: the facets of a directory by session; a broken file is
// skipped with why, an empty directory is ErrNoFacets.
func TestReadFacets(t *testing.T) {
	dir := t.TempDir()
	for name, doc := range map[string]string{
		"s1.json":     `{"session_id":"s1","outcome":"fully_achieved"}`,
		"s2.json":     `{"outcome":"not_achieved"}`,
		"broken.json": `{"outcome":`,
		"notes.txt":   `not a facet`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var rep FacetsReport
	fs, err := ReadFacets(dir, &rep)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 || fs["s2"].Outcome != reward.NotAchieved || rep.Facets != 2 || len(rep.Skipped) != 1 || rep.Skipped[0].File != filepath.Join(dir, "broken.json") {
		t.Errorf("facets %+v, report %+v", fs, rep)
	}
	if _, err := ReadFacets(t.TempDir(), &rep); !errors.Is(err, ErrNoFacets) {
		t.Errorf("empty directory: %v", err)
	}
}
