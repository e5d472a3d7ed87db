package approx

// The functions below expose the row primitives of the package to stores that
// keep packed signatures outside a Signatures value (the persistent index keeps
// them in memory-mapped files).

// PackRow stores the low w bits of the k values of sig into row (k·w/8 bytes),
// as Signatures.Put does.
func PackRow(row []byte, sig []uint64, k, w int) { packRow(row, sig, k, w) }

// MatchRows counts the equal w-bit values of two packed rows of equal length,
// as Signatures.Match does. It allocates nothing.
func MatchRows(a, b []byte, w int) int { return matches(a, b, w) }

// BandKey returns the 64-bit key of band j whose packed bytes are band, the
// key the band tables of a join and of Index are sorted by.
func BandKey(band []byte, j int) uint64 { return bandKey(band, j) }
