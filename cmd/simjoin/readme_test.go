package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/internal/testkit/jointest"
)

// The command outputs that the project's markdown pages show (README.md,
// docs/*.md and any other .md file of the repository) are produced by
// TestReadme from the cases in testdata/readme.txt. Each case is
//
//	run name=NAME [file=PAGE] [stream=stdout|stderr] [exit=N] [section=TITLE] [grep=REGEXP] [head=N] [show] [long]
//	COMMAND LINE...
//	----
//	THE BLOCK THE PAGE SHOWS
//	====
//
// Command lines are `simjoin ARGS` (run in-process, from the repository's
// root) or `go run ./internal/testkit/cmd/gen ARGS > FILE` (the generator, whose FILE
// later commands name); a command must exit 0, or N for the last with
// exit=N. The block is the last command's stream: the lines of section
// TITLE only (from the line TITLE to the next unindented line), of those the
// lines that match REGEXP with grep=REGEXP, the first N lines and "..." with
// head=N, preceded by the command lines as
// `$ COMMAND` with show; with format=gotree, the summary scripts/gotree.sh
// prints from the report OUT/exact.json. In arguments, OUT/ names the case's
// temporary directory and GOROOT/ the Go tree; go=VERSION runs the case only
// on that Go release, whose tree the page describes. In a page the block
// follows the line `<!-- readme-test: NAME -->` as a fenced code block;
// the test finds the page that holds each marker (file=PAGE, a path from the
// repository's root, says which page it must be). A marker that no case
// names, a name marked twice, and a case whose marker no page holds fail
// the test. Cases marked long run only with -long.
//
// Comparisons mask what a run measures rather than computes (wall times of
// phases, planning and the analysed run, their shares and ratios, peak
// memory, a ratio's "!"), and collapse runs of
// spaces, which measured figures move; everything else, every count and every
// predicted figure, must match. `go test ./cmd/simjoin -run TestReadme
// -update-readme` rewrites testdata/readme.txt and the pages' blocks from
// the commands' output.
var updateReadme = flag.Bool("update-readme", false, "rewrite testdata/readme.txt and the markdown pages' examples from the commands' output")

