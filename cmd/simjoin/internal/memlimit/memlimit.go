// Package memlimit finds how much memory the process may use, so that a run
// too large for it stops with one clear line before its large allocations
// instead of dying in the runtime's out-of-memory crash.
//
// The bound is the smallest of: the cgroup's memory limit (v2 memory.max,
// v1 memory.limit_in_bytes), what the address-space limit (RLIMIT_AS) leaves
// once the Go runtime's own reservations are set aside (AddressSpace), and
// the memory the kernel says is available (MemAvailable in /proc/meminfo).
// Each is read once per call; a source that is missing or unlimited is
// skipped. The address-space bound is hard: a size the user gives cannot
// raise it, since the runtime dies past it. Linux only; elsewhere Detect
// finds no bound.
//
// A command reads its bound once, at the start (Given), refuses at once a
// bound that leaves nothing (Limit.Room), makes it the runtime's soft limit
// (Limit.SetSoft), checks each estimate against it before the large
// allocations (Check), and under the address-space limit watches the
// phases that grow step by step (Limit.Watch).
package memlimit

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"

	"github.com/simjoin/simjoin/internal/numfmt"
)

// Limit is a bound on the memory of the process and where it comes from.
// Bytes 0 means no bound is known, unless Reserved is set.
type Limit struct {
	Bytes  int64
	Source string // "cgroup memory.max", "ulimit -v 2.0 GiB", "MemAvailable", "--memory-limit"
	// Reserved is set for the address-space limit only (AddressSpace): the
	// part of the limit that the runtime reserves for itself, its threads
	// and its heap's growth, so that the limit is Bytes + Reserved. Such a
	// bound is hard, and may leave nothing (Bytes <= 0).
	Reserved int64
}

// hard reports whether l is the address-space limit's bound.
func (l Limit) hard() bool { return l.Reserved > 0 }

// Detect returns the smallest bound the system sets on the process.
func Detect() Limit { return detect("/", asBound) }

// asBound is AddressSpace. Can change for testing.
var asBound = AddressSpace

func rlimitAS() int64 {
	var r syscall.Rlimit
	// RLIM_INFINITY is all ones.
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur > 1<<62 {
		return 0
	}
	return int64(r.Cur)
}

// detect reads the sources under root (a test's fake file tree), and the
// address-space bound from as.
func detect(root string, as func() (Limit, bool)) Limit {
	var best Limit
	take := func(n int64, source string) {
		if n > 0 && (best.Bytes == 0 && !best.hard() || n < best.Bytes) {
			best = Limit{Bytes: n, Source: source}
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
	if l, ok := as(); ok && (best.Bytes == 0 || l.Bytes <= best.Bytes) {
		best = l
	}
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
// never does, but the address-space limit's may): one line naming both
// figures and the limit's source, and what to change.
func Enough(need int64, l Limit, what string) error {
	if l.Bytes <= 0 && !l.hard() || need <= l.Bytes {
		return nil
	}
	if l.hard() {
		return fmt.Errorf("%w: %s needs about %s, more than the %s this process may use (%s, less %s that the Go runtime reserves for itself, its threads and its heap's growth); raise ulimit -v to at least %s",
			ErrNotEnough, what, numfmt.Bytes(need, 1), numfmt.Bytes(max(l.Bytes, 0), 1), l.Source, numfmt.Bytes(l.Reserved, 2), numfmt.Bytes(l.Reserved+need, 2))
	}
	return fmt.Errorf("%w: %s needs about %s, more than the %s this process may use (%s); --memory-limit overrides",
		ErrNotEnough, what, numfmt.Bytes(need, 1), numfmt.Bytes(l.Bytes, 1), l.Source)
}

// Room returns an error when l is the address-space limit's bound and
// leaves a run nothing (Enough would refuse any need): one line saying how
// much the runtime reserves, for a command to stop with before it starts
// the work that would die in the runtime.
func (l Limit) Room() error {
	if !l.hard() || l.Bytes > 0 {
		return nil
	}
	return fmt.Errorf("%w: %s leaves nothing once the Go runtime reserves %s for itself, its threads and its heap's growth; raise it above %s",
		ErrNotEnough, l.Source, numfmt.Bytes(l.Reserved, 2), numfmt.Bytes(l.Reserved, 2))
}

// Given returns the limit a user gave as the size s (ParseSize), its source
// named source (such as a flag), or for s empty the system's bound (Detect).
// The address-space limit's bound stays whatever s says: a larger size, or
// 0 (no check), gives that bound instead.
func Given(s, source string) (Limit, error) {
	if s == "" {
		return Detect(), nil
	}
	n, err := ParseSize(s)
	if err != nil {
		return Limit{}, err
	}
	if as, ok := asBound(); ok && (n == 0 || as.Bytes < n) {
		return as, nil
	}
	return Limit{Bytes: n, Source: source}, nil
}

// SetSoft makes l the Go runtime's soft memory limit (debug.SetMemoryLimit),
// so that the collector works harder before the process runs out; it does
// nothing when l has no bound or the environment sets GOMEMLIMIT, which
// takes precedence. The address-space limit's bound is what the heap may
// grow by: the soft limit is that plus the memory the runtime maps now.
func (l Limit) SetSoft() {
	if l.Bytes <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	n := l.Bytes
	if l.hard() {
		n += goMapped()
	}
	debug.SetMemoryLimit(n)
}

// goMapped returns the memory the Go runtime has mapped read-write
// (runtime/metrics' /memory/classes/total:bytes less what it has released).
func goMapped() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}
