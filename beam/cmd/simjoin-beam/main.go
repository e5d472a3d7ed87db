// Command simjoin-beam runs simjoin's exact join and its LSH join and dedup
// as Apache Beam pipelines: on Prism, in-process, by default; on Flink, Spark
// or Dataflow with --runner and that runner's flags (see docs/beam.md).
//
//	simjoin-beam join  [flags] --input GLOB --output PREFIX
//	simjoin-beam dedup [flags] --input GLOB --output PREFIX
//
// It only parses flags, builds the pipeline from package pipeline, runs it
// and prints the summary; exit status 2 for usage errors, 1 for runtime ones,
// each with one line on stderr (the runner's logs only with --verbose).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs" // gs:// paths
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
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
	fs.SetOutput(io.Discard) // errors are told in one line below
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stderr, usage)
		fs.SetOutput(stderr)
		fs.PrintDefaults()
		return 0
	} else if err != nil {
		fmt.Fprintf(stderr, "simjoin-beam: %v (-h lists the flags)\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "simjoin-beam: unexpected argument %q (inputs are given with --input)\n", fs.Arg(0))
		return 2
	}
	c.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { c.set[f.Name] = true })
	level, err := parseLevel(c.logLevel)
	if err != nil {
		fmt.Fprintln(stderr, "simjoin-beam:", err)
		return 2
	}
	beam.Init()
	// The runner's and the SDK's logs (Prism logs every job step, and a
	// failed bundle with its whole plan) go to stderr only with --verbose;
	// the job id of an --async submission is read from them either way.
	// (beam.Init sets up the SDK's default logging: this replaces it.)
	logs := io.Discard
	if c.verbose {
		logs = stderr
	}
	c.submitted = new(jobID)
	slog.SetDefault(slog.New(&jobLog{Handler: slog.NewTextHandler(logs, &slog.HandlerOptions{Level: level}), job: c.submitted}))
	if cmd == "" {
		fmt.Fprintln(stderr, "simjoin-beam: want a command: join or dedup (-h lists the flags)")
		return 2
	}
	c.command = cmd
	err = c.run(ctx, stderr)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "simjoin-beam:", oneLine(err))
		return 2
	default:
		fmt.Fprintln(stderr, "simjoin-beam:", oneLine(err))
		return 1
	}
}

// run builds the pipeline, runs it and prints the summary.
func (c *config) run(ctx context.Context, stderr io.Writer) error {
	if err := c.parse(); err != nil {
		return err
	}
	if *runners.Runner == "" {
		*runners.Runner = "prism"
	}
	if err := c.launch(); err != nil {
		return err
	}
	in, err := c.input(ctx, stderr)
	if err != nil {
		return err
	}
	if err := c.checkOutput(in); err != nil {
		return err
	}
	p, s := beam.NewPipelineWithRoot()
	records, info := pipeline.ReadInput(s, in)
	ids := pipeline.IDsOf(in)
	var guards []beam.PCollection
	if in.JSONL.ID != "" {
		ids.Names = info
		guards = append(guards, pipeline.RepeatedNames(s, info, ids))
	}
	var lines beam.PCollection
	switch {
	case c.command == "join" && c.method == "exact":
		lines = pipeline.FormatPairs(s, pipeline.ExactJoin(s, records, c.join), ids, c.join.Measure)
	case c.command == "join":
		pairs, _ := pipeline.LSHSelfJoin(s, records, c.lsh)
		lines = pipeline.FormatPairs(s, pairs, ids, c.join.Measure)
	default:
		var edges beam.PCollection
		if c.method == "exact" {
			edges = pipeline.ExactLinks(s, records, c.join)
		} else {
			edges = pipeline.LSHLinks(s, records, c.lsh)
		}
		labels := pipeline.Components(s, edges, c.rounds)
		guards = append(guards, pipeline.Unsettled(s, edges, labels, c.rounds))
		lines = pipeline.DedupLines(s, records, labels, info, ids, c.dedup)
	}
	pipeline.WriteLines(s, lines, c.output, c.shards, guards...)
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
	switch {
	case res == nil:
		// Dataflow's --dry_run and --template_location: the job was not run.
		fmt.Fprintln(stderr, "simjoin-beam: the job was not run (a dry run or a template): nothing written")
		return nil
	case *jobopts.Async:
		id := c.submitted.get()
		if r, ok := res.(interface{ JobID() string }); ok && r.JobID() != "" {
			id = r.JobID()
		}
		if id == "" {
			id = "(id not reported)"
		}
		fmt.Fprintf(stderr, "simjoin-beam: job %s submitted; %s-*-of-%05d appear when it succeeds\n", id, c.output, c.shards)
		return nil
	}
	if err := pipeline.Committed(ctx, c.output, c.shards); err != nil {
		return err
	}
	if c.stats {
		m := pipeline.MetricsOf(res)
		if !m.Reported {
			fmt.Fprintf(stderr, "%-26s %s\n", "metrics", "not reported by the runner")
		} else if err := m.WriteSummary(stderr, c.summaryHead()); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%-26s %.3f s\n", "wall time", wall.Seconds())
	}
	return nil
}

// summaryHead is the head of --stats: what ran on what.
func (c *config) summaryHead() [][2]string {
	head := [][2]string{
		{"command", c.command},
		{"input", strings.Join(c.inputs, " ")},
		{"tokens", c.tokens},
		{"measure", c.join.Measure.String() + " >= " + c.join.Threshold.String()},
		{"method", c.methodText()},
		{"runner", *runners.Runner},
	}
	if len(c.against) > 0 {
		head = append(head[:2], append([][2]string{{"against", strings.Join(c.against, " ")}}, head[2:]...)...)
	}
	if st := c.listing; st.Listed > 0 {
		head = append(head, [2]string{"files listed", strconv.Itoa(st.Listed)}, [2]string{"files selected", strconv.Itoa(st.Selected)})
		if n := st.NotRegular + st.Dangling + st.Loops; n > 0 {
			head = append(head, [2]string{"not files, skipped", fmt.Sprintf("%d (FIFO, device or socket: %d; link to nothing: %d; link loop: %d)",
				n, st.NotRegular, st.Dangling, st.Loops)})
		}
	}
	return head
}
