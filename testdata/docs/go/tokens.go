//go:build linux && !race
// +build linux,!race

// Package tokens is a fixture for the Go tokenizer: every token below is
// listed, in order, in shingle/gotoken_test.go.
package tokens

import "fmt" /* a block comment */

const raw = `a
b`

func Add(x, y int) int { return x + y } // a trailing comment

func loop() {
	for i := 0; i < 3; i++ {
		fmt.Println('x', 1.5e3, 0x1F, 2i, x&^y, <-ch)
	}
}
