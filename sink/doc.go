// Package sink writes the results of a join: its pairs (PairWriter, and
// Stream, which holds them for a sorted output) and the clusters of a dedup
// (WriteClusters), one a line, as TSV, CSV with a header line, or JSONL
// objects. These are the simjoin command's output formats; its other rows
// (password pairs, families, index hits) are built on Writer.
//
// Similarities are written as join reports them (AppendSimilarity):
// integers for the overlap measure, otherwise up to six decimals without
// trailing zeros. Ids that are paths or passwords are any bytes, escaped or
// quoted so that every line parses under its format's strict reader and the
// bytes come back unchanged: TSV escapes backslash, tab, CR, LF and the other
// control bytes (\\, \t, \r, \n, \xHH); CSV escapes the same, then quotes
// as RFC 4180 does a field that holds a comma or a double quote; JSONL
// writes a UTF-8 id as a JSON string and any other under its key with
// "_base64" appended, in standard base64.
//
// Every writer buffers its output (64 KiB), keeps the first write error
// (later writes do nothing and return it) and must be flushed. None is safe
// for concurrent use.
package sink

import "github.com/simjoin/simjoin/internal/fieldenc"

// Format is an output format: TSV, CSV or JSONL.
type Format = fieldenc.Format

// The formats.
const (
	TSV   = fieldenc.TSV   // tab-separated fields, escaped, no header
	CSV   = fieldenc.CSV   // comma-separated fields, quoted as RFC 4180 does, a header line
	JSONL = fieldenc.JSONL // one JSON object a line
)

// ParseFormat returns the format named name ("tsv", "csv" or "jsonl"), and
// false for any other name.
func ParseFormat(name string) (Format, bool) { return fieldenc.ParseFormat(name) }

// Column is a field of a row: its CSV header Name and its JSONL Key (Name
// when empty).
type Column = fieldenc.Column
