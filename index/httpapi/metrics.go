package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/simjoin/simjoin/index"
)

// Metrics are what GET /metrics exports in Prometheus's text format
// (github.com/prometheus/client_golang):
//
//	simjoin_http_requests_total{endpoint, code}        requests answered, by route and status
//	simjoin_http_request_duration_seconds{endpoint}    histogram of the time to answer
//	simjoin_index_records{state="live"|"deleted"}      records held
//	simjoin_index_segments                             immutable segments
//	simjoin_index_wal_bytes                            size of the write-ahead log
//	simjoin_index_bytes_on_disk                        size of the index's files
//	simjoin_index_compactions_total                    compactions since the index was opened
//	simjoin_index_checkpoints_total                    checkpoints since then
//	simjoin_index_fsync_seconds                        histogram of the log's fsyncs
//	simjoin_index_healthy                              1, or 0 once a write failed (Health)
//
// plus the Go runtime's and the process's collectors. The endpoint is the
// route ("/v1/records/{id}"; "other" for a path that names none), never the
// path itself, so the series stay few. The index's gauges are read from one
// Stats a scrape. Safe for concurrent use.
type Metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	fsync    prometheus.Histogram
	ix       *indexCollector
}

// NewMetrics returns the metrics of a server, to give to Options.Metrics;
// its ObserveSync is what to give the index as index.OpenOptions.OnSync, so
// that the fsyncs are measured from the open on.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "simjoin_http_requests_total", Help: "HTTP requests answered, by endpoint (route) and status code.",
		}, []string{"endpoint", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "simjoin_http_request_duration_seconds", Help: "Time to answer an HTTP request, by endpoint (route).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 18), // 0.1 ms to 13 s
		}, []string{"endpoint"}),
		fsync: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "simjoin_index_fsync_seconds", Help: "Time of each fsync of the index's write-ahead log (a batch made durable).",
			Buckets: prometheus.ExponentialBuckets(0.00005, 2, 16), // 50 µs to 1.6 s
		}),
		ix: &indexCollector{},
	}
	m.reg.MustRegister(m.requests, m.latency, m.fsync, m.ix,
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return m
}

// ObserveSync records the time of one fsync of the log (index.OpenOptions.OnSync).
func (m *Metrics) ObserveSync(d time.Duration) { m.fsync.Observe(d.Seconds()) }

// observe records one request answered.
func (m *Metrics) observe(endpoint string, code int, d time.Duration) {
	m.requests.WithLabelValues(endpoint, strconv.Itoa(code)).Inc()
	m.latency.WithLabelValues(endpoint).Observe(d.Seconds())
}

// handler answers GET /metrics.
func (m *Metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// indexCollector exports an index's statistics, read once a scrape.
type indexCollector struct {
	ix *index.Index // set by New
}

var (
	descRecords     = prometheus.NewDesc("simjoin_index_records", "Records held by the index, live or deleted (not yet compacted away).", []string{"state"}, nil)
	descSegments    = prometheus.NewDesc("simjoin_index_segments", "Immutable segments of the index.", nil, nil)
	descWAL         = prometheus.NewDesc("simjoin_index_wal_bytes", "Size of the index's write-ahead log.", nil, nil)
	descDisk        = prometheus.NewDesc("simjoin_index_bytes_on_disk", "Size of the index's files.", nil, nil)
	descCompactions = prometheus.NewDesc("simjoin_index_compactions_total", "Compactions since the index was opened.", nil, nil)
	descCheckpoints = prometheus.NewDesc("simjoin_index_checkpoints_total", "Checkpoints since the index was opened.", nil, nil)
	descHealthy     = prometheus.NewDesc("simjoin_index_healthy", "1 while the index takes writes, 0 once a write to disk failed.", nil, nil)
)

func (c *indexCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRecords, descSegments, descWAL, descDisk, descCompactions, descCheckpoints, descHealthy} {
		ch <- d
	}
}

func (c *indexCollector) Collect(ch chan<- prometheus.Metric) {
	if c.ix == nil {
		return
	}
	st := c.ix.Stats()
	healthy := 1.0
	if c.ix.Health() != nil {
		healthy = 0
	}
	ch <- prometheus.MustNewConstMetric(descRecords, prometheus.GaugeValue, float64(st.Live), "live")
	ch <- prometheus.MustNewConstMetric(descRecords, prometheus.GaugeValue, float64(st.Deleted), "deleted")
	ch <- prometheus.MustNewConstMetric(descSegments, prometheus.GaugeValue, float64(st.Segments))
	ch <- prometheus.MustNewConstMetric(descWAL, prometheus.GaugeValue, float64(st.WALBytes))
	ch <- prometheus.MustNewConstMetric(descDisk, prometheus.GaugeValue, float64(st.BytesOnDisk))
	ch <- prometheus.MustNewConstMetric(descCompactions, prometheus.CounterValue, float64(st.Compactions))
	ch <- prometheus.MustNewConstMetric(descCheckpoints, prometheus.CounterValue, float64(st.Checkpoints))
	ch <- prometheus.MustNewConstMetric(descHealthy, prometheus.GaugeValue, healthy)
}

// statusWriter records the status a handler answers.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets a streamed answer through (http.Flusher).
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
