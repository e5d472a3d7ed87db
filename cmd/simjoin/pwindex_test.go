package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/synth"
)

// TestCheckIndex checks passwords check --index against passwords check
// --against on the same list: the index holds the list's lines in order
// (record id = line), so the matches must be the same, line for id.
func TestCheckIndex(t *testing.T) {
	dir := t.TempDir()
	var list bytes.Buffer
	seen := map[string]bool{}
	for pw := range synth.Passwords(synth.PasswordsConfig{N: 3000, Seed: 9, Distinct: true}) {
		if !strings.ContainsAny(string(pw), "\t\r\n\\") && !seen[string(pw)] {
			seen[string(pw)] = true
			list.Write(pw)
			list.WriteByte('\n')
		}
	}
	known := cliWrite(t, dir, "known.txt", list.String())
	ix := filepath.Join(dir, "pw.idx")
	cliOK(t, "", "index", "create", ix, "--tokens", "qgram:2", "--min-threshold", "0.7")
	cliOK(t, "", "index", "add", ix, known)
	// Candidates: every 10th known password and new ones.
	var cands []string
	lines := strings.Split(strings.TrimSuffix(list.String(), "\n"), "\n")
	for i := 0; i < len(lines); i += 10 {
		cands = append(cands, lines[i])
	}
	for pw := range synth.Passwords(synth.PasswordsConfig{N: 300, Seed: 10}) {
		cands = append(cands, string(pw))
	}
	stdin := strings.Join(cands, "\n") + "\n"
	for _, th := range []string{"0.8", "0.7"} {
		code, want, errs := cliRun(t, stdin, "passwords", "check", "-t", th, "--against", known)
		if code != 3 {
			t.Fatalf("check --against: exit %d, %s", code, errs)
		}
		code, got, errs := cliRun(t, stdin, "passwords", "check", "-t", th, "--index", ix)
		if code != 3 {
			t.Fatalf("check --index: exit %d, %s", code, errs)
		}
		// candidate, line, sim, password -> candidate, id, sim: the id of
		// the record added from a line is the line's number.
		var conv []string
		for _, l := range strings.Split(strings.TrimSuffix(want, "\n"), "\n") {
			f := strings.Split(l, "\t")
			n, _ := strconv.Atoi(f[1])
			conv = append(conv, fmt.Sprintf("%s\t%d\t%s", f[0], n, f[2]))
		}
		gotLines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		// Per candidate both are best first; ties may differ in order
		// (line order against id order is the same here), so compare
		// sorted and check the order of similarities separately.
		if !slices.Equal(gotLines, conv) {
			slices.Sort(gotLines)
			slices.Sort(conv)
			if !slices.Equal(gotLines, conv) {
				t.Fatalf("-t %s: --index and --against differ:\n got %d lines\nwant %d lines", th, len(gotLines), len(conv))
			}
			t.Errorf("-t %s: same matches in another order", th)
		}
	}
	// CSV and JSONL name the fields; the candidate is never echoed.
	_, out, _ := cliRun(t, lines[0]+"\n", "passwords", "check", "--index", ix, "--format", "csv")
	if !strings.HasPrefix(out, "candidate,id,similarity\n1,1,1\n") {
		t.Errorf("--format csv: %q", out)
	}
	_, out, _ = cliRun(t, lines[0]+"\n", "passwords", "check", "--index", ix, "--format", "jsonl")
	if !strings.HasPrefix(out, `{"candidate":1,"id":1,"sim":1}`+"\n") || strings.Contains(out, lines[0]) {
		t.Errorf("--format jsonl: %q", out)
	}
	// The statistics report follows the published schema (cliRun checks it).
	rep := filepath.Join(dir, "check.json")
	if code, _, errs := cliRun(t, stdin, "passwords", "check", "--index", ix, "--silent", "--stats-json", rep); code != 3 {
		t.Errorf("check --index --stats-json: exit %d, %s", code, errs)
	}
	// A candidate far from every known password: exit 0, no output.
	if code, out, _ := cliRun(t, "", "passwords", "check", "--index", ix, "zq#9Xv!k2"); code != 0 || out != "" {
		t.Errorf("unrelated candidate: exit %d, %q", code, out)
	}
	// Flags the index fixes, and a threshold below its minimum, are usage errors.
	for _, args := range [][]string{
		{"passwords", "check", "--index", ix, "-q", "3", "x"},
		{"passwords", "check", "--index", ix, "--fold-case", "x"},
		{"passwords", "check", "--index", ix, "-t", "0.5", "x"},
		{"passwords", "check", "--index", ix, "--against", known, "x"},
	} {
		if code, _, errs := cliRun(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d %s, want 2", args, code, errs)
		}
	}
	// Passwords never appear in errors: invalid UTF-8 under qgram.
	code, _, errs := cliRun(t, "s3cr\xffet\n", "passwords", "check", "--index", ix)
	if code != 1 || strings.Contains(errs, "s3cr") {
		t.Errorf("invalid UTF-8 candidate: exit %d, %q", code, errs)
	}
}