type readmeCase struct {
	name    string
	opts    map[string]string
	cmds    []string
	want    string // the block the page shows
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
	wantExit := 0
	if v, ok := c.opts["exit"]; ok {
		fmt.Sscan(v, &wantExit)
	}
	for k, line := range c.cmds {
		args := strings.Fields(line)
		switch {
		case len(args) > 5 && strings.Join(args[:3], " ") == "go run ./internal/testkit/cmd/gen" && args[len(args)-2] == ">":
			path := filepath.Join(dir, args[len(args)-1])
			out, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("go", append([]string{"run", "./internal/testkit/cmd/gen"}, args[3:len(args)-2]...)...)
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
			want := 0
			if k == len(c.cmds)-1 {
				want = wantExit
			}
			if code := runChecked(t, args, strings.NewReader(""), &out, &errb); code != want {
				t.Fatalf("%s: exit %d, want %d: %s", line, code, want, errb.String())
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
	if re, ok := c.opts["grep"]; ok {
		keep := regexp.MustCompile(re)
		lines = slices.DeleteFunc(lines, func(l string) bool { return !keep.MatchString(l) })
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
		l = offLegend.ReplaceAllString(l, "") // there when a measured ratio is flagged
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
// only in measured figures it keeps the old line: the pages' times and
// memory come from runs on a quiet machine, not from the test's.
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

// markedBlock is the block that follows a readme-test marker in a page.
type markedBlock struct {
	page string // path from the repository's root
	at   [2]int // [start, end) byte offsets of the block's content
}

var readmeMarker = regexp.MustCompile("(?m)^<!-- readme-test: (\\S+) -->\n```\n")

// markdownPages lists the markdown pages of the repository rooted at the
// working directory, as paths from it: every .md file outside hidden
// directories, testdata and the generated reference (docs/reference).
func markdownPages(t *testing.T) []string {
	t.Helper()
	var pages []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || path == referencePages) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// referencePages is the generated command-line reference, which
// TestReference checks.
const referencePages = "docs/reference"

// readmeBlocks finds the blocks of the pages (name -> text) that follow a
// readme-test marker, by marker name; a name marked twice fails the test.
func readmeBlocks(t *testing.T, pages map[string]string) map[string]markedBlock {
	t.Helper()
	blocks := map[string]markedBlock{}
	for _, page := range slices.Sorted(maps.Keys(pages)) {
		text := pages[page]
		for _, m := range readmeMarker.FindAllStringSubmatchIndex(text, -1) {
			name := text[m[2]:m[3]]
			end := 0 // an empty block, closed at once
			if !strings.HasPrefix(text[m[1]:], "```\n") {
				end = strings.Index(text[m[1]:], "\n```\n") + 1
				if end <= 0 {
					t.Fatalf("%s: the block of %s is not closed", page, name)
				}
			}
			if b, ok := blocks[name]; ok {
				t.Fatalf("%s and %s both mark a block %s", b.page, page, name)
			}
			blocks[name] = markedBlock{page, [2]int{m[1], m[1] + end}}
		}
	}
	return blocks
}

// TestReadme runs every command whose output a markdown page shows and
// compares.
func TestReadme(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("the pages' figures are for 2 cores; this machine has 1")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the pages' runs: 2 workers
	dir := t.TempDir()
	casesText, err := os.ReadFile(readmeCases)
	if err != nil {
		t.Fatal(err)
	}
	cases := parseReadmeCases(t, string(casesText))
	t.Chdir("../..")
	pages := map[string]string{}
	for _, p := range markdownPages(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		pages[p] = string(b)
	}
	blocks := readmeBlocks(t, pages)
	for _, c := range cases {
		b, ok := blocks[c.name]
		switch {
		case !ok:
			t.Errorf("no page has a block marked <!-- readme-test: %s --> (%s:%d)", c.name, readmeCases, c.line)
		case c.opts["file"] != "" && c.opts["file"] != b.page:
			t.Errorf("%s: the block is in %s, and %s:%d says %s", c.name, b.page, readmeCases, c.line, c.opts["file"])
		}
	}
	names := map[string]bool{}
	for _, c := range cases {
		names[c.name] = true
	}
	for name, b := range blocks {
		if !names[name] {
			t.Errorf("%s marks a block %s that %s lacks", b.page, name, readmeCases)
		}
	}
	if t.Failed() {
		return
	}
	for _, c := range cases {
		if _, long := c.opts["long"]; long && !jointest.Long() && !*updateReadme {
			t.Logf("%s: runs with -long", c.name)
			continue
		}
		if v := c.opts["go"]; v != "" && v != runtime.Version() {
			t.Logf("%s: %s shows the tree of %s; this is %s", c.name, blocks[c.name].page, v, runtime.Version())
			continue
		}
		c.run(t, dir)
		if maskReadme(c.got) != maskReadme(c.want) {
			if *updateReadme {
				c.want, c.changed = mergeMeasured(c.want, c.got), true
				continue
			}
			t.Errorf("%s (%s:%d): the output differs from what %s shows (-update-readme rewrites it):\n%s",
				c.name, readmeCases, c.line, blocks[c.name].page, firstDiff(maskReadme(c.want), maskReadme(c.got)))
		}
	}

	type edit struct {
		at   [2]int
		with string
	}
	edits := map[string][]edit{} // by page
	for _, c := range cases {
		b := blocks[c.name]
		if text := pages[b.page]; text[b.at[0]:b.at[1]] != c.want {
			if *updateReadme {
				edits[b.page] = append(edits[b.page], edit{b.at, c.want})
				continue
			}
			t.Errorf("%s's block %s is not the one %s holds:\n%s", b.page, c.name, readmeCases, firstDiff(c.want, text[b.at[0]:b.at[1]]))
		}
	}
	if !*updateReadme {
		return
	}
	for page, es := range edits {
		// Rewrite from the end so that earlier offsets stay valid.
		slices.SortFunc(es, func(x, y edit) int { return y.at[0] - x.at[0] })
		text := pages[page]
		for _, e := range es {
			text = text[:e.at[0]] + e.with + text[e.at[1]:]
		}
		if err := os.WriteFile(page, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
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

// docFence matches the opening line of a fenced code block and captures
// its language.
var docFence = regexp.MustCompile("^```(\\S*)$")

// TestDocBlocks: every command output a markdown page shows is produced by
// a test. In every page (the generated reference aside, which TestReference
// checks) a fenced block with no language must follow a readme-test
// marker (TestReadme runs it); a console block, commands with their
// output, may only be in the page whose walk TestReadmeIndex runs; other
// blocks hold commands (sh) or code (go, json).
func TestDocBlocks(t *testing.T) {
	t.Chdir("../..")
	for _, page := range markdownPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i := 0; i < len(lines); i++ {
			m := docFence.FindStringSubmatch(lines[i])
			if m == nil {
				continue
			}
			switch lang := m[1]; {
			case lang == "":
				if i == 0 || !readmeMarker.MatchString(lines[i-1]+"\n"+lines[i]+"\n") {
					t.Errorf("%s:%d: a block with no language must follow a <!-- readme-test: NAME --> marker, or name its language (sh for commands)", page, i+1)
				}
			case lang == "console":
				if page != indexWalkPage {
					t.Errorf("%s:%d: a console block (commands and their output) is run only in %s; show output in a marked block", page, i+1, indexWalkPage)
				}
			case lang != "sh" && lang != "go" && lang != "json":
				t.Errorf("%s:%d: a %s block: want sh, go, json, console or a marked output", page, i+1, lang)
			}
			for i++; i < len(lines) && lines[i] != "```"; i++ {
			}
		}
	}
}

var (
	docLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	docHeading = regexp.MustCompile(`(?m)^#+ (.*)$`)
)

// headingAnchor returns the anchor a markdown renderer gives heading:
// lower case, punctuation but hyphens and underscores dropped, spaces as
// hyphens.
func headingAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestDocLinks: every relative link of every markdown page, the generated
// reference included, names a file of the repository, and a link to a
// heading (#anchor) names a heading of that page.
func TestDocLinks(t *testing.T) {
	t.Chdir("../..")
	pages := markdownPages(t)
	refs, err := filepath.Glob(filepath.Join(referencePages, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		b, _ := os.ReadFile(page)
		a := map[string]bool{}
		for _, m := range docHeading.FindAllStringSubmatch(string(b), -1) {
			a[headingAnchor(m[1])] = true
		}
		anchors[page] = a
		return a
	}
	for _, page := range append(pages, refs...) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range docLink.FindAllStringSubmatch(string(b), -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(link, "#")
			target := page
			if path != "" {
				target = filepath.Join(filepath.Dir(page), path)
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s: the link %s names no file", page, link)
				continue
			}
			if anchor != "" && strings.HasSuffix(target, ".md") && !anchorsOf(target)[anchor] {
				t.Errorf("%s: the link %s names no heading of %s", page, link, target)
			}
		}
	}
}
