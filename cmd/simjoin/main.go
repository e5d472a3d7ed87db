// Command simjoin finds every pair of similar records in a collection.
//
// See README.md for the commands, flags and output formats.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
