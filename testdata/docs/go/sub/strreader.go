package docs

import (
	"errors"
	"io"
)

// A Reader implements io.Reader and io.Seeker by reading from a string.
type Reader struct {
	s string
	i int64 // current reading index
}

// Len returns the number of bytes of the unread portion of the slice.
func (r *Reader) Len() int {
	if r.i >= int64(len(r.s)) {
		return 0
	}
	return int(int64(len(r.s)) - r.i)
}

// Read implements io.Reader.
func (r *Reader) Read(b []byte) (n int, err error) {
	if r.i >= int64(len(r.s)) {
		return 0, io.EOF
	}
	n = copy(b, r.s[r.i:])
	r.i += int64(n)
	return
}

// Seek implements io.Seeker.
func (r *Reader) Seek(offset int64, whence int) (int64, error) {
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = r.i + offset
	case io.SeekEnd:
		abs = int64(len(r.s)) + offset
	default:
		return 0, errors.New("docs.Reader.Seek: invalid whence")
	}
	if abs < 0 {
		return 0, errors.New("docs.Reader.Seek: negative position")
	}
	r.i = abs
	return abs, nil
}

// NewReader returns a new Reader reading from the string b.
func NewReader(b string) *Reader { return &Reader{b, 0} }
