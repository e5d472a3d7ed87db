package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin/cmd/simjoin/internal/outfile"
	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/index/httpapi"
)

func init() { register(newServeCmd) }

// minTokenLen is the shortest bearer token serve takes.
const minTokenLen = 16

// serveFlags are the flags of serve.
type serveFlags struct {
	addr               string
	tokenFile          string
	insecure, inMemory bool
	tlsCert, tlsKey    string
	backupDir          string
	compactDeleted     float64
	workers            int
	maxRecords         int
	maxQueries         int
	maxHits            int
	maxBody            int64
	maxTime, shutdown  time.Duration
	certs              []tls.Certificate // read by check
	token              string            // read by check
	loopback           bool              // addr's host is a loopback one
}

// checkAddr refuses an --addr that is not HOST:PORT with a port in 0..65535
// (or a service name the system knows): a usage error, before the index is
// opened. Whether HOST can be listened on is the listener's to say. It
// reports whether HOST is a loopback one: "localhost" or a loopback IP
// address (an empty host, or any other name, is not).
func checkAddr(addr string) (loopback bool, err error) {
	host, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil {
		return false, usagef("--addr %q: want HOST:PORT with a port from 0 to 65535, such as 127.0.0.1:8080", addr)
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}

// check reads and checks the flags before the index is opened: the
// address, who may connect (a non-loopback address needs a token or
// --insecure), the token and the TLS key pair, and the limits.
func (f *serveFlags) check() error {
	var err error
	if f.loopback, err = checkAddr(f.addr); err != nil {
		return err
	}
	if f.maxRecords < 1 || f.maxQueries < 1 || f.maxHits < 1 || f.maxBody < 1 || f.maxTime <= 0 || f.shutdown <= 0 {
		return usagef("--max-records, --max-queries, --max-hits, --max-body, --max-request-time and --shutdown-timeout must be positive")
	}
	if !(f.compactDeleted >= 0 && f.compactDeleted < 1) {
		return usagef("--compact-deleted %v: want a fraction from 0 (never) to below 1", f.compactDeleted)
	}
	if f.compactDeleted == 0 {
		f.compactDeleted = -1 // httpapi's "never"
	}
	if f.backupDir != "" {
		if info, err := os.Stat(f.backupDir); err != nil || !info.IsDir() {
			return usagef("--backup-dir %s: want an existing directory", f.backupDir)
		}
	}
	switch {
	case f.tokenFile != "" && f.insecure:
		return usagef("give --auth-token-file or --insecure, not both")
	case (f.tlsCert == "") != (f.tlsKey == ""):
		return usagef("give --tls-cert and --tls-key together")
	case !f.loopback && f.tokenFile == "" && !f.insecure:
		return usagef("--addr %s is not a loopback address: give --auth-token-file FILE so that requests must carry its token, or --insecure to serve it to anyone who can connect", f.addr)
	}
	if f.tokenFile != "" {
		b, err := os.ReadFile(f.tokenFile)
		if err != nil {
			return fmt.Errorf("--auth-token-file: %w", err)
		}
		f.token = strings.TrimSpace(string(b))
		if len(f.token) < minTokenLen || strings.ContainsFunc(f.token, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
			return usagef("--auth-token-file %s: want a token of at least %d characters, no spaces or control characters (such as the output of: openssl rand -hex 32)", f.tokenFile, minTokenLen)
		}
	}
	if f.tlsCert != "" {
		c, err := tls.LoadX509KeyPair(f.tlsCert, f.tlsKey)
		if err != nil {
			return fmt.Errorf("--tls-cert %s, --tls-key %s: %w", f.tlsCert, f.tlsKey, err)
		}
		f.certs = []tls.Certificate{c}
	}
	return nil
}

// listen opens the listener of f: TLS when a key pair was given.
func (f *serveFlags) listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", f.addr)
	if err != nil || f.certs == nil {
		return ln, err
	}
	return tls.NewListener(ln, &tls.Config{Certificates: f.certs, MinVersion: tls.VersionTLS12}), nil
}

