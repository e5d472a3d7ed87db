package report

import (
	"github.com/simjoin/simjoin/join"
)

// ExactJSON is join.Stats in the report's JSON.
type ExactJSON struct {
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

// NewExactJSON converts s (nil gives nil).
func NewExactJSON(s *join.Stats) *ExactJSON {
	if s == nil {
		return nil
	}
	return &ExactJSON{
		Records: s.Records, Skipped: s.Skipped, Groups: s.Groups, IndexEntries: s.IndexEntries,
		Postings: s.Postings, SizePruned: s.SizePruned, LateSkipped: s.LateSkipped,
		Candidates: s.Candidates, Positional: s.Positional, BoundPruned: s.BoundPruned,
		BitmapPruned: s.BitmapPruned, MaskPruned: s.MaskPruned, Verified: s.Verified, Results: s.Results,
		Index: s.IndexTime.Seconds(), Join: s.JoinTime.Seconds(), Workers: s.Workers, Ell: s.Ell,
	}
}
