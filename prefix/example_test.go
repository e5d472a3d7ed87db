package prefix_test

import (
	"fmt"

	"github.com/simjoin/simjoin/prefix"
)

// Thresholds are exact fractions: "0.8" and "4/5" are the same, and a
// fraction with no finite decimal stays a fraction.
func ExampleParseThreshold() {
	for _, s := range []string{"0.8", "4/5", "2/3", "1.5"} {
		th, err := prefix.ParseThreshold(prefix.Jaccard, s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s = %d/%d, prints as %s\n", s, th.Num, th.Den, th)
	}
	// Output:
	// 0.8 = 4/5, prints as 0.8
	// 4/5 = 4/5, prints as 0.8
	// 2/3 = 2/3, prints as 2/3
	// bad threshold "1.5" for jaccard: want a number in (0, 1]
}

// The filter questions of a join at Jaccard >= 0.8, answered in integers.
func ExampleBounds() {
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.8")
	b := prefix.NewBounds(prefix.Jaccard, th)
	lo, hi := b.SizeRange(10)
	fmt.Println("partners of a 10-set have sizes", lo, "to", hi)
	fmt.Println("a 10-set and a 12-set need an overlap of", b.MinOverlap(10, 12))
	fmt.Println("probe prefix", b.ProbePrefix(10), "index prefix", b.IndexPrefix(10))
	fmt.Println("overlap 8 of sizes 9 and 9 passes:", b.Passes(8, 9, 9), b.Similarity(8, 9, 9))
	// Output:
	// partners of a 10-set have sizes 8 to 12
	// a 10-set and a 12-set need an overlap of 10
	// probe prefix 3 index prefix 2
	// overlap 8 of sizes 9 and 9 passes: true 0.8
}

func ExampleMeasure_AppendSim() {
	var b []byte
	b = prefix.Jaccard.AppendSim(b, 0.8)
	b = append(b, ' ')
	b = prefix.Cosine.AppendSim(b, 5.0/7)
	b = append(b, ' ')
	b = prefix.Dice.AppendSim(b, 1)
	b = append(b, ' ')
	b = prefix.Overlap.AppendSim(b, 12)
	fmt.Println(string(b))
	// Output: 0.8 0.714286 1 12
}
