package memlimit

import (
	"context"
	"errors"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// TestThreadRoom: the threads yet to start take a C stack and, up to eight
// a core, a malloc arena each where the C library starts them, a small Go
// stack otherwise; none once the bound on threads is reached.
func TestThreadRoom(t *testing.T) {
	for _, tc := range []struct {
		a           addressSpace
		procs, cpus int
		want        int64
	}{
		{addressSpace{threads: 5, libc: true, stack: 8 << 20}, 2, 2, 5*(8<<20+4096) + 5*mallocArena},
		{addressSpace{threads: 5, libc: true, stack: 8 << 20}, 2, 1, 5*(8<<20+4096) + 4*mallocArena}, // 8 arenas a core, 4 in use
		{addressSpace{threads: 5, libc: false, stack: 8 << 20}, 2, 2, 5 * goStack},
		{addressSpace{threads: 12, libc: true, stack: 8 << 20}, 2, 2, 0},
		{addressSpace{threads: 1, libc: true, stack: 1 << 20}, 1, 4, 7*(1<<20+4096) + 7*mallocArena},
	} {
		if got := tc.a.threadRoom(tc.procs, tc.cpus); got != tc.want {
			t.Errorf("%+v with %d Ps on %d cores: %d, want %d", tc.a, tc.procs, tc.cpus, got, tc.want)
		}
	}
}

// TestAddressSpaceBound: the address-space limit's bound is hard: Check
// refuses past it and says to raise the limit, Room refuses a bound that
// leaves nothing, and a size given cannot raise it (0, no check, neither).
func TestAddressSpaceBound(t *testing.T) {
	as := Limit{Bytes: 40 << 20, Source: "ulimit -v 1.50 GiB", Reserved: 1496 << 20}
	err := Enough(116<<20, as, "this join")
	if !errors.Is(err, ErrNotEnough) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "ulimit -v 1.50 GiB, less 1.46 GiB") ||
		!strings.Contains(err.Error(), "raise ulimit -v to at least 1.57 GiB") || strings.Contains(err.Error(), "--memory-limit") {
		t.Errorf("Check past the bound: %v", err)
	}
	if err := Enough(10<<20, as, "x"); err != nil || as.Room() != nil {
		t.Errorf("within the bound: %v, %v", err, as.Room())
	}
	none := Limit{Bytes: -3 << 20, Source: "ulimit -v 1.00 GiB", Reserved: 1027 << 20}
	if err := Enough(1, none, "x"); !errors.Is(err, ErrNotEnough) {
		t.Errorf("Check against nothing: %v", err)
	}
	if err := none.Room(); !errors.Is(err, ErrNotEnough) || !strings.Contains(err.Error(), "ulimit -v 1.00 GiB leaves nothing") {
		t.Errorf("Room: %v", err)
	}
	if err := (Limit{}).Room(); err != nil {
		t.Errorf("Room without a bound: %v", err)
	}

	defer func(f func() (Limit, bool)) { asBound = f }(asBound)
	asBound = func() (Limit, bool) { return as, true }
	for s, want := range map[string]Limit{"2GiB": as, "0": as, "10M": {Bytes: 10 << 20, Source: "--memory-limit"}, "": Detect()} {
		if got, err := Given(s, "--memory-limit"); err != nil || got != want {
			t.Errorf("Given(%q) under the bound: %+v, %v; want %+v", s, got, err, want)
		}
	}
}

// TestSetSoftAddressSpace: the address-space bound is what the heap may
// grow by, so the soft limit is that above the memory mapped now.
func TestSetSoftAddressSpace(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	t.Setenv("GOMEMLIMIT", "")
	mapped := goMapped()
	Limit{Bytes: 100 << 20, Source: "ulimit -v 2.00 GiB", Reserved: 1900 << 20}.SetSoft()
	if got := debug.SetMemoryLimit(-1); got < mapped+100<<20 || got > 2*mapped+100<<20 {
		t.Errorf("soft limit %d with %d mapped, want about %d", got, mapped, mapped+100<<20)
	}
}

var sink []byte

// TestWatch: a run that grows past the address-space bound sees its context
// end with ErrNotEnough; other bounds are not watched.
func TestWatch(t *testing.T) {
	ctx := context.Background()
	if got, stop := (Limit{Bytes: 1 << 20, Source: "MemAvailable"}).Watch(ctx); got != ctx {
		t.Error("a bound other than the address space's is watched")
	} else {
		stop()
	}
	w, stop := Limit{Bytes: 1 << 20, Source: "ulimit -v 2.00 GiB", Reserved: 1 << 30}.Watch(ctx)
	defer stop()
	sink = make([]byte, 64<<20)
	for i := range sink {
		sink[i] = 1
	}
	select {
	case <-w.Done():
		if err := context.Cause(w); !errors.Is(err, ErrNotEnough) || !strings.Contains(err.Error(), "raise ulimit -v") {
			t.Errorf("cause %v", err)
		}
	case <-time.After(time.Minute):
		t.Error("64 MiB past a bound of 1 MiB went unseen")
	}
	sink = nil
}
