package main

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"

	"github.com/simjoin/simjoin/beam/pipeline"
)

// buildWorker is how to build the worker binary, for the error that asks for
// one.
const buildWorker = "in beam/: GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build -o simjoin-beam-linux-amd64 ./cmd/simjoin-beam"

// launch checks, before any work, that the job can run as asked, and picks
// the worker binary.
//
// A runner whose SDK harness is a process of its own (a job server with the
// DOCKER or PROCESS environment, as Flink and Spark use; Dataflow) runs the
// pipeline in a linux/amd64 build of this command, staged with the job: the
// binary --worker_binary names, or by default this binary itself when it is
// one. Without it the SDK would run `go build` on every submission, which
// takes minutes and fails outside the module. Prism in-process and the
// LOOPBACK environment run the harness in this process and need none.
//
// --async returns once the job is submitted; the job commits its output
// itself (pipeline.WriteLines). It needs a job that outlives this process:
// not Prism in-process, not the LOOPBACK environment.
func (c *config) launch() error {
	runner := strings.ToLower(*runners.Runner)
	inProcess := (runner == "prism" || runner == "prismrunner") && *jobopts.Endpoint == ""
	local := inProcess || jobopts.IsLoopback()
	if *jobopts.Async && local {
		return usagef("--async needs a job that outlives this process: a job server (--endpoint) with an environment other than LOOPBACK, or Dataflow")
	}
	if local {
		return nil
	}
	bin := *jobopts.WorkerBinary
	if bin == "" {
		if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
			return usagef("--runner %s runs the pipeline in a linux/amd64 binary of this command: build one (%s) and pass it with --worker_binary", runner, buildWorker)
		}
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding this binary to stage as the worker: %w", err)
		}
		bin = self
	}
	if err := checkWorker(bin); err != nil {
		return usagef("--worker_binary %s: %v (build one: %s)", bin, err, buildWorker)
	}
	*jobopts.WorkerBinary = bin
	return nil
}

// checkWorker checks that a file is a linux/amd64 executable.
func checkWorker(name string) error {
	if _, err := os.Stat(name); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return pe.Err
		}
		return err
	}
	f, err := elf.Open(name)
	if err != nil {
		return errors.New("not an ELF executable")
	}
	defer f.Close()
	if f.Class != elf.ELFCLASS64 || f.Machine != elf.EM_X86_64 || f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN ||
		f.OSABI != elf.ELFOSABI_NONE && f.OSABI != elf.ELFOSABI_LINUX {
		return fmt.Errorf("not a linux/amd64 executable (%v %v)", f.Machine, f.OSABI)
	}
	return nil
}

// checkOutput refuses, before any work, the outputs the CLI's -o refuses: a
// prefix whose directory does not exist (the runner would create it), a shard
// name that is a directory (exit status 1, as the CLI's "create" errors), and
// a shard that is one of the inputs (exit status 2). Remote prefixes (with a
// scheme such as gs://) have no directories to check.
func (c *config) checkOutput(in pipeline.Input) error {
	if strings.Contains(c.output, "://") {
		return nil
	}
	first := pipeline.ShardName(c.output, 0, c.shards)
	st, err := os.Stat(filepath.Dir(c.output))
	switch {
	case err != nil:
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("create %s: %w", first, err)
	case !st.IsDir():
		return fmt.Errorf("create %s: not a directory", first)
	}
	var inputs []os.FileInfo
	for _, p := range in.Paths {
		if strings.Contains(p, "://") {
			continue
		}
		if st, err := os.Stat(p); err == nil {
			inputs = append(inputs, st)
		}
	}
	for i := range c.shards {
		name := pipeline.ShardName(c.output, i, c.shards)
		for _, n := range []string{name, name + ".partial"} {
			st, err := os.Stat(n)
			if err != nil {
				continue
			}
			if st.IsDir() {
				return fmt.Errorf("create %s: is a directory", n)
			}
			for _, x := range inputs {
				if os.SameFile(st, x) {
					return usagef("%s: is an input of this run: refusing to overwrite it", n)
				}
			}
		}
	}
	return nil
}

// parseLevel returns the slog level of a --log-level name.
func parseLevel(name string) (slog.Level, error) {
	switch name {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("unknown --log-level %q: want debug, info, warn or error", name)
}

// jobID is the id of the job submitted, as the SDK logs it. Safe for
// concurrent use.
type jobID struct {
	mu sync.Mutex // protects id
	id string
}

func (j *jobID) set(id string) {
	j.mu.Lock()
	j.id = id
	j.mu.Unlock()
}

func (j *jobID) get() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.id
}

// jobLog is a slog handler that passes to Handler what it enables and notes
// in job the id the SDK logs at submission ("Submitted job: ID", level info,
// whatever level is shown): the job id of an --async run, which the
// portable runner's result does not carry.
type jobLog struct {
	slog.Handler
	job *jobID
}

func (h *jobLog) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelInfo || h.Handler.Enabled(ctx, l)
}

func (h *jobLog) Handle(ctx context.Context, r slog.Record) error {
	if id, ok := strings.CutPrefix(r.Message, "Submitted job: "); ok {
		h.job.set(id)
	}
	if !h.Handler.Enabled(ctx, r.Level) {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h *jobLog) WithAttrs(a []slog.Attr) slog.Handler {
	return &jobLog{Handler: h.Handler.WithAttrs(a), job: h.job}
}

func (h *jobLog) WithGroup(name string) slog.Handler {
	return &jobLog{Handler: h.Handler.WithGroup(name), job: h.job}
}

// oneLine reduces an error to one line. A failed job's error carries the
// plan of the failed bundle and a chain of "caused by:" lines, the last of
// which, the DoFn's own error, says what went wrong (such as
// "FILE:LINE: invalid UTF-8"): only it is kept. Other errors keep their
// lines, joined by ": ".
func oneLine(err error) string {
	msg := strings.TrimSpace(err.Error())
	if i := strings.LastIndex(msg, "] failed:\n"); i >= 0 {
		msg = msg[i+len("] failed:\n"):]
	}
	var parts []string
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l == "caused by:" {
			continue
		}
		parts = append(parts, strings.TrimSuffix(l, ":"))
	}
	return strings.Join(parts, ": ")
}
