package api

import (
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sepad/sepad/collector"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/status"
	"github.com/sepad/sepad/store"
)

// Label cardinality caps (docs/api.md#metrics).
const (
	// DefaultMaxSkillSeries bounds the (skill, version) pairs exported
	// with their aggregate and n.
	DefaultMaxSkillSeries = 2000
	// maxEventLabels bounds the distinct event label values; later names
	// count as "other" (payloads choose hook_event_name).
	maxEventLabels = 64
)

// Metrics are the daemon's Prometheus metrics, in a registry of their own
// (never the default one): everything is created by NewMetrics, nothing
// at package init, so `sepad hook` pays nothing for them.
type Metrics struct {
	reg         *prometheus.Registry
	events      *prometheus.CounterVec
	quarantined prometheus.Counter
	scored      *prometheus.CounterVec
	lag         prometheus.Gauge
	commit      prometheus.Histogram
	// unauthorized counts TCP requests refused for a missing or wrong
	// secret (401).
	unauthorized prometheus.Counter
	// hookRefused counts POST /v1/hook requests refused before they were
	// read: "busy" (503, too many at once) or "too_large" (413).
	hookRefused *prometheus.CounterVec

	mu         sync.Mutex
	eventNames map[string]bool
}

// MetricsOptions configure NewMetrics.
type MetricsOptions struct {
	// DB feeds the per-version series and the spool lag at scrape time.
	DB *store.DB
	// Home is where the spool files are (for the lag in bytes and events).
	Home string
	// MaxSkillSeries caps the (skill, version) pairs exported (default
	// DefaultMaxSkillSeries).
	MaxSkillSeries int
}

// NewMetrics creates the metrics and their registry.
func NewMetrics(o MetricsOptions) *Metrics {
	if o.MaxSkillSeries <= 0 {
		o.MaxSkillSeries = DefaultMaxSkillSeries
	}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sepad_events_ingested_total",
			Help: "Hook events committed to the store, by hook event name (at most 64 names, then \"other\")."}, []string{"event"}),
		quarantined: prometheus.NewCounter(prometheus.CounterOpts{Name: "sepad_lines_quarantined_total",
			Help: "Spool lines quarantined (unparsable, too long, partial)."}),
		scored: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sepad_executions_scored_total",
			Help: "Executions committed, by the grade of their own score (\"unscored\" when no signal had evidence)."}, []string{"grade"}),
		lag: prometheus.NewGauge(prometheus.GaugeOpts{Name: "sepad_ingestion_lag_seconds",
			Help: "At the last commit, how long its oldest line had waited since the hook wrote it."}),
		commit: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "sepad_commit_duration_seconds",
			Help:    "Duration of one store commit (one batch of spool lines).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}}),
		unauthorized: prometheus.NewCounter(prometheus.CounterOpts{Name: "sepad_http_unauthorized_total",
			Help: "Requests on the TCP address refused (401) for a missing or wrong secret."}),
		hookRefused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sepad_hook_requests_refused_total",
			Help: "POST /v1/hook requests refused: busy (503, too many at once), too_large (413, over the body limit) or slow (408, the body slower than its time)."}, []string{"reason"}),
		eventNames: map[string]bool{},
	}
	m.hookRefused.WithLabelValues(refusedBusy)
	m.hookRefused.WithLabelValues(refusedTooLarge)
	m.hookRefused.WithLabelValues(refusedSlow)
	for _, g := range []string{"A+", "A", "B", "C", "D", "F", "unscored"} {
		m.scored.WithLabelValues(g)
	}
	m.reg.MustRegister(m.events, m.quarantined, m.scored, m.lag, m.commit, m.unauthorized, m.hookRefused,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if o.DB != nil {
		m.reg.MustRegister(&storeCollector{o: o, d: newMetricDescs()})
	}
	return m
}

// OnCommit records one collector commit; the daemon calls it after every
// commit (collector.Options.OnCommit), on the collector's goroutine.
func (m *Metrics) OnCommit(ci collector.CommitInfo) {
	for ev, n := range ci.EventCounts {
		m.events.WithLabelValues(m.eventLabel(ev)).Add(float64(n))
	}
	if ci.Quarantined > 0 {
		m.quarantined.Add(float64(ci.Quarantined))
	}
	for i := range ci.Executions {
		g := string(ci.Executions[i].Result.Grade)
		if !ci.Executions[i].Result.Scored || g == "" {
			g = "unscored"
		}
		m.scored.WithLabelValues(g).Inc()
	}
	m.commit.Observe(ci.Latency.Seconds())
	if !ci.Oldest.IsZero() {
		m.lag.Set(max(time.Since(ci.Oldest).Seconds(), 0))
	}
}

