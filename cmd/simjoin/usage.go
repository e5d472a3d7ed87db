package main

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Flag groups: the headings under which help lists a command's flags, in
// the order a user reaches for them (what to read, how a record becomes a
// set, what counts as similar, the LSH path, how an index names and keeps
// its records, what to write, what the
// command alone does, what the run may use). The generated reference
// (docs/reference, docs/man) lists them the same way.
const (
	groupInput      = "Input"
	groupTokens     = "Token"
	groupSimilarity = "Similarity"
	groupLSH        = "LSH"
	groupRecord     = "Record"
	groupOutput     = "Output"
	groupExplain    = "Explain"
	groupPlot       = "Plot"
	groupSearch     = "Search"
	groupServer     = "Server"
	groupResources  = "Resource"
	groupOther      = "Other"
)

// groupOrder is the order of the headings in help.
var groupOrder = []string{groupInput, groupTokens, groupSimilarity, groupLSH, groupRecord, groupOutput,
	groupExplain, groupPlot, groupSearch, groupServer, groupResources, groupOther}

// flagGroup is the group of each flag by name; groupOf reads
// flagGroupOf first, for a name that means something else in one command.
// TestFlagGroups fails on a flag of any command that has no group.
var flagGroup = map[string]string{
	"against": groupInput, "files": groupInput, "include": groupInput, "exclude": groupInput,
	"min-tokens": groupInput, "keep-going": groupInput, "counts": groupInput,
	"skip-comments": groupInput, "max-line": groupInput, "index": groupInput,

	"tokens": groupTokens, "case": groupTokens, "punct": groupTokens, "go-semicolons": groupTokens,
	"qgram": groupTokens, "fold-case": groupTokens, "fold-leet": groupTokens, "strip-suffix": groupTokens,

	"threshold": groupSimilarity, "measure": groupSimilarity, "method": groupSimilarity, "lsh-margin": groupSimilarity,
	"min-threshold": groupSimilarity, "dedup": groupSimilarity,

	"lsh": groupLSH, "perm": groupLSH, "bits": groupLSH, "recall": groupLSH, "verify": groupLSH,
	"seed": groupLSH, "minhash": groupLSH, "max-bucket": groupLSH, "min-size": groupLSH,
	"check-recall": groupLSH, "bands": groupLSH, "raw-sets": groupLSH, "force": groupLSH, "bloom-fpp": groupLSH,

	"keys": groupRecord, "store": groupRecord, "input-format": groupRecord, "on-conflict": groupRecord,

	"fields": groupOutput, "output": groupOutput, "format": groupOutput, "sort": groupOutput, "stats": groupOutput,
	"stats-json": groupOutput, "families": groupOutput, "clusters": groupOutput,
	"silent": groupOutput, "json": groupOutput,

	"analyze": groupExplain, "cross-check": groupExplain, "cross-seed": groupExplain,

	"scurve": groupPlot, "circle": groupPlot, "shapes": groupPlot, "truth": groupPlot,
	"sample": groupPlot, "seeds": groupPlot,

	"top-k": groupSearch, "refine-k": groupSearch, "only": groupSearch, "estimate": groupSearch,

	"addr": groupServer, "max-body": groupServer, "max-records": groupServer, "max-hits": groupServer, "shutdown-timeout": groupServer,
	"max-queries": groupServer, "max-request-time": groupServer, "auth-token-file": groupServer, "insecure": groupServer,
	"tls-cert": groupServer, "tls-key": groupServer, "backup-dir": groupServer, "compact-deleted": groupServer,

	"workers": groupResources, "memory-limit": groupResources, "batch": groupResources, "in-memory": groupResources,
	"cpuprofile": groupResources,

	"help": groupOther, "version": groupOther, "no-descriptions": groupOther, // cobra's completion
}

// flagGroupOf overrides flagGroup in one command (by its path).
var flagGroupOf = map[string]map[string]string{
	"simjoin index search": {"threshold": groupSearch, "exclude": groupSearch},
}

// groupOf returns the group of flag name in the command at path, and
// whether it has one.
func groupOf(path, name string) (string, bool) {
	if g, ok := flagGroupOf[path][name]; ok {
		return g, true
	}
	g, ok := flagGroup[name]
	return g, ok
}

// flagSection is one heading of a command's flags and their usage lines.
type flagSection struct {
	Title string // "Input flags", or "Flags" when the command has one group
	Lines string // as pflag.FlagSet.FlagUsages prints them, one flag a line
}

// flagLine matches the first line of a flag in pflag's usage text and
// captures its long name.
var flagLine = regexp.MustCompile(`^  (?:-\S, |    )--([^\s=\[]+)`)

// flagSections splits usages, the text fs.FlagUsages printed for the flags
// of the command at path, into its groups in groupOrder, keeping the
// column pflag aligned the whole set on. A flag without a group goes to
// groupOther. A command whose flags fall in one group besides groupOther
// (help and version) has one section, titled "Flags" as cobra titles it.
func flagSections(path, usages string) []flagSection {
	byGroup := map[string]*strings.Builder{}
	var cur *strings.Builder
	for _, l := range strings.SplitAfter(usages, "\n") {
		if l == "" {
			continue
		}
		if m := flagLine.FindStringSubmatch(l); m != nil {
			g, ok := groupOf(path, m[1])
			if !ok {
				g = groupOther
			}
			if byGroup[g] == nil {
				byGroup[g] = &strings.Builder{}
			}
			cur = byGroup[g]
		}
		if cur != nil { // pflag's continuation lines belong to the flag above
			cur.WriteString(l)
		}
	}
	if len(byGroup) == 1 || len(byGroup) == 2 && byGroup[groupOther] != nil {
		return []flagSection{{"Flags", usages}}
	}
	var secs []flagSection
	for _, g := range groupOrder {
		if b := byGroup[g]; b != nil {
			secs = append(secs, flagSection{g + " flags", b.String()})
		}
	}
	return secs
}

// usage writes the usage of c as cobra's default does, with its flags in
// groups (flagSections).
func usage(c *cobra.Command) error {
	w := c.OutOrStderr()
	fmt.Fprint(w, "Usage:")
	if c.Runnable() {
		fmt.Fprintf(w, "\n  %s", c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\n  %s [command]", c.CommandPath())
		fmt.Fprintf(w, "\n\nAvailable Commands:")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				fmt.Fprintf(w, "\n  %-*s %s", sub.NamePadding(), sub.Name(), sub.Short)
			}
		}
	}
	if c.HasAvailableLocalFlags() {
		writeFlagSections(w, c.CommandPath(), c.LocalFlags())
	}
	if c.HasAvailableInheritedFlags() {
		fmt.Fprintf(w, "\n\nGlobal Flags:\n%s", strings.TrimRight(c.InheritedFlags().FlagUsages(), " \n"))
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\n\nUse \"%s [command] --help\" for more information about a command.", c.CommandPath())
	}
	fmt.Fprintln(w)
	return nil
}

// writeFlagSections writes the flags of fs in their groups, each under its
// title, with a blank line before each.
func writeFlagSections(w io.Writer, path string, fs *pflag.FlagSet) {
	for _, s := range flagSections(path, fs.FlagUsages()) {
		fmt.Fprintf(w, "\n\n%s:\n%s", s.Title, strings.TrimRight(s.Lines, " \n"))
	}
}
