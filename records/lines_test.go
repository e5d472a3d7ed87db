package records_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/testkit/race"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/shingle"
)

// lineOpts are the options of a test's read of a Lines source.
type lineOpts struct {
	Name     string      // the source's name
	Workers  int         // records.Options.Workers
	Progress func(int64) // told the bytes read so far (StageLines)
}

// readLines reads r as Load reads a Lines source: into an order.Input, on
// opts.Workers goroutines.
func readLines(r io.Reader, spec shingle.Spec, opts lineOpts) (*order.Input, error) {
	in := &order.Input{Workers: opts.Workers}
	if err := readLinesTo(r, spec, opts, in); err != nil {
		return nil, err
	}
	return in, nil
}

// readKeySets reads r as Load reads a Lines source for the LSH path: into
// key sets, with no token order.
func readKeySets(r io.Reader, spec shingle.Spec, opts lineOpts) (*approx.KeySets, error) {
	var kb records.KeyBatches
	if err := readLinesTo(r, spec, opts, &kb); err != nil {
		return nil, err
	}
	return kb.Sets(opts.Workers), nil
}

func readLinesTo(r io.Reader, spec shingle.Spec, opts lineOpts, to records.Sink) error {
	ro := records.Options{Tokens: spec, Workers: opts.Workers}
	if opts.Progress != nil {
		ro.Progress = func(stage records.Stage, name string) func(done, total int64, end bool) {
			return func(done, _ int64, end bool) {
				if stage == records.StageLines && name == opts.Name && !end {
					opts.Progress(done)
				}
			}
		}
	}
	_, err := records.NewReader(ro).Read(context.Background(), records.Lines(r, opts.Name), 0, to)
	return err
}

// TestReadLines: the sets read are those of each line tokenized alone, in
// line order, for line ends \n and \r\n, a last line without a newline, and
// more lines than one batch, for any number of workers.
func TestReadLines(t *testing.T) {
	var b strings.Builder
	var lines []string
	for i := range 5000 {
		line := fmt.Sprintf("w%d w%d w%d", i%97, i%13, i)
		if i%7 == 0 {
			line = ""
		}
		lines = append(lines, line)
		b.WriteString(line)
		if i%3 == 0 {
			b.WriteString("\r")
		}
		if i < 4999 {
			b.WriteString("\n")
		}
	}
	for _, tokens := range []string{"set", "qgram:2"} {
		spec, err := shingle.Parse(tokens)
		if err != nil {
			t.Fatal(err)
		}
		wantSets := linesSets(t, spec, lines)
		for _, workers := range []int{1, 3, 0} {
			var last int64
			got, err := readLines(strings.NewReader(b.String()), spec, lineOpts{Workers: workers,
				Progress: func(n int64) {
					if n < last {
						t.Errorf("progress went back from %d to %d", last, n)
					}
					last = n
				}})
			if err != nil {
				t.Fatal(err)
			}
			if got.Len() != len(lines) {
				t.Fatalf("%s, %d workers: %d records, want %d", tokens, workers, got.Len(), len(lines))
			}
			gotSets := records.SetsByID(t, got)
			if len(gotSets) != len(wantSets) {
				t.Fatalf("%s, %d workers: %d non-empty sets, want %d", tokens, workers, len(gotSets), len(wantSets))
			}
			for id, w := range wantSets {
				if !slices.Equal(gotSets[id], w) {
					t.Fatalf("%s, %d workers: record %d: %v, want %v", tokens, workers, id, gotSets[id], w)
				}
			}
			// Every line counts its text and one byte for its end.
			want := int64(len(lines))
			for _, line := range lines {
				want += int64(len(line))
			}
			if last != want {
				t.Errorf("%s: progress ended at %d bytes, want %d", tokens, last, want)
			}
		}
	}
}

// linesSets returns the sets of lines, each tokenized alone by AppendSet,
// by record id (SetsByID).
func linesSets(t *testing.T, spec shingle.Spec, lines []string) map[int][]uint64 {
	t.Helper()
	want := new(order.Input)
	for _, line := range lines {
		keys, err := spec.AppendSet(nil, line)
		if err != nil {
			t.Fatal(err)
		}
		want.Add(keys)
	}
	return records.SetsByID(t, want)
}

// errReader fails after its text.
type errReader struct{ r io.Reader }

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		return n, errors.New("disk on fire")
	}
	return n, err
}

