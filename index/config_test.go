package index

import (
	"errors"
	"math"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
)

// TestConfigCheck: Create sets an LSH index's Bands and Rows from a Shape
// (and Perm when not given), or chooses them for a Recall within Perm, which
// it keeps: the signatures hold Perm values, the bands use the first b·r. It
// leaves Shape, Recall and Force zero, and refuses a bad Config with a
// *ConfigError naming the field (wrapping ErrConfig and the reason).
func TestConfigCheck(t *testing.T) {
	half := prefix.Threshold{Num: 1, Den: 2}
	lsh := func(f func(c *Config)) Config {
		c := Config{Method: LSH, Measure: prefix.Jaccard, MinThreshold: half}
		f(&c)
		return c
	}
	for _, tc := range []struct {
		name              string
		cfg               Config
		perm, bands, rows int
	}{
		{"shape", lsh(func(c *Config) { c.Shape = approx.Shape{B: 8, R: 2} }), 16, 8, 2},
		{"shape and its perm", lsh(func(c *Config) { c.Shape, c.Perm = approx.Shape{B: 8, R: 2}, 16 }), 16, 8, 2},
		{"shape and a larger perm", lsh(func(c *Config) { c.Shape, c.Perm = approx.Shape{B: 8, R: 2}, 64 }), 64, 8, 2},
		{"bands of perm", lsh(func(c *Config) { c.Perm, c.Bands = 100, 25 }), 100, 25, 4},
		{"bands and rows", lsh(func(c *Config) { c.Perm, c.Bands, c.Rows = 100, 20, 2 }), 100, 20, 2},
		{"default recall", lsh(func(c *Config) {}), 128, 23, 3},
		{"recall 0.5", lsh(func(c *Config) { c.Recall = 0.5 }), 128, 22, 5},
		{"the guide's 16x16 at 0.5, forced", lsh(func(c *Config) { c.Shape, c.Force = approx.Shape{B: 16, R: 16}, true }), 256, 16, 16},
		{"16x16 at 0.8", lsh(func(c *Config) {
			c.Shape, c.MinThreshold = approx.Shape{B: 16, R: 16}, prefix.Threshold{Num: 19, Den: 20}
		}), 256, 16, 16},
	} {
		cfg := tc.cfg
		if err := cfg.check(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if cfg.Perm != tc.perm || cfg.Bands != tc.bands || cfg.Rows != tc.rows || cfg.Shape != (approx.Shape{}) || cfg.Recall != 0 || cfg.Force || cfg.Bits != approx.DefaultBits {
			t.Errorf("%s: %+v, want perm %d, bands %d, rows %d", tc.name, cfg, tc.perm, tc.bands, tc.rows)
		}
	}
	// The Milvus guide's 16 bands of 16 rows at a minimum of 0.5 finds a
	// pair there with probability 1-(1-0.5^16)^16, about 0.000244.
	cfg := lsh(func(c *Config) { c.Shape = approx.Shape{B: 16, R: 16} })
	var re *RecallError
	if err := cfg.check(); !errors.As(err, &re) || re.Shape != (approx.Shape{B: 16, R: 16}) || math.Abs(re.P-0.000244) > 1e-6 ||
		err.Error() != "index: bad config: banding 16x16 finds a pair at the minimum threshold 0.5 with probability 0.000244, below 0.5" {
		t.Errorf("16x16 at 0.5: %v, want a *RecallError", err)
	}
	for _, tc := range []struct {
		name, field string
		cfg         Config
		is          error // also wrapped, when not nil
	}{
		{"no method", "Method", Config{Measure: prefix.Jaccard, MinThreshold: half}, nil},
		{"exact without a threshold", "MinThreshold", Config{Method: Exact}, nil},
		{"lsh cosine", "Measure", lsh(func(c *Config) { c.Measure = prefix.Cosine }), nil},
		{"shape and bands", "Bands", lsh(func(c *Config) { c.Shape, c.Bands = approx.Shape{B: 4, R: 4}, 4 }), nil},
		{"shape and a smaller perm", "Shape", lsh(func(c *Config) { c.Shape, c.Perm = approx.Shape{B: 4, R: 4}, 15 }), nil},
		{"shape and rows", "Bands", lsh(func(c *Config) { c.Shape, c.Rows = approx.Shape{B: 4, R: 4}, 4 }), nil},
		{"rows without bands", "Rows", lsh(func(c *Config) { c.Rows = 4 }), nil},
		{"bands and rows over perm", "Rows", lsh(func(c *Config) { c.Perm, c.Bands, c.Rows = 100, 20, 6 }), nil},
		{"recall below one half", "Bands", lsh(func(c *Config) { c.Bands, c.Rows = 2, 8 }), nil},
		{"bloom fpp too high", "BloomFPP", lsh(func(c *Config) { c.BloomFPP = 0.2 }), nil},
		{"bloom fpp too low", "BloomFPP", lsh(func(c *Config) { c.BloomFPP = 0.0001 }), nil},
		{"bloom of exact", "BloomFPP", Config{Method: Exact, Measure: prefix.Jaccard, MinThreshold: half, BloomFPP: 0.01}, nil},
		{"shape too large", "Shape", lsh(func(c *Config) { c.Shape = approx.Shape{B: 100, R: 100} }), approx.ErrShape},
		{"bits 12", "Bits", lsh(func(c *Config) { c.Bits = 12 }), approx.ErrShape},
		{"perm too large", "Perm", lsh(func(c *Config) { c.Perm = approx.MaxK + 1 }), approx.ErrShape},
		{"recall 1", "Recall", lsh(func(c *Config) { c.Recall = 1 }), approx.ErrRecall},
		{"recall unreachable", "Recall", lsh(func(c *Config) { c.Perm, c.Recall = 4, 0.9999 }), approx.ErrRecall},
		{"bands over perm", "Bands", lsh(func(c *Config) { c.Bands = 200 }), nil},
		{"no bands, no threshold", "Bands", lsh(func(c *Config) { c.MinThreshold = prefix.Threshold{} }), nil},
	} {
		cfg := tc.cfg
		err := cfg.check()
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field || !errors.Is(err, ErrConfig) || tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%s: %v, want a *ConfigError for %s", tc.name, err, tc.field)
		}
	}
}

// TestParseMethod: the methods' names parse back; anything else wraps
// ErrMethod.
func TestParseMethod(t *testing.T) {
	for _, m := range []Method{Exact, LSH} {
		if got, err := ParseMethod(m.String()); got != m || err != nil {
			t.Errorf("ParseMethod(%q) = %v, %v", m, got, err)
		}
	}
	for _, s := range []string{"", "auto", "Exact", "LSH"} {
		if _, err := ParseMethod(s); !errors.Is(err, planner.ErrMethod) {
			t.Errorf("ParseMethod(%q): %v, want ErrMethod", s, err)
		}
	}
}
