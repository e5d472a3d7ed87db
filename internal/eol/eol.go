// Package eol holds what the line-oriented readers (the CLI's inputs, the
// password lists) share about a line's end.
package eol

// Trim returns line without its line terminator: a final "\n", or "\r\n".
// A lone "\r" is kept (it is data, not a line end). It takes a line as
// bytes (a reader's buffer) or as a string (a view of a block of lines).
// Cost: O(1); line is not copied.
func Trim[T ~string | ~[]byte](line T) T {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
	}
	return line
}
