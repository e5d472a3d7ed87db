package records

import (
	"cmp"
	"context"
	"io"
)

// Source is where the records of one side of a join come from: strings or
// lines tokenized by Options.Tokens, ready sets, or files. Record i of a
// source is its i-th string, set or line; the records of Files are the files
// kept, in the order listed. A Source is a small value that reads nothing
// until a Reader reads it; the zero Source holds no records (the second
// source of a self-join).
type Source struct {
	// read adds the records to to and returns their ids (nil but for Files);
	// Lines and Files stop with ctx's cause when it is cancelled.
	read   func(ctx context.Context, l *Reader, side Side, to Sink) ([]string, error)
	tokens bool // Options.Tokens applies
}

// Sink is where a source puts its records' token keys: an *order.Input, or
// a *KeyBatches (made into approx.KeySets) when the join needs no token
// order. Add takes one
// record's keys in any order, AddBatch records whose keys are sorted and
// distinct.
type Sink interface {
	Add(keys []uint64)
	AddBatch(keys []uint64, offs []int)
}

// Strings is a source of records given as strings, tokenized by
// Options.Tokens on the calling goroutine. A record that does not tokenize
// fails the read with a *RecordError.
func Strings(records []string) Source {
	return Source{func(_ context.Context, l *Reader, side Side, to Sink) ([]string, error) {
		var buf []uint64
		for i, rec := range records {
			l.counts.Bytes += int64(len(rec))
			var err error
			if buf, err = l.opts.Tokens.Append(buf[:0], rec); err != nil {
				return nil, &RecordError{Side: side, Index: i, Err: err}
			}
			to.Add(buf)
		}
		return nil, nil
	}, true}
}

// Sets is a source of ready token sets: sets[i] is the set of record i, in
// any order, duplicates ignored. Tokens are equal when cmp.Compare says so
// (so every NaN is one token, and -0.0 equals 0.0); the two sides of an R-S
// join are compared token by token when both are Sets of the same T (sets of
// different types share no token). Options.Tokens does not apply. Cost: one
// hash-map operation per token to number the tokens.
func Sets[T cmp.Ordered](sets [][]T) Source {
	return Source{func(_ context.Context, l *Reader, side Side, to Sink) ([]string, error) {
		l.counts.Sets = true
		k := keyerOf[T](l)
		var buf []uint64
		for _, set := range sets {
			buf = buf[:0]
			for _, v := range set {
				buf = append(buf, k.key(v))
			}
			to.Add(buf)
		}
		return nil, nil
	}, false}
}

// Lines is a source of one record per line of r: record i is line i+1, its
// line end ("\n" or "\r\n") dropped, named name in errors and progress (a
// path, or "<stdin>"). A line that Options.Tokens cannot tokenize (such as
// invalid UTF-8 where it needs text) stops the read with a *LineError naming
// the line; so does a read error (without a line). r is read to its end, to
// the first error or until the read's ctx is cancelled, and not closed.
//
// Cost: one pass over r on a reading goroutine, which hands blocks of about
// 1 MiB of whole lines to Options.Workers goroutines that split and tokenize
// them; the sets go to the sink in line order. Memory: the sets' keys (8
// bytes per distinct token of each line) and a few blocks of text in
// flight, their buffers reused.
func Lines(r io.Reader, name string) Source {
	return Source{func(ctx context.Context, l *Reader, side Side, to Sink) ([]string, error) {
		report := l.progress(StageLines, name)
		defer report(-1, -1, true)
		var read int64
		defer func() { l.counts.Bytes += read }()
		return nil, readLines(ctx, r, l.opts.Tokens, lineOptions{Name: name, Workers: l.opts.Workers,
			Progress: func(n int64) { read = n; report(n, -1, false) }}, sinkOf(to, &l.counts.Values))
	}, true}
}

// Files is a source of one record per file under paths (files, or
// directories walked in lexical order, hidden entries skipped), selected by
// Options.Files; each file is tokenized whole (gzip and zstd files
// decompressed) on Options.Workers goroutines. Its record ids are the
// paths, as Input.IDs returns them.
func Files(paths ...string) Source {
	return Source{func(ctx context.Context, l *Reader, side Side, to Sink) ([]string, error) {
		return l.readFiles(ctx, paths, to)
	}, true}
}

// keyer numbers the distinct tokens of one join in order of first
// appearance. NaN, which a map never finds again, gets a number of its own.
type keyer[T cmp.Ordered] struct {
	keys   map[T]uint64
	next   *uint64 // shared by the keyers of one join
	nan    uint64
	hasNaN bool
}

// keyerOf returns the join's keyer of T, made on first use.
func keyerOf[T cmp.Ordered](l *Reader) *keyer[T] {
	for _, k := range l.keyers {
		if k, ok := k.(*keyer[T]); ok {
			return k
		}
	}
	k := &keyer[T]{keys: make(map[T]uint64), next: &l.nextKey}
	l.keyers = append(l.keyers, k)
	return k
}

func (k *keyer[T]) key(v T) uint64 {
	if v != v { // only NaN is unequal to itself
		if !k.hasNaN {
			k.nan, k.hasNaN = *k.next, true
			*k.next++
		}
		return k.nan
	}
	id, ok := k.keys[v]
	if !ok {
		id = *k.next
		k.keys[v] = id
		*k.next++
	}
	return id
}
