package rows

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/index/httpapi"
)

// WriteIndexStats writes the statistics st of an index of configuration cfg
// (simjoin index stats): in JSONL one JSON object, the one GET /v1/stats of
// simjoin serve answers (httpapi.MarshalStats); otherwise the same fields
// (httpapi.StatsFields, the configuration first) one key<TAB>value a line,
// strings as they are, numbers as JSON writes them.
func WriteIndexStats(w io.Writer, cfg index.Config, st index.Stats, jsonl bool) error {
	if jsonl {
		b, err := httpapi.MarshalStats(cfg, st)
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	bw := bufio.NewWriter(w)
	for _, f := range httpapi.StatsFields(cfg, st) {
		if s, ok := f.Value.(string); ok {
			fmt.Fprintf(bw, "%s\t%s\n", f.Key, s)
		} else if b, err := json.Marshal(f.Value); err == nil {
			fmt.Fprintf(bw, "%s\t%s\n", f.Key, b)
		}
	}
	return bw.Flush()
}
