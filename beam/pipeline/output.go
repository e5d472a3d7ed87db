package pipeline

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/prefix"
)

// Line is one output line and the ids it sorts by within its file. Named
// ids are filled in by name (see IDs.Names): Named is how many of A and B
// begin the line (1: A; 2: A then B, tab-separated) before Text; Head holds
// A's name while B's is looked up.
type Line struct {
	A, B  uint64
	Text  string
	Named uint8
	Head  string
}

func init() {
	beam.RegisterType(reflect.TypeFor[Line]())
	register.DoFn2x0[Pair, func(Line)](&formatPairFn{})
	register.Emitter1[Line]()
	register.DoFn2x0[Line, func(int, Line)](&shardFn{})
	register.Emitter2[int, Line]()
	register.Function2x0(shardKey)
	register.Emitter2[int, bool]()
	register.DoFn5x1[context.Context, int, func(*Line) bool, func(*bool) bool, func(int), error](&writeShardFn{})
	register.Emitter1[int]()
	register.Iter1[Line]()
	register.Iter1[bool]()
	register.DoFn4x1[context.Context, int, func(*int) bool, func(*string) bool, error](&commitFn{})
	register.Iter1[int]()
	register.Iter1[string]()
	register.Function2x0(lineByA)
	register.Emitter2[uint64, Line]()
	register.Function3x0(nameOf)
	register.Emitter2[uint64, string]()
	register.DoFn5x1[uint64, func(*Line) bool, func(*string) bool, func(Line), func(uint64, Line), error](&nameFn{})
}

// FormatPairs turns pairs into output lines ID_A<TAB>ID_B<TAB>SIM exactly as
// `simjoin join` writes them: ids as ids formats them, the similarity under m
// from the exact overlap (prefix.Measure.AppendSim).
func FormatPairs(s beam.Scope, pairs beam.PCollection, ids IDs, m prefix.Measure) beam.PCollection {
	s = s.Scope("FormatPairs")
	lines := beam.ParDo(s, &formatPairFn{Paths: ids.Paths, Files: ids.Files, SFrom: ids.SFrom, Named: ids.Names.IsValid(), Measure: int(m)}, pairs)
	return nameLines(s, lines, ids)
}

type formatPairFn struct {
	Paths   []string
	Files   bool
	SFrom   int
	Named   bool
	Measure int
}

func (f *formatPairFn) ProcessElement(p Pair, emit func(Line)) {
	ids := IDs{Paths: f.Paths, Files: f.Files, SFrom: f.SFrom}
	m := prefix.Measure(f.Measure)
	// Similarity needs only the measure, not the threshold.
	sim := prefix.NewBounds(m, prefix.Threshold{Num: 1, Den: 1}).Similarity(int(p.Overlap), int(p.SA), int(p.SB))
	if f.Named {
		emit(Line{A: p.A, B: p.B, Named: 2, Text: string(m.AppendSim([]byte{'\t'}, sim))})
		return
	}
	b := ids.Append(nil, p.A)
	b = append(b, '\t')
	b = ids.Append(b, p.B)
	b = append(b, '\t')
	b = m.AppendSim(b, sim)
	emit(Line{A: p.A, B: p.B, Text: string(b)})
}

// nameLines fills in the names of the ids of named lines when ids.Names is
// set; otherwise it returns lines. Cost: a co-group of the lines with the
// names by A, and one more by B for the lines naming both: two shuffles of
// every line and of every record's name.
func nameLines(s beam.Scope, lines beam.PCollection, ids IDs) beam.PCollection {
	if !ids.Names.IsValid() {
		return lines
	}
	s = s.Scope("Names")
	names := beam.ParDo(s, nameOf, ids.Names)
	done, more := beam.ParDo2(s, &nameFn{}, beam.CoGroupByKey(s, beam.ParDo(s, lineByA, lines), names))
	last, _ := beam.ParDo2(s, &nameFn{Second: true}, beam.CoGroupByKey(s, more, names))
	return beam.Flatten(s, done, last)
}

// nameOf keeps the name of a record's info.
func nameOf(id uint64, x Info, emit func(uint64, string)) { emit(id, x.Name) }

// lineByA keys a line by its first id.
func lineByA(l Line, emit func(uint64, Line)) { emit(l.A, l) }

// nameFn names the first id of the lines of one record (the second, with
// Second): a finished line goes to done, a line that still needs B's name
// goes to more, keyed by B.
type nameFn struct {
	Second bool
}

func (f *nameFn) ProcessElement(id uint64, lines func(*Line) bool, names func(*string) bool, done func(Line), more func(uint64, Line)) error {
	var name string
	if !names(&name) {
		name = "" // a line of a record without a name: cannot happen
	}
	field := string(fieldenc.AppendTSV(nil, []byte(name)))
	var l Line
	for lines(&l) {
		switch {
		case f.Second:
			l.Text = l.Head + "\t" + field + l.Text
			l.Head, l.Named = "", 0
			done(l)
		case l.Named == 2:
			l.Head = field
			more(l.B, l)
		default:
			l.Text = field + l.Text
			l.Named = 0
			done(l)
		}
	}
	return nil
}

// ShardName is the name of output file i of n under prefix.
func ShardName(prefix string, i, n int) string {
	return fmt.Sprintf("%s-%05d-of-%05d", prefix, i, n)
}

