// Package buildinfo describes the running binary from the build information
// that the Go toolchain embeds in it (runtime/debug.ReadBuildInfo): what
// simjoin version and simjoin --version print. It reads nothing else, and
// its answer is the same for every call of a process.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Text describes the build: the module version ("(devel)" for a build from
// a clone), the commit and its time when built in a git checkout ("+dirty"
// for uncommitted changes), and the Go release, separated by commas; or
// "(unknown build)" for a binary without build information.
func Text() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown build)"
	}
	return describe(bi)
}

// describe is Text for the build information bi.
func describe(bi *debug.BuildInfo) string {
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
