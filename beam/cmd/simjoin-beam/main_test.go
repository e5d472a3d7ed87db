package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/cluster"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

const sets = "../../../testdata/sets.txt"

// oracle joins sets.txt as `simjoin join --method exact -t 0.8` does.
func oracle(t *testing.T) []join.Pair {
	t.Helper()
	text, err := os.ReadFile(sets)
	if err != nil {
		t.Fatal(err)
	}
	in := new(order.Input)
	for _, l := range strings.Split(strings.TrimSuffix(string(text), "\n"), "\n") {
		keys, err := shingle.Spec{}.Append(nil, l)
		if err != nil {
			t.Fatal(err)
		}
		in.Add(keys)
	}
	c, err := order.New(in)
	if err != nil {
		t.Fatal(err)
	}
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.8")
	var out []join.Pair
	if _, err := join.SelfJoin(context.Background(), c, join.Options{Threshold: th}, func(p join.Pair) bool {
		out = append(out, p)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func readLines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	l := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	slices.Sort(l)
	return l
}

// TestCommands runs the README's command lines in-process on Prism.
func TestCommands(t *testing.T) {
	dir := t.TempDir()
	pairs := oracle(t)
	var want []string
	f := cluster.New(2000)
	for _, p := range pairs {
		want = append(want, strings.Join([]string{strconv.Itoa(p.A + 1), strconv.Itoa(p.B + 1), string(prefix.Jaccard.AppendSim(nil, p.Sim))}, "\t"))
		f.Union(p.A, p.B)
	}
	slices.Sort(want)
	var kept []string
	for _, i := range f.Firsts() {
		kept = append(kept, strconv.Itoa(i+1))
	}
	slices.Sort(kept)

	var stderr bytes.Buffer
	out := filepath.Join(dir, "pairs")
	if code := run(context.Background(), []string{"join", "-t", "0.8", "--input", sets, "--output", out, "--stats"}, &stderr); code != 0 {
		t.Fatalf("join: exit %d: %s", code, stderr.String())
	}
	if got := readLines(t, out+"-00000-of-00001"); !slices.Equal(got, want) {
		t.Errorf("join: %d lines, want %d", len(got), len(want))
	}
	if !strings.Contains(stderr.String(), "results                    500") {
		t.Errorf("join --stats: no results row of 500:\n%s", stderr.String())
	}
	stderr.Reset()
	out = filepath.Join(dir, "kept")
	if code := run(context.Background(), []string{"dedup", "--method", "exact", "-t", "0.8", "--input", sets, "--output", out}, &stderr); code != 0 {
		t.Fatalf("dedup: exit %d: %s", code, stderr.String())
	}
	if got := readLines(t, out+"-00000-of-00001"); !slices.Equal(got, kept) {
		t.Errorf("dedup: %d kept, want %d", len(got), len(kept))
	}
}

func TestUsage(t *testing.T) {
	x := filepath.Join(t.TempDir(), "x")
	for _, args := range [][]string{
		{},
		{"join", "--input", sets, "--output", x}, // no threshold
		{"join", "-t", "1.5", "--input", sets, "--output", x},                     // out of range
		{"join", "-t", "0.8", "--output", x},                                      // no input
		{"join", "-t", "0.8", "--input", sets, "--output", x, "--method", "auto"}, // no planner
		{"dedup", "-t", "0.8", "--input", sets, "--output", x, "--against", sets},
		{"join", "-t", "0.8", "--input", sets, "--output", x, "--method", "lsh", "--lsh", "40x40"},
		{"join", "-t", "0.8", "--input", sets, "--output", x, "extra"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), args, &stderr); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, stderr.String())
		}
	}
	var stderr bytes.Buffer
	out := filepath.Join(t.TempDir(), "none")
	if code := run(context.Background(), []string{"join", "-t", "0.8", "--input", "/nonexistent/*.txt", "--output", out}, &stderr); code != 1 {
		t.Errorf("missing input: exit %d, want 1 (%s)", code, stderr.String())
	}
	if m, _ := filepath.Glob(out + "*"); len(m) != 0 {
		t.Errorf("a failed run left %q", m)
	}
}
