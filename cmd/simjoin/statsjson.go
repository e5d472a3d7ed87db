package main

import (
	"encoding/json"

	"github.com/simjoin/simjoin/join"
)

// statsSchemaVersion is the version of the --stats-json schema,
// docs/stats.schema.json. It changes when a field is renamed, removed or
// changes meaning; adding a field does not change it.
//
// The schema's rules: names in snake_case; durations in seconds as numbers
// whose names end in "_s"; counts of things as integers; byte counts end in
// "_bytes" or are named "bytes".
const statsSchemaVersion = 1

// exactJSON is join.Stats in the report's JSON.
type exactJSON struct {
	Records      int     `json:"records"`
	Skipped      int     `json:"skipped_empty"`
	Groups       int     `json:"distinct_sets"`
	IndexEntries int     `json:"index_entries"`
	Postings     int64   `json:"postings_scanned"`
	SizePruned   int64   `json:"size_filter_skipped"`
	LateSkipped  int64   `json:"position_skipped"`
	Candidates   int64   `json:"candidates"`
	Positional   int64   `json:"positional_pruned"`
	BoundPruned  int64   `json:"count_bound_pruned"`
	BitmapPruned int64   `json:"bitmap_bound_pruned"`
	MaskPruned   int64   `json:"mask_pruned"`
	Verified     int64   `json:"verified"`
	Results      int64   `json:"results"`
	Index        float64 `json:"index_s"`
	Join         float64 `json:"join_s"`
	Workers      int     `json:"workers"`
	Ell          int     `json:"key_tokens,omitempty"`
}

func newExactJSON(s *join.Stats) *exactJSON {
	if s == nil {
		return nil
	}
	return &exactJSON{
		Records: s.Records, Skipped: s.Skipped, Groups: s.Groups, IndexEntries: s.IndexEntries,
		Postings: s.Postings, SizePruned: s.SizePruned, LateSkipped: s.LateSkipped,
		Candidates: s.Candidates, Positional: s.Positional, BoundPruned: s.BoundPruned,
		BitmapPruned: s.BitmapPruned, MaskPruned: s.MaskPruned, Verified: s.Verified, Results: s.Results,
		Index: s.IndexTime.Seconds(), Join: s.JoinTime.Seconds(), Workers: s.Workers, Ell: s.Ell,
	}
}

// MarshalJSON writes the report with the schema's version and the exact
// join's counters under snake_case names.
func (r *report) MarshalJSON() ([]byte, error) {
	type plain report // without this method
	return json.Marshal(struct {
		Version int `json:"schema_version"`
		*plain
		Exact *exactJSON `json:"exact,omitempty"`
	}{statsSchemaVersion, (*plain)(r), newExactJSON(r.Exact)})
}

// MarshalJSON writes the LSH section: approx.Stats under snake_case names,
// durations in seconds, then what the command measured.
func (s lshSection) MarshalJSON() ([]byte, error) {
	st := &s.Stats
	return json.Marshal(struct {
		Records             int     `json:"records"`
		Skipped             int     `json:"skipped_empty"`
		Dropped             int     `json:"dropped_min_size"`
		Units               int     `json:"distinct_sets"`
		Scheme              string  `json:"minhash"`
		K                   int     `json:"k"`
		Bits                int     `json:"bits"`
		Bands               int     `json:"bands"`
		Rows                int     `json:"rows"`
		Seed                uint64  `json:"seed"`
		TargetRecall        float64 `json:"target_recall"`
		JaccardThreshold    float64 `json:"jaccard_threshold"`
		PredictedRecall     float64 `json:"predicted_recall"`
		PredictedMeanRecall float64 `json:"predicted_mean_recall"`
		SignatureBytes      int64   `json:"signature_bytes"`
		IndexBytes          int64   `json:"band_table_bytes"`
		Buckets             int64   `json:"buckets"`
		LargestBucket       int     `json:"largest_bucket"`
		MaxBucket           int     `json:"max_bucket"`
		CappedBuckets       int64   `json:"capped_buckets"`
		CappedPairs         int64   `json:"capped_pairs"`
		Collisions          int64   `json:"band_collisions"`
		Candidates          int64   `json:"candidates"`
		Results             int64   `json:"results"`
		Sign                float64 `json:"sign_s"`
		Band                float64 `json:"band_s"`
		Join                float64 `json:"verify_s"`
		Workers             int     `json:"workers"`
		Banding             string  `json:"banding"`
		Similarities        string  `json:"similarities"`
		ExactPairs          int64   `json:"exact_pairs,omitempty"`
		FoundPairs          int64   `json:"found_exact_pairs,omitempty"`
		MeasuredRecall      float64 `json:"measured_recall,omitempty"`
		FalsePairs          int64   `json:"false_pairs,omitempty"`
	}{
		st.Records, st.Skipped, st.Dropped, st.Units, st.Scheme, st.K, st.Bits, st.Shape.B, st.Shape.R, st.Seed,
		st.TargetRecall, st.JaccardThreshold, st.PredictedRecall, st.PredictedMeanRecall, st.SignatureBytes, st.IndexBytes,
		st.Buckets, st.LargestBucket, st.MaxBucket, st.CappedBuckets, st.CappedPairs, st.Collisions, st.Candidates, st.Results,
		st.SignTime.Seconds(), st.BandTime.Seconds(), st.JoinTime.Seconds(), st.Workers,
		s.Banding, s.Similarities, s.ExactPairs, s.FoundPairs, s.MeasuredRecall, s.FalsePairs,
	})
}
