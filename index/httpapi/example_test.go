package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/index/httpapi"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// Serve an index on a loopback port, insert with dedup and search, then
// shut down.
func Example() {
	dir, err := os.MkdirTemp("", "httpapi-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ix, err := index.Create(filepath.Join(dir, "ix"), index.Config{
		Tokens:       shingle.Spec{Kind: shingle.Words},
		Method:       index.Exact,
		Measure:      prefix.Jaccard,
		MinThreshold: prefix.Threshold{Num: 1, Den: 2},
	})
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- httpapi.New(ix, httpapi.Options{}).Serve(ctx, ln) }()

	post := func(path, body string) {
		resp, err := http.Post("http://"+ln.Addr().String()+path, "application/json", strings.NewReader(body))
		if err != nil {
			log.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		fmt.Print(resp.StatusCode, " ", string(b))
	}
	post("/v1/records", `{"records": ["the quick brown fox", "The quick brown fox!", "lorem ipsum dolor"], "dedup_threshold": 0.8}`)
	post("/v1/search", `{"queries": ["quick brown fox"], "threshold": 0.5}`)
	post("/v1/search", `{"queries": ["quick brown fox"], "threshold": 0.5, "top_k": 1}`)

	stop() // graceful: waits for the requests under way
	if err := <-done; err != nil {
		log.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 200 {"results":[{"status":"inserted","id":1},{"status":"duplicate","id":1,"sim":1},{"status":"inserted","id":2}]}
	// 200 {"results":[[{"id":1,"sim":0.75}]]}
	// 400 {"error":"give threshold or top_k, not both"}
}
