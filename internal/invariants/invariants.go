// Package invariants gates the checks that are too expensive to run always:
// build with -tags invariants (as .ci/run's last step does) and the
// packages that import it (order, prefix, join, approx, cluster, planner,
// index) verify the invariants stated next to their fields after building
// or running, panicking with what broke. Without the
// tag Enabled is a false constant and the checks compile away.
package invariants
