package keysort_test

import (
	"fmt"

	"github.com/simjoin/simjoin/internal/keysort"
)

func ExampleSorter_SortDistinct() {
	var s keysort.Sorter // one per goroutine, reused across records
	keys := []uint64{42, 7, 42, 1 << 63, 7, 3}
	fmt.Println(s.SortDistinct(keys))
	// Output: [3 7 42 9223372036854775808]
}
