// Command simjoin finds every pair of similar records in a collection.
//
// See docs/README.md for the guide, and docs/reference for every command and
// flag (generated from the commands: go generate ./cmd/simjoin).
package main

import (
	"context"
	"os"

	"github.com/simjoin/simjoin/cmd/simjoin/internal/memlimit"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/outfile"
	"github.com/simjoin/simjoin/internal/gcpace"
)

func main() {
	gcpace.Command()
	// Under ulimit -v, the collector keeps the heap within what the
	// address space leaves (commands that join also check their estimate
	// against it: runFlags.parse).
	if l, ok := memlimit.AddressSpace(); ok {
		l.SetSoft()
	}
	ctx, stop := outfile.Catch(context.Background(), outfile.DefaultGrace, os.Exit)
	code := runContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if sig := stop(); sig != nil {
		code = outfile.ExitCode(sig)
	}
	os.Exit(code)
}
