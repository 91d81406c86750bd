package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/reward"
	"github.com/sepad/sepad/store"
)

func post(h http.Handler, path, body string) (int, string) {
	req := httptest.NewRequest(http.MethodPost, "http://sepad"+path, strings.NewReader(body))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// TestLabelEndpoint: POST /v1/executions/{id}/label refuses what is not a
// label (400), an unknown execution or skill (404), answers 503 without
// an engine, and applies a label through the engine (kept by the store,
// shown by explain with the derived fields).
func TestLabelEndpoint(t *testing.T) {
	home := t.TempDir()
	db := testDB(t, home)
	e := mutation.NewEngine(db, mutation.EngineOptions{Rescore: func(r fitness.Result, l reward.Label) fitness.Result {
		return fitness.WithLabel(r, &fitness.Evidence{Score: l.Score, Detail: l.Words()}, fitness.DefaultWeights)
	}})
	h := NewHandler(Options{DB: db, Home: home, Engine: e})
	for _, tc := range []struct {
		path, body string
		status     int
		msg        string
	}{
		{"/v1/executions/id0001000000/label", `{"outcome": "ok"}`, 400, "want success or failure"},
		{"/v1/executions/id0001000000/label", `{"outcome": "success", "rater": "a", "model": "m"}`, 400, "not both"},
		{"/v1/executions/id0001000000/label", `{"outcome": "success", "grade": "A"}`, 400, "unknown field"},
		{"/v1/executions/id0001000000/label", `not json`, 400, "not a JSON object"},
		{"/v1/executions/id0001000000/label", `{"outcome": "success", "score": "high"}`, 400, "not a JSON object"},
		{"/v1/executions/nope00000000/label", `{"outcome": "success"}`, 404, "no execution"},
		{"/v1/executions/last/label?skill=nope", `{"outcome": "success"}`, 404, "nope"},
		{"/v1/executions/id0001000000/label?skill=review", `{"outcome": "success"}`, 400, "not review"},
	} {
		code, body := post(h, tc.path, tc.body)
		if code != tc.status || !strings.Contains(body, tc.msg) {
			t.Errorf("POST %s %s: %d %s, want %d with %q", tc.path, tc.body, code, body, tc.status, tc.msg)
		}
	}
	if code, _, _ := get(t, h, http.MethodGet, "/v1/executions/last/label"); code != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d", code)
	}
	if code, body := post(NewHandler(Options{DB: db, Home: home}), "/v1/executions/last/label", `{"outcome": "success"}`); code != http.StatusServiceUnavailable {
		t.Errorf("without an engine: %d %s", code, body)
	}
	// The newest execution of review (its only one, 70) labelled a success of 0.9.
	code, body := post(h, "/v1/executions/last/label?skill=review", `{"outcome": "success", "score": 0.9, "rater": "ana", "rubric_version": "r1", "note": "right"}`)
	var a query.LabelAnswer
	if code != 200 || json.Unmarshal([]byte(body), &a) != nil {
		t.Fatalf("label: %d %s", code, body)
	}
	if a.ExecutionID != "id0009000000" || a.Label.Seq != 10 || !a.Rescored || *a.ScoreBefore != 70 || *a.Score != 90 ||
		a.Label.EvaluationLabel != reward.Gold || !a.Label.ExportableForSFT || a.Label.GraderKind != reward.GraderHuman {
		t.Errorf("answer %+v", a)
	}
	code, raw, _ := get(t, h, http.MethodGet, "/v1/executions/id0009000000")
	var ex query.Explain
	if code != 200 || json.Unmarshal(raw, &ex) != nil || len(ex.Labels) != 1 || ex.Labels[0].Note != "right" || ex.Labels[0].SignedScore != 0.9 {
		t.Errorf("explain: %d %s", code, raw)
	}
	if err := store.CheckInvariants(db); err != nil {
		t.Error(err)
	}
}
