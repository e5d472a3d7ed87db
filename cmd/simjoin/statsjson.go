package main

import (
	"encoding/json"

	rpt "github.com/simjoin/simjoin/internal/report"
)

// statsSchemaVersion is the version of the --stats-json schema,
// docs/stats.schema.json. It changes when a field is renamed, removed or
// changes meaning; adding a field does not change it.
//
// The schema's rules: names in snake_case; durations in seconds as numbers
// whose names end in "_s"; counts of things as integers; byte counts end in
// "_bytes" or are named "bytes".
const statsSchemaVersion = 1

// MarshalJSON writes the report with the schema's version and the exact
// join's counters under snake_case names.
func (r *report) MarshalJSON() ([]byte, error) {
	type plain report // without this method
	return json.Marshal(struct {
		Version int `json:"schema_version"`
		*plain
		Exact *rpt.ExactJSON `json:"exact,omitempty"`
	}{statsSchemaVersion, (*plain)(r), rpt.NewExactJSON(r.Exact)})
}
