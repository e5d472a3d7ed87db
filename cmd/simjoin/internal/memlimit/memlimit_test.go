package memlimit

import (
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func writeTree(t *testing.T, files map[string]string) string {
	root := t.TempDir()
	for p, s := range files {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(s), 0o644)
	}
	return root
}

func TestDetect(t *testing.T) {
	meminfo := "MemTotal:       16000000 kB\nMemAvailable:    8000000 kB\n"
	as := Limit{Bytes: 1 << 28, Source: "ulimit -v 1.6 GiB", Reserved: 1400 << 20}
	nothing := Limit{Bytes: -5 << 20, Source: "ulimit -v 1.4 GiB", Reserved: 1500 << 20}
	for _, tc := range []struct {
		name  string
		files map[string]string
		as    Limit // the address-space bound, if any
		want  Limit
	}{
		{"meminfo only", map[string]string{"proc/meminfo": meminfo}, Limit{}, Limit{Bytes: 8000000 * 1024, Source: "MemAvailable"}},
		{"cgroup v2 root", map[string]string{"proc/meminfo": meminfo, "sys/fs/cgroup/memory.max": "1073741824\n"}, Limit{}, Limit{Bytes: 1 << 30, Source: "cgroup memory.max"}},
		{"cgroup v2 max", map[string]string{"proc/meminfo": meminfo, "sys/fs/cgroup/memory.max": "max\n"}, Limit{}, Limit{Bytes: 8000000 * 1024, Source: "MemAvailable"}},
		{"cgroup v2 nested", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/box\n", "sys/fs/cgroup/box/memory.max": "536870912\n"}, Limit{}, Limit{Bytes: 1 << 29, Source: "cgroup memory.max"}},
		{"cgroup v1 unlimited", map[string]string{"proc/meminfo": meminfo, "sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n"}, Limit{}, Limit{Bytes: 8000000 * 1024, Source: "MemAvailable"}},
		{"address space", map[string]string{"proc/meminfo": meminfo}, as, as},
		{"address space, smaller cgroup", map[string]string{"proc/meminfo": meminfo, "sys/fs/cgroup/memory.max": "134217728\n"}, as, Limit{Bytes: 1 << 27, Source: "cgroup memory.max"}},
		{"address space leaving nothing", map[string]string{"proc/meminfo": meminfo}, nothing, nothing},
		{"address space alone", map[string]string{}, nothing, nothing},
		{"nothing", map[string]string{}, Limit{}, Limit{}},
	} {
		bound := func() (Limit, bool) { return tc.as, tc.as.Reserved > 0 }
		if got := detect(writeTree(t, tc.files), bound); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if l := Detect(); l.Bytes < 0 && l.Reserved == 0 {
		t.Errorf("Detect: %+v", l)
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{"512M": 512 << 20, "2GiB": 2 << 30, "1.5G": 3 << 29, "1000": 1000, "0": 0, "64kb": 64 << 10, "3 T": 3 << 40} {
		if got, err := ParseSize(s); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "x", "-1G", "1Q", "1e30"} {
		if _, err := ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q) accepted", s)
		}
	}
}

func TestEnough(t *testing.T) {
	if err := Enough(1<<30, Limit{}, "x"); err != nil {
		t.Error(err)
	}
	if err := Enough(1<<20, Limit{Bytes: 1 << 30, Source: "MemAvailable"}, "x"); err != nil {
		t.Error(err)
	}
	err := Enough(3<<30, Limit{Bytes: 1 << 30, Source: "cgroup memory.max"}, "this join")
	if !errors.Is(err, ErrNotEnough) || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), "3.0 GiB") || !strings.Contains(err.Error(), "1.0 GiB") || !strings.Contains(err.Error(), "cgroup") {
		t.Errorf("Enough: %v", err)
	}
}

// TestGiven: a size given is parsed and named by its source; none given is
// the system's bound.
func TestGiven(t *testing.T) {
	defer func(f func() (Limit, bool)) { asBound = f }(asBound)
	asBound = func() (Limit, bool) { return Limit{}, false }
	if l, err := Given("2GiB", "--memory-limit"); err != nil || l != (Limit{Bytes: 2 << 30, Source: "--memory-limit"}) {
		t.Errorf("Given(2GiB) = %+v, %v", l, err)
	}
	if l, err := Given("", "--memory-limit"); err != nil || l.Source == "--memory-limit" {
		t.Errorf("Given(\"\") = %+v, %v; want the system's bound", l, err)
	}
	if _, err := Given("lots", "--memory-limit"); err == nil {
		t.Error("Given(lots): no error")
	}
}

// TestSetSoft: a bound becomes the runtime's soft limit unless GOMEMLIMIT
// is set; no bound leaves it alone.
func TestSetSoft(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	Limit{}.SetSoft()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("no bound: soft limit %d, was %d", got, before)
	}
	Limit{Bytes: 3 << 30}.SetSoft()
	if got := debug.SetMemoryLimit(-1); got != 3<<30 {
		t.Errorf("soft limit %d, want %d", got, 3<<30)
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	Limit{Bytes: 5 << 30}.SetSoft()
	if got := debug.SetMemoryLimit(-1); got != 3<<30 {
		t.Errorf("with GOMEMLIMIT set: soft limit %d, want it left at %d", got, 3<<30)
	}
}
