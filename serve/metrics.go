package serve

import (
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the server's Prometheus series: requests by route and
// status, latency by phase, scopes loaded and unloaded, and, read at each
// scrape, model calls by role and degraded memory operations.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	phase    *prometheus.HistogramVec
	loads    prometheus.Counter
	unloads  prometheus.Counter
}

func newMetrics(s *Server) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "arbor_requests_total",
			Help: "HTTP requests by route and status code."}, []string{"route", "code"}),
		phase: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "arbor_phase_seconds",
			Help:    "Time spent per phase: recall (localization and assembly), upstream (the chat model), commit.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 18)}, []string{"phase"}),
		loads:   prometheus.NewCounter(prometheus.CounterOpts{Name: "arbor_scope_loads_total", Help: "Scopes rebuilt from storage."}),
		unloads: prometheus.NewCounter(prometheus.CounterOpts{Name: "arbor_scope_unloads_total", Help: "Scopes unloaded (idle, or beyond max_scopes)."}),
	}
	m.reg.MustRegister(m.requests, m.phase, m.loads, m.unloads, &modelCollector{s: s})
	return m
}

// modelCollector reads the model clients' call counts and the loaded
// scopes' degraded operations at scrape time.
type modelCollector struct{ s *Server }

var (
	descCalls = prometheus.NewDesc("arbor_model_calls_total", "Model calls by role and purpose.", []string{"role", "purpose"}, nil)
	descErrs  = prometheus.NewDesc("arbor_model_errors_total", "Failed model calls by role and purpose.", []string{"role", "purpose"}, nil)
	descDegr  = prometheus.NewDesc("arbor_degraded_operations", "Degraded memory operations of the loaded scopes: fallbacks to the rules, model errors, unparseable and repaired replies.", []string{"kind"}, nil)
	descScope = prometheus.NewDesc("arbor_scopes_loaded", "Scopes whose memory is loaded.", nil, nil)
)

// Describe implements prometheus.Collector.
func (c *modelCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descCalls
	ch <- descErrs
	ch <- descDegr
	ch <- descScope
}

// Collect implements prometheus.Collector.
func (c *modelCollector) Collect(ch chan<- prometheus.Metric) {
	for _, r := range c.s.models.Metrics.Rows() {
		ch <- prometheus.MustNewConstMetric(descCalls, prometheus.CounterValue, float64(r.Count), r.Role, r.Purpose)
		ch <- prometheus.MustNewConstMetric(descErrs, prometheus.CounterValue, float64(r.Errors), r.Role, r.Purpose)
	}
	t := c.s.scopes
	t.mu.Lock()
	var fallbacks, modelErrs, bad, repaired int
	for _, sc := range t.scopes {
		h := sc.sys.Health()
		fallbacks += h.Fallbacks
		modelErrs += h.ModelErrors
		bad += h.BadReplies
		repaired += h.Repaired
	}
	n := len(t.scopes)
	t.mu.Unlock()
	for kind, v := range map[string]int{"fallback": fallbacks, "model_error": modelErrs, "bad_reply": bad, "repaired": repaired} {
		ch <- prometheus.MustNewConstMetric(descDegr, prometheus.GaugeValue, float64(v), kind)
	}
	ch <- prometheus.MustNewConstMetric(descScope, prometheus.GaugeValue, float64(n))
}
