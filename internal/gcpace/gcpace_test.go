package gcpace

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live, floor int64
		percent     int
		want        int
	}{
		{0, 0, 25, 25},                 // no floor
		{100 * mib, 0, 25, 25},         // no floor
		{0, 32 * mib, 25, 800},         // empty heap: the minimum goal is the floor
		{2 * mib, 32 * mib, 25, 800},   // below 4 MiB: the minimum goal still decides
		{8 * mib, 32 * mib, 25, 300},   // 8 MiB · 4 = 32 MiB
		{16 * mib, 32 * mib, 25, 100},  // 16 MiB · 2
		{26 * mib, 32 * mib, 25, 25},   // 26 · 1.25 > 32: the percentage alone
		{1000 * mib, 32 * mib, 25, 25}, // far above the floor
		{25 * mib, 32 * mib, 50, 50},   // never below the percentage
		{1, 32 << 30, 25, 819_200},     // a 32 GiB floor over 4 MiB
		{0, 1 << 50, 25, maxPercent},   // capped
		{24 * mib, 32 * mib, 25, 33},   // 24 · 1.33 = 32
		{26843546, 32 * mib, 25, 25},   // 1.25 times it just reaches the floor
	} {
		if got := Percent(c.live, c.floor, c.percent); got != c.want {
			t.Errorf("Percent(%d, %d, %d) = %d, want %d", c.live, c.floor, c.percent, got, c.want)
		}
	}
}

// gogc returns the collector's percentage in force.
func gogc(t *testing.T) int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		t.Skip("no /gc/gogc:percent metric")
	}
	return int(s[0].Value.Uint64())
}

// hookRuns returns a channel told of each run of the pacer's hook, which
// runs a while after a collection, on the runtime's cleanup goroutine (the
// hook is set for the test's duration).
func hookRuns(t *testing.T) <-chan struct{} {
	ch := make(chan struct{}, 1)
	f := func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	hooked.Store(&f)
	t.Cleanup(func() { hooked.Store(nil) })
	return ch
}

// collect runs a collection and waits for the pacer's hook to have run
// after it.
func collect(t *testing.T, runs <-chan struct{}) {
	t.Helper()
	select { // a run of an earlier collection
	case <-runs:
	default:
	}
	runtime.GC()
	select {
	case <-runs:
	case <-time.After(10 * time.Second):
		t.Fatal("the pacer's hook did not run after a collection")
	}
}

// waitGOGC collects until the pacer's hook has set a percentage that ok
// accepts: a live heap just freed may take a collection or two to show.
func waitGOGC(t *testing.T, runs <-chan struct{}, ok func(int) bool, what string) {
	t.Helper()
	for range 10 {
		collect(t, runs)
		if ok(gogc(t)) {
			return
		}
	}
	t.Fatalf("percentage %d after ten collections: want %s", gogc(t), what)
}

var sink []byte

// garbageCollections returns the collections that allocating n MiB of
// garbage, one MiB at a time, costs.
func garbageCollections(n int) uint32 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		sink = make([]byte, 1<<20)
	}
	sink = nil
	runtime.ReadMemStats(&after)
	return after.NumGC - before.NumGC
}

