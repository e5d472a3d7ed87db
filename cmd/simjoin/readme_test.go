package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/internal/jointest"
	"github.com/simjoin/simjoin/internal/numfmt"
)

// The command outputs README.md shows are produced by TestReadme from the
// cases in testdata/readme.txt. Each case is
//
//	run name=NAME [stream=stdout|stderr] [section=TITLE] [head=N] [show] [long]
//	COMMAND LINE...
//	----
//	THE BLOCK README.md SHOWS
//	====
//
// Command lines are `simjoin ARGS` (run in-process, from the repository's
// root) or `go run ./internal/cmd/gen ARGS > FILE` (the generator, whose FILE
// later commands name). The block is the last command's stream: the lines of
// section TITLE only (from the line TITLE to the next unindented line), the
// first N lines and "..." with head=N, preceded by the command lines as
// `$ COMMAND` with show; with format=gotree, the summary scripts/gotree.sh
// prints from the report OUT/exact.json. In arguments, OUT/ names the case's
// temporary directory and GOROOT/ the Go tree; go=VERSION runs the case only
// on that Go release, whose tree README.md describes. In README.md the block follows the line
// `<!-- readme-test: NAME -->` as a fenced code block. Cases marked long run
// only with -long.
//
// Comparisons mask what a run measures rather than computes (wall times of
// phases, planning and the analysed run, their shares and ratios, peak
// memory, a ratio's "!"), and collapse runs of
// spaces, which measured figures move; everything else, every count and every
// predicted figure, must match. `go test ./cmd/simjoin -run TestReadme
// -update-readme` rewrites testdata/readme.txt and README.md from the
// commands' output.
var updateReadme = flag.Bool("update-readme", false, "rewrite testdata/readme.txt and README.md's examples from the commands' output")

type readmeCase struct {
	name    string
	opts    map[string]string
	cmds    []string
	want    string // the block README shows
	line    int    // of the run line in testdata/readme.txt
	got     string // the block the commands produced
	changed bool
}

const readmeCases = "testdata/readme.txt"

func parseReadmeCases(t *testing.T, text string) []*readmeCase {
	t.Helper()
	var cases []*readmeCase
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Fields(l)
		if f[0] != "run" {
			t.Fatalf("%s:%d: want a run line, got %q", readmeCases, i+1, l)
		}
		c := &readmeCase{opts: map[string]string{}, line: i + 1}
		for _, o := range f[1:] {
			k, v, _ := strings.Cut(o, "=")
			c.opts[k] = v
		}
		c.name = c.opts["name"]
		for i++; i < len(lines) && lines[i] != "----"; i++ {
			c.cmds = append(c.cmds, lines[i])
		}
		var block []string
		for i++; i < len(lines) && lines[i] != "===="; i++ {
			block = append(block, lines[i]+"\n")
		}
		if i >= len(lines) || c.name == "" || len(c.cmds) == 0 {
			t.Fatalf("%s:%d: a case needs name=, command lines, ---- and ====", readmeCases, c.line)
		}
		c.want = strings.Join(block, "")
		cases = append(cases, c)
	}
	return cases
}