// describe says how the server is reached, for the line after the address.
func (f *serveFlags) describe() string {
	scheme := "http"
	if f.certs != nil {
		scheme = "https"
	}
	switch {
	case f.token != "":
		return scheme + ", bearer token required"
	case f.loopback:
		return scheme + ", loopback only"
	}
	return scheme + ", no token, open to anyone who can connect: --insecure"
}

func newServeCmd(e *env) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve DIR [--addr HOST:PORT]",
		Short: "Serve an index over HTTP/JSON: insert with dedup, search, delete, stats",
		Long:  help("serve"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			metrics := httpapi.NewMetrics()
			opt := index.OpenOptions{Workers: f.workers, InMemory: f.inMemory, OnSync: metrics.ObserveSync}
			return withIndex(e, args[0], opt, func(ix *index.Index) error {
				ln, err := f.listen()
				if err != nil {
					return err
				}
				srv := httpapi.New(ix, httpapi.Options{
					MaxBodyBytes:    f.maxBody,
					MaxRecords:      f.maxRecords,
					MaxQueries:      f.maxQueries,
					MaxHits:         f.maxHits,
					MaxRequestTime:  f.maxTime,
					AuthToken:       f.token,
					Metrics:         metrics,
					BackupDir:       f.backupDir,
					CompactDeleted:  f.compactDeleted,
					ShutdownTimeout: f.shutdown,
					ErrorLog:        log.New(e.stderr, "simjoin serve: ", log.LstdFlags),
				})
				// After a signal, main exits on its own once its grace has
				// passed: give the requests under way their time first.
				outfile.Linger(f.shutdown + time.Second)
				fmt.Fprintf(e.stderr, "listening on %s (%s)\n", ln.Addr(), f.describe())
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
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0: any free port); a host that is not loopback needs --auth-token-file or --insecure")
	fs.StringVar(&f.tokenFile, "auth-token-file", "", "every request but GET /v1/health must carry the token in `FILE` (Authorization: Bearer TOKEN)")
	fs.BoolVar(&f.insecure, "insecure", false, "serve a non-loopback address without a token")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "serve HTTPS with the certificate (chain) in PEM `FILE`")
	fs.StringVar(&f.tlsKey, "tls-key", "", "the private key of --tls-cert, in PEM `FILE`")
	fs.StringVar(&f.backupDir, "backup-dir", "", "POST /v1/backup writes its copies in `DIR`, one directory each (none: backups off)")
	fs.Float64Var(&f.compactDeleted, "compact-deleted", httpapi.DefaultCompactDeleted, "compact in the background once more than this `FRACTION` of the records held are deleted (0: never)")
	fs.IntVar(&f.maxRecords, "max-records", httpapi.DefaultMaxRecords, "most records in one insert (and ids in one only or exclude list)")
	fs.IntVar(&f.maxQueries, "max-queries", httpapi.DefaultMaxQueries, "most queries in one search")
	fs.IntVar(&f.maxHits, "max-hits", httpapi.DefaultMaxHits, "most hits in one search answer, over all its queries (past them it is cut and says \"truncated\": true)")
	fs.Int64Var(&f.maxBody, "max-body", httpapi.DefaultMaxBodyBytes, "largest request body in `BYTES`")
	fs.DurationVar(&f.maxTime, "max-request-time", httpapi.DefaultMaxRequestTime, "longest a request may run (a search past it stops: 503, or cut and \"truncated\": true)")
	addWorkersFlag(fs, &f.workers, "worker goroutines of the index (0: one per core)")
	fs.BoolVar(&f.inMemory, "in-memory", false, "read the index's segments into memory instead of mapping them (no page faults; memory for all of it)")
	fs.DurationVar(&f.shutdown, "shutdown-timeout", httpapi.DefaultShutdownTimeout, "on a signal, how long the requests under way may take before their connections are closed")
	return cmd
}
