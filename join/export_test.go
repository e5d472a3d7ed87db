package join

import (
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// EllKeys returns the keys a self-join of c at b would look up and index
// with ℓ-prefix keys of ell tokens (a test's budget for forcing a path).
func EllKeys(c *order.Collection, b prefix.Bounds, ell int) int64 {
	keys, _, indexed := ellKeys(groupsOf(c), b, ell)
	return keys + indexed
}

// SetSkipIntroduced sets whether probes skip the keys their group
// introduces (keyIndex.intro) and returns the previous setting.
func SetSkipIntroduced(on bool) bool {
	prev := skipIntroduced
	skipIntroduced = on
	return prev
}
