package planner

import "github.com/simjoin/simjoin/shingle"

// FrontEnd is what reading the input did, in counts the simjoin package
// reports (its Stats): the planner prices both paths' reading from it, and
// the exact path's token order from it and the distinct tokens (known once
// the order is built, estimated before).
type FrontEnd struct {
	// Tokenizer is how records became sets: a shingle kind, or
	// TokenizeNone for ready sets, whose tokens are numbered through the
	// source's map instead.
	Tokenizer Tokenizer `json:"tokenizer"`
	Bytes     int64     `json:"bytes"`   // bytes read and tokenized (0 for ready sets)
	Files     int       `json:"files"`   // files read (a file per record)
	Records   int       `json:"records"` // records read, empty ones included
	Tokens    int64     `json:"tokens"`  // the records' distinct tokens, summed
	// Values is the tokens, of Tokens, that were read as small values
	// (integers, ASCII q-grams: order.Input.AddValues), which the order
	// counts in an array rather than a hash table.
	Values int64 `json:"value_tokens,omitempty"`
	// Distinct is the number of distinct tokens (the dictionary's length),
	// estimated from a hash sample of the keys until the order is built.
	Distinct int64 `json:"distinct_tokens"`
	// Ordered says the token order was built as the records were read
	// (its vocabulary's table steps for keys are part of the read) and before
	// planning: both paths then start from it, and LSH runs over the
	// collections. Otherwise the order is the exact path's alone, built
	// only if it runs, and LSH runs over the key sets.
	Ordered bool `json:"ordered"`
}

// Tokenizer is how a front end turned records into sets (FrontEnd).
type Tokenizer uint8

const (
	TokenizeNone    Tokenizer = iota // ready sets, no tokenizer
	TokenizeSet                      // shingle.Set
	TokenizeWords                    // shingle.Words
	TokenizeQGram                    // shingle.QGram
	TokenizeShingle                  // shingle.Shingle
	TokenizeGo                       // shingle.Go
)

var tokenizerNames = [...]string{TokenizeNone: "sets", TokenizeSet: "set", TokenizeWords: "words",
	TokenizeQGram: "qgram", TokenizeShingle: "shingle", TokenizeGo: "go"}

// TokenizerOf returns the tokenizer of shingle kind k.
func TokenizerOf(k shingle.Kind) Tokenizer {
	switch k {
	case shingle.Set:
		return TokenizeSet
	case shingle.Words:
		return TokenizeWords
	case shingle.QGram:
		return TokenizeQGram
	case shingle.Shingle:
		return TokenizeShingle
	case shingle.Go:
		return TokenizeGo
	}
	return TokenizeNone
}

// String returns "sets" (ready sets), "set", "words", "qgram", "shingle"
// or "go".
func (t Tokenizer) String() string { return enumText(tokenizerNames[:], t, "tokenizer") }

// MarshalText returns the tokenizer's name.
func (t Tokenizer) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads a tokenizer's name.
func (t *Tokenizer) UnmarshalText(b []byte) error {
	return unmarshalEnum(tokenizerNames[:], t, b, "tokenizer")
}

// given reports whether fe says anything: a zero FrontEnd prices neither
// the reading nor the order (Options.FrontEnd).
func (fe FrontEnd) given() bool { return fe.Records > 0 || fe.Tokens > 0 || fe.Bytes > 0 }
