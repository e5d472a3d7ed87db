package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/simjoin/simjoin/planner"
)

// notApplicable is the annotation of a flag that a command shares with
// others (through addFlags) but does not use; its value says why.
const notApplicable = "simjoin-not-applicable"

// dropFlags hides flags that do not apply to cmd from its help, and makes
// giving one a usage error (checked by checkFlags before the command runs),
// so that no flag is accepted and then ignored.
func dropFlags(cmd *cobra.Command, why string, names ...string) {
	fs := cmd.Flags()
	for _, name := range names {
		fs.MarkHidden(name)
		fs.SetAnnotation(name, notApplicable, []string{why})
	}
}

// checkFlags refuses, before cmd runs, the flags given to it that dropFlags
// marked, and a negative -j/--workers (addWorkersFlag).
func checkFlags(cmd *cobra.Command) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if why, ok := f.Annotations[notApplicable]; ok && err == nil {
			err = usagef("--%s does not apply to %s: %s", f.Name, cmd.CommandPath(), why[0])
		}
	})
	if n, _ := cmd.Flags().GetInt("workers"); n < 0 && err == nil {
		err = usagef("-j/--workers must be >= 0")
	}
	return err
}

// lshOnly are the flags that shape the LSH join alone.
var lshOnly = []string{"lsh", "perm", "bits", "recall", "verify", "seed", "minhash", "max-bucket", "min-size", "check-recall"}

// checkLSHFlags refuses LSH flags when the method that runs is not LSH;
// planned says the planner chose it (--method auto).
func checkLSHFlags(fs *pflag.FlagSet, method planner.Method, planned bool) error {
	switch {
	case method == planner.LSH:
		return nil
	case !planned:
		return refuseGiven(fs, lshOnly, "--%s applies to --method lsh, and the method is exact")
	}
	return refuseGiven(fs, lshOnly, "--%[1]s applies to --method lsh, and the planner chose %[2]s: give --method lsh, or drop --%[1]s", method)
}

// refuseGiven returns a usage error for the first of names given on the
// command line (fs), worded by format with the flag's name as its first
// operand and args after; nil when none is given.
func refuseGiven(fs *pflag.FlagSet, names []string, format string, args ...any) error {
	for _, name := range names {
		if fs.Changed(name) {
			return usagef(format, append([]any{name}, args...)...)
		}
	}
	return nil
}

// given passes the value of a flag to an option whose 0 the library reads as
// its default or as none, where 0 on the command line is no such thing: 0
// becomes -1, which the library refuses as it does any value out of range
// (the command's message quotes the flag's value).
func given[T int | float64](v T) T {
	if v == 0 {
		return -1
	}
	return v
}

// zeroIsNone reads the value v of a flag whose 0 means none, for an option
// whose 0 is the library's default and a negative value none: 0 becomes -1;
// ok is false for a negative v, which the flag refuses.
func zeroIsNone(v int) (_ int, ok bool) {
	if v == 0 {
		return -1, true
	}
	return v, v > 0
}