// partial is the name a shard is written under until the job commits it.
func partial(name string) string { return name + ".partial" }

// WriteLines writes lines to n files named ShardName(prefix, i, n), each
// sorted by (A, B), so that a run writes the same bytes whatever the runner's
// parallelism, and commits them within the job: every shard, empty or not,
// is written under a temporary name (ShardName + ".partial"), and once all n
// are written one last step renames them into place, so the files appear
// only when the job has run to its end, whether the launcher waits for it or
// not (--async).
//
// guards are PCollections of error messages (string): the shards are
// committed only when all of them are empty; otherwise the last step removes
// the temporary files and fails the job with the first message in sorted
// order and the number of others. A job that fails elsewhere leaves its
// temporary files for the launcher's Abort.
func WriteLines(s beam.Scope, lines beam.PCollection, prefix string, n int, guards ...beam.PCollection) {
	s = s.Scope("WriteLines")
	keyed := beam.ParDo(s, &shardFn{Shards: n}, lines)
	every := beam.ParDo(s, shardKey, beam.CreateList(s, shardNumbers(n)))
	written := beam.ParDo(s, &writeShardFn{Prefix: prefix, Shards: n}, beam.CoGroupByKey(s, keyed, every))
	guard := beam.CreateList(s, []string{})
	if len(guards) > 0 {
		guard = beam.Flatten(s, guards...)
	}
	beam.ParDo0(s, &commitFn{Prefix: prefix, Shards: n}, beam.GroupByKey(s, beam.AddFixedKey(s, written)), beam.SideInput{Input: guard})
}

// shardNumbers returns 0, 1, ..., n-1.
func shardNumbers(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// shardKey names a shard that must be written, lines or none.
func shardKey(i int, emit func(int, bool)) { emit(i, true) }

type shardFn struct {
	Shards int
}

func (f *shardFn) ProcessElement(l Line, emit func(int, Line)) {
	emit(int(mix.Mix64(l.A^mix.Mix64(l.B))%uint64(f.Shards)), l)
}

// writeShardFn writes one shard's lines, sorted, under its temporary name
// and emits the shard's number.
type writeShardFn struct {
	Prefix string
	Shards int
}

func (f *writeShardFn) ProcessElement(ctx context.Context, shard int, it func(*Line) bool, _ func(*bool) bool, written func(int)) error {
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
	if err := wc.Close(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	written(shard)
	return nil
}

// commitFn is the job's last step: once every shard is written it checks
// the guards and renames the shards into place. It is idempotent, as a
// runner's retry needs: a shard already renamed is left as it is.
type commitFn struct {
	Prefix string
	Shards int
}

func (f *commitFn) ProcessElement(ctx context.Context, _ int, written func(*int) bool, guard func(*string) bool) error {
	var msgs []string
	var m string
	for guard(&m) {
		msgs = append(msgs, m)
	}
	fs, err := filesystem.New(ctx, f.Prefix)
	if err != nil {
		return err
	}
	defer fs.Close()
	if len(msgs) > 0 {
		removePartials(ctx, fs, f.Prefix, f.Shards)
		slices.Sort(msgs)
		if len(msgs) > 1 {
			return fmt.Errorf("%s (and %d more)", msgs[0], len(msgs)-1)
		}
		return errors.New(msgs[0])
	}
	seen := make([]bool, f.Shards)
	var i int
	for written(&i) {
		seen[i] = true
	}
	for i, ok := range seen {
		if !ok {
			return fmt.Errorf("%s: not written", ShardName(f.Prefix, i, f.Shards))
		}
	}
	for i := range f.Shards {
		name := ShardName(f.Prefix, i, f.Shards)
		tmp, err := fs.List(ctx, partial(name))
		if err != nil {
			return err
		}
		if len(tmp) == 0 {
			if done, err := fs.List(ctx, name); err == nil && len(done) > 0 {
				continue // renamed by an earlier attempt
			}
			return fmt.Errorf("%s: not written", name)
		}
		if err := filesystem.Rename(ctx, fs, partial(name), name); err != nil {
			return err
		}
	}
	return nil
}

// Committed checks, after a job that ran to its end, that all n shards under
// prefix are in place: a shard missing means the job did not write it (a
// runner that accepted the job without running it) and is an error.
func Committed(ctx context.Context, prefix string, n int) error {
	fs, err := filesystem.New(ctx, prefix)
	if err != nil {
		return err
	}
	defer fs.Close()
	for i := range n {
		name := ShardName(prefix, i, n)
		got, err := fs.List(ctx, name)
		if err != nil {
			return err
		}
		if len(got) == 0 {
			return fmt.Errorf("%s: not written by the job", name)
		}
	}
	return nil
}

// Abort removes the temporary shards a failed job may have left under
// prefix.
func Abort(ctx context.Context, prefix string, n int) {
	fs, err := filesystem.New(ctx, prefix)
	if err != nil {
		return
	}
	defer fs.Close()
	removePartials(ctx, fs, prefix, n)
}

// removePartials removes the temporary shards under prefix, where the
// filesystem can remove files.
func removePartials(ctx context.Context, fs filesystem.Interface, prefix string, n int) {
	rm, ok := fs.(filesystem.Remover)
	if !ok {
		return
	}
	for i := range n {
		rm.Remove(ctx, partial(ShardName(prefix, i, n)))
	}
}
