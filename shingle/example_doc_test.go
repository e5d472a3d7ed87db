package shingle_test

import (
	"fmt"
	"slices"

	"github.com/simjoin/simjoin/shingle"
)

// Comments and build constraints never change a file's shingles. A line
// break that ends a statement is a semicolon to go/scanner, and so a token;
// DropSemicolons leaves those out, so that layout does not count.
func ExampleAppendGo() {
	a := []byte("package p\n\nfunc Add(x, y int) int {\n\treturn x + y\n}\n")
	b := []byte("//go:build linux\n\n// Package p adds.\npackage p\n\n// Add adds.\nfunc Add(x,\n\ty int) int {\n\treturn x + y // the sum\n}\n")
	c := []byte("package p\n\nfunc Add(x, y int) int { return x + y }\n")
	ka, _ := shingle.AppendGo(nil, a, 5)
	kb, _ := shingle.AppendGo(nil, b, 5)
	kc, err := shingle.AppendGo(nil, c, 5)
	fmt.Println(len(ka), len(kb), len(kc), err)
	fmt.Println("a, b same shingles:", slices.Equal(ka, kb))
	fmt.Println("a, c same shingles:", slices.Equal(ka, kc))
	drop := shingle.Spec{Kind: shingle.Go, N: 5, DropSemicolons: true}
	ka, _ = drop.AppendBytes(nil, a)
	kc, _ = drop.AppendBytes(nil, c)
	fmt.Println(drop, "a, c same shingles:", slices.Equal(ka, kc))
	_, err = shingle.AppendGo(nil, []byte("\x7fELF\x02\x01"), 5)
	fmt.Println(err)
	// Output:
	// 16 16 15 <nil>
	// a, b same shingles: true
	// a, c same shingles: false
	// go:5 --go-semicolons drop a, c same shingles: true
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
