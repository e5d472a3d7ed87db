package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // local paths
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/simjoin/simjoin/beam/internal/jsonl"
	"github.com/simjoin/simjoin/internal/decompress"
	"github.com/simjoin/simjoin/internal/eol"
	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/internal/fileset"
	"github.com/simjoin/simjoin/shingle"
)

// DefaultSpanBytes is the byte range one worker reads at a time: a file is cut
// into spans of this size, whose newlines are counted in parallel before the
// lines are read and numbered, in parallel too.
const DefaultSpanBytes = 32 << 20

// Input describes what a pipeline reads. Build it with ListInput.
type Input struct {
	// Paths are the input files in order; a record's id names the file by its
	// index here. Sizes are their lengths in bytes.
	Paths []string
	Sizes []int64
	// Compressed marks, by file, the files that start with the magic bytes
	// of gzip or zstd (internal/decompress, as the CLI recognises them): such
	// a file is read whole by one worker and decompressed as it is read.
	// ListInput fills it for line inputs; with Files every file is checked
	// as it is read.
	Compressed []bool
	// SFrom is the index in Paths of the first file of S in an R-S join
	// (0: a self-join).
	SFrom int
	// Files makes every file one record (the CLI's --files); otherwise every
	// line of every file is one.
	Files bool
	// Tokens says how a record becomes a set.
	Tokens shingle.Spec
	// JSONL reads every line as a JSON object (see JSONL); the zero value
	// reads plain lines. Not with Files.
	JSONL JSONL
	// Info says which parts of every record's Info ReadInput emits (a
	// JSONL.ID implies InfoName); 0: none.
	Info InfoParts
	// MinTokens drops, with Files, the files of fewer distinct tokens
	// (counted as below_min_tokens); KeepGoing skips, with Files, a file that
	// cannot be read or tokenized (counted as unreadable_skipped) instead of
	// failing the run: the CLI's --min-tokens and --keep-going.
	MinTokens int
	KeepGoing bool
	// SpanBytes is the size of the byte ranges read in parallel; 0 means
	// DefaultSpanBytes. Record ids do not depend on it.
	SpanBytes int64
}

// JSONL names the fields of a JSON Lines input: every line is one JSON
// object whose field Field, a string, is the record's text and, when ID is
// not empty, whose field ID, a non-empty string or a number, is the record's
// id in every output (a number written as it is spelled; see IDs.Names).
// Lines are read strictly (package beam/internal/jsonl). The zero value
// reads plain lines.
type JSONL struct {
	Field string
	ID    string
}

// InfoParts is a set of the parts of Info.
type InfoParts uint8

// The parts of Info.
const (
	InfoName InfoParts = 1 << iota // Info.Name
	InfoText                       // Info.Text
	InfoLen                        // Info.Len
)

// Info is what the outputs may need of a record besides its set: its id as
// the input gives it, its text, its length. ReadInput emits it keyed by the
// record's id, with the parts Input.Info asks for (the others are zero).
type Info struct {
	// Name is the record's id as the input gives it (JSONL.ID); "" when the
	// input gives none and ids are formatted from the record's position.
	Name string
	// Text is the record's input line without its line ending (a JSONL
	// line whole, not only its text field).
	Text string
	// Len is the length in bytes of the record's text: the line's, the text
	// field's (decoded), or the file's (decompressed) with Files.
	Len int64
}

// Selection is the CLI's selection of --files (internal/fileset) for local
// paths: directories walked in lexical order (hidden entries skipped, links to
// directories not followed), files kept by Filter's --include and --exclude
// globs, and, with KeepGoing, FIFOs, devices, sockets, links to nothing, link
// loops and unreadable directories counted in Stats, told to Warn and skipped
// instead of failing the run. MinTokens and KeepGoing also apply when the
// files are read (see Input).
type Selection struct {
	Filter    *fileset.Filter // nil: every file; share one between R and S as the CLI does
	MinTokens int
	KeepGoing bool
	Warn      func(error) // with KeepGoing: told of each file skipped at listing; may be nil
	Stats     *fileset.Stats
}

