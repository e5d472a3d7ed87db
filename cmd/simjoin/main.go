// Command simjoin finds every pair of similar records in a collection.
//
// See docs/README.md for the guide, and docs/reference for every command and
// flag (generated from the commands: go generate ./cmd/simjoin).
package main

import (
	"context"
	"os"

	"github.com/simjoin/simjoin/cmd/simjoin/internal/outfile"
	"github.com/simjoin/simjoin/internal/gcpace"
)

func main() {
	gcpace.Command()
	ctx, stop := outfile.Catch(context.Background(), outfile.DefaultGrace, os.Exit)
	code := runContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if sig := stop(); sig != nil {
		code = outfile.ExitCode(sig)
	}
	os.Exit(code)
}
