package pipeline

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/prefix"
)

// Line is one output line and the ids it sorts by within its file.
type Line struct {
	A, B uint64
	Text string
}

func init() {
	beam.RegisterType(reflect.TypeFor[Line]())
	register.DoFn2x0[Pair, func(Line)](&formatPairFn{})
	register.Emitter1[Line]()
	register.DoFn2x0[Line, func(int, Line)](&shardFn{})
	register.Emitter2[int, Line]()
	register.DoFn3x1[context.Context, int, func(*Line) bool, error](&writeShardFn{})
	register.Iter1[Line]()
}

// FormatPairs turns pairs into output lines ID_A<TAB>ID_B<TAB>SIM exactly as
// `simjoin join` writes them: ids as ids formats them, the similarity under m
// from the exact overlap (prefix.Measure.AppendSim).
func FormatPairs(s beam.Scope, pairs beam.PCollection, ids IDs, m prefix.Measure) beam.PCollection {
	return beam.ParDo(s.Scope("FormatPairs"), &formatPairFn{Paths: ids.Paths, Files: ids.Files, SFrom: ids.SFrom, Measure: int(m)}, pairs)
}

type formatPairFn struct {
	Paths   []string
	Files   bool
	SFrom   int
	Measure int
}

func (f *formatPairFn) ProcessElement(p Pair, emit func(Line)) {
	ids := IDs{Paths: f.Paths, Files: f.Files, SFrom: f.SFrom}
	m := prefix.Measure(f.Measure)
	// Similarity needs only the measure, not the threshold.
	sim := prefix.NewBounds(m, prefix.Threshold{Num: 1, Den: 1}).Similarity(int(p.Overlap), int(p.SA), int(p.SB))
	b := ids.Append(nil, p.A)
	b = append(b, '\t')
	b = ids.Append(b, p.B)
	b = append(b, '\t')
	b = m.AppendSim(b, sim)
	emit(Line{A: p.A, B: p.B, Text: string(b)})
}

// ShardName is the name of output file i of n under prefix.
func ShardName(prefix string, i, n int) string {
	return fmt.Sprintf("%s-%05d-of-%05d", prefix, i, n)
}

// partial is the name a shard is written under until Commit renames it.
func partial(name string) string { return name + ".partial" }

// WriteLines writes lines to n files named ShardName(prefix, i, n), each sorted
// by (A, B), so that a run writes the same bytes whatever the runner's
// parallelism. The files are written under a temporary name; Commit renames
// them once the pipeline has succeeded, and Abort removes them.
func WriteLines(s beam.Scope, lines beam.PCollection, prefix string, n int) {
	s = s.Scope("WriteLines")
	keyed := beam.ParDo(s, &shardFn{Shards: n}, lines)
	beam.ParDo0(s, &writeShardFn{Prefix: prefix, Shards: n}, beam.GroupByKey(s, keyed))
}

type shardFn struct {
	Shards int
}

func (f *shardFn) ProcessElement(l Line, emit func(int, Line)) {
	emit(int(mix.Mix64(l.A^mix.Mix64(l.B))%uint64(f.Shards)), l)
}

type writeShardFn struct {
	Prefix string
	Shards int
}

func (f *writeShardFn) ProcessElement(ctx context.Context, shard int, it func(*Line) bool) error {
	var lines []Line
	var l Line
	for it(&l) {
		lines = append(lines, l)
	}
	slices.SortFunc(lines, func(x, y Line) int {
		if c := cmp.Compare(x.A, y.A); c != 0 {
			return c
		}
		return cmp.Compare(x.B, y.B)
	})
	name := partial(ShardName(f.Prefix, shard, f.Shards))
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return err
	}
	defer fs.Close()
	wc, err := fs.OpenWrite(ctx, name)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(wc, 1<<16)
	for _, l := range lines {
		w.WriteString(l.Text)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		wc.Close()
		return fmt.Errorf("%s: %w", name, err)
	}
	return wc.Close()
}

// Commit renames the n shards written under prefix into place, creating the
// empty ones no line went to.
func Commit(ctx context.Context, prefix string, n int) error {
	fs, err := filesystem.New(ctx, prefix)
	if err != nil {
		return err
	}
	defer fs.Close()
	for i := range n {
		name := ShardName(prefix, i, n)
		got, err := fs.List(ctx, partial(name))
		if err != nil {
			return err
		}
		if len(got) == 0 {
			if err := filesystem.Write(ctx, fs, name, nil); err != nil {
				return err
			}
			continue
		}
		if err := filesystem.Rename(ctx, fs, partial(name), name); err != nil {
			return err
		}
	}
	return nil
}

// Abort removes the shards a failed run may have left under prefix.
func Abort(ctx context.Context, prefix string, n int) {
	fs, err := filesystem.New(ctx, prefix)
	if err != nil {
		return
	}
	defer fs.Close()
	rm, ok := fs.(filesystem.Remover)
	if !ok {
		return
	}
	for i := range n {
		rm.Remove(ctx, partial(ShardName(prefix, i, n)))
	}
}
