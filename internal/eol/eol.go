// Package eol holds what the line-oriented readers (the CLI's inputs, the
// password lists) share about a line's end.
package eol

// Trim returns b without its line terminator: a final "\n", or "\r\n".
// A lone "\r" is kept (it is data, not a line end). Cost: O(1); b is not
// copied.
func Trim(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}
