// Package pwcheck runs the check of simjoin passwords check: the candidates
// (the arguments, the one password typed at a terminal, or the lines of
// standard input: infile.Batches) are answered a batch at a time, against a
// list's passwords.Index (List) or a persisted index.Index (Index); each
// candidate is counted by the check policy (passwords.CheckStats), its
// matches are written as rows and their similarities counted for the
// statistics report, and Finish turns the policy's verdict into the
// report's "check" section and the command's exit status.
//
// It answers nothing itself (the indexes do) and writes no report: the
// command emits it. Nothing here is safe for concurrent use.
package pwcheck

import (
	"context"
	"io"

	"github.com/simjoin/simjoin/cmd/simjoin/internal/infile"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/outfile"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/report"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/rows"
	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/passwords"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/sink"
)

// ExitTooClose is the exit status of passwords check when a candidate is
// too close to a known password (CheckStats.Rejected); 0 otherwise.
const ExitTooClose = 3

// Prompt is what a terminal on standard input is asked for.
const Prompt = "password to check: "

// Candidates are where a check reads its candidates: Args when there are
// any, else Stdin, prompting on Tty when Stdin is a terminal
// (infile.Batches).
type Candidates struct {
	Args  []string
	Stdin io.Reader
	Tty   io.Writer
}

// Run runs the report's "check" phase: each batch of candidates goes to
// answer, whose results for each candidate (in batch order) are counted,
// their similarities (sim) in the histogram, and written by write with the
// candidate's number (from 1), through w; then w is flushed, and the
// results and the histogram (not for measure m = overlap) go into rep. An
// error of answer or of w stops the check and is returned; the phase is then
// not recorded.
//
// Cost: answer's, and one pass over its results. Memory: one batch and its
// results at a time.
func Run[T any](ctx context.Context, rep *report.Report, in Candidates, w *sink.Writer, m prefix.Measure,
	answer func(batch [][]byte) ([][]T, error), sim func(T) float64, write func(candidate int, x T)) (*passwords.CheckStats, error) {
	tm := rep.Start("check")
	var cs passwords.CheckStats
	var hist report.Histogram
	err := infile.Batches(ctx, in.Args, in.Stdin, in.Tty, Prompt, func(first int, batch [][]byte) error {
		res, err := answer(batch)
		if err != nil {
			return err
		}
		for k, xs := range res {
			cs.Add(batch[k], len(xs))
			for _, x := range xs {
				hist.Add(sim(x))
				write(first+k, x)
			}
		}
		return w.Err()
	})
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return nil, err
	}
	tm.Done()
	rep.SetResults(cs.Matches, &hist, m)
	return &cs, nil
}

// List runs the check against ix, the index of the known list known
// (passwords.Index.LookupAll): Run, with each match written to out as a row
// of rows.Matches in format f.
func List(ctx context.Context, rep *report.Report, in Candidates, out io.Writer, f fieldenc.Format, known *passwords.List, ix *passwords.Index) (*passwords.CheckStats, error) {
	m := ix.Options().Measure
	w := rows.NewMatches(out, f, m == prefix.Overlap)
	return Run(ctx, rep, in, w.Writer, m,
		func(batch [][]byte) ([][]passwords.Match, error) { return ix.LookupAll(ctx, batch) },
		func(x passwords.Match) float64 { return x.Sim },
		func(candidate int, x passwords.Match) { w.Write(candidate, known, x) })
}

// Index runs the check against the persisted index ix at threshold t
// (index.Index.Search): Run, with each hit written to out as a row of
// rows.Hits in format f. The index's errors number a candidate by its place
// in the batch and never quote it.
func Index(ctx context.Context, rep *report.Report, in Candidates, out io.Writer, f fieldenc.Format, ix *index.Index, t prefix.Threshold) (*passwords.CheckStats, error) {
	cfg := ix.Config()
	w := rows.NewHits(out, f, cfg, "candidate", 0)
	return Run(ctx, rep, in, w.Writer, cfg.Measure,
		func(batch [][]byte) ([][]index.Hit, error) {
			return ix.Search(ctx, batch, index.SearchOptions{Threshold: t})
		},
		func(h index.Hit) float64 { return h.Sim },
		func(candidate int, h index.Hit) { w.Write(candidate, h) })
}

// Finish adds the "check" section of cs to rep (after the rows first, if
// any) and returns the command's exit status: ExitTooClose when the policy
// rejects a candidate as too close, else 0.
func Finish(rep *report.Report, cs *passwords.CheckStats, first ...[2]string) int {
	status := 0
	if cs.Rejected() {
		status = ExitTooClose
	}
	sec := report.NewCheck(cs)
	rep.AddSection("check", "candidates", sec, sec.Rows(status, first...))
	return status
}

// Output is where a check writes its rows: out, or nowhere when out is nil
// (passwords check --silent creates no output file).
func Output(out *outfile.File) io.Writer {
	if out == nil {
		return io.Discard
	}
	return out
}
