package fieldenc_test

import (
	"fmt"

	"github.com/simjoin/simjoin/internal/fieldenc"
)

func Example() {
	id := []byte("dir/a\tb.go")
	line := append([]byte(`{`), fieldenc.AppendJSONField(nil, "a", id)...)
	line = append(line, ',')
	line = fieldenc.AppendJSONField(line, "b", []byte("latin1-\xe9.go"))
	fmt.Printf("%s}\n", line)
	fmt.Printf("%s\n", fieldenc.AppendTSV(nil, id))
	fmt.Printf("%s\n", fieldenc.AppendCSV(nil, []byte(`a,"b"`)))
	// Output:
	// {"a":"dir/a\tb.go","b_base64":"bGF0aW4xLekuZ28="}
	// dir/a\tb.go
	// "a,""b"""
}
