// Package fieldenc encodes the fields of the command line's output lines:
// JSON strings (RFC 8259), TSV fields and CSV fields (RFC 4180), so that every
// command writes an id, a path or a password the same way.
//
// Fields are bytes that need not be text: file paths and passwords may hold
// control bytes or invalid UTF-8. The encodings are chosen so that a line
// always parses under its format's strict reader and the field can be
// recovered byte for byte:
//
//   - JSON: a valid UTF-8 field is a JSON string with '"', '\\' and the
//     control characters escaped; any other field is written under the key
//     with "_base64" appended, as standard base64 (AppendJSONField).
//   - TSV: backslash, tab, CR, LF and the other control bytes are escaped
//     (\\, \t, \r, \n, \xHH), so a field never holds a separator.
//   - CSV: the TSV escapes first, so that no raw control byte is written,
//     then RFC 4180 quoting when the field holds a comma or a double quote.
//
// Every function appends to its first argument and returns the extended
// slice, allocating only when it grows; all are safe for concurrent use.
// Row puts them together: it encodes whole rows of typed fields in one of
// the three formats (TSV, CSV with a header, JSONL objects).
package fieldenc
