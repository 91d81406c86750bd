package daemon

import (
	"context"
	"os"
	"strings"

	"github.com/sepad/sepad/collector"
	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/telemetry"
)

// openExporter starts the OpenTelemetry export when otel.endpoint is set
// (nil otherwise); each commit wakes it.
func openExporter(ctx context.Context, d *Daemon, cfg *config.Config) (*telemetry.Exporter, error) {
	if strings.TrimSpace(cfg.Otel.Endpoint) == "" {
		return nil, nil
	}
	uh, _ := os.UserHomeDir()
	e := telemetry.New(d.db, telemetry.Options{Endpoint: cfg.Otel.Endpoint, Home: d.home,
		ClaudeDir: prompt.ConfigDirFrom(os.Getenv, uh), Logger: d.logger})
	if err := e.Open(ctx); err != nil {
		return nil, err
	}
	d.onCommit = append(d.onCommit, func(ci collector.CommitInfo) {
		if len(ci.Executions) > 0 {
			e.Kick()
		}
	})
	return e, nil
}
