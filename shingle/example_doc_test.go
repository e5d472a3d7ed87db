package shingle_test

import (
	"fmt"

	"github.com/simjoin/simjoin/shingle"
)

// Two layouts of one function, one with comments and a build constraint,
// have the same five-token shingles.
func ExampleAppendGo() {
	a := []byte("package p\n\nfunc Add(x, y int) int { return x + y }\n")
	b := []byte("//go:build linux\n\n// Package p adds.\npackage p\n\n// Add adds.\nfunc Add(x,\n\ty int) int {\n\treturn x + y\n}\n")
	ka, _ := shingle.AppendGo(nil, a, 5)
	kb, err := shingle.AppendGo(nil, b, 5)
	fmt.Println(len(ka), len(kb), err)
	same := len(ka) == len(kb)
	for i := range ka {
		same = same && ka[i] == kb[i]
	}
	fmt.Println("same shingles:", same)
	_, err = shingle.AppendGo(nil, []byte("\x7fELF\x02\x01"), 5)
	fmt.Println(err)
	// Output:
	// 13 13 <nil>
	// same shingles: true
	// 1:1: illegal character U+007F
}

// Word shingles fold case and drop punctuation unless told otherwise.
func ExampleNorm() {
	spec, _ := shingle.Parse("shingle:2")
	a, _ := spec.Append(nil, "The oak, the field.")
	b, _ := spec.Append(nil, "the OAK the field")
	fmt.Println(len(a), a[0] == b[0] && a[1] == b[1] && a[2] == b[2])
	spec.Norm = shingle.KeepCase | shingle.KeepPunct
	c, _ := spec.Append(nil, "The oak, the field.")
	fmt.Println(len(c), spec)
	// Output:
	// 3 true
	// 5 shingle:2 --case keep --punct keep
}
