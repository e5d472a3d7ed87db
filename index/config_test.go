package index

import (
	"errors"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
)

// TestConfigCheck: Create sets an LSH index's Perm and Bands from a Shape,
// or chooses Bands for a Recall, leaves Shape and Recall zero, and refuses
// a bad Config with a *ConfigError naming the field (wrapping ErrConfig and
// the reason).
func TestConfigCheck(t *testing.T) {
	half := prefix.Threshold{Num: 1, Den: 2}
	lsh := func(f func(c *Config)) Config {
		c := Config{Method: LSH, Measure: prefix.Jaccard, MinThreshold: half}
		f(&c)
		return c
	}
	for _, tc := range []struct {
		name        string
		cfg         Config
		perm, bands int
	}{
		{"shape", lsh(func(c *Config) { c.Shape = approx.Shape{B: 4, R: 4} }), 16, 4},
		{"shape and its perm", lsh(func(c *Config) { c.Shape, c.Perm = approx.Shape{B: 4, R: 4}, 16 }), 16, 4},
		{"bands of perm", lsh(func(c *Config) { c.Perm, c.Bands = 100, 8 }), 100, 8},
		{"default recall", lsh(func(c *Config) {}), 69, 23},
		{"recall 0.5", lsh(func(c *Config) { c.Recall = 0.5 }), 110, 22},
	} {
		cfg := tc.cfg
		if err := cfg.check(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if cfg.Perm != tc.perm || cfg.Bands != tc.bands || cfg.Shape != (approx.Shape{}) || cfg.Recall != 0 || cfg.Bits != approx.DefaultBits {
			t.Errorf("%s: %+v, want perm %d, bands %d", tc.name, cfg, tc.perm, tc.bands)
		}
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
		{"shape and another perm", "Shape", lsh(func(c *Config) { c.Shape, c.Perm = approx.Shape{B: 4, R: 4}, 64 }), nil},
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