// TestReadLinesErrors: a line that does not tokenize is named by its
// number, past the first batch; a read error names the input; neither
// quotes the line.
func TestReadLinesErrors(t *testing.T) {
	text := strings.Repeat("ok\n", 3000) + "secret\xff\n" + "ok\n"
	spec, _ := shingle.Parse("qgram:2")
	_, err := readLines(strings.NewReader(text), spec, lineOpts{Name: "in.txt"})
	var le *records.LineError
	if !errors.As(err, &le) || le.Name != "in.txt" || le.Line != 3001 || !errors.Is(err, shingle.ErrUTF8) {
		t.Fatalf("err = %v, want in.txt:3001 wrapping ErrUTF8", err)
	}
	if got := err.Error(); !strings.HasPrefix(got, "in.txt:3001: ") || strings.Contains(got, "secret") {
		t.Errorf("message %q", got)
	}
	_, err = readLines(&errReader{strings.NewReader("a\nb\n")}, shingle.Spec{}, lineOpts{})
	if !errors.As(err, &le) || le.Line != 0 || err.Error() != "<input>: disk on fire" {
		t.Errorf("read error: %v", err)
	}
}

// TestLineReader: line ends, a last line without one, long lines.
func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 3<<20)
	lr := records.NewLineReader(strings.NewReader("a\r\nb\n\n" + long + "\nc\r"))
	var got []string
	for {
		line, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(line))
	}
	want := []string{"a", "b", "", long, "c\r"}
	if !slices.Equal(got, want) || lr.Line() != 5 {
		t.Errorf("%d lines (last %d), want %d", len(got), lr.Line(), len(want))
	}
}

// TestLongLineMemory: a one-line input's memory follows its distinct tokens,
// not its tokens nor its length: a line of L bytes with few distinct
// tokens, past the length held whole (8 MiB; 1 MiB here), allocates at
// most L/4 bytes (a few blocks and pieces of its text, its distinct keys),
// where the line alone takes L and its grams 8·L, for every tokenizer that
// can cut a line (all but Go). Before, the reader doubled its block until
// it held the line (2 to 5 bytes allocated a byte of it). Measured as an
// allocation ratio.
func TestLongLineMemory(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector drops pooled buffers at random: allocations are not the program's")
	}
	defer records.SetHoldLineBytes(1 << 20)()
	const size = 32 << 20
	line := strings.Repeat("the quick brown fox jumps over the lazy dog ", size/44)
	for _, tokens := range []string{"qgram:2", "set", "words", "shingle:3"} {
		spec, err := shingle.Parse(tokens)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		in, err := readLines(strings.NewReader(line), spec, lineOpts{})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		ratio := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(line))
		t.Logf("%s: %.3f bytes allocated per input byte", tokens, ratio)
		if ratio > 0.25 {
			t.Errorf("%s: %.3f bytes allocated per byte of a one-line input, want at most 0.25", tokens, ratio)
		}
		if in.Len() != 1 {
			t.Errorf("%s: %d records", tokens, in.Len())
		}
	}
}

// TestReadLinesLong: lines longer than a block, held whole (up to 8 MiB)
// or tokenized as they are read (past 1 MiB here), give the sets AppendSet
// gives them whole, among short lines, with \r\n ends (a '\r' at a
// block's end included), a '\r' of its own, and as the last line without
// a newline; one that does not tokenize is named by its line number; for
// every tokenizer (on GOMAXPROCS workers: the reading goroutine tokenizes
// what it streams). -short runs two tokenizers, streamed.
func TestReadLinesLong(t *testing.T) {
	holds := []int{1 << 20, 0}
	if testing.Short() {
		holds = holds[:1] // tokenized as read; the lines held whole are TestReadLines's
	}
	for _, hold := range holds {
		t.Run(fmt.Sprintf("hold=%d", hold), func(t *testing.T) {
			if hold > 0 {
				defer records.SetHoldLineBytes(hold)()
			}
			readLinesLong(t)
		})
	}
}

