package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin/cmd/simjoin/internal/buildinfo"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/cpuprofile"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/outfile"
	rpt "github.com/simjoin/simjoin/cmd/simjoin/internal/report"
)

// Exit statuses.
const (
	exitOK      = 0
	exitRuntime = 1
	exitUsage   = 2
)

// usageError marks an error as the user's: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// exitError carries an explicit exit status (such as passwords check's 3);
// the command has said why.
type exitError struct{ code int }

func (e exitError) Error() string { return "exit status " + strconv.Itoa(e.code) }

// env is what a command reads and writes; tests give their own.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// outs are the output files of the run: committed together when the
	// command succeeds, removed otherwise.
	outs *outfile.Set
}

// commands lists the constructors of the subcommands; each file adds its own.
var commands []func(*env) *cobra.Command

func register(f func(*env) *cobra.Command) { commands = append(commands, f) }

// run executes the command line and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdin, stdout, stderr)
}

// runContext is run under ctx: when ctx ends with an outfile.Interrupted
// cause (a signal), the outputs are removed and the status is the signal's.
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, outs: outfile.NewSet(stdout)}
	// A command sets the soft memory limit (--memory-limit); the caller's
	// is back when the run ends.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	stopProfile := func() {}
	root := newRootCmd(e, &stopProfile)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	stopProfile()
	var ee exitError
	isExit := errors.As(err, &ee)
	// Every output appears, or none does.
	sig, cerr := e.outs.Finish(ctx, err == nil || isExit)
	if sig != nil {
		fmt.Fprintln(stderr, "simjoin:", outfile.Interrupted{Signal: sig})
		return outfile.ExitCode(sig)
	}
	if cerr != nil {
		err, isExit = cerr, false
	}
	if err == nil {
		return exitOK
	}
	if isExit {
		return ee.code
	}
	fmt.Fprintln(stderr, "simjoin:", rpt.Plain(inFlags(err)))
	// cobra reports an unknown command of simjoin as a plain error, before
	// any of the command's checks.
	var ue usageError
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command ") {
		return exitUsage
	}
	return exitRuntime
}

// newRootCmd returns the simjoin command with every subcommand, reading and
// writing through e. The run started by --cpuprofile is stopped by
// *stopProfile, which the command sets before it runs.
func newRootCmd(e *env, stopProfile *func()) *cobra.Command {
	var cpuProfile string
	root := &cobra.Command{
		Use:           "simjoin",
		Short:         "Find every pair of similar records",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFlags(cmd); err != nil {
				return err
			}
			if cpuProfile == "" {
				return nil
			}
			// An output of the run: it appears when the run ends well,
			// and may be no other output or input.
			f, err := e.create(cpuProfile)
			if err == nil {
				*stopProfile, err = cpuprofile.Start(f)
			}
			if err != nil {
				return fmt.Errorf("--cpuprofile: %w", err)
			}
			return nil
		},
	}
	root.PersistentFlags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile to `FILE`")
	root.Version = buildinfo.Text() // --version, as the version command prints it
	root.SetVersionTemplate("simjoin {{.Version}}\n")
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return usageError{err} })
	root.SetUsageFunc(usage)
	for _, f := range commands {
		root.AddCommand(f(e))
	}
	usageArgs(root)
	return root
}

// usageArgs makes the argument checks of cmd and its subcommands (cobra's
// ExactArgs and the like, whose errors are plain) return usage errors.
func usageArgs(cmd *cobra.Command) {
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return usageError{err}
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		usageArgs(sub)
	}
}
