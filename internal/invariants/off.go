//go:build !invariants

package invariants

// Enabled reports whether the expensive invariant checks run: false unless
// built with -tags invariants.
const Enabled = false