func (m *Metrics) eventLabel(ev string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.eventNames[ev] {
		return ev
	}
	if len(m.eventNames) >= maxEventLabels || len(ev) > 64 || ev == "" {
		return "other"
	}
	m.eventNames[ev] = true
	return ev
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Registry is the metrics' registry (tests gather from it).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// storeCollector exports what is read from the store at scrape time: the
// spool lag and, per skill version, the aggregate and n. The grades are
// recomputed only when the store changed since the last scrape.
type storeCollector struct {
	o MetricsOptions
	d metricDescs

	mu   sync.Mutex
	gen  uint64
	rows []query.GradeRow
}

// metricDescs are the descriptions of the scrape-time series, made by
// NewMetrics (not at package init).
type metricDescs struct {
	aggregate, n, dropped, lagBytes, lagEvents *prometheus.Desc
	// From the session transcripts (issue 16).
	tokens, tokensMean, cost, costMean *prometheus.Desc
}

func newMetricDescs() metricDescs {
	labels := []string{"skill_key", "skill", "version"}
	return metricDescs{
		aggregate: prometheus.NewDesc("sepad_skill_version_aggregate",
			"Trimmed recency-weighted aggregate score of a skill version (only versions with at least one scored execution).", labels, nil),
		n: prometheus.NewDesc("sepad_skill_version_executions",
			"Scored executions of a skill version under the current rubric (n).", labels, nil),
		dropped: prometheus.NewDesc("sepad_skill_version_series_dropped",
			"Skill versions not exported because of the series cap (current versions are exported first).", nil, nil),
		lagBytes: prometheus.NewDesc("sepad_spool_lag_bytes",
			"Bytes written to the spool files and not yet committed.", nil, nil),
		lagEvents: prometheus.NewDesc("sepad_spool_lag_events",
			"Lines written to the spool files and not yet committed.", nil, nil),
		tokens: prometheus.NewDesc("sepad_skill_version_tokens",
			"Tokens used by a skill version's executions whose transcript was read, by kind (input, output, cache_read, cache_creation).", append(labels, "kind"), nil),
		tokensMean: prometheus.NewDesc("sepad_skill_version_tokens_mean",
			"Mean tokens (all kinds) per execution of a skill version whose transcript was read.", labels, nil),
		cost: prometheus.NewDesc("sepad_skill_version_cost_usd",
			"Cost in US dollars of a skill version's executions whose transcript was read (config pricing).", labels, nil),
		costMean: prometheus.NewDesc("sepad_skill_version_cost_usd_mean",
			"Mean cost in US dollars per execution of a skill version whose transcript was read.", labels, nil),
	}
}

// Describe sends nothing: the collector is unchecked (its series vary).
func (c *storeCollector) Describe(chan<- *prometheus.Desc) {}

// Collect reads the store (short transactions) and sends the series.
func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	if st, err := status.Get(c.o.DB, c.o.Home, status.Daemon{}); err == nil {
		ch <- prometheus.MustNewConstMetric(c.d.lagBytes, prometheus.GaugeValue, float64(st.LagBytes))
		ch <- prometheus.MustNewConstMetric(c.d.lagEvents, prometheus.GaugeValue, float64(st.LagEvents))
	}
	rows, err := c.grades()
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.d.aggregate, err)
		return
	}
	// Current versions first, then the others newest first, up to the cap.
	sel := make([]*query.GradeRow, 0, min(len(rows), c.o.MaxSkillSeries))
	for pass := 0; pass < 2; pass++ {
		for i := range rows {
			if rows[i].Current == (pass == 0) && len(sel) < c.o.MaxSkillSeries {
				sel = append(sel, &rows[i])
			}
		}
	}
	for _, r := range sel {
		v := r.Hash
		ch <- prometheus.MustNewConstMetric(c.d.n, prometheus.GaugeValue, float64(r.N), r.SkillKey, r.Skill, v)
		if r.Aggregate != nil {
			ch <- prometheus.MustNewConstMetric(c.d.aggregate, prometheus.GaugeValue, *r.Aggregate, r.SkillKey, r.Skill, v)
		}
		if t := r.Tokens; t != nil {
			for kind, n := range map[string]int64{"input": t.InputTokens, "output": t.OutputTokens, "cache_read": t.CacheReadTokens, "cache_creation": t.CacheCreationTokens} {
				ch <- prometheus.MustNewConstMetric(c.d.tokens, prometheus.GaugeValue, float64(n), r.SkillKey, r.Skill, v, kind)
			}
			ch <- prometheus.MustNewConstMetric(c.d.tokensMean, prometheus.GaugeValue, t.Mean, r.SkillKey, r.Skill, v)
			ch <- prometheus.MustNewConstMetric(c.d.cost, prometheus.GaugeValue, t.CostUSD, r.SkillKey, r.Skill, v)
			ch <- prometheus.MustNewConstMetric(c.d.costMean, prometheus.GaugeValue, t.MeanCostUSD, r.SkillKey, r.Skill, v)
		}
	}
	ch <- prometheus.MustNewConstMetric(c.d.dropped, prometheus.GaugeValue, float64(len(rows)-len(sel)))
}

func (c *storeCollector) grades() ([]query.GradeRow, error) {
	gen, err := c.o.DB.TxID()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rows != nil && gen == c.gen {
		return c.rows, nil
	}
	g, err := query.ListGrades(c.o.DB, query.GradesRequest{AllVersions: true})
	if err != nil {
		return nil, err
	}
	c.gen, c.rows = gen, g.Grades
	return c.rows, nil
}
