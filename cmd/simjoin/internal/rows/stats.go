package rows

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/index/httpapi"
)

// WriteIndexStats writes the statistics st of an index of configuration cfg
// (simjoin index stats): in JSONL one JSON object, the one GET /v1/stats of
// simjoin serve answers (httpapi.MarshalStats); otherwise one key<TAB>value
// a line, the configuration first, then each statistic as its JSON value
// with strings unquoted.
func WriteIndexStats(w io.Writer, cfg index.Config, st index.Stats, jsonl bool) error {
	if jsonl {
		b, err := httpapi.MarshalStats(st)
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "config\t%s\n", cfg)
	for _, f := range httpapi.StatsFields(st) {
		if b, err := json.Marshal(f.Value); err == nil {
			fmt.Fprintf(bw, "%s\t%s\n", f.Key, strings.Trim(string(b), `"`))
		}
	}
	return bw.Flush()
}
