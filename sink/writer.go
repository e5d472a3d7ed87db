package sink

import (
	"io"
	"math"

	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/prefix"
)

// Writer writes rows of its columns in one format, with similarities
// formatted as join writes them (AppendSimilarity): the base of PairWriter
// and of the simjoin command's other rows. It buffers, keeps the first write
// error and must be flushed; it is not safe for concurrent use.
type Writer struct {
	*fieldenc.Writer
	format  fieldenc.Format
	integer bool // similarities are integers (the overlap measure)
	// sims holds the text of recent fractional similarities, by a hash of
	// their bits: a join's similarities are ratios of small sizes and
	// overlaps, few distinct values (the 24,266 pairs of BENCHMARKS.md's
	// 59,000 passwords: 26), and formatting one (strconv.AppendFloat) costs
	// more than the rest of a row. An entry is set when n > 0: text[:n]
	// is AppendSimilarity of the float whose bits are bits.
	sims [simCache]simText
}

// simCache is the number of similarities Writer keeps the text of.
const simCache = 64

// simText is one entry of Writer.sims.
type simText struct {
	bits uint64
	n    uint8
	text [15]byte
}

// NewWriter writes rows of cols to w in format f; integer says the
// similarities are integers (the overlap measure).
func NewWriter(w io.Writer, f Format, integer bool, cols ...Column) *Writer {
	return &Writer{Writer: fieldenc.NewWriter(w, f, cols...), format: f, integer: integer}
}

// Format returns the format rw writes.
func (rw *Writer) Format() Format { return rw.format }

// AppendSimilarity formats a similarity: integers as they are (integer:
// the overlap measure), fractions with up to six decimals and no trailing
// zeros (prefix.Measure.AppendSim).
func AppendSimilarity(b []byte, v float64, integer bool) []byte {
	if integer {
		return prefix.Overlap.AppendSim(b, v)
	}
	return prefix.Jaccard.AppendSim(b, v)
}

// Similarity appends a similarity field: AppendSimilarity, its text kept
// for the next rows with the same similarity (Writer.sims).
func (rw *Writer) Similarity(b []byte, v float64) []byte {
	b = rw.Field(b)
	if rw.integer {
		return AppendSimilarity(b, v, true)
	}
	bits := math.Float64bits(v)
	e := &rw.sims[bits*0x9e3779b97f4a7c15>>58]
	if e.n > 0 && e.bits == bits {
		return append(b, e.text[:e.n]...)
	}
	start := len(b)
	b = AppendSimilarity(b, v, false)
	if n := len(b) - start; n <= len(e.text) {
		e.bits, e.n = bits, uint8(n)
		copy(e.text[:], b[start:])
	}
	return b
}
