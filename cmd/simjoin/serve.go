package main

import (
	"fmt"
	"log"
	"net"
	"time"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin/cmd/simjoin/internal/outfile"
	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/index/httpapi"
)

func init() { register(newServeCmd) }

func newServeCmd(e *env) *cobra.Command {
	var addr string
	var workers, maxRecords int
	var maxBody int64
	var shutdown time.Duration
	cmd := &cobra.Command{
		Use:   "serve DIR --addr HOST:PORT",
		Short: "Serve an index over HTTP/JSON: insert with dedup, search, delete, stats",
		Long:  help("serve"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, _, err := net.SplitHostPort(addr); err != nil {
				return usagef("--addr %q: want HOST:PORT, such as 127.0.0.1:8080", addr)
			}
			if maxRecords < 1 || maxBody < 1 || shutdown <= 0 {
				return usagef("--max-records, --max-body and --shutdown-timeout must be positive")
			}
			return withIndex(args[0], workers, func(ix *index.Index) error {
				ln, err := net.Listen("tcp", addr)
				if err != nil {
					return err
				}
				srv := httpapi.New(ix, httpapi.Options{
					MaxBodyBytes:    maxBody,
					MaxRecords:      maxRecords,
					ShutdownTimeout: shutdown,
					ErrorLog:        log.New(e.stderr, "simjoin serve: ", log.LstdFlags),
				})
				// After a signal, main exits on its own once its grace has
				// passed: give the requests under way their time first.
				outfile.Linger(shutdown + time.Second)
				fmt.Fprintf(e.stderr, "listening on %s\n", ln.Addr())
				if err := srv.Serve(cmd.Context(), ln); err != nil {
					return err
				}
				fmt.Fprintln(e.stderr, "shut down: every request answered, index closed")
				return nil
			})
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0: any free port)")
	fs.IntVar(&maxRecords, "max-records", httpapi.DefaultMaxRecords, "most records (or queries) in one request")
	fs.Int64Var(&maxBody, "max-body", httpapi.DefaultMaxBodyBytes, "largest request body in `BYTES`")
	addWorkersFlag(fs, &workers, "worker goroutines of the index (0: one per core)")
	fs.DurationVar(&shutdown, "shutdown-timeout", httpapi.DefaultShutdownTimeout, "on a signal, how long the requests under way may take before their connections are closed")
	return cmd
}
