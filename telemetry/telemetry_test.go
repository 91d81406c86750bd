package telemetry

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/store"
)

// receiver is an OTLP/HTTP logs endpoint that decodes each request with
// the OpenTelemetry Collector's own pdata types (as its OTLP receiver
// does), refusing the first ones when told to.
type receiver struct {
	mu      sync.Mutex
	refuse  int
	records []map[string]any // attributes of each record received
	events  []string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/logs" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "unexpected "+r.URL.Path+" "+r.Header.Get("Content-Type"), http.StatusBadRequest)
		return
	}
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.refuse > 0 {
		rc.refuse--
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return
	}
	req := plogotlp.NewExportRequest()
	if err := req.UnmarshalProto(body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rls := req.Logs().ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		sls := rls.At(i).ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			lrs := sls.At(j).LogRecords()
			for k := 0; k < lrs.Len(); k++ {
				rc.records = append(rc.records, lrs.At(k).Attributes().AsRaw())
				rc.events = append(rc.events, lrs.At(k).EventName())
			}
		}
	}
	resp, _ := plogotlp.NewExportResponse().MarshalProto()
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(resp)
}

// Every execution and decision arrives as a record with its attributes,
// also when the receiver refused the first requests: the outbox keeps
// them until one is accepted.
func TestExportToOTLPReceiver(t *testing.T) {
	rc := &receiver{refuse: 2}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	home := t.TempDir()
	db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	e := New(db, Options{Endpoint: srv.URL, Home: home, ClaudeDir: "/home/u/.claude", Poll: 20 * time.Millisecond,
		RetryMin: 10 * time.Millisecond, RetryMax: 50 * time.Millisecond})
	if err := e.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	b := &store.Batch{}
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i := 0; i < 5; i++ {
		x := execution.Execution{ID: fmt.Sprintf("e%011d", i), SessionID: "sess-1", PromptID: fmt.Sprintf("p-e%011d", i), Skill: "deploy", Kind: "skill",
			SkillPath: "/home/u/.claude/skills/deploy/SKILL.md", SkillVersion: "aaaaaaaaaaaa", StartedAt: at, EndedAt: at.Add(time.Minute),
			Complete: true, Calls: []execution.ToolCall{{Name: "Bash", Done: true, Response: "secret"}}, Output: "the answer", HasOutput: true,
			Usage: &execution.Usage{InputTokens: 100, OutputTokens: 20, CostNanoUSD: 2_000_000}}
		b.Executions = append(b.Executions, store.Scored{Exec: x, Result: fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true,
			Score: 82.5, Grade: fitness.GradeOf(82.5), Signals: []fitness.Signal{{Signal: "tool_success", Present: true, Value: 1, Detail: "secret"}}}})
	}
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if err := db.PutDecision("/home/u/.claude/skills/deploy/SKILL.md", at, map[string]any{"kind": "rollback", "rule": "grade_f",
		"from": "aaaaaaaaaaaa", "to": "bbbbbbbbbbbb", "applied": true, "skill": "deploy", "words": "/home/u/secret/path"}); err != nil {
		t.Fatal(err)
	}
	e.Kick()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		rc.mu.Lock()
		n := len(rc.records)
		rc.mu.Unlock()
		if n >= 6 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.records) != 6 {
		t.Fatalf("%d records, want 5 executions and 1 decision: %v", len(rc.records), rc.records)
	}
	ids := map[any]bool{}
	for i, a := range rc.records {
		switch rc.events[i] {
		case "sepad.execution":
			ids[a["sepad.execution.id"]] = true
			if id, _ := a["sepad.execution.id"].(string); a["prompt.id"] != "p-"+id {
				t.Errorf("record %d: prompt.id = %#v for execution %s", i, a["prompt.id"], id)
			}
			for k, want := range map[string]any{"prompt.kind": "skill", "prompt.name": "deploy", "prompt.version": "aaaaaaaaaaaa",
				"session.id": "sess-1", "sepad.score": 82.5, "sepad.grade": "A", "gen_ai.usage.input_tokens": int64(100),
				"sepad.cost_usd": 0.002, "sepad.signal.tool_success": 1.0, "prompt.team_id": "skill/deploy"} {
				if a[k] != want {
					t.Errorf("record %d: %s = %#v, want %#v", i, k, a[k], want)
				}
			}
		case "sepad.decision":
			if a["sepad.decision.kind"] != "rollback" || a["sepad.decision.to"] != "bbbbbbbbbbbb" || a["prompt.name"] != "deploy" {
				t.Errorf("decision record: %v", a)
			}
		default:
			t.Errorf("record %d: event %q", i, rc.events[i])
		}
		for k, v := range a {
			if s, ok := v.(string); ok && (s == "secret" || s == "the answer" || s == "/home/u/secret/path") {
				t.Errorf("record %d: %s carries %q", i, k, s)
			}
		}
	}
	if len(ids) != 5 {
		t.Fatalf("executions received: %v", ids)
	}
}
