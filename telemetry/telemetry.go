// Package telemetry exports each scored execution and each decision as an
// OpenTelemetry log record over OTLP/HTTP (otel.endpoint), so a team's
// collector, Grafana, Datadog or Langfuse can join sepad's grades with
// Claude Code's own telemetry by session.id. It is the only package that
// imports the OpenTelemetry SDK. Records are read from the store's outbox
// (consumer "otel") and its cursor moves after the receiver accepted a
// batch: nothing is lost; OTLP has no idempotent write, so a crash between
// the two sends that batch again (at least once).
package telemetry

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	otellog "go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
	"github.com/sepad/sepad/team"
)

// OutboxName is the exporter's cursor in the store's outbox.
const OutboxName = "otel"

// Options configure an Exporter.
type Options struct {
	// Endpoint is the OTLP/HTTP base URL (http://collector:4318); the
	// records go to its /v1/logs.
	Endpoint string
	// Home is $SEPA_HOME (the machine ID), ClaudeDir the user's Claude
	// Code directory (user-level prompts' identity).
	Home, ClaudeDir string
	// Batch is the most records one request holds (default 200); Poll
	// how often the outbox is looked at without a Kick (default 1 s);
	// RetryMin and RetryMax bound the wait after a refused request
	// (defaults 1 s and 1 min).
	Batch              int
	Poll               time.Duration
	RetryMin, RetryMax time.Duration
	Logger             *slog.Logger
}

// Exporter sends the outbox to an OTLP receiver on a goroutine of its own.
type Exporter struct {
	db  *store.DB
	o   Options
	exp *otlploghttp.Exporter
	// logger makes the SDK's records (limits, resource) from the API's;
	// coll collects them for one export (no SDK batching: the outbox is
	// the batch, and its cursor moves after the export).
	provider *sdklog.LoggerProvider
	logger   otellog.Logger
	coll     *collect
	resolve  *team.Resolver
	machine  string
	kick     chan struct{}
	cancel   context.CancelFunc
	done     chan struct{}
}

// New returns an exporter of db's outbox; Open starts it.
func New(db *store.DB, o Options) *Exporter {
	if o.Batch <= 0 {
		o.Batch = 200
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.RetryMin <= 0 {
		o.RetryMin = time.Second
	}
	if o.RetryMax < o.RetryMin {
		o.RetryMax = max(time.Minute, o.RetryMin)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Exporter{db: db, o: o, kick: make(chan struct{}, 1), resolve: &team.Resolver{ClaudeDir: o.ClaudeDir}}
}

// Open creates the OTLP exporter and starts sending.
func (e *Exporter) Open(ctx context.Context) error {
	id, err := team.MachineID(e.o.Home)
	if err != nil {
		return fmt.Errorf("otel: machine ID: %w", err)
	}
	e.machine = id
	url := strings.TrimRight(e.o.Endpoint, "/") + "/v1/logs"
	// The SDK's own retries are off: a refused batch stays in the outbox
	// and this loop sends it again, so a restart loses nothing either.
	e.exp, err = otlploghttp.New(ctx, otlploghttp.WithEndpointURL(url), otlploghttp.WithRetry(otlploghttp.RetryConfig{Enabled: false}),
		otlploghttp.WithTimeout(30*time.Second))
	if err != nil {
		return fmt.Errorf("otel.endpoint: %w", err)
	}
	e.coll = &collect{}
	e.provider = sdklog.NewLoggerProvider(sdklog.WithProcessor(e.coll), sdklog.WithResource(resource.NewSchemaless(
		attribute.String("service.name", "sepad"), attribute.String("sepad.machine.id", id))))
	e.logger = e.provider.Logger("github.com/sepad/sepad")
	ctx, e.cancel = context.WithCancel(ctx)
	e.done = make(chan struct{})
	go e.run(ctx)
	return nil
}

// Close stops sending (a batch in flight is sent again at the next start).
func (e *Exporter) Close() error {
	if e == nil || e.cancel == nil {
		return nil
	}
	e.cancel()
	<-e.done
	e.cancel = nil
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e.provider.Shutdown(ctx)
	return e.exp.Shutdown(ctx)
}

// collect is the SDK processor that keeps the records emitted for the
// export in progress (OnEmit runs synchronously in Emit, on the
// exporter's goroutine).
type collect struct{ recs []sdklog.Record }

func (c *collect) Enabled(context.Context, sdklog.EnabledParameters) bool { return true }
func (c *collect) OnEmit(_ context.Context, r *sdklog.Record) error {
	c.recs = append(c.recs, r.Clone())
	return nil
}
func (c *collect) Shutdown(context.Context) error   { return nil }
func (c *collect) ForceFlush(context.Context) error { return nil }

func (c *collect) take() []sdklog.Record {
	out := c.recs
	c.recs = nil
	return out
}

// Kick wakes the exporter after a commit.
func (e *Exporter) Kick() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

func (e *Exporter) run(ctx context.Context) {
	defer close(e.done)
	wait := e.o.RetryMin
	for ctx.Err() == nil {
		full, err := e.sendOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			e.o.Logger.Warn("otel export failed; retrying", "err", err, "retry_in", wait)
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = min(2*wait, e.o.RetryMax)
			continue
		}
		wait = e.o.RetryMin
		if full {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-e.kick:
		case <-time.After(e.o.Poll):
		}
	}
}

func (e *Exporter) sendOnce(ctx context.Context) (bool, error) {
	n, err := e.db.OutboxSend(OutboxName, e.o.Batch, func(xs []record.Scored) error {
		for i := range xs {
			e.logger.Emit(ctx, e.executionRecord(&xs[i]))
		}
		return e.exp.Export(ctx, e.coll.take())
	}, func(ds []record.Decision) error {
		for _, d := range ds {
			e.logger.Emit(ctx, e.decisionRecord(d))
		}
		return e.exp.Export(ctx, e.coll.take())
	})
	return n == e.o.Batch, err
}
