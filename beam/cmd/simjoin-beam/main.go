// Command simjoin-beam runs simjoin's exact join and its LSH join and dedup
// as Apache Beam pipelines: on Prism, in-process, by default; on Flink, Spark
// or Dataflow with --runner and that runner's flags (see docs/beam.md).
//
//	simjoin-beam join  [flags] --input GLOB --output PREFIX
//	simjoin-beam dedup [flags] --input GLOB --output PREFIX
//
// It only parses flags, builds the pipeline from package pipeline, runs it
// and prints the summary; exit status 2 for usage errors, 1 for runtime ones.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs" // gs:// paths
	blog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/flink"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/spark"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"

	"github.com/simjoin/simjoin/beam/pipeline"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stderr))
}

// usageError is a bad command line: exit status 2.
type usageError struct{ error }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

const usage = `usage: simjoin-beam join|dedup [flags] --input GLOB --output PREFIX

Runs on Prism in-process unless --runner names another runner (flink, spark,
dataflow, universal) with its flags (--endpoint, --environment_type, ...).
Flags:`

// run is the command; it returns the exit status. Beam's worker mode (a
// remote runner starting this binary as its SDK harness, with --worker)
// never returns from beam.Init.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	cmd := ""
	if len(args) > 0 && (args[0] == "join" || args[0] == "dedup") {
		cmd, args = args[0], args[1:]
	}
	// The command's flags and Beam's (--runner, --endpoint, ...: registered
	// on the standard flag set by the SDK's packages) parse together.
	var c config
	fs := flag.NewFlagSet("simjoin-beam", flag.ContinueOnError)
	c.addFlags(fs)
	flag.CommandLine.VisitAll(func(f *flag.Flag) { fs.Var(f.Value, f.Name, f.Usage) })
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "simjoin-beam: unexpected argument %q (inputs are given with --input)\n", fs.Arg(0))
		return 2
	}
	// Prism and the SDK harness log every job step at level info.
	blog.SetupLogging(c.logLevel, "text")
	beam.Init()
	if cmd == "" {
		fmt.Fprintln(stderr, "simjoin-beam: want a command: join or dedup")
		fs.Usage()
		return 2
	}
	c.command = cmd
	err := c.run(ctx, stderr)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "simjoin-beam:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "simjoin-beam:", err)
		return 1
	}
}

// run builds the pipeline, runs it, commits the output and prints the
// summary.
func (c *config) run(ctx context.Context, stderr io.Writer) error {
	if err := c.parse(); err != nil {
		return err
	}
	if *runners.Runner == "" {
		*runners.Runner = "prism"
	}
	in, err := c.input(ctx, stderr)
	if err != nil {
		return err
	}
	p, s := beam.NewPipelineWithRoot()
	records := pipeline.ReadRecords(s, in)
	ids := pipeline.IDsOf(in)
	var lines beam.PCollection
	switch {
	case c.method == "exact":
		pairs := pipeline.ExactJoin(s, records, c.join)
		if c.command == "join" {
			lines = pipeline.FormatPairs(s, pairs, ids, c.join.Measure)
		} else {
			labels := pipeline.Components(s, beam.ParDo(s, pairEdge, pairs), c.rounds)
			lines = pipeline.Kept(s, records, labels, ids, c.clusters)
		}
	default:
		pairs, edges := pipeline.LSHSelfJoin(s, records, c.lsh)
		if c.command == "join" {
			lines = pipeline.FormatPairs(s, pairs, ids, c.join.Measure)
		} else {
			lines = pipeline.Kept(s, records, pipeline.Components(s, edges, c.rounds), ids, c.clusters)
		}
	}
	pipeline.WriteLines(s, lines, c.output, c.shards)
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	res, err := beam.Run(ctx, *runners.Runner, p)
	wall := time.Since(start)
	if err != nil {
		pipeline.Abort(ctx, c.output, c.shards)
		return err
	}
	m := pipeline.MetricsOf(res)
	if n := m.Counters["components_unsettled_edges"]; n > 0 {
		pipeline.Abort(ctx, c.output, c.shards)
		return fmt.Errorf("clusters did not settle in %d rounds (%d edges join different labels): raise --rounds", c.rounds, n)
	}
	if err := pipeline.Commit(ctx, c.output, c.shards); err != nil {
		return err
	}
	if c.stats {
		head := [][2]string{
			{"command", c.command},
			{"input", strings.Join(c.inputs, " ")},
			{"tokens", c.tokens},
			{"measure", c.join.Measure.String() + " >= " + c.join.Threshold.String()},
			{"method", c.methodText()},
			{"runner", *runners.Runner},
		}
		if st := c.listing; st.Listed > 0 {
			head = append(head, [2]string{"files listed", strconv.Itoa(st.Listed)}, [2]string{"files selected", strconv.Itoa(st.Selected)})
			if n := st.NotRegular + st.Dangling + st.Loops; n > 0 {
				head = append(head, [2]string{"not files, skipped", fmt.Sprintf("%d (FIFO, device or socket: %d; link to nothing: %d; link loop: %d)",
					n, st.NotRegular, st.Dangling, st.Loops)})
			}
		}
		if err := m.WriteSummary(stderr, head); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%-26s %.3f s\n", "wall time", wall.Seconds())
	}
	return nil
}

func init() {
	beam.RegisterFunction(pairEdge)
}

// pairEdge is a result pair as an edge of the dedup graph.
func pairEdge(p pipeline.Pair) (uint64, uint64) { return p.A, p.B }
