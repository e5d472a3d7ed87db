package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestDescribe: the version, the commit cut to 12 digits with its time and
// whether the tree was modified, and the Go release.
func TestDescribe(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, c := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{GoVersion: "go1.26"}, "(devel), go1.26"},
		{debug.BuildInfo{GoVersion: "go1.26", Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3, go1.26"},
		{debug.BuildInfo{GoVersion: "go1.26", Settings: vcs("vcs.revision", "0123456789abcdef", "vcs.time", "2026-01-02T03:04:05Z", "vcs.modified", "true")},
			"(devel), commit 0123456789ab+dirty, 2026-01-02T03:04:05Z, go1.26"},
		{debug.BuildInfo{GoVersion: "go1.26", Settings: vcs("vcs.revision", "abc", "vcs.modified", "false")}, "(devel), commit abc, go1.26"},
	} {
		if got := describe(&c.bi); got != c.want {
			t.Errorf("describe(%+v) = %q, want %q", c.bi, got, c.want)
		}
	}
	if got := Text(); !strings.HasSuffix(got, runtime.Version()) {
		t.Errorf("Text() = %q, want it to end with %s", got, runtime.Version())
	}
}