// ListInput expands globs (local paths, or any scheme a Beam filesystem is
// registered for, such as gs://) at pipeline construction, in the order
// given, each glob's matches sorted, and returns the input. A glob that
// matches nothing is an error, as is a file listed twice.
//
// With files and sel not nil, local inputs are selected as the CLI's
// `simjoin join --files` selects them (see Selection and internal/fileset):
// a glob's matches (or a path without glob characters, as given) are the
// INPUT arguments of fileset.List, directories among them walked, so the same
// files come in the same order with the same ids. Remote paths (a scheme such
// as gs://) keep the plain glob expansion: no directory walk, and Filter and
// KeepGoing are an error there; MinTokens applies to them too.
func ListInput(ctx context.Context, globs []string, files bool, spec shingle.Spec, sel *Selection) (Input, error) {
	in := Input{Files: files, Tokens: spec}
	if files && sel != nil {
		in.MinTokens, in.KeepGoing = sel.MinTokens, sel.KeepGoing
	}
	seen := map[string]bool{}
	add := func(n string, size int64) error {
		if seen[n] {
			return fmt.Errorf("%s: listed twice", n)
		}
		seen[n] = true
		in.Paths = append(in.Paths, n)
		in.Sizes = append(in.Sizes, size)
		return nil
	}
	var local []string // the INPUT arguments of fileset.List
	for _, g := range globs {
		if files && sel != nil && !strings.Contains(g, "://") {
			if !hasGlobMeta(g) {
				local = append(local, g)
				continue
			}
			m, err := filepath.Glob(g)
			if err != nil {
				return in, fmt.Errorf("%s: %w", g, err)
			}
			if len(m) == 0 {
				return in, fmt.Errorf("%s: no such file", g)
			}
			local = append(local, m...) // sorted by filepath.Glob
			continue
		}
		if files && sel != nil && (sel.Filter != nil || sel.KeepGoing) {
			return in, fmt.Errorf("%s: --include, --exclude and --keep-going apply to local paths only", g)
		}
		fs, err := filesystem.New(ctx, g)
		if err != nil {
			return in, err
		}
		names, err := fs.List(ctx, g)
		if err != nil {
			fs.Close()
			return in, fmt.Errorf("%s: %w", g, err)
		}
		if len(names) == 0 {
			fs.Close()
			return in, fmt.Errorf("%s: no such file", g)
		}
		slices.Sort(names)
		for _, n := range names {
			size, err := fs.Size(ctx, n)
			if err == nil {
				err = add(n, size)
			}
			if err == nil && !files {
				var f decompress.Format
				f, err = detect(ctx, fs, n)
				in.Compressed = append(in.Compressed, f != decompress.None)
			}
			if err != nil {
				fs.Close()
				return in, fmt.Errorf("%s: %w", n, err)
			}
		}
		fs.Close()
	}
	if len(local) == 0 {
		return in, nil
	}
	st := sel.Stats
	if st == nil {
		st = new(fileset.Stats)
	}
	filter := sel.Filter
	if filter == nil {
		filter, _ = fileset.NewFilter(nil, nil)
	}
	var warn func(error)
	if sel.KeepGoing {
		warn = func(err error) {
			if sel.Warn != nil {
				sel.Warn(err)
			}
		}
	}
	list, err := fileset.List(local, filter, st, warn)
	if err != nil {
		return in, err
	}
	for _, f := range list {
		if f.Size == 0 { // a file given as an argument: the listing has no size
			if info, err := os.Stat(f.ID); err == nil {
				f.Size = info.Size()
			}
		}
		if err := add(f.ID, f.Size); err != nil {
			return in, err
		}
	}
	return in, nil
}

