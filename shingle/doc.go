// Package shingle turns records into token sets: whitespace-separated tokens
// (set), words, character q-grams, word shingles and Go-token shingles.
//
// Every token becomes a 64-bit key. Short q-grams (q <= 3) are packed into
// their key exactly; everything else is hashed with a fixed function (FNV-1a
// then the splitmix64 finaliser), so that a large corpus never keeps its token
// strings and keys are the same on every machine and run. The tokenizers
// return keys in text order and may repeat a key; the order package removes
// duplicates and assigns the dense ids that the joins work on.
//
// Words and word shingles (shingle:N) are normalised as a Norm says: by
// default letters are folded to lower case and punctuation only separates
// words; KeepCase and KeepPunct change that. Go-token shingles (go:N) read
// the source with go/scanner, drop comments (build constraints included) and
// the semicolons the scanner inserts at line ends, and hash N consecutive
// token texts; the article this project grew from uses go:5 on the Go source
// tree. A shingle's key combines its N token keys in order, so shingle
// strings are never built.
//
// A Spec's text is the command line's: Parse reads "words" or "shingle:3",
// SetOption the normalisation options ("case keep", "punct keep",
// "go-semicolons drop"), and Spec.String writes both back.
//
// The package does not order tokens or join sets.
package shingle
