package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// walkCommands calls f for c and every command below it.
func walkCommands(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		walkCommands(sub, f)
	}
}

// testRoot is the simjoin command as a run builds it, completion and help
// commands included.
func testRoot() *cobra.Command {
	stop := func() {}
	root := newRootCmd(&env{}, &stop)
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	walkCommands(root, func(c *cobra.Command) { c.InitDefaultHelpFlag() })
	root.InitDefaultVersionFlag()
	return root
}

// TestFlagGroups: every flag of every command has a group of its own
// choosing (a new flag must be placed), and the groups of a command's help
// hold each of its visible flags once.
func TestFlagGroups(t *testing.T) {
	walkCommands(testRoot(), func(c *cobra.Command) {
		path := c.CommandPath()
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if _, ok := groupOf(path, f.Name); !ok && !f.Hidden {
				t.Errorf("%s --%s: no flag group (flagGroup in usage.go)", path, f.Name)
			}
		})
		usages := c.LocalFlags().FlagUsages()
		var joined strings.Builder
		n := 0
		for _, s := range flagSections(path, usages) {
			joined.WriteString(s.Lines)
			n += strings.Count(s.Lines, "\n")
		}
		if n != strings.Count(usages, "\n") {
			t.Errorf("%s: the groups hold %d lines of the %d flags' usage:\n%s", path, n, strings.Count(usages, "\n"), joined.String())
		}
	})
}

// TestFlagSections: a command whose flags fall in one group (help and
// version aside) gets cobra's one "Flags" heading; otherwise the groups
// come in groupOrder, and a flag's continuation lines stay with it.
func TestFlagSections(t *testing.T) {
	one := "      --format string   output format\n  -h, --help            help for stats\n"
	if got := flagSections("simjoin index stats", one); len(got) != 1 || got[0].Title != "Flags" || got[0].Lines != one {
		t.Errorf("one group: %+v", got)
	}
	many := "  -j, --workers int    worker goroutines\n" +
		"      --against FILE   R-S join\n" +
		"                       second line of --against\n" +
		"      --exclude IDS    skip these IDS\n"
	got := flagSections("simjoin index search", many)
	want := []flagSection{
		{"Input flags", "      --against FILE   R-S join\n                       second line of --against\n"},
		{"Search flags", "      --exclude IDS    skip these IDS\n"},
		{"Resource flags", "  -j, --workers int    worker goroutines\n"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("section %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}
