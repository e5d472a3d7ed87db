package planner

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"reflect"
)

// Calibration holds the unit costs of the cost model in nanoseconds of CPU
// time (user and system, summed over cores: on a shared machine CPU time is
// much steadier than wall time, and the joins keep every core busy), by
// phase. DefaultCalibration is the one fitted on this project's machines;
// calibration.json says when and how.
type Calibration struct {
	Read  ReadCosts  `json:"read"`
	Order OrderCosts `json:"order"`
	Exact ExactCosts `json:"exact"`
	LSH   LSHCosts   `json:"lsh"`
	Plan  PlanCosts  `json:"plan"`
}

// ReadCosts are the costs of reading and tokenizing (both paths).
type ReadCosts struct {
	// Per byte read and tokenized, by tokenizer; the Values costs where
	// the tokens came as small values (integers under set, ASCII q-grams).
	SetByte        float64 `json:"set_byte"`
	SetValueByte   float64 `json:"set_value_byte"`
	WordsByte      float64 `json:"words_byte"`
	QGramByte      float64 `json:"qgram_byte"`
	QGramValueByte float64 `json:"qgram_value_byte"`
	ShingleByte    float64 `json:"shingle_byte"`
	GoByte         float64 `json:"go_byte"`
	Token          float64 `json:"token"`     // per distinct token of a record: sorted and kept
	File           float64 `json:"file"`      // per file listed and opened
	SetToken       float64 `json:"set_token"` // per token of a ready set, numbered through the source's map
}

// byteCost returns the cost of a byte tokenized by t as keys and as values.
func (r *ReadCosts) byteCost(t Tokenizer) (keys, values float64) {
	switch t {
	case TokenizeSet:
		return r.SetByte, r.SetValueByte
	case TokenizeWords:
		return r.WordsByte, r.WordsByte
	case TokenizeQGram:
		return r.QGramByte, r.QGramValueByte
	case TokenizeShingle:
		return r.ShingleByte, r.ShingleByte
	case TokenizeGo:
		return r.GoByte, r.GoByte
	}
	return 0, 0
}

// OrderCosts are the costs of the token order (package order; the exact
// path's, or both paths' where it is built as the records are read).
type OrderCosts struct {
	TokenEntered float64 `json:"token_entered"` // per token entered into the vocabulary's table
	ValueEntered float64 `json:"value_entered"` // per token entered as a small value (the array)
	Distinct     float64 `json:"distinct"`      // per distinct token: the table's growth, the dictionary
	TokenOrdered float64 `json:"token_ordered"` // per token rewritten as an id and sorted in its set
	Record       float64 `json:"record"`        // per record: offsets, the sort by size, groups
}

// ExactCosts are the costs of the exact join (package join).
type ExactCosts struct {
	Group         float64 `json:"group"`          // per distinct set: grouping
	SetToken      float64 `json:"set_token"`      // per token of a distinct set: its bitmap
	IndexEntry    float64 `json:"index_entry"`    // per index entry: building the prefix index
	ProbeGroup    float64 `json:"probe_group"`    // per distinct set probed: its setup, its candidates' pass
	ProbeToken    float64 `json:"probe_token"`    // per probe-prefix token looked up: its posting list and the size window
	Posting       float64 `json:"posting"`        // per posting in the size window: reading it, the cheap early checks
	Examined      float64 `json:"examined"`       // per posting examined: the candidate's counter and the positional filter
	Candidate     float64 `json:"candidate"`      // per distinct candidate: the bounds checked before merging
	VerifiedToken float64 `json:"verified_token"` // per token of a verified candidate's set
	Result        float64 `json:"result"`         // per result pair: emitted and written
}

// LSHCosts are the costs of the LSH join (package approx).
type LSHCosts struct {
	TokenHashed    float64 `json:"token_hashed"`    // per token of a record hashed to group identical sets, or of a distinct set hashed and binned (key sets)
	WordHashed     float64 `json:"word_hashed"`     // per dictionary entry hashed (collections)
	TokenSigned    float64 `json:"token_signed"`    // per token of a distinct set binned from its entry's hash (collections)
	HashFunction   float64 `json:"hash_function"`   // per token and signature value (classic scheme only)
	SignatureValue float64 `json:"signature_value"` // per signature value: initialising, packing
	Probe          float64 `json:"probe"`           // per densification probe (one-permutation scheme)
	BandKey        float64 `json:"band_key"`        // per (set, band): the band's key
	BandSort       float64 `json:"band_sort"`       // per band key and log2 of the sets banded: sorting the tables
	Collision      float64 `json:"collision"`       // per band collision (a pair meeting in a bucket, repeats included)
	Candidate      float64 `json:"candidate"`       // per distinct candidate pair: setting up its exact check
	VerifiedToken  float64 `json:"verified_token"`  // per token of a candidate's set: the exact check
	Result         float64 `json:"result"`          // per result pair: emitted and written
}

// PlanCosts are planning's own costs, which size its samples.
type PlanCosts struct {
	SampleToken float64 `json:"sample_token"` // per token of a sample: copied into a sub-collection
	PairToken   float64 `json:"pair_token"`   // per token of a random pair whose similarity is measured
	KeyToken    float64 `json:"key_token"`    // per token of the input scanned before the order (NewKeys)
}

// calibrationFile is the calibration the planner uses unless
// Options.Calibration says otherwise: written by the calibration suite
// (the simjoin package's TestCalibrate, see calibration.json's "command").
//
//go:embed calibration.json
var calibrationFile []byte

// CalibrationFile is the JSON of a calibration file: the unit costs and
// how they were fitted.
type CalibrationFile struct {
	Command string      `json:"command"` // the command that wrote it
	Fitted  string      `json:"fitted"`  // the date, the Go release, the machine
	Costs   Calibration `json:"costs"`
	// Fit says how well each phase's fit matched the suite's measured CPU
	// times: the least and greatest ratio of fitted to measured.
	Fit map[string][2]float64 `json:"fit"`
}

// ParseCalibration reads a calibration file strictly: unknown or missing
// fields, negative or non-finite costs and trailing data are errors.
func ParseCalibration(data []byte) (CalibrationFile, error) {
	var f CalibrationFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("planner: calibration: %w", err)
	}
	if dec.More() {
		return f, fmt.Errorf("planner: calibration: data after the object")
	}
	// Every cost must be present: a missing one would price its work at 0.
	var raw struct {
		Costs map[string]map[string]json.RawMessage `json:"costs"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return f, fmt.Errorf("planner: calibration: %w", err)
	}
	v := reflect.ValueOf(f.Costs)
	for i := range v.NumField() {
		group := v.Type().Field(i).Tag.Get("json")
		g := v.Field(i)
		for j := range g.NumField() {
			name := g.Type().Field(j).Tag.Get("json")
			if _, ok := raw.Costs[group][name]; !ok {
				return f, fmt.Errorf("planner: calibration: no cost %s.%s", group, name)
			}
			if x := g.Field(j).Float(); !(x >= 0 && x < 1e12) {
				return f, fmt.Errorf("planner: calibration: cost %s.%s is %v", group, name, x)
			}
		}
	}
	return f, nil
}

// defaultCalibration is calibrationFile's costs.
var defaultCalibration = func() Calibration {
	f, err := ParseCalibration(calibrationFile)
	if err != nil {
		panic(err) // the embedded file is the package's own: a test checks it
	}
	return f.Costs
}()

// DefaultCalibration returns the calibration the planner uses unless
// Options.Calibration says otherwise (a copy: changing it changes no plan).
func DefaultCalibration() Calibration { return defaultCalibration }
