package main

import (
	"cmp"
	"errors"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/simjoin/simjoin/approx"
	rpt "github.com/simjoin/simjoin/cmd/simjoin/internal/report"
	"github.com/simjoin/simjoin/planner"
)

// lshFlags are the flags of the MinHash-LSH path (--method lsh), part of
// joinConfig.
type lshFlags struct {
	shape       string
	perm        int
	bits        int
	recall      float64
	verify      string
	seed        string
	scheme      string
	maxBucket   int
	minSize     int
	checkRecall bool

	opt approx.Options // parsed by parse; Measure and Threshold filled in by resolve
}

func (f *lshFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.shape, "lsh", "", "LSH banding `BxR`: B bands of R rows, B·R <= K (default: the cheapest whose P(t) reaches --recall)")
	fs.IntVar(&f.perm, "perm", approx.DefaultK, "LSH: MinHash signature length `K`, 1.."+strconv.Itoa(approx.MaxK))
	fs.IntVar(&f.bits, "bits", approx.DefaultBits, "LSH: bits kept of each MinHash value: 8, 16, 32 or 64")
	fs.Float64Var(&f.recall, "recall", approx.DefaultRecall, "LSH: target recall in (0, 1), the least chance P(t) of finding a pair at the threshold")
	fs.StringVar(&f.verify, "verify", "exact", "LSH candidates: exact (similarity of the sets) or estimate (from the signatures; JSONL key \"est\")")
	fs.StringVar(&f.seed, "seed", "0", "LSH: seed of the MinHash functions, an integer in [0, 2^64)")
	fs.StringVar(&f.scheme, "minhash", "oneperm", "LSH: MinHash scheme, oneperm (one permutation, densified) or classic (K hash functions)")
	fs.IntVar(&f.maxBucket, "max-bucket", approx.DefaultMaxBucket, "LSH: a band bucket of more distinct sets yields no candidates (counted in the stats); 0: no cap")
	fs.IntVar(&f.minSize, "min-size", 0, "LSH: drop sets of fewer tokens before banding (near-empty sets collide by chance)")
	fs.BoolVar(&f.checkRecall, "check-recall", false, "LSH: also run the exact join and report the measured recall")
}

// parse checks the LSH flags before any work starts. The banding is chosen
// (and checked against the threshold and measure) only when the method is
// lsh.
func (f *lshFlags) parse(c *joinConfig) error {
	o := &f.opt
	*o = approx.Options{K: f.perm, Bits: f.bits, Recall: f.recall, MinSize: f.minSize}
	var seedErr, verifyErr, schemeErr error
	o.Seed, seedErr = approx.ParseSeed(f.seed)
	o.Verify, verifyErr = approx.ParseVerify(f.verify)
	o.Scheme, schemeErr = approx.ParseScheme(f.scheme)
	if f.shape != "" {
		var err error
		if o.Shape, err = approx.ParseShape(f.shape); err != nil {
			return usageError{rpt.FlagValueError("--lsh", err)}
		}
	}
	err := cmp.Or(o.Validate(), seedErr, verifyErr, schemeErr)
	if sh := o.Shape; errors.Is(err, approx.ErrShape) && !errors.As(err, new(*approx.OptionError)) {
		return usagef("--lsh %s with --perm %d: %d bands of %d rows need %d values; lower B or R, or raise --perm", f.shape, f.perm, sh.B, sh.R, sh.B*sh.R)
	}
	if err != nil {
		return lshError(err)
	}
	var ok bool
	if o.MaxBucket, ok = zeroIsNone(f.maxBucket); !ok {
		return usagef("--max-bucket %d: want >= 0 (0: no cap)", f.maxBucket)
	}
	if c.method != planner.LSH {
		return nil
	}
	return f.resolve(c)
}

// lshFlag names the flag of each field of approx.Options that an
// *approx.OptionError names.
var lshFlag = map[string]string{"K": "perm", "Bits": "bits", "Recall": "recall", "Seed": "seed", "Scheme": "minhash", "Verify": "verify", "MinSize": "min-size"}

// lshError words an error of approx's checks as the command line's: the
// flag of the field refused, the value and what it takes.
func lshError(err error) error {
	var oe *approx.OptionError
	if errors.As(err, &oe) {
		return usagef("--%s %s: want %s", lshFlag[oe.Option], oe.Value, oe.Want)
	}
	return usageError{err}
}

// resolve fills in the measure and threshold and chooses the banding.
func (f *lshFlags) resolve(c *joinConfig) error {
	f.opt.Measure, f.opt.Threshold, f.opt.Workers = c.m, c.t, c.workers
	r, err := f.opt.Resolve()
	switch {
	case errors.Is(err, approx.ErrNoJaccardBound):
		return usagef("--method lsh estimates Jaccard similarity and supports --measure jaccard, dice and cosine; use --method exact for %s", c.m)
	case err != nil:
		return usageError{err}
	}
	f.opt = r
	return nil
}
