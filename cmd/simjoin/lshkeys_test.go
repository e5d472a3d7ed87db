package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLSHKeysMatchCollection: join --method lsh, which reads key sets and
// builds no token order, reports the pairs, similarities and LSH statistics
// that the collection path reports (the path --check-recall takes, since
// its exact join needs the order): lines and files, self and R-S, exact
// and estimated similarities.
func TestLSHKeysMatchCollection(t *testing.T) {
	sets := filepath.Join("..", "..", "testdata", "sets.txt")
	for _, args := range [][]string{
		{"-t", "0.5", sets},
		{"-t", "0.6", "--measure", "cosine", "--verify", "estimate", "--format", "jsonl", sets},
		{"-t", "0.6", "--against", sets, "--minhash", "classic", "--perm", "64", "--bits", "16", sets},
		{"-t", "0.3", "--files", "--tokens", "shingle:2", docsDir},
	} {
		dir := t.TempDir()
		run := func(name string, extra ...string) (string, map[string]any) {
			stats := filepath.Join(dir, name+".json")
			a := append([]string{"join", "--method", "lsh", "--sort", "--stats-json", stats}, extra...)
			code, out, stderr := runCLI(t, append(a, args...)...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", a, code, stderr)
			}
			data, err := os.ReadFile(stats)
			if err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Records    int            `json:"records"`
				Skipped    int            `json:"skipped_empty"`
				SetTokens  int            `json:"set_tokens"`
				Vocabulary int            `json:"vocabulary"`
				Sections   map[string]any `json:"sections"`
			}
			if err := json.Unmarshal(data, &rep); err != nil {
				t.Fatal(err)
			}
			lsh, _ := rep.Sections["lsh"].(map[string]any)
			for k := range lsh {
				switch {
				case strings.HasSuffix(k, "_s"), k == "exact_pairs", k == "found_exact_pairs", k == "measured_recall", k == "false_pairs":
					delete(lsh, k)
				}
			}
			lsh["records"], lsh["skipped"], lsh["set_tokens"], lsh["vocabulary"] = rep.Records, rep.Skipped, rep.SetTokens, rep.Vocabulary
			return out, lsh
		}
		keysOut, keysStats := run("keys")
		collOut, collStats := run("collection", "--check-recall")
		if keysOut != collOut || keysOut == "" {
			t.Errorf("%v: pairs differ between the key-set and collection paths (%d and %d bytes)", args, len(keysOut), len(collOut))
		}
		kj, _ := json.Marshal(keysStats)
		cj, _ := json.Marshal(collStats)
		if string(kj) != string(cj) {
			t.Errorf("%v: statistics differ:\nkeys       %s\ncollection %s", args, kj, cj)
		}
	}
}
