package records_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/shingle"
)

// TestReadKeySets: the key sets read are each line's AppendSet, in line
// order, for line ends \n and \r\n, blocks cut inside long inputs and lines
// longer than a block, for any number of workers; errors name the line as
// the read into an order.Input does.
func TestReadKeySets(t *testing.T) {
	var b strings.Builder
	var lines []string
	const n = 60000
	for i := range n {
		line := fmt.Sprintf("w%d w%d w%d", i%97, i%13, i)
		switch {
		case i%7 == 0:
			line = ""
		case i == 30000:
			line = strings.Repeat("long ", 1<<19) + "end" // over two blocks
		}
		lines = append(lines, line)
		b.WriteString(line)
		if i%3 == 0 {
			b.WriteString("\r")
		}
		if i < n-1 {
			b.WriteString("\n")
		}
	}
	for _, tokens := range []string{"set", "qgram:2"} {
		spec, _ := shingle.Parse(tokens)
		for _, workers := range []int{1, 3} {
			ks, err := readKeySets(strings.NewReader(b.String()), spec, lineOpts{Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			if ks.Len() != len(lines) {
				t.Fatalf("%s, %d workers: %d records, want %d", tokens, workers, ks.Len(), len(lines))
			}
			for i, line := range lines {
				want, _ := spec.AppendSet(nil, line)
				if !slices.Equal(ks.Set(i), want) {
					t.Fatalf("%s, %d workers: record %d: %d keys, want %d", tokens, workers, i, len(ks.Set(i)), len(want))
				}
			}
		}
	}
	text := strings.Repeat("ok\n", 400000) + "secret\xff\n" + "ok\n"
	spec, _ := shingle.Parse("qgram:2")
	_, err := readKeySets(strings.NewReader(text), spec, lineOpts{Name: "in.txt"})
	var le *records.LineError
	if !errors.As(err, &le) || le.Line != 400001 || !errors.Is(err, shingle.ErrUTF8) || strings.Contains(err.Error(), "secret") {
		t.Errorf("err = %v, want in.txt:400001 wrapping ErrUTF8", err)
	}
	ks, err := readKeySets(strings.NewReader(""), spec, lineOpts{})
	if err != nil || ks.Len() != 0 {
		t.Errorf("empty input: %d records, %v", ks.Len(), err)
	}
}
