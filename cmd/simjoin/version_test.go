package main

import (
	"runtime"
	"strings"
	"testing"
)

// TestVersion checks that `simjoin version` and `simjoin --version` print
// the same line, from the build information.
func TestVersion(t *testing.T) {
	out, _ := cliOK(t, "", "version")
	if !strings.HasPrefix(out, "simjoin ") || !strings.HasSuffix(out, runtime.Version()+"\n") || strings.Count(out, "\n") != 1 {
		t.Errorf("simjoin version: %q; want one line naming the build and %s", out, runtime.Version())
	}
	flag, _ := cliOK(t, "", "--version")
	if flag != out {
		t.Errorf("simjoin --version: %q; simjoin version: %q", flag, out)
	}
	if code, _, _ := cliRun(t, "", "version", "extra"); code != exitUsage {
		t.Errorf("simjoin version extra: exit %d, want %d", code, exitUsage)
	}
}
