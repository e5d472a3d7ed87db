package report

import (
	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/prefix"
)

// NewIndexSearch starts the report of a command (such as "passwords check")
// that searches the persisted index in dir, of configuration cfg, at
// threshold t on workers goroutines: the index's tokenizer, measure and
// method are the report's.
func NewIndexSearch(command, dir string, cfg index.Config, t prefix.Threshold, workers int) *Report {
	return &Report{
		Command:   command,
		Input:     []string{"--index", dir},
		Tokens:    cfg.Tokens.String(),
		Measure:   cfg.Measure.String(),
		Threshold: t.String(),
		Method:    "index: " + cfg.Method.String(),
		Workers:   workers,
	}
}
