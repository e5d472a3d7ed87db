package cpuprofile

import (
	"bytes"
	"testing"
)

// TestStart: a profile is written when stopped; a second profile while one
// runs is an error; no writer profiles nothing.
func TestStart(t *testing.T) {
	var first, second bytes.Buffer
	stop, err := Start(&first)
	if err != nil {
		t.Fatal(err)
	}
	stopSecond, err := Start(&second)
	if err == nil {
		t.Error("a second profile started while one ran")
	}
	stopSecond() // does nothing: the first profile goes on
	stop()
	if first.Len() == 0 || second.Len() != 0 {
		t.Errorf("profiles of %d and %d bytes; want the first only", first.Len(), second.Len())
	}
	none, err := Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	none()
}
