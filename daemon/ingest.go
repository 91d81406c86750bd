package daemon

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sepad/sepad/collector"
	"github.com/sepad/sepad/status"
)

// registerIngestMetrics adds the daemon's commit health to its metrics:
// whether ingestion is stalled on a full disk, how many commits failed,
// and the lines held meanwhile (docs/api.md). in is the collector's
// health (Collector.Health), or the wait for room to open the database
// (waitstore.go).
func registerIngestMetrics(reg *prometheus.Registry, in func() collector.Health) {
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sepad_ingest_stalled",
			Help: "1 while the store refuses commits because its file system is full: the daemon holds what it read and retries with backoff."},
			func() float64 {
				if in().Stalled {
					return 1
				}
				return 0
			}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sepad_commit_failures_total",
			Help: "Commits refused for lack of space (each retry counts), since the daemon started."},
			func() float64 { return float64(in().FailedCommits) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sepad_ingest_pending_lines",
			Help: "Lines read and held for a commit the store refused (0 when commits succeed)."},
			func() float64 { return float64(in().PendingLines) }),
	)
}

// registerBuildInfo adds sepad_build_info{version,commit,goversion} 1 to
// the daemon's metrics.
func registerBuildInfo(reg *prometheus.Registry) {
	b := status.ReadBuild()
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "sepad_build_info", Help: "Always 1; the labels say what the daemon was built from.",
		ConstLabels: prometheus.Labels{"version": b.Version, "commit": b.Commit, "goversion": b.Go}})
	g.Set(1)
	reg.MustRegister(g)
}