// TestFloor: below the floor the percentage rises so that a small heap
// collects rarely; a live heap above the floor gets the percentage alone;
// Stop puts back the percentage that was in force.
func TestFloor(t *testing.T) {
	prev := debug.SetGCPercent(25)
	defer debug.SetGCPercent(prev)
	runtime.GC()
	plain := garbageCollections(48)

	const floor = 64 << 20
	runs := hookRuns(t)
	p := Floor(25, floor)
	if got := gogc(t); got != 1600 {
		t.Fatalf("percentage %d after Floor(25, 64 MiB), want 1600 (a 64 MiB minimum goal)", got)
	}
	waitGOGC(t, runs, func(g int) bool { return g > 100 }, "above 100 for a small live heap")
	paced := garbageCollections(48)
	t.Logf("48 MiB of garbage: %d collections at 25, %d above a 64 MiB floor", plain, paced)
	if paced > 2 || paced*4 > plain {
		t.Errorf("48 MiB of garbage: %d collections above a 64 MiB floor (%d at 25), want at most 2", paced, plain)
	}

	live := make([]byte, 80<<20)
	waitGOGC(t, runs, func(g int) bool { return g == 25 }, "25 for an 80 MiB live heap")
	runtime.KeepAlive(live)
	live = nil
	waitGOGC(t, runs, func(g int) bool { return g > 100 }, "above 100 once the live heap is gone again")

	p.Stop()
	p.Stop()
	if got := gogc(t); got != 25 {
		t.Errorf("percentage %d after Stop, want 25 (in force before Floor)", got)
	}
	collect(t, runs) // the hook armed before Stop runs, and sets nothing
	if got := gogc(t); got != 25 {
		t.Errorf("percentage %d after a collection past Stop, want 25", got)
	}
}

// TestNoFloor: a floor of 0 sets the percentage alone, and Stop puts back
// the previous one.
func TestNoFloor(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	p := Floor(25, 0)
	if got := gogc(t); got != 25 {
		t.Fatalf("percentage %d after Floor(25, 0), want 25", got)
	}
	p.Stop()
	if got := gogc(t); got != 100 {
		t.Errorf("percentage %d after Stop, want 100", got)
	}
}

// cycles returns the number of collections the process has completed.
func cycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestRelease checks that Release collects only when turned on and given
// at least ReleaseMin bytes, and that it then leaves no free page
// unreleased.
func TestRelease(t *testing.T) {
	defer SetRelease(false)
	for _, c := range []struct {
		on      bool
		freed   int64
		collect bool
	}{
		{false, 1 << 30, false},
		{true, ReleaseMin - 1, false},
		{true, ReleaseMin, true},
	} {
		SetRelease(c.on)
		before := cycles()
		Release(c.freed)
		if got := cycles() > before; got != c.collect {
			t.Errorf("Release(%d) with SetRelease(%v): collected %v, want %v", c.freed, c.on, got, c.collect)
		}
	}
	// The pages of dropped arrays between kept ones, collected but still
	// resident, are returned: the heap's free bytes are about 0 right after.
	var keep [][]byte
	for i := range 64 {
		b := make([]byte, 1<<20)
		for j := 0; j < len(b); j += 4096 {
			b[j] = 1 // resident
		}
		if i%2 == 0 {
			keep = append(keep, b)
		}
	}
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(s)
	before := s[0].Value.Uint64()
	SetRelease(true)
	Release(ReleaseMin)
	metrics.Read(s)
	// Other tests' goroutines may free a little meanwhile: at most 1 MiB,
	// or a quarter of what was free before, is left.
	if free := s[0].Value.Uint64(); free >= 1<<20 && free*4 >= before {
		t.Errorf("%d bytes of free heap left resident after Release, of %d before; want less than 1 MiB or a quarter", free, before)
	}
	runtime.KeepAlive(keep)
}

// TestCommand checks that Command paces and releases unless GOGC is set,
// and leaves both alone when it is.
func TestCommand(t *testing.T) {
	defer SetRelease(false)
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	t.Setenv("GOGC", "50")
	if p := Command(); p != nil || release.Load() || gogc(t) != 100 {
		t.Fatalf("with GOGC set: pacer %v, release %v, percentage %d; want none, off, 100", p, release.Load(), gogc(t))
	}
	t.Setenv("GOGC", "")
	p := Command()
	if p == nil || !release.Load() {
		t.Fatalf("without GOGC: pacer %v, release %v; want a pacer, on", p, release.Load())
	}
	p.Stop()
	if got := gogc(t); got != 100 {
		t.Errorf("after Stop: percentage %d, want 100", got)
	}
}
