package docs

import "testing"

// A test file: --exclude '*_test.go' leaves it out.
func TestLen(t *testing.T) {
	if NewReader([]byte("ab")).Len() != 2 {
		t.Fatal("Len")
	}
}