func readLinesLong(t *testing.T) {
	seed := uint64(11)
	t.Logf("Using rng seed %d.", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	words := []string{"alpha", "beta", "gamma", "é", "字", "x1", "(", "+"}
	long := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(" \t"[r.IntN(2)])
		}
		return b.String()
	}
	// The first line's '\r' of its "\r\n" is the last byte of the second
	// block (blocks of 1 MiB).
	first := long(2 << 20)[:2<<20-2] + "z"
	// The lines after the last long one are read with its end, before the
	// input's end is seen.
	lines := []string{first, "a b", "", "c\rd", long(1<<20 + 12345), "e", long(1<<20 + 5000), "f g", "h"}
	ends := []string{"\r\n", "\n", "\n", "\n", "\n", "\r\n", "\n", "\n", ""}
	var b strings.Builder
	for i, line := range lines {
		b.WriteString(line)
		b.WriteString(ends[i])
	}
	text := b.String()
	kinds := []string{"set", "words", "qgram:2", "shingle:3", "go:2"}
	if testing.Short() {
		kinds = []string{"words", "go:2"} // cut at spaces; held whole
	}
	for _, tokens := range kinds {
		spec, err := shingle.Parse(tokens)
		if err != nil {
			t.Fatal(err)
		}
		wantSets := linesSets(t, spec, lines)
		var last int64
		got, err := readLines(strings.NewReader(text), spec, lineOpts{Progress: func(n int64) { last = n }})
		if err != nil {
			t.Fatal(err)
		}
		if got.Len() != len(lines) {
			t.Fatalf("%s: %d records, want %d", tokens, got.Len(), len(lines))
		}
		gotSets := records.SetsByID(t, got)
		if len(gotSets) != len(wantSets) {
			t.Fatalf("%s: %d non-empty sets, want %d", tokens, len(gotSets), len(wantSets))
		}
		for id, w := range wantSets {
			if !slices.Equal(gotSets[id], w) {
				t.Fatalf("%s: record %d: %d keys, want %d", tokens, id, len(gotSets[id]), len(w))
			}
		}
		if want := int64(len(text) - strings.Count(text, "\r\n") + 1); last != want {
			t.Errorf("%s: progress ended at %d bytes, want %d", tokens, last, want)
		}
	}
	bad := "a\n" + long(2<<20) + "\xff" + long(1<<20) + "\nb\n"
	spec, _ := shingle.Parse("words")
	_, err := readLines(strings.NewReader(bad), spec, lineOpts{Name: "in.txt"})
	var le *records.LineError
	if !errors.As(err, &le) || le.Name != "in.txt" || le.Line != 2 || !errors.Is(err, shingle.ErrUTF8) {
		t.Fatalf("err = %v, want in.txt:2 wrapping ErrUTF8", err)
	}
}

// FuzzReadLines compares the Lines source, which splits the input into batches for
// parallel workers, with the plain reading: LineReader's lines tokenized one
// by one. The sets, their order and the line of the first bad record must
// agree, for any bytes and a few tokenizers and worker counts.
func FuzzReadLines(f *testing.F) {
	for _, seed := range []string{"", "\n", "a b\r\nc\n", "x\xffy\nz", "one\n\ntwo three\r\n\r\nfour", strings.Repeat("w1 w2\n", 3000)} {
		f.Add([]byte(seed), uint8(0), uint8(1))
	}
	specs := []string{"set", "words", "qgram:2", "shingle:2"}
	f.Fuzz(func(t *testing.T, data []byte, kind, workers uint8) {
		spec, err := shingle.Parse(specs[int(kind)%len(specs)])
		if err != nil {
			t.Fatal(err)
		}
		want := new(order.Input)
		wantLine := 0
		lr := records.NewLineReader(bytes.NewReader(data))
		for {
			line, err := lr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			keys, err := spec.AppendSet(nil, string(line))
			if err != nil {
				wantLine = lr.Line()
				break
			}
			want.Add(keys)
		}
		got, err := readLines(bytes.NewReader(data), spec, lineOpts{Name: "f", Workers: int(workers % 4)})
		var le *records.LineError
		switch {
		case wantLine > 0:
			if !errors.As(err, &le) || le.Line != wantLine || le.Name != "f" {
				t.Fatalf("error %v, want one at line %d", err, wantLine)
			}
			return
		case err != nil:
			t.Fatalf("unexpected error %v", err)
		}
		if got.Len() != want.Len() || got.Tokens() != want.Tokens() {
			t.Fatalf("%d records of %d tokens, want %d of %d", got.Len(), got.Tokens(), want.Len(), want.Tokens())
		}
		gs, ws := records.SetsByID(t, got), records.SetsByID(t, want)
		for id, w := range ws {
			if !slices.Equal(gs[id], w) {
				t.Fatalf("record %d: %v, want %v", id, gs[id], w)
			}
		}
		if len(gs) != len(ws) {
			t.Fatalf("%d non-empty sets, want %d", len(gs), len(ws))
		}
	})
}

