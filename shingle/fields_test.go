package shingle_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/shingle"
)

// referenceFields is the Set tokenizer written plainly: split at ASCII
// white space, hash each field.
func referenceFields(record string) []uint64 {
	var out []uint64
	for _, f := range strings.FieldsFunc(record, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
	}) {
		out = append(out, shingle.HashString(f))
	}
	return out
}

// fieldRecords are Set records around the fast path's edges: fields of
// every length around the eight-byte steps, control bytes that are not
// white space inside fields, bytes above 0x7f, every white-space byte, runs
// of separators, and more than four fields with fewer left over.
var fieldRecords = []string{
	"", " ", "\t\n\v\f\r ", "a", "a b", "a b c", "a b c d", "a b c d e", "1 2 3 4 5 6 7 8 9",
	"12345678 123456789 1234567 12345678901234567890", "x\x00y \x01\x08\x0e\x1f\x7f z", "!!!!!!!!\"\"\"",
	"18446744073709551615 9223372036854775807\t0\r\n", "é ü日本 \xff\xfe\x80 caf\xe9",
	strings.Repeat("abcdefgh", 9) + " " + strings.Repeat("z", 63), "  lead trail  ", "a\x1fb\x20c\x21d",
}

func TestSetFields(t *testing.T) {
	for _, rec := range fieldRecords {
		got, err := shingle.Spec{}.Append(nil, rec)
		if want := referenceFields(rec); err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: keys %v, %v; want %v", rec, got, err, want)
		}
	}
	// Every field length from 0 to 40 at every offset, between each kind
	// of separator.
	for _, sep := range []string{" ", "\t", "\n", "\v", "\f", "\r", " \x00 "} {
		for lead := 0; lead < 9; lead++ {
			var b strings.Builder
			b.WriteString(strings.Repeat(" ", lead))
			for n := 0; n <= 40; n++ {
				b.WriteString(strings.Repeat(string(rune('a'+n%26)), n))
				b.WriteString(sep)
			}
			rec := b.String()
			if got, _ := (shingle.Spec{}).Append(nil, rec); !slices.Equal(got, referenceFields(rec)) {
				t.Errorf("sep %q lead %d: keys differ from the reference", sep, lead)
			}
		}
	}
}

// FuzzSetFields: the Set tokenizer gives the reference's keys on any bytes.
func FuzzSetFields(f *testing.F) {
	for _, rec := range fieldRecords {
		f.Add(rec)
	}
	for _, rec := range records {
		f.Add(rec)
	}
	f.Fuzz(func(t *testing.T, rec string) {
		got, err := shingle.Spec{}.Append([]uint64{7}, rec)
		if err != nil || got[0] != 7 || !slices.Equal(got[1:], referenceFields(rec)) {
			t.Fatalf("%q: keys %v, %v; want %v", rec, got[1:], err, referenceFields(rec))
		}
	})
}

// setLines returns 2,000 lines of Set records as internal/testkit/cmd/gen writes
// them: data=decimal64 the 20k documents' (about 300 random 64-bit keys in
// decimal), data=zipf the 1M Zipf sets' (10 to 50 integers below a million,
// Zipf-distributed, ascending).
func setLines(data string) []string {
	var sets [][]uint64
	if data == "zipf" {
		for _, s := range synth.Sets(synth.SetsConfig{N: 2000, MinSize: 10, MaxSize: 50, Universe: 1000000, Zipf: 1, DupFraction: 0.3, Replace: 0.1, Seed: 1}) {
			set := make([]uint64, len(s))
			for i, w := range s {
				set[i] = uint64(w)
			}
			sets = append(sets, set)
		}
	} else {
		cfg := synth.BenchDocs(1)
		cfg.N = 2000
		sets = synth.Documents(cfg).Sets
	}
	out := make([]string, len(sets))
	var buf []byte
	for i, set := range sets {
		buf = buf[:0]
		for j, k := range set {
			if j > 0 {
				buf = append(buf, ' ')
			}
			buf = strconv.AppendUint(buf, k, 10)
		}
		out[i] = string(buf)
	}
	return out
}

// BenchmarkAppendSet tokenizes lines of integers into keys (op=append) and
// into sorted distinct keys as the line reader does (op=set): the front end
// of the Set workloads.
func BenchmarkAppendSet(b *testing.B) {
	for _, data := range []string{"decimal64", "zipf"} {
		lines := setLines(data)
		bytes := 0
		for _, l := range lines {
			bytes += len(l) + 1
		}
		for _, op := range []struct {
			name string
			f    func(shingle.Spec, []uint64, string) ([]uint64, error)
		}{{"append", shingle.Spec.Append}, {"set", shingle.Spec.AppendSet}} {
			b.Run(fmt.Sprintf("data=%s/op=%s", data, op.name), func(b *testing.B) {
				b.SetBytes(int64(bytes))
				b.ReportAllocs()
				var ru0, ru1 syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
				var dst []uint64
				for b.Loop() {
					for _, l := range lines {
						dst, _ = op.f(shingle.Spec{}, dst[:0], l)
					}
				}
				syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
				cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
				b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
