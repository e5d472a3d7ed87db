// Package invtest is the helper of the tests that prove the invariant checks
// (internal/invariants) fire: each breaks a structure and expects the check
// to panic with its package's message.
package invtest

import (
	"strings"
	"testing"
)

// Panics fails t unless f panics with a string that begins with prefix (such
// as "join: ", the package's invariant messages); name says which broken
// structure was checked.
func Panics(t testing.TB, name, prefix string, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		if msg, ok := r.(string); !ok || !strings.HasPrefix(msg, prefix) {
			t.Errorf("%s: no invariant panic (got %v)", name, r)
		}
	}()
	f()
}
