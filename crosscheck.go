package simjoin

import (
	"context"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/planner"
)

// MeasureLSH measures LSH against the exact join on in's records
// (planner.MeasureLSH): the exact join once, then each banding of opt.Shapes
// (empty: the LSH path's own) opt.Seeds times, with recall, precision, the
// S-curve's predictions and, with opt.Floor, the pairs below the threshold.
// The LSH options are the plan's when in carries one with an LSH path
// (WithPlan), else Options.LSH, with in's measure, threshold and workers;
// opt.LSH is ignored. Options.Progress is told of StageCrossCheck, with the
// LSH runs' counts.
//
// Cost: that of planner.MeasureLSH. ctx cancels it.
func (in *Input) MeasureLSH(ctx context.Context, opt planner.CheckOptions) (*planner.CrossCheck, error) {
	report := progressOf(in.opts.Progress, Progress{Stage: StageCrossCheck})
	defer report(-1, -1, true)
	opt.LSH = in.lshOptions()
	opt.LSH.Progress = func(done, total int) { report(int64(done), int64(total), false) }
	r, s := in.collections()
	return planner.MeasureLSH(ctx, r, s, opt)
}

// lshOptions returns the LSH options MeasureLSH runs: the plan's (WithPlan) when
// it has an LSH path, else Options.LSH, with in's measure, threshold and
// workers.
func (in *Input) lshOptions() approx.Options {
	lsh := in.opts.LSH
	if in.planned != nil {
		if opt, ok := in.planned.LSHOptions(); ok {
			lsh = opt
		}
	}
	lsh.Measure, lsh.Threshold, lsh.Workers = in.opts.Measure, in.t, in.opts.Workers
	return lsh
}
