package httpapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/simjoin/simjoin/index"
)

// StatsField is one statistic of an index: its snake_case key and value.
type StatsField struct {
	Key   string
	Value any
}

// StatsFields lists the statistics of an index of configuration cfg: first
// "config", cfg's one-line description (index.Config.String), then
// "predicted_recall" (PredictedRecall), then the exported fields of st in the
// order of index.Stats, keyed by their JSON tag or, without one, by their
// name in snake_case (BytesOnDisk: bytes_on_disk); the method is written
// by name. GET /v1/stats answers them as one JSON object, and `simjoin
// index stats` prints them. Cost: O(fields).
func StatsFields(cfg index.Config, st index.Stats) []StatsField {
	out := []StatsField{{"config", cfg.String()}, {"predicted_recall", PredictedRecall(cfg)}}
	v := reflect.ValueOf(st)
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if key == "-" {
			continue
		}
		if key == "" {
			key = snake(f.Name)
		}
		val := v.Field(i).Interface()
		if m, ok := val.(index.Method); ok {
			val = m.String()
		}
		out = append(out, StatsField{key, val})
	}
	return out
}

// snake converts a Go name to snake_case, keeping initialisms together:
// BytesOnDisk is bytes_on_disk, WALBytes is wal_bytes.
func snake(name string) string {
	r := []rune(name)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 {
			prevLower := unicode.IsLower(r[i-1])
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if prevLower || (unicode.IsUpper(r[i-1]) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// MarshalStats returns StatsFields(cfg, st) as one JSON object, keys in
// order, "<" and ">" written as they are (not as \u escapes).
func MarshalStats(cfg index.Config, st index.Stats) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, f := range StatsFields(cfg, st) {
		if i > 0 {
			b.WriteByte(',')
		}
		enc.Encode(f.Key)
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := enc.Encode(f.Value); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Recall is the predicted recall of an index at one similarity.
type Recall struct {
	At string  // the similarity, as a threshold is written: "0.5"
	P  float64 // index.Config.PredictedRecall there
}

// RecallTable is the predicted recall of an index at its minimum threshold
// and at each tenth above it up to 0.9 (from 0.1 when it has none): the
// S-curve of an LSH index's banding, 1 for an exact one. It marshals as a
// JSON object in that order, each probability with three significant
// digits: {"0.5":0.954,"0.6":0.99,...}.
type RecallTable []Recall

// PredictedRecall returns the recall table of an index of configuration cfg.
func PredictedRecall(cfg index.Config) RecallTable {
	var tab RecallTable
	lo := 0.0
	if t := cfg.MinThreshold; t.Den != 0 {
		lo = t.Float()
		tab = append(tab, Recall{t.String(), cfg.PredictedRecall(lo)})
	}
	for k := 1; k <= 9; k++ {
		if s := float64(k) / 10; s > lo+1e-9 {
			tab = append(tab, Recall{strconv.FormatFloat(s, 'f', -1, 64), cfg.PredictedRecall(s)})
		}
	}
	return tab
}

// MarshalJSON writes the table as one JSON object in its order.
func (t RecallTable) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, r := range t {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, r.At)
		b = append(b, ':')
		b = append(b, index.FormatRecall(r.P)...)
	}
	return append(b, '}'), nil
}
