package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

func init() { register(newVersionCmd) }

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of simjoin, from its build information",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(e.stdout, "simjoin", versionText())
			return err
		},
	}
}

// versionText describes the build from its embedded information: the
// module version ("(devel)" for a build from a clone), the commit and its
// time when built in a git checkout ("+dirty" for uncommitted changes), and
// the Go release.
func versionText() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown build)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	parts := []string{v}
	var rev, when, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		parts = append(parts, "commit "+rev[:min(12, len(rev))]+dirty)
	}
	if when != "" {
		parts = append(parts, when)
	}
	parts = append(parts, bi.GoVersion)
	return strings.Join(parts, ", ")
}