// TestReadLinesInts: lines of small integers, read as values, give exactly
// the collection and token order of their keys, when every line is values,
// when a later block holds a field that is not (a leading zero, a word, a
// value at shingle.IntLimit), and when the values grow faster than the
// tokens; for any number of workers.
func TestReadLinesInts(t *testing.T) {
	spec, err := shingle.Parse("set")
	if err != nil {
		t.Fatal(err)
	}
	const n = 60_000 // about 2.5 MB: more than two blocks
	for _, odd := range []string{"", "007", "w", fmt.Sprint(shingle.IntLimit), "big"} {
		var b strings.Builder
		var lines []string
		for i := range n {
			var line strings.Builder
			for j := range 5 + i%30 {
				v := (i*7 + j*j*131) % (1000 + i/10)
				if odd == "big" && i > n/2 {
					v = (i * 7919) % (shingle.IntLimit - 1)
				}
				fmt.Fprintf(&line, "%d ", v)
				if j%9 == 8 {
					fmt.Fprintf(&line, "%d\t", v) // a repeat
				}
			}
			if i == n*2/3 && odd != "big" {
				line.WriteString(odd)
			}
			lines = append(lines, line.String())
			b.WriteString(line.String())
			b.WriteString("\n")
		}
		readAsKeys(t, spec, lines, b.String(), fmt.Sprintf("odd field %q", odd))
	}
}

// readAsKeys checks that reading the lines of text, for 1, 2 and 5 workers, builds
// exactly the collection and dictionary of lines entered by their keys
// (spec.AppendSet, Input.Add).
func readAsKeys(t *testing.T, spec shingle.Spec, lines []string, text, name string) {
	t.Helper()
	build := func(in *order.Input) *order.Collection {
		c, err := order.New(in)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ref := new(order.Input)
	for _, line := range lines {
		keys, err := spec.AppendSet(nil, line)
		if err != nil {
			t.Fatal(err)
		}
		ref.Add(keys)
	}
	want := build(ref)
	for _, workers := range []int{1, 2, 5} {
		in, err := readLines(strings.NewReader(text), spec, lineOpts{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		got := build(in)
		name := fmt.Sprintf("%s, %d workers", name, workers)
		if got.Len() != want.Len() || got.Tokens() != want.Tokens() || got.Dict().Len() != want.Dict().Len() {
			t.Fatalf("%s: %d sets, %d tokens, %d distinct; want %d, %d, %d", name, got.Len(), got.Tokens(), got.Dict().Len(),
				want.Len(), want.Tokens(), want.Dict().Len())
		}
		for id := range uint32(want.Dict().Len()) {
			if got.Dict().Key(id) != want.Dict().Key(id) || got.Dict().DF(id) != want.Dict().DF(id) {
				t.Fatalf("%s: token %d differs", name, id)
			}
		}
		for i := range want.Len() {
			if got.ID(i) != want.ID(i) || !slices.Equal(got.Set(i), want.Set(i)) {
				t.Fatalf("%s: set %d differs", name, i)
			}
		}
	}
}

// TestReadLinesGrams: lines of ASCII text under qgram:N, read as values for
// N up to 3, give exactly the collection and order of their keys, when
// every line is ASCII and when a later block holds a line that is not.
func TestReadLinesGrams(t *testing.T) {
	const n = 200_000 // about 2.2 MB: more than two blocks
	for _, odd := range []string{"", "caf\u00e9"} {
		var b strings.Builder
		lines := make([]string, n)
		for i := range lines {
			line := fmt.Sprintf("%c%c%cword%d", 'a'+i%7, 'A'+i%13, '!'+i%11, i%5000)
			if i%17 == 0 {
				line = line[:i%4] // short lines: fewer characters than a gram
			}
			if i == n*3/4 && odd != "" {
				line += odd
			}
			lines[i] = line
			b.WriteString(line)
			b.WriteString("\n")
		}
		for _, q := range []int{2, 3, 4} {
			spec, err := shingle.Parse(fmt.Sprintf("qgram:%d", q))
			if err != nil {
				t.Fatal(err)
			}
			readAsKeys(t, spec, lines, b.String(), fmt.Sprintf("qgram:%d, odd line %q", q, odd))
		}
	}
}
