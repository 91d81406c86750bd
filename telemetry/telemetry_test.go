package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configgrpc"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// receiver starts the OpenTelemetry Collector's own OTLP receiver
// (otlpreceiver, HTTP only, on a free loopback port) with a consumer that
// refuses the first refuse batches (the receiver then answers the request
// with an error, as a collector whose pipeline is full does) and keeps the
// rest in a consumertest.LogsSink. It returns the OTLP/HTTP base URL.
func receiver(t *testing.T, refuse int) (url string, sink *consumertest.LogsSink, refused func() int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	f := otlpreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
	cfg.Protocols.GRPC = configoptional.None[configgrpc.ServerConfig]()
	cfg.Protocols.HTTP.GetOrInsertDefault().ServerConfig.NetAddr.Endpoint = addr
	sink = new(consumertest.LogsSink)
	var mu sync.Mutex
	n := 0
	next, err := consumer.NewLogs(func(ctx context.Context, ld plog.Logs) error {
		mu.Lock()
		defer mu.Unlock()
		if n < refuse {
			n++
			return errors.New("busy")
		}
		return sink.ConsumeLogs(ctx, ld)
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.CreateLogs(context.Background(), receivertest.NewNopSettings(f.Type()), cfg, next)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Shutdown(context.Background()) })
	return "http://" + addr, sink, func() int { mu.Lock(); defer mu.Unlock(); return n }
}

// received is each record's event name and attributes, in order.
func received(sink *consumertest.LogsSink) (events []string, records []map[string]any) {
	for _, ld := range sink.AllLogs() {
		rls := ld.ResourceLogs()
		for i := 0; i < rls.Len(); i++ {
			sls := rls.At(i).ScopeLogs()
			for j := 0; j < sls.Len(); j++ {
				lrs := sls.At(j).LogRecords()
				for k := 0; k < lrs.Len(); k++ {
					records = append(records, lrs.At(k).Attributes().AsRaw())
					events = append(events, lrs.At(k).EventName())
				}
			}
		}
	}
	return events, records
}

// Every execution and decision arrives as a record with its attributes,
// also when the receiver refused the first requests: the outbox keeps
// them until one is accepted.
func TestExportToOTLPReceiver(t *testing.T) {
	url, sink, refused := receiver(t, 2)
	home := t.TempDir()
	db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	e := New(db, Options{Endpoint: url, Home: home, ClaudeDir: "/home/u/.claude", Poll: 20 * time.Millisecond,
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
		b.Executions = append(b.Executions, record.Scored{Exec: x, Result: fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true,
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
	for time.Now().Before(deadline) && sink.LogRecordCount() < 6 {
		time.Sleep(20 * time.Millisecond)
	}
	if refused() != 2 {
		t.Errorf("the receiver refused %d batches, want 2", refused())
	}
	events, records := received(sink)
	if len(records) != 6 {
		t.Fatalf("%d records, want 5 executions and 1 decision: %v", len(records), records)
	}
	ids := map[any]bool{}
	for i, a := range records {
		switch events[i] {
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
			t.Errorf("record %d: event %q", i, events[i])
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
