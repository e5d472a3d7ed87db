// Package bench compares simjoin's MinHash-LSH path with other libraries on
// one workload, side by side in one benchmark run. It is a nested module so
// that the main module does not depend on the libraries it is measured
// against; run it from this directory:
//
//	go test -run XXX -bench . -benchtime 3x
package bench
