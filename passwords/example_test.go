package passwords_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/simjoin/simjoin/passwords"
)

const list = `password
password1
Password1
p@ssw0rd
monkey
monkey12
letmein
123456
1234567
123456
`

func Example() {
	l, st, err := passwords.Read(strings.NewReader(list), passwords.ReadOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d lines, %d distinct passwords\n", st.Lines, l.Len())
	// Bigrams, Jaccard >= 0.8: the defaults.
	_, err = passwords.Join(context.Background(), l, passwords.Options{Threshold: passwords.DefaultThreshold()}, func(p passwords.Pair) bool {
		fmt.Printf("%s ~ %s  %.3f\n", l.Password(p.A), l.Password(p.B), p.Sim)
		return true
	})
	if err != nil {
		panic(err)
	}
	// Unordered output:
	// 10 lines, 9 distinct passwords
	// password ~ password1  0.875
	// 123456 ~ 1234567  0.833
}

func ExampleFamilies() {
	l, _, _ := passwords.Read(strings.NewReader(list), passwords.ReadOptions{})
	opt := passwords.Options{Grams: passwords.Grams{Norm: passwords.FoldCase | passwords.FoldLeet | passwords.StripSuffix}, Threshold: passwords.DefaultThreshold()}
	fams, _, err := passwords.Families(context.Background(), l, opt)
	if err != nil {
		panic(err)
	}
	for _, f := range fams {
		fmt.Printf("%d passwords, %d occurrences, most frequent %s:", len(f.Members), f.Count, l.Password(f.Members[0]))
		for _, m := range f.Members {
			fmt.Printf(" %s", l.Password(m))
		}
		fmt.Println()
	}
	// Output:
	// 4 passwords, 4 occurrences, most frequent password: password password1 Password1 p@ssw0rd
	// 2 passwords, 3 occurrences, most frequent 123456: 123456 1234567
	// 2 passwords, 2 occurrences, most frequent monkey: monkey monkey12
}

func ExampleIndex_Lookup() {
	known, _, _ := passwords.Read(strings.NewReader(list), passwords.ReadOptions{})
	ix, err := passwords.NewIndex(known, passwords.Options{Grams: passwords.Grams{Norm: passwords.FoldCase}, Threshold: passwords.DefaultThreshold()})
	if err != nil {
		panic(err)
	}
	var ms []passwords.Match
	for _, cand := range []string{"Password12", "correct horse", "LetMeIn"} {
		ms = ix.Lookup(ms[:0], []byte(cand))
		fmt.Printf("%s:", cand)
		for _, m := range ms {
			fmt.Printf(" %s (%.3f)", known.Password(m.Index), m.Sim)
		}
		fmt.Println()
	}
	// Output:
	// Password12: password1 (0.889) Password1 (0.889)
	// correct horse:
	// LetMeIn: letmein (1.000)
}

// A password policy: check a batch of candidates on all cores and reject
// the batch when one is too close to a known password.
func ExampleIndex_LookupAll() {
	known, _, _ := passwords.Read(strings.NewReader(list), passwords.ReadOptions{})
	ix, err := passwords.NewIndex(known, passwords.Options{Grams: passwords.Grams{Norm: passwords.FoldCase}, Threshold: passwords.DefaultThreshold()})
	if err != nil {
		panic(err)
	}
	cands := [][]byte{[]byte("Password12"), []byte("correct horse"), nil}
	res, err := ix.LookupAll(context.Background(), cands)
	if err != nil {
		panic(err)
	}
	var st passwords.CheckStats
	for k, ms := range res {
		fmt.Printf("candidate %d: %d matches, too close %v\n", k+1, len(ms), st.Add(cands[k], len(ms)))
	}
	fmt.Printf("%+v rejected=%v\n", st, st.Rejected())
	// Output:
	// candidate 1: 2 matches, too close true
	// candidate 2: 0 matches, too close false
	// candidate 3: 0 matches, too close false
	// {Candidates:3 Empty:1 TooClose:1 Matches:2} rejected=true
}