// detect returns the compression of a file from its first bytes.
func detect(ctx context.Context, fs filesystem.Interface, name string) (decompress.Format, error) {
	rc, err := fs.OpenRead(ctx, name)
	if err != nil {
		return decompress.None, err
	}
	defer rc.Close()
	var head [4]byte
	n, err := io.ReadFull(rc, head[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return decompress.None, err
	}
	return decompress.Detect(head[:n]), nil
}

// hasGlobMeta reports whether p holds a character filepath.Match treats
// specially.
func hasGlobMeta(p string) bool { return strings.ContainsAny(p, `*?[\`) }

// IDs formats record ids as the CLI does: for one line file its 1-based line
// numbers; for several, PATH:LINE; with Files, the path. Paths are escaped as
// the CLI's TSV output escapes them (internal/fieldenc). In an R-S join each
// side is judged alone (one R file and one S file: line numbers).
//
// With Names set, the ids written are instead the names the input gives the
// records (Info.Name: JSONL.ID), escaped the same way; the outputs then look
// them up by record id (two more shuffles, see FormatPairs). Ids still sort
// the output in input order.
type IDs struct {
	Paths []string
	Files bool
	SFrom int // first file of S; 0 in a self-join
	// Names is the Info of ReadInput (KV<uint64, Info>) when it holds the
	// records' names; the zero PCollection otherwise.
	Names beam.PCollection
}

// IDsOf returns the id format of in.
func IDsOf(in Input) IDs { return IDs{Paths: in.Paths, Files: in.Files, SFrom: in.SFrom} }

// single reports whether file is the only file of its side.
func (x IDs) single(file int) bool {
	if x.SFrom == 0 {
		return len(x.Paths) == 1
	}
	if file < x.SFrom {
		return x.SFrom == 1
	}
	return len(x.Paths)-x.SFrom == 1
}

// Append appends the text of id to b.
func (x IDs) Append(b []byte, id uint64) []byte {
	file, line := SplitID(id)
	switch {
	case x.Files:
		return fieldenc.AppendTSV(b, []byte(x.Paths[file]))
	case x.single(file):
		return strconv.AppendInt(b, line, 10)
	}
	b = fieldenc.AppendTSV(b, []byte(x.Paths[file]))
	b = append(b, ':')
	return strconv.AppendInt(b, line, 10)
}

// Span is a byte range [Start, End) of file File (Size bytes long). The lines
// of a span are those that start in it. A compressed file is one span, its
// lines those of the decompressed stream.
type Span struct {
	File             int
	Path             string
	Start, End, Size int64
	Compressed       bool
}

// SpanLines is the number of lines that start in a span.
type SpanLines struct {
	File  int
	Start int64
	Lines int64
}

func init() {
	beam.RegisterType(reflect.TypeFor[Span]())
	beam.RegisterType(reflect.TypeFor[SpanLines]())
	beam.RegisterType(reflect.TypeFor[Info]())
	register.DoFn2x2[context.Context, Span, SpanLines, error](&countLinesFn{})
	register.DoFn5x1[context.Context, Span, func(*SpanLines) bool, func(Record), func(uint64, Info), error](&readLinesFn{})
	register.DoFn4x1[context.Context, Span, func(Record), func(uint64, Info), error](&readFilesFn{})
	register.Emitter1[Record]()
	register.Emitter2[uint64, Info]()
	register.Iter1[SpanLines]()
}

// spans cuts the input into spans (one per file with Files).
func (in Input) spans() []Span {
	step := in.SpanBytes
	if step <= 0 {
		step = DefaultSpanBytes
	}
	var out []Span
	for f, p := range in.Paths {
		size := in.Sizes[f]
		if in.Files || f < len(in.Compressed) && in.Compressed[f] {
			out = append(out, Span{File: f, Path: p, End: size, Size: size, Compressed: !in.Files})
			continue
		}
		for s := int64(0); s < size; s += step {
			out = append(out, Span{File: f, Path: p, Start: s, End: min(s+step, size), Size: size})
		}
	}
	return out
}

// ReadRecords returns the records of in as a PCollection of Record: one per
// line (ids (file, line) with 1-based lines, as the CLI numbers them: a final
// line without a newline is a line, "\r\n" ends a line as "\n" does) or one
// per file. It counts the lines of every span in parallel, then reads and
// tokenizes the spans in parallel, each numbering its lines from the counts of
// the spans before it. Cost: every byte is read twice (a compressed file
// once, by one worker); the counts are a side input of one small element per
// span.
func ReadRecords(s beam.Scope, in Input) beam.PCollection {
	records, _ := ReadInput(s, in)
	return records
}

// ReadInput is ReadRecords that also returns the records' Info as a
// PCollection of KV<uint64, Info> keyed by record id, with the parts
// in.Info asks for (empty when it asks for none).
func ReadInput(s beam.Scope, in Input) (records, info beam.PCollection) {
	s = s.Scope("ReadRecords")
	spans := beam.CreateList(s, in.spans())
	spans = beam.Reshuffle(s, spans)
	tok := tokenizer{Kind: int(in.Tokens.Kind), N: in.Tokens.N, Norm: int(in.Tokens.Norm)}
	parts := in.Info
	if in.JSONL.ID != "" {
		parts |= InfoName
	}
	if in.Files {
		return beam.ParDo2(s, &readFilesFn{Tok: tok, MinTokens: in.MinTokens, KeepGoing: in.KeepGoing, Info: int(parts)}, spans)
	}
	counts := beam.ParDo(s, &countLinesFn{}, spans)
	return beam.ParDo2(s, &readLinesFn{Tok: tok, Field: in.JSONL.Field, ID: in.JSONL.ID, Info: int(parts)}, spans, beam.SideInput{Input: counts})
}

// tokenizer is a shingle.Spec in a form a DoFn carries.
type tokenizer struct {
	Kind, N, Norm int
}

func (t tokenizer) spec() shingle.Spec {
	return shingle.Spec{Kind: shingle.Kind(t.Kind), N: t.N, Norm: shingle.Norm(t.Norm)}
}

// keys appends the sorted distinct keys of text to dst[:0].
func (t tokenizer) keys(dst []uint64, text []byte) ([]uint64, error) {
	keys, err := t.spec().AppendBytes(dst[:0], text)
	if err != nil {
		return dst, err
	}
	slices.Sort(keys)
	return slices.Compact(keys), nil
}

// openAt opens path and positions it at off.
func openAt(ctx context.Context, path string, off int64) (io.ReadCloser, func(), error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	rc, err := fs.OpenRead(ctx, path)
	if err != nil {
		fs.Close()
		return nil, nil, err
	}
	closer := func() { rc.Close(); fs.Close() }
	if sk, ok := rc.(io.Seeker); ok {
		_, err = sk.Seek(off, io.SeekStart)
	} else {
		_, err = io.CopyN(io.Discard, rc, off)
	}
	if err != nil {
		closer()
		return nil, nil, err
	}
	return rc, closer, nil
}

// countLinesFn counts the lines that start in a span: position p starts a
// line when p == 0 or byte p-1 is a newline, and p < Size.
type countLinesFn struct{}

func (f *countLinesFn) ProcessElement(ctx context.Context, sp Span) (SpanLines, error) {
	out := SpanLines{File: sp.File, Start: sp.Start}
	if sp.Compressed {
		return out, nil // one span: its lines are numbered from 1
	}
	from := max(sp.Start-1, 0)
	if sp.Start == 0 && sp.Size > 0 {
		out.Lines = 1
	}
	rc, done, err := openAt(ctx, sp.Path, from)
	if err != nil {
		return out, err
	}
	defer done()
	// Newlines at positions [from, End-1) start a line in the span.
	buf := make([]byte, 1<<20)
	left := sp.End - 1 - from
	for left > 0 {
		n, err := rc.Read(buf[:min(int64(len(buf)), left)])
		out.Lines += int64(bytes.Count(buf[:n], []byte{'\n'}))
		left -= int64(n)
		if err == io.EOF && left > 0 {
			return out, fmt.Errorf("%s: file shrank while read", sp.Path)
		}
		if err != nil && err != io.EOF {
			return out, fmt.Errorf("%s: %w", sp.Path, err)
		}
	}
	return out, nil
}

// readLinesFn reads the lines that start in a span, numbers them from the
// counts of the spans before it, and tokenizes them (the text field of each,
// with Field: JSON Lines). Info is an InfoParts: what to emit to info.
type readLinesFn struct {
	Tok       tokenizer
	Field, ID string
	Info      int

	jsonl *jsonl.Parser
}

func (f *readLinesFn) ProcessElement(ctx context.Context, sp Span, counts func(*SpanLines) bool, emit func(Record), info func(uint64, Info)) error {
	line := int64(1)
	var c SpanLines
	for counts(&c) {
		if c.File == sp.File && c.Start < sp.Start {
			line += c.Lines
		}
	}
	from := max(sp.Start-1, 0)
	rc, done, err := openAt(ctx, sp.Path, from)
	if err != nil {
		return err
	}
	defer done()
	var r io.Reader = rc
	if sp.Compressed {
		dr, format, closeDR, err := decompress.Reader(rc)
		if err != nil {
			return fmt.Errorf("%s: %w", sp.Path, err)
		}
		defer closeDR()
		countFormat(ctx, format)
		r = dr
	}
	br := bufio.NewReaderSize(r, 1<<20)
	if sp.Start == 0 && !sp.Compressed {
		// A file listed as plain must still be plain: never read compressed
		// bytes as text.
		head, _ := br.Peek(4)
		if f := decompress.Detect(head); f != decompress.None {
			return fmt.Errorf("%s: %s data in a file listed as plain text", sp.Path, f)
		}
	}
	pos := sp.Start
	if sp.Start > 0 {
		// Skip the tail of a line that started before the span.
		b, err := br.ReadByte()
		if err != nil {
			return fmt.Errorf("%s: %w", sp.Path, err)
		}
		if b != '\n' {
			skipped, err := skipLine(br)
			pos += skipped
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("%s: %w", sp.Path, err)
			}
		}
	}
	if f.Field != "" && f.jsonl == nil {
		f.jsonl = &jsonl.Parser{Text: f.Field, ID: f.ID}
	}
	parts := InfoParts(f.Info)
	var text []byte
	var keys []uint64
	for sp.Compressed || pos < sp.End && pos < sp.Size {
		text = text[:0]
		for {
			chunk, err := br.ReadSlice('\n')
			text = append(text, chunk...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil && err != io.EOF {
				return fmt.Errorf("%s: %w", sp.Path, err)
			}
			break
		}
		if len(text) == 0 {
			break
		}
		pos += int64(len(text))
		if line > maxLine {
			return fmt.Errorf("%s: more than %d lines", sp.Path, maxLine)
		}
		raw := eol.Trim(text)
		body, name := raw, ""
		if f.jsonl != nil {
			if body, name, err = f.jsonl.Parse(raw); err != nil {
				return fmt.Errorf("%s:%d: %w", sp.Path, line, err)
			}
		}
		keys, err = f.Tok.keys(keys, body)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", sp.Path, line, err)
		}
		id := MakeID(sp.File, line)
		emit(Record{ID: id, Keys: slices.Clone(keys)})
		if parts != 0 {
			info(id, infoOf(parts, name, raw, int64(len(body))))
		}
		line++
	}
	return nil
}

// infoOf returns the parts of a record's Info.
func infoOf(parts InfoParts, name string, text []byte, n int64) Info {
	var x Info
	if parts&InfoName != 0 {
		x.Name = name
	}
	if parts&InfoText != 0 {
		x.Text = string(text)
	}
	if parts&InfoLen != 0 {
		x.Len = n
	}
	return x
}

// countFormat counts a file decompressed.
func countFormat(ctx context.Context, f decompress.Format) {
	switch f {
	case decompress.Gzip:
		mGzipFiles.Inc(ctx, 1)
	case decompress.Zstd:
		mZstdFiles.Inc(ctx, 1)
	}
}

// skipLine consumes the rest of a line, its newline included, and returns the
// bytes consumed.
func skipLine(br *bufio.Reader) (int64, error) {
	var n int64
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		if err == bufio.ErrBufferFull {
			continue
		}
		return n, err
	}
}

// readFilesFn reads a whole file as one record, decompressing gzip and zstd
// files. A file of fewer than MinTokens distinct tokens is dropped; with
// KeepGoing a file that cannot be read or tokenized is counted and dropped
// instead of failing the bundle. Info is an InfoParts: with InfoLen, the
// file's decompressed length goes to info.
type readFilesFn struct {
	Tok       tokenizer
	MinTokens int
	KeepGoing bool
	Info      int
}

func (f *readFilesFn) ProcessElement(ctx context.Context, sp Span, emit func(Record), info func(uint64, Info)) error {
	keys, n, err := f.read(ctx, sp)
	switch {
	case err != nil && f.KeepGoing:
		mUnreadable.Inc(ctx, 1)
		return nil
	case err != nil:
		return err
	case len(keys) < f.MinTokens:
		mBelowMin.Inc(ctx, 1)
		return nil
	}
	id := MakeID(sp.File, 0)
	emit(Record{ID: id, Keys: keys})
	if parts := InfoParts(f.Info) &^ (InfoName | InfoText); parts != 0 {
		info(id, infoOf(parts, "", nil, n))
	}
	return nil
}

// read returns the sorted distinct keys of the file of sp and its length,
// decompressed.
func (f *readFilesFn) read(ctx context.Context, sp Span) ([]uint64, int64, error) {
	rc, done, err := openAt(ctx, sp.Path, 0)
	if err != nil {
		return nil, 0, err
	}
	defer done()
	r, format, closeDR, err := decompress.Reader(rc)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", sp.Path, err)
	}
	defer closeDR()
	text, err := io.ReadAll(r)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", sp.Path, err)
	}
	countFormat(ctx, format)
	keys, err := f.Tok.keys(nil, text)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", sp.Path, err)
	}
	return keys, int64(len(text)), nil
}
