package report

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
)

// LSH is the LSH part of the statistics report (JSON key "lsh"): the
// join's counters and what the command measured.
type LSH struct {
	approx.Stats
	Banding        string  `json:"banding"`
	Similarities   string  `json:"similarities"` // "exact" or "estimated"
	ExactPairs     int64   `json:"exact_pairs,omitempty"`
	FoundPairs     int64   `json:"found_exact_pairs,omitempty"`
	MeasuredRecall float64 `json:"measured_recall,omitempty"`
	FalsePairs     int64   `json:"false_pairs,omitempty"`
}

// NewLSH is the section of an LSH join that did st, with the recall measured
// against the exact join when it was checked (cc, from planner.MeasureLSH; nil
// when not).
func NewLSH(st *approx.Stats, cc *planner.CrossCheck) *LSH {
	sec := &LSH{Stats: *st, Banding: st.Shape.String(), Similarities: "exact"}
	if st.Estimated {
		sec.Similarities = "estimated"
	}
	if cc != nil {
		r := cc.Bandings[0].Runs[0]
		sec.ExactPairs, sec.FoundPairs, sec.FalsePairs = cc.Pairs, r.Recall.K, r.Precision.N-r.Precision.K
		sec.MeasuredRecall = 1
		if cc.Pairs > 0 {
			sec.MeasuredRecall = r.Recall.Estimate
		}
	}
	return sec
}

// Rows is the text of the LSH section of a join at measure m and threshold t.
func (s *LSH) Rows(m prefix.Measure, t prefix.Threshold) [][2]string {
	f3 := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	choice := "given by --lsh"
	if s.TargetRecall > 0 {
		choice = fmt.Sprintf("cheapest with P(t) >= %v", s.TargetRecall)
	}
	jt := f3(s.JaccardThreshold)
	if m != prefix.Jaccard {
		jt += " (jaccard bound of " + m.String() + " " + t.String() + ")"
	}
	rows := [][2]string{
		{"minhash", fmt.Sprintf("%s, K = %d, %d bits (%d bytes a set), seed %d", s.Scheme, s.K, s.Bits, s.K*s.Bits/8, s.Seed)},
		{"banding", fmt.Sprintf("%d bands x %d rows (%s)", s.Shape.B, s.Shape.R, choice)},
		{"banded at", "jaccard " + jt},
		{"predicted recall", fmt.Sprintf("%s at the threshold (every pair at or above it), %s on average over [t, 1]", f3(s.PredictedRecall), f3(s.PredictedMeanRecall))},
		{"distinct sets", numfmt.Group(int64(s.Units))},
	}
	if s.Dropped > 0 {
		rows = append(rows, [2]string{"dropped (--min-size)", numfmt.Group(int64(s.Dropped))})
	}
	maxB := "no cap"
	if s.MaxBucket >= 0 {
		maxB = "cap " + numfmt.Group(int64(s.MaxBucket))
	}
	rows = append(rows,
		[2]string{"buckets (>= 2 sets)", fmt.Sprintf("%s, largest %s (%s)", numfmt.Group(s.Buckets), numfmt.Group(int64(s.LargestBucket)), maxB)},
		[2]string{"capped buckets", fmt.Sprintf("%s (%s pairs not considered in their band)", numfmt.Group(s.CappedBuckets), numfmt.Group(s.CappedPairs))},
		[2]string{"band collisions", numfmt.Group(s.Collisions)},
		[2]string{"candidates", numfmt.Group(s.Candidates) + " (distinct pairs, each verified once)"},
	)
	if s.Estimated {
		rows = append(rows, [2]string{"verification", "estimate: similarities are MinHash estimates (JSONL key \"est\"), pairs may be false"})
	} else {
		rows = append(rows, [2]string{"verification", "exact: similarities are exact, no false pairs"})
	}
	if s.ExactPairs > 0 || s.MeasuredRecall > 0 {
		rows = append(rows, [2]string{"measured recall", fmt.Sprintf("%s (%s of %s exact pairs; %s false)", f3(s.MeasuredRecall), numfmt.Group(s.FoundPairs), numfmt.Group(s.ExactPairs), numfmt.Group(s.FalsePairs))})
	}
	rows = append(rows,
		[2]string{"memory", fmt.Sprintf("signatures %s, band tables %s", numfmt.Bytes(s.SignatureBytes, 2), numfmt.Bytes(s.IndexBytes, 2))},
		[2]string{"time", fmt.Sprintf("sign %.3f s, band %.3f s, verify %.3f s", s.SignTime.Seconds(), s.BandTime.Seconds(), s.JoinTime.Seconds())},
	)
	return rows
}

// MarshalJSON writes the LSH section: approx.Stats under snake_case names,
// durations in seconds, then what the command measured.
func (s LSH) MarshalJSON() ([]byte, error) {
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
		st.Records, st.Skipped, st.Dropped, st.Units, st.Scheme.String(), st.K, st.Bits, st.Shape.B, st.Shape.R, st.Seed,
		st.TargetRecall, st.JaccardThreshold, st.PredictedRecall, st.PredictedMeanRecall, st.SignatureBytes, st.IndexBytes,
		st.Buckets, st.LargestBucket, st.MaxBucket, st.CappedBuckets, st.CappedPairs, st.Collisions, st.Candidates, st.Results,
		st.SignTime.Seconds(), st.BandTime.Seconds(), st.JoinTime.Seconds(), st.Workers,
		s.Banding, s.Similarities, s.ExactPairs, s.FoundPairs, s.MeasuredRecall, s.FalsePairs,
	})
}