// run runs the case's commands in dir (for generated files) from the
// repository's root and sets c.got.
func (c *readmeCase) run(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{}
	var stdout, stderr string
	for _, line := range c.cmds {
		args := strings.Fields(line)
		switch {
		case len(args) > 5 && strings.Join(args[:3], " ") == "go run ./internal/cmd/gen" && args[len(args)-2] == ">":
			path := filepath.Join(dir, args[len(args)-1])
			out, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("go", append([]string{"run", "./internal/cmd/gen"}, args[3:len(args)-2]...)...)
			cmd.Stdout = out
			var errb bytes.Buffer
			cmd.Stderr = &errb
			err = cmd.Run()
			out.Close()
			if err != nil {
				t.Fatalf("%s: %v: %s", line, err, errb.String())
			}
			files[args[len(args)-1]] = path
		case args[0] == "simjoin":
			args = args[1:]
			for k, a := range args {
				if p, ok := files[a]; ok {
					args[k] = p
				}
				if rest, ok := strings.CutPrefix(a, "OUT/"); ok {
					args[k] = filepath.Join(dir, rest)
				}
				if rest, ok := strings.CutPrefix(a, "GOROOT/"); ok {
					args[k] = filepath.Join(goroot(t), rest)
				}
			}
			var out, errb strings.Builder
			if code := runChecked(t, args, strings.NewReader(""), &out, &errb); code != 0 {
				t.Fatalf("%s: exit %d: %s", line, code, errb.String())
			}
			stdout, stderr = out.String(), errb.String()
		default:
			t.Fatalf("%s:%d: cannot run %q", readmeCases, c.line, line)
		}
	}
	text := stdout
	switch {
	case c.opts["stream"] == "stderr":
		text = stderr
	case c.opts["format"] == "gotree":
		text = gotreeSummary(t, filepath.Join(dir, "exact.json"))
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if title, ok := c.opts["section"]; ok {
		var sec []string
		for k, l := range lines {
			if strings.TrimSuffix(l, "\n") == title {
				sec = append(sec, l)
				for _, m := range lines[k+1:] {
					if !strings.HasPrefix(m, " ") {
						break
					}
					sec = append(sec, m)
				}
				break
			}
		}
		if sec == nil {
			t.Fatalf("%s: no section %q in:\n%s", c.name, title, text)
		}
		lines = sec
	}
	if h, ok := c.opts["head"]; ok {
		var n int
		fmt.Sscan(h, &n)
		if n < len(lines) {
			lines = append(lines[:n:n], "...\n")
		}
	}
	var b strings.Builder
	if _, ok := c.opts["show"]; ok {
		for _, l := range c.cmds {
			b.WriteString("$ " + l + "\n")
		}
	}
	b.WriteString(strings.Join(lines, ""))
	c.got = b.String()
}

var (
	readmeDuration = regexp.MustCompile(`\d[\d,.]*(e[+-]?\d+)? ?(ns|µs|ms|s|KiB|MiB|GiB)\b`)
	// Rows whose figures are measured, not computed.
	readmeMeasuredRow = regexp.MustCompile(`^\s*(peak memory|planning|planning took|time|memory)\s`)
	// Headers of sections whose every time is measured.
	readmeMeasuredSection = regexp.MustCompile(`^(phases:|analyze: )`)
	readmeMeasuredIn      = regexp.MustCompile(`pairs in \d[\d,.]* ?(ns|µs|ms|s)\b`)
	// Shares and ratios of measured times: planning's share of the chosen
	// path's CPU, and explain --analyze's predicted over measured.
	readmeMeasuredShare = regexp.MustCompile(`\d[\d.]*(%|x!?)`)
)

// maskReadme replaces measured figures and collapses runs of spaces.
func maskReadme(block string) string {
	var b strings.Builder
	inSection := false
	for _, l := range strings.SplitAfter(block, "\n") {
		switch {
		case readmeMeasuredSection.MatchString(l):
			inSection = true
		case l == "\n" || l != "" && l[0] != ' ':
			inSection = false
		}
		if inSection || readmeMeasuredRow.MatchString(l) {
			l = readmeDuration.ReplaceAllString(l, "<measured>")
			l = readmeMeasuredShare.ReplaceAllString(l, "<measured>")
		}
		l = readmeMeasuredIn.ReplaceAllString(l, "pairs in <measured>")
		b.WriteString(spaces.ReplaceAllString(l, " "))
	}
	return b.String()
}

// goroot returns the Go tree's root, as `go env GOROOT` prints it.
func goroot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// gotreeSummary formats the exact run on the Go tree as scripts/gotree.sh
// prints it, from its --stats-json report.
func gotreeSummary(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		SetTokens  int64 `json:"set_tokens"`
		Vocabulary int64 `json:"vocabulary"`
		Results    int64 `json:"results"`
		Sections   struct {
			Files struct {
				Listed    int64 `json:"listed"`
				Selected  int64 `json:"selected"`
				BelowMin  int64 `json:"below_min"`
				MinTokens int64 `json:"min_tokens"`
				Records   int64 `json:"records"`
				Bytes     int64 `json:"bytes"`
			} `json:"files"`
		} `json:"sections"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	f := r.Sections.Files
	return fmt.Sprintf("files: %s listed, %s selected (non-test .go outside testdata), %s below %d shingles, %s records, %.1f MiB\n",
		numfmt.Group(f.Listed), numfmt.Group(f.Selected), numfmt.Group(f.BelowMin), f.MinTokens, numfmt.Group(f.Records), float64(f.Bytes)/(1<<20)) +
		fmt.Sprintf("shingles: %s (distinct per file, summed), vocabulary %s\n", numfmt.Group(r.SetTokens), numfmt.Group(r.Vocabulary)) +
		fmt.Sprintf("exact pairs at J >= 0.5: %s\n", numfmt.Group(r.Results))
}

// mergeMeasured returns got, but where a line differs from the old block's
// only in measured figures it keeps the old line: README's times and memory
// come from runs on a quiet machine, not from the test's.
func mergeMeasured(old, got string) string {
	o, g := strings.SplitAfter(old, "\n"), strings.SplitAfter(got, "\n")
	mo, mg := strings.SplitAfter(maskReadme(old), "\n"), strings.SplitAfter(maskReadme(got), "\n")
	if len(o) != len(g) || len(mo) != len(o) || len(mg) != len(g) {
		return got
	}
	for i := range g {
		if mo[i] == mg[i] {
			g[i] = o[i]
		}
	}
	return strings.Join(g, "")
}

// readmeBlocks finds the blocks of README.md that follow a readme-test
// marker: name -> [start, end) byte offsets of the block's content.
func readmeBlocks(t *testing.T, readme string) map[string][2]int {
	t.Helper()
	marker := regexp.MustCompile("(?m)^<!-- readme-test: (\\S+) -->\n```\n")
	blocks := map[string][2]int{}
	for _, m := range marker.FindAllStringSubmatchIndex(readme, -1) {
		name := readme[m[2]:m[3]]
		end := strings.Index(readme[m[1]:], "\n```\n")
		if end < 0 {
			t.Fatalf("README.md: the block of %s is not closed", name)
		}
		blocks[name] = [2]int{m[1], m[1] + end + 1}
	}
	return blocks
}

// TestReadme runs every command whose output README.md shows and compares.
func TestReadme(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("README.md's figures are for 2 cores; this machine has 1")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // README's runs: 2 workers
	dir := t.TempDir()
	casesText, err := os.ReadFile(readmeCases)
	if err != nil {
		t.Fatal(err)
	}
	cases := parseReadmeCases(t, string(casesText))
	t.Chdir("../..")
	for _, c := range cases {
		if _, long := c.opts["long"]; long && !jointest.Long() && !*updateReadme {
			t.Logf("%s: runs with -long", c.name)
			continue
		}
		if v := c.opts["go"]; v != "" && v != runtime.Version() {
			t.Logf("%s: README.md shows the tree of %s; this is %s", c.name, v, runtime.Version())
			continue
		}
		c.run(t, dir)
		if maskReadme(c.got) != maskReadme(c.want) {
			if *updateReadme {
				c.want, c.changed = mergeMeasured(c.want, c.got), true
				continue
			}
			t.Errorf("%s (%s:%d): the output differs from what README.md shows (-update-readme rewrites it):\n%s",
				c.name, readmeCases, c.line, firstDiff(maskReadme(c.want), maskReadme(c.got)))
		}
	}

	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	blocks := readmeBlocks(t, text)
	type edit struct {
		at   [2]int
		with string
	}
	var edits []edit
	for _, c := range cases {
		at, ok := blocks[c.name]
		if !ok {
			t.Errorf("README.md has no block marked <!-- readme-test: %s -->", c.name)
			continue
		}
		delete(blocks, c.name)
		if text[at[0]:at[1]] != c.want {
			if *updateReadme {
				edits = append(edits, edit{at, c.want})
				continue
			}
			t.Errorf("README.md's block %s is not the one %s holds:\n%s", c.name, readmeCases, firstDiff(c.want, text[at[0]:at[1]]))
		}
	}
	for name := range blocks {
		t.Errorf("README.md marks a block %s that %s lacks", name, readmeCases)
	}
	if !*updateReadme {
		return
	}
	// Rewrite from the end so that earlier offsets stay valid.
	slices.SortFunc(edits, func(x, y edit) int { return y.at[0] - x.at[0] })
	for _, e := range edits {
		text = text[:e.at[0]] + e.with + text[e.at[1]:]
	}
	if err := os.WriteFile("README.md", []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	out.WriteString(readmeHeader(string(casesText)))
	for _, c := range cases {
		fmt.Fprintf(&out, "\n%s\n%s\n----\n%s====\n", strings.Split(string(casesText), "\n")[c.line-1], strings.Join(c.cmds, "\n"), c.want)
	}
	if err := os.WriteFile(filepath.Join("cmd/simjoin", readmeCases), []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readmeHeader returns the comment lines that open the cases file.
func readmeHeader(text string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(text, "\n") {
		if !strings.HasPrefix(l, "#") {
			break
		}
		b.WriteString(l)
	}
	return b.String()
}
