package mix

import "testing"

// TestMix64 pins the values: every hash of the project (token keys, MinHash
// signatures, band keys) depends on them, so a change would change results.
func TestMix64(t *testing.T) {
	for _, c := range []struct{ in, want uint64 }{
		{0, 0},
		{1, 0x5692161d100b05e5},
		{0x9e3779b97f4a7c15, 0xe220a8397b1dcdaf},
	} {
		if got := Mix64(c.in); got != c.want {
			t.Errorf("Mix64(%#x) = %#x, want %#x", c.in, got, c.want)
		}
	}
}

// TestSetHash pins the values (the order of a collection's records depends
// on them) and checks that a set as uint32 and as uint64 words hashes alike.
func TestSetHash(t *testing.T) {
	if got := SetHash([]uint32(nil)); got != 0x9e3779b97f4a7c15 {
		t.Errorf("SetHash(empty) = %#x, want the seed", got)
	}
	set32, set64 := []uint32{1, 5, 9, 1 << 31}, []uint64{1, 5, 9, 1 << 31}
	want := uint64(0x9e3779b97f4a7c15)
	for _, w := range set64 {
		want = Mix64(want ^ w)
	}
	if got := SetHash(set32); got != want {
		t.Errorf("SetHash(%v) = %#x, want %#x", set32, got, want)
	}
	if got := SetHash(set64); got != want {
		t.Errorf("SetHash(%v as uint64) = %#x, want %#x", set64, got, want)
	}
	if SetHash([]uint64{5, 1}) == SetHash([]uint64{1, 5}) {
		t.Errorf("SetHash ignores the order of the words")
	}
}
