package pipeline

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"

	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/join"
)

// Namespace is the namespace of the pipelines' Beam metrics.
const Namespace = "simjoin"

// The join statistics as Beam metrics. Counters are summed over every bundle
// by the runner; the *_bytes counters are the encoded sizes of the elements
// written to each shuffle (key and value), which is what the runner moves
// between workers. In the exact join, shuffle_records_bytes counts the record
// batches (once as keys, once as ranks), shuffle_df_bytes the token counts
// of every bundle, shuffle_group_bytes the partition chunks and the hot
// groups' size counts.
var (
	mRecords    = beam.NewCounter(Namespace, "records")
	mSkipped    = beam.NewCounter(Namespace, "skipped")
	mBelowMin   = beam.NewCounter(Namespace, "below_min_tokens")
	mUnreadable = beam.NewCounter(Namespace, "unreadable_skipped")
	mGzipFiles  = beam.NewCounter(Namespace, "gzip_files")
	mZstdFiles  = beam.NewCounter(Namespace, "zstd_files")
	mSetTokens  = beam.NewCounter(Namespace, "set_tokens")
	mVocabulary = beam.NewCounter(Namespace, "vocabulary")

	mRouted       = beam.NewCounter(Namespace, "routed")
	mSplitGroups  = beam.NewCounter(Namespace, "split_groups")
	mGroups       = beam.NewCounter(Namespace, "groups")
	mLargestGroup = beam.NewDistribution(Namespace, "group_records")
	mPostings     = beam.NewCounter(Namespace, "postings")
	mSizePruned   = beam.NewCounter(Namespace, "size_pruned")
	mCandidates   = beam.NewCounter(Namespace, "candidates")
	mPositional   = beam.NewCounter(Namespace, "positional")
	mBoundPruned  = beam.NewCounter(Namespace, "count_bound")
	mBitmapPruned = beam.NewCounter(Namespace, "bitmap_bound")
	mVerified     = beam.NewCounter(Namespace, "verified")
	mElsewhere    = beam.NewCounter(Namespace, "found_elsewhere")
	mResults      = beam.NewCounter(Namespace, "results")

	mShuffleRecords = beam.NewCounter(Namespace, "shuffle_records_bytes")
	mShuffleDF      = beam.NewCounter(Namespace, "shuffle_df_bytes")
	mShuffleGroup   = beam.NewCounter(Namespace, "shuffle_group_bytes")

	mUnits         = beam.NewCounter(Namespace, "units")
	mDropped       = beam.NewCounter(Namespace, "dropped")
	mBuckets       = beam.NewCounter(Namespace, "buckets")
	mBucketSize    = beam.NewDistribution(Namespace, "bucket_units")
	mCappedBuckets = beam.NewCounter(Namespace, "capped_buckets")
	mCappedPairs   = beam.NewCounter(Namespace, "capped_pairs")
	mCollisions    = beam.NewCounter(Namespace, "collisions")
	mLSHCandidates = beam.NewCounter(Namespace, "lsh_candidates")

	mShuffleUnits = beam.NewCounter(Namespace, "shuffle_units_bytes")
	mShuffleBands = beam.NewCounter(Namespace, "shuffle_bands_bytes")
	mShuffleFetch = beam.NewCounter(Namespace, "shuffle_fetch_bytes")
	mShuffleCC    = beam.NewCounter(Namespace, "shuffle_components_bytes")

	mUnsettled = beam.NewCounter(Namespace, "components_unsettled_edges")
	mClusters  = beam.NewCounter(Namespace, "clusters")
	mKept      = beam.NewCounter(Namespace, "kept")
)

// addJoinStats adds one group's join statistics to the metrics.
func addJoinStats(c context.Context, st join.Stats) {
	mPostings.Inc(c, st.Postings)
	mSizePruned.Inc(c, st.SizePruned)
	mCandidates.Inc(c, st.Candidates)
	mPositional.Inc(c, st.Positional)
	mBoundPruned.Inc(c, st.BoundPruned)
	mBitmapPruned.Inc(c, st.BitmapPruned)
	mVerified.Inc(c, st.Verified)
}

// Metrics are the pipeline's counters after a run, by name, and the largest
// value of each distribution.
type Metrics struct {
	Counters map[string]int64
	Max      map[string]int64
	// Reported is false when the runner returned no metrics (a job not run,
	// or submitted with --async): the maps are then empty.
	Reported bool
}

