package report

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/join"
)

// SchemaVersion is the version of the --stats-json schema,
// docs/stats.schema.json. It changes when a field is renamed, removed or
// changes meaning; adding a field does not change it.
//
// The schema's rules: names in snake_case; durations in seconds as numbers
// whose names end in "_s", to the nanosecond; other fractions to 15
// significant digits (roundFloats); counts of things as integers; byte
// counts end in "_bytes" or are named "bytes".
const SchemaVersion = 1

// Report is the statistics report of a run: text for people (--stats, on
// stderr) and JSON for machines (--stats-json FILE). Every command that joins
// fills the same fields; paths that know more add sections. It is not safe
// for concurrent use.
type Report struct {
	Command    string         `json:"command"`
	Input      []string       `json:"input"`
	Compressed []string       `json:"compressed,omitempty"` // "NAME: gzip" for each input decompressed
	Tokens     string         `json:"tokens"`
	Measure    string         `json:"measure"`
	Threshold  string         `json:"threshold"`
	Method     string         `json:"method"`
	Workers    int            `json:"workers"`
	Records    int            `json:"records"`
	Skipped    int            `json:"skipped_empty"`
	SetTokens  int            `json:"set_tokens"`
	Vocabulary int            `json:"vocabulary"`
	Exact      *join.Stats    `json:"-"` // written as ExactJSON
	Sections   map[string]any `json:"sections,omitempty"`
	Results    int64          `json:"results"`
	Histogram  []Bin          `json:"similarity_histogram,omitempty"`
	Phases     []Phase        `json:"phases"`
	PeakRSS    int64          `json:"peak_rss_bytes"`
	extra      []Section      // the text of Sections, in the order added
	vocabulary func() int     // counts Vocabulary when it is -1 (AddInput)
}

// countVocabulary sets Vocabulary from the counter AddInput was given when
// nothing counted it yet.
func (r *Report) countVocabulary() {
	if r.Vocabulary < 0 && r.vocabulary != nil {
		r.Vocabulary = r.vocabulary()
	}
}

// AddSection adds a section: v goes into the JSON under key, rows into the
// text under title.
func (r *Report) AddSection(key, title string, v any, rows [][2]string) {
	if r.Sections == nil {
		r.Sections = map[string]any{}
	}
	r.Sections[key] = v
	r.extra = append(r.extra, Section{Title: title, Rows: rows})
}

// AddPhase records a phase the library timed.
func (r *Report) AddPhase(name string, t simjoin.Timing) {
	r.Phases = append(r.Phases, Phase{Name: name, Seconds: t.Wall.Seconds(), CPU: t.CPU.Seconds()})
}

// WriteText writes the report for people, aligned, with units.
func (r *Report) WriteText(w io.Writer) {
	r.countVocabulary()
	rows := [][2]string{
		{"command", r.Command},
		{"input", strings.Join(r.Input, " ")},
	}
	if len(r.Compressed) > 0 {
		rows = append(rows, [2]string{"decompressed", strings.Join(r.Compressed, ", ")})
	}
	rows = append(rows, [][2]string{
		{"tokens", r.Tokens},
		{"measure", r.Measure + " >= " + r.Threshold},
		{"method", r.Method},
		{"workers", strconv.Itoa(r.Workers)},
		{"records", numfmt.Group(int64(r.Records))},
		{"skipped (empty)", numfmt.Group(int64(r.Skipped))},
		{"set tokens", numfmt.Group(int64(r.SetTokens))},
		{"vocabulary", numfmt.Group(int64(r.Vocabulary))},
	}...)
	if r.Exact != nil {
		rows = append(rows, ExactRows(r.Exact)...)
	}
	rows = append(rows, [2]string{"results", numfmt.Group(r.Results)})
	WriteText(w, rows, r.extra, r.Histogram, r.Phases, r.PeakRSS)
}

// WriteJSON writes the report as indented JSON to w, its floats rounded to
// what they can tell (roundFloats).
func (r *Report) WriteJSON(w io.Writer) error {
	r.countVocabulary()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return err
	}
	_, err := w.Write(roundFloats(b.Bytes()))
	return err
}

// MarshalJSON writes the report with the schema's version and the exact
// join's counters under snake_case names.
func (r *Report) MarshalJSON() ([]byte, error) {
	type plain Report // without this method
	return json.Marshal(struct {
		Version int `json:"schema_version"`
		*plain
		Exact *ExactJSON `json:"exact,omitempty"`
	}{SchemaVersion, (*plain)(r), NewExactJSON(r.Exact)})
}
