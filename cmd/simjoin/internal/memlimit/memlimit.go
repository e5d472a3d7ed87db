// Package memlimit finds how much memory the process may use, so that a run
// too large for it stops with one clear line before its large allocations
// instead of dying in the runtime's out-of-memory crash.
//
// The bound is the smallest of: the cgroup's memory limit (v2 memory.max,
// v1 memory.limit_in_bytes), the address-space limit (RLIMIT_AS), and the
// memory the kernel says is available (MemAvailable in /proc/meminfo). Each
// is read once per call; a source that is missing or unlimited is skipped.
// Linux only; elsewhere Detect finds no bound.
package memlimit

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"

	"github.com/simjoin/simjoin/internal/numfmt"
)

// Limit is a bound on the memory of the process and where it comes from.
// Bytes 0 means no bound is known.
type Limit struct {
	Bytes  int64
	Source string // "cgroup memory.max", "RLIMIT_AS", "MemAvailable", "--memory-limit"
}

// Detect returns the smallest bound the system sets on the process.
func Detect() Limit { return detect("/", rlimitAS) }

func rlimitAS() int64 {
	var r syscall.Rlimit
	// RLIM_INFINITY is all ones.
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur > 1<<62 {
		return 0
	}
	return int64(r.Cur)
}

// detect reads the sources under root (a test's fake file tree).
func detect(root string, rlimit func() int64) Limit {
	var best Limit
	take := func(n int64, source string) {
		if n > 0 && (best.Bytes == 0 || n < best.Bytes) {
			best = Limit{n, source}
		}
	}
	for _, p := range cgroupFiles(root) {
		b, err := os.ReadFile(p.path)
		if err != nil {
			continue
		}
		s := strings.TrimSpace(string(b))
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n < 1<<60 { // v1 writes a huge number for no limit
			take(n, p.source)
		}
	}
	take(rlimit(), "RLIMIT_AS")
	if f, err := os.Open(filepath.Join(root, "proc/meminfo")); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
				fields := strings.Fields(rest)
				if len(fields) >= 1 {
					if kb, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
						take(kb*1024, "MemAvailable")
					}
				}
			}
		}
		f.Close()
	}
	return best
}

type cgroupFile struct{ path, source string }

// cgroupFiles lists the limit files of the process's cgroup, v2 and v1.
func cgroupFiles(root string) []cgroupFile {
	var out []cgroupFile
	add := func(dir string) {
		out = append(out,
			cgroupFile{filepath.Join(root, "sys/fs/cgroup", dir, "memory.max"), "cgroup memory.max"},
			cgroupFile{filepath.Join(root, "sys/fs/cgroup/memory", dir, "memory.limit_in_bytes"), "cgroup memory.limit_in_bytes"})
	}
	add("")
	if b, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup")); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			// v2: "0::/path"; v1: "N:memory:/path"
			parts := strings.SplitN(line, ":", 3)
			if len(parts) == 3 && (parts[1] == "" || strings.Contains(parts[1], "memory")) && parts[2] != "/" && parts[2] != "" {
				add(parts[2])
			}
		}
	}
	return out
}

// ParseSize reads a size such as 512M, 2GiB, 1.5G or 1000000 (bytes; K, M,
// G, T are powers of 1024, with or without "iB" or "B").
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := 1.0
	upper := strings.ToUpper(t)
	for _, suf := range []struct {
		s string
		m float64
	}{{"TIB", 1 << 40}, {"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10},
		{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10},
		{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(upper, suf.s) {
			mult, t = suf.m, strings.TrimSpace(t[:len(t)-len(suf.s)])
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v*mult >= 1<<62 {
		return 0, fmt.Errorf("bad size %q: want a number of bytes such as 512M or 2GiB", s)
	}
	return int64(v * mult), nil
}

// ErrNotEnough is wrapped by Enough's error.
var ErrNotEnough = errors.New("not enough memory")

// Enough returns an error when need bytes exceed the limit (a zero limit
// never does): one line naming both figures and the limit's source.
func Enough(need int64, l Limit, what string) error {
	if l.Bytes <= 0 || need <= l.Bytes {
		return nil
	}
	return fmt.Errorf("%w: %s needs about %s, more than the %s this process may use (%s); --memory-limit overrides",
		ErrNotEnough, what, numfmt.Bytes(need, 1), numfmt.Bytes(l.Bytes, 1), l.Source)
}

// Given returns the limit a user gave as the size s (ParseSize), its source
// named source (such as a flag), or for s empty the system's bound (Detect).
func Given(s, source string) (Limit, error) {
	if s == "" {
		return Detect(), nil
	}
	n, err := ParseSize(s)
	if err != nil {
		return Limit{}, err
	}
	return Limit{Bytes: n, Source: source}, nil
}

// SetSoft makes l the Go runtime's soft memory limit (debug.SetMemoryLimit),
// so that the collector works harder before the process runs out; it does
// nothing when l has no bound or the environment sets GOMEMLIMIT, which
// takes precedence.
func (l Limit) SetSoft() {
	if l.Bytes > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(l.Bytes)
	}
}
