//go:build invariants

package invariants

// Enabled reports whether the expensive invariant checks run: true in this
// build (-tags invariants).
const Enabled = true
