package main

import (
	"errors"
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

// checkAddr refuses an --addr that is not HOST:PORT with a port in 0..65535
// (or a service name the system knows): a usage error, before the index is
// opened. Whether HOST can be listened on is the listener's to say.
func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil {
		return usagef("--addr %q: want HOST:PORT with a port from 0 to 65535, such as 127.0.0.1:8080", addr)
	}
	return nil
}

func newServeCmd(e *env) *cobra.Command {
	var addr string
	var workers, maxRecords, maxHits int
	var maxBody int64
	var shutdown time.Duration
	cmd := &cobra.Command{
		Use:   "serve DIR --addr HOST:PORT",
		Short: "Serve an index over HTTP/JSON: insert with dedup, search, delete, stats",
		Long:  help("serve"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkAddr(addr); err != nil {
				return err
			}
			if maxRecords < 1 || maxHits < 1 || maxBody < 1 || shutdown <= 0 {
				return usagef("--max-records, --max-hits, --max-body and --shutdown-timeout must be positive")
			}
			return withIndex(e, args[0], index.OpenOptions{Workers: workers}, func(ix *index.Index) error {
				ln, err := net.Listen("tcp", addr)
				if err != nil {
					return err
				}
				srv := httpapi.New(ix, httpapi.Options{
					MaxBodyBytes:    maxBody,
					MaxRecords:      maxRecords,
					MaxHits:         maxHits,
					ShutdownTimeout: shutdown,
					ErrorLog:        log.New(e.stderr, "simjoin serve: ", log.LstdFlags),
				})
				// After a signal, main exits on its own once its grace has
				// passed: give the requests under way their time first.
				outfile.Linger(shutdown + time.Second)
				fmt.Fprintf(e.stderr, "listening on %s\n", ln.Addr())
				// One line says how the shutdown went.
				var ue *httpapi.UnansweredError
				switch err := srv.Serve(cmd.Context(), ln); {
				case errors.As(err, &ue):
					fmt.Fprintf(e.stderr, "shut down: %v; index closed\n", ue)
				case err != nil:
					return err
				default:
					fmt.Fprintln(e.stderr, "shut down: every request answered, index closed")
				}
				return nil
			})
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0: any free port)")
	fs.IntVar(&maxRecords, "max-records", httpapi.DefaultMaxRecords, "most records (or queries) in one request")
	fs.IntVar(&maxHits, "max-hits", httpapi.DefaultMaxHits, "most hits in one search answer, over all its queries (past them it is cut and says \"truncated\": true)")
	fs.Int64Var(&maxBody, "max-body", httpapi.DefaultMaxBodyBytes, "largest request body in `BYTES`")
	addWorkersFlag(fs, &workers, "worker goroutines of the index (0: one per core)")
	fs.DurationVar(&shutdown, "shutdown-timeout", httpapi.DefaultShutdownTimeout, "on a signal, how long the requests under way may take before their connections are closed")
	return cmd
}
