package telemetry

import (
	"encoding/json"
	"time"

	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/team"
	"go.opentelemetry.io/otel/attribute"
	otellog "go.opentelemetry.io/otel/log"
)

// The records: what each carries (docs/team.md, "OpenTelemetry"). The same
// columns as the team store: scores, signals, counts, tokens, cost,
// grades, hashes, names, times; never a tool's output, an answer or a
// transcript.

// executionRecord is one scored execution as a log record, event name
// sepad.execution, timed at its end.
func (e *Exporter) executionRecord(s *record.Scored) otellog.Record {
	x := &s.Exec
	p := e.resolve.Prompt(x.Kind, x.Skill, x.SkillPath, x.Project)
	var r otellog.Record
	at := x.EndedAt
	if at.IsZero() {
		at = s.Stored
	}
	r.SetEventName("sepad.execution")
	r.SetTimestamp(at)
	r.SetObservedTimestamp(time.Now())
	r.SetSeverity(otellog.SeverityInfo)
	r.SetBody(attribute.StringValue("sepad scored " + p.Kind + " " + p.Name))
	attrs := []attribute.KeyValue{
		attribute.String("prompt.kind", p.Kind),
		attribute.String("prompt.name", p.Name),
		attribute.String("prompt.version", s.Version),
		attribute.String("prompt.repository", p.Repository),
		attribute.String("prompt.path", p.Path),
		attribute.String("prompt.team_id", p.ID),
		attribute.String("session.id", x.SessionID),
		attribute.String("sepad.execution.id", x.ID),
		attribute.String("sepad.machine.id", e.machine),
		attribute.String("sepad.rubric", s.Result.RubricVersion),
		attribute.Bool("sepad.scored", s.Result.Scored),
		attribute.String("sepad.grade", string(s.Result.Grade)),
		attribute.Int("sepad.calls", len(x.Calls)),
		attribute.Int("sepad.failed_calls", x.Failures()),
		attribute.Bool("sepad.complete", x.Complete),
	}
	if x.PromptID != "" { // Claude Code >= 2.1.196
		attrs = append(attrs, attribute.String("prompt.id", x.PromptID))
	}
	if s.Result.Scored {
		attrs = append(attrs, attribute.Float64("sepad.score", s.Result.Score))
	}
	for _, g := range s.Result.Signals {
		if g.Present {
			attrs = append(attrs, attribute.Float64("sepad.signal."+g.Signal, g.Value))
		}
	}
	if u := x.Usage; u != nil {
		attrs = append(attrs,
			attribute.Int64("gen_ai.usage.input_tokens", u.InputTokens),
			attribute.Int64("gen_ai.usage.output_tokens", u.OutputTokens),
			attribute.Int64("sepad.usage.cache_read_tokens", u.CacheReadTokens),
			attribute.Int64("sepad.usage.cache_creation_tokens", u.CacheCreationTokens),
			attribute.Float64("sepad.cost_usd", float64(u.CostNanoUSD)/1e9))
	}
	r.AddAttributes(attrs...)
	return r
}

// decisionRecord is one decision (event name sepad.decision): what was
// decided, on which versions, with the numbers; not its words (they name
// this machine's files).
func (e *Exporter) decisionRecord(d record.Decision) otellog.Record {
	var p team.DecisionRow
	json.Unmarshal(d.Payload, &p) // a payload of another shape leaves the fields empty
	id := e.resolve.Prompt("skill", p.Skill, "", "")
	if sk, err := e.db.Skill(d.SkillKey); err == nil && sk != nil {
		id = e.resolve.Prompt(sk.Kind, sk.Name, sk.Path, sk.Project)
	}
	var r otellog.Record
	r.SetEventName("sepad.decision")
	r.SetTimestamp(d.Time)
	r.SetObservedTimestamp(time.Now())
	r.SetSeverity(otellog.SeverityInfo)
	r.SetBody(attribute.StringValue("sepad decision " + p.Kind + " on " + id.Name))
	attrs := []attribute.KeyValue{
		attribute.String("prompt.kind", id.Kind),
		attribute.String("prompt.name", id.Name),
		attribute.String("prompt.repository", id.Repository),
		attribute.String("prompt.team_id", id.ID),
		attribute.String("sepad.machine.id", e.machine),
		attribute.String("sepad.decision.kind", p.Kind),
		attribute.String("sepad.decision.rule", p.Rule),
		attribute.String("sepad.decision.from", p.From),
		attribute.String("sepad.decision.to", p.To),
		attribute.Bool("sepad.decision.applied", p.Applied),
	}
	if dd := p.Decision; dd != nil {
		attrs = append(attrs, attribute.String("sepad.decision.outcome", dd.Outcome), attribute.Float64("sepad.decision.delta", dd.Delta),
			attribute.Int("sepad.decision.baseline_n", dd.BaselineN), attribute.Int("sepad.decision.candidate_n", dd.CandidateN))
	}
	r.AddAttributes(attrs...)
	return r
}
