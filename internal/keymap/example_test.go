package keymap_test

import (
	"fmt"

	"github.com/simjoin/simjoin/internal/keymap"
)

// Counting keys: a value is never zero once stored, so a slot whose value is
// zero is free.
func ExampleMap_Insert() {
	var m keymap.Map[uint32]
	for _, k := range []uint64{7, 1 << 60, 7, 0, 7} {
		n, _ := m.Insert(k)
		*n++
	}
	c, ok := m.Find(7)
	fmt.Println(m.Len(), c, ok)
	_, ok = m.Find(8)
	fmt.Println(ok)
	// Output:
	// 3 3 true
	// false
}
