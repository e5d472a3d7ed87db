package simjoin

// Collect runs the join of r and s and returns its pairs sorted, as
// SelfJoin does for strings: for the tests of package simjoin_test.
var Collect = collect
