package main

import (
	"strings"
	"testing"
)

// TestFlagsThatDoNotApply: a flag that does not apply to the command or to
// the method that runs is refused with exit status 2, not ignored, and the
// command's help does not list it.
func TestFlagsThatDoNotApply(t *testing.T) {
	dir := t.TempDir()
	in := cliWrite(t, dir, "in", "a b c\na b c d\nx y z\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plot", "-t", "0.5", "--format", "jsonl", in}, "--format does not apply"},
		{[]string{"plot", "-t", "0.5", "--sort", in}, "--sort does not apply"},
		{[]string{"plot", "-t", "0.5", "--verify", "estimate", in}, "--verify does not apply"},
		{[]string{"dedup", "-t", "0.5", "--against", in, in}, "--against does not apply"},
		{[]string{"dedup", "-t", "0.5", "--sort", in}, "--sort does not apply"},
		{[]string{"explain", "-t", "0.5", "--format", "csv", in}, "--format does not apply"},
		{[]string{"join", "-t", "0.5", "--tokens", "set", "--case", "keep", in}, "--case applies to"},
		{[]string{"join", "-t", "0.5", "--tokens", "qgram:2", "--punct", "keep", in}, "--punct applies to"},
		{[]string{"join", "-t", "0.5", "--method", "exact", "--lsh", "10x5", in}, "--lsh applies to --method lsh"},
		{[]string{"join", "-t", "0.5", "--method", "exact", "--seed", "3", in}, "--seed applies to --method lsh"},
		{[]string{"join", "-t", "0.5", "--lsh", "10x5", in}, "the planner chose exact"},
		{[]string{"dedup", "-t", "0.5", "--method", "exact", "--check-recall", in}, "--check-recall applies"},
	} {
		code, out, stderr := cliRun(t, "", tc.args...)
		if code != exitUsage || out != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, out %q, stderr %q; want 2 and %q", tc.args, code, out, stderr, tc.want)
		}
	}
	noPartial(t, dir)
	// Where they apply, they are taken.
	cliOK(t, "", "join", "-t", "0.5", "--tokens", "words", "--case", "keep", in)
	cliOK(t, "", "join", "-t", "0.5", "--method", "lsh", "--lsh", "10x5", in)
	// Help lists only what applies.
	for cmd, hidden := range map[string][]string{
		"plot":    {"--format", "--sort", "--verify", "--against"},
		"dedup":   {"--against", "--sort"},
		"explain": {"--format", "--stats-json"},
	} {
		out, _ := cliOK(t, "", cmd, "--help")
		for _, h := range hidden {
			if strings.Contains(out, "  "+h+" ") || strings.Contains(out, " "+h+"=") {
				t.Errorf("%s --help lists %s", cmd, h)
			}
		}
	}
}