// MetricsOf reads the simjoin metrics of a finished pipeline (committed
// values where the runner has them, attempted ones otherwise). A result
// without metrics, even one whose Metrics method cannot answer (the
// portable runner's result of an --async submission panics there), gives
// Metrics with Reported false.
func MetricsOf(r beam.PipelineResult) Metrics {
	m := Metrics{Counters: map[string]int64{}, Max: map[string]int64{}}
	if r == nil {
		return m
	}
	all, ok := resultsOf(r)
	if !ok {
		return m
	}
	m.Reported = true
	res := all.Query(func(sr metrics.SingleResult) bool { return sr.Namespace() == Namespace })
	// A counter incremented by several transforms has one result per
	// transform: sum them (and take the largest of the maxima).
	for _, c := range res.Counters() {
		m.Counters[c.Name()] += c.Result()
	}
	for _, d := range res.Distributions() {
		m.Max[d.Name()] = max(m.Max[d.Name()], d.Result().Max)
	}
	return m
}

// resultsOf returns r's metrics, or false when it has none.
func resultsOf(r beam.PipelineResult) (res metrics.Results, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return r.Metrics(), true
}

// summaryRows lists what the report shows, in order: key, metric, and the
// counter a share is taken of ("" for none).
var summaryRows = []struct{ label, name, of string }{
	{"gzip files", "gzip_files", ""},
	{"zstd files", "zstd_files", ""},
	{"below --min-tokens", "below_min_tokens", ""},
	{"unreadable, skipped", "unreadable_skipped", ""},
	{"records", "records", ""},
	{"skipped (empty)", "skipped", ""},
	{"set tokens", "set_tokens", ""},
	{"vocabulary", "vocabulary", ""},
	{"routed records", "routed", ""},
	{"groups", "groups", ""},
	{"split groups", "split_groups", ""},
	{"postings scanned", "postings", ""},
	{"size filter skipped", "size_pruned", ""},
	{"candidates", "candidates", ""},
	{"  positional filter", "positional", "candidates"},
	{"  count bound", "count_bound", "candidates"},
	{"  bitmap bound", "bitmap_bound", "candidates"},
	{"  verified by merge", "verified", "candidates"},
	{"found in an earlier group", "found_elsewhere", ""},
	{"dropped (min size)", "dropped", ""},
	{"units (distinct sets)", "units", ""},
	{"buckets (2+ units)", "buckets", ""},
	{"capped buckets", "capped_buckets", ""},
	{"capped unit pairs", "capped_pairs", ""},
	{"collisions", "collisions", ""},
	{"lsh candidates", "lsh_candidates", ""},
	{"results", "results", ""},
	{"clusters", "clusters", ""},
	{"kept", "kept", ""},
	{"unsettled edges", "components_unsettled_edges", ""},
	{"shuffle: units", "shuffle_units_bytes", ""},
	{"shuffle: records", "shuffle_records_bytes", ""},
	{"shuffle: frequencies", "shuffle_df_bytes", ""},
	{"shuffle: groups", "shuffle_group_bytes", ""},
	{"shuffle: bands", "shuffle_bands_bytes", ""},
	{"shuffle: fetch", "shuffle_fetch_bytes", ""},
	{"shuffle: components", "shuffle_components_bytes", ""},
}

// ShuffleBytes is the sum of the *_bytes counters.
func (m Metrics) ShuffleBytes() int64 {
	var n int64
	for k, v := range m.Counters {
		if strings.HasSuffix(k, "_bytes") {
			n += v
		}
	}
	return n
}

// WriteSummary writes the metrics as the CLI's --stats report lays out
// its rows: a label, then the figure with thousands separators. Rows of
// metrics the pipeline did not produce are left out.
func (m Metrics) WriteSummary(w io.Writer, head [][2]string) error {
	var b strings.Builder
	row := func(k, v string) { fmt.Fprintf(&b, "%-26s %s\n", k, v) }
	for _, h := range head {
		row(h[0], h[1])
	}
	for _, r := range summaryRows {
		v, ok := m.Counters[r.name]
		if !ok {
			continue
		}
		text := numfmt.Group(v)
		if r.of != "" && m.Counters[r.of] > 0 {
			text += fmt.Sprintf(" (%.1f%%)", 100*float64(v)/float64(m.Counters[r.of]))
		}
		row(r.label, text)
	}
	if g, ok := m.Max["group_records"]; ok {
		row("largest group", numfmt.Group(g))
	}
	if g, ok := m.Max["bucket_units"]; ok {
		row("largest bucket", numfmt.Group(g))
	}
	sh := m.ShuffleBytes()
	row("shuffled bytes", numfmt.Group(sh))
	if n := m.Counters["records"]; n > 0 {
		row("shuffled bytes/record", strconv.FormatFloat(float64(sh)/float64(n), 'f', 1, 64))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
