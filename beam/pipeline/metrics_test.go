package pipeline_test

import (
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"

	"github.com/simjoin/simjoin/beam/pipeline"
)

// submitted is a result as the portable runner returns it for an --async
// submission: no metrics, and a Metrics method that cannot answer.
type submitted struct{ m *metrics.Results }

func (r submitted) Metrics() metrics.Results { return *r.m }
func (r submitted) JobID() string            { return "" }

// TestMetricsOfNone: a result without metrics reads as metrics not reported,
// not as a crash.
func TestMetricsOfNone(t *testing.T) {
	m := pipeline.MetricsOf(submitted{})
	if m.Reported || len(m.Counters) != 0 {
		t.Errorf("pipeline.MetricsOf(no metrics) = %+v, want nothing reported", m)
	}
	if m := pipeline.MetricsOf(nil); m.Reported {
		t.Errorf("pipeline.MetricsOf(nil) reported")
	}
}
