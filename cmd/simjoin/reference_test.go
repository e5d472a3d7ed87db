package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
)

// The command-line reference, docs/reference (markdown, one page a
// command) and docs/man (roff, one page a command), is generated from the
// commands by github.com/spf13/cobra/doc: `go generate ./cmd/simjoin`
// (help.go) runs TestReference with -update-reference. TestReference
// fails when the committed pages are not those the commands make, so the
// reference cannot drift from --help. Two steps of our own on cobra/doc's
// output: the flags are listed in the groups help shows (flagSections),
// and the help texts, written for a terminal, are escaped for markdown
// (cobra/doc passes them through as markdown, and go-md2man reads them so
// for the man pages), their indented lines kept as code.
var updateReference = flag.Bool("update-reference", false, "rewrite docs/reference and docs/man from the commands")

const (
	referenceDir = "../../docs/reference"
	manDir       = "../../docs/man"
)

// referenceRoot returns the command tree the reference describes: every
// command, the ones cobra adds when it runs (completion, help) included,
// without the automatic tag (it carries a date).
func referenceRoot() *cobra.Command {
	root := testRoot()
	walkCommands(root, func(c *cobra.Command) { c.DisableAutoGenTag = true })
	return root
}

// markdownText returns text, a help text written for a terminal, as
// markdown that reads the same: paragraphs whose lines are all indented
// (examples, formats) become indented code blocks; in the other
// paragraphs the characters markdown would read as markup are escaped.
func markdownText(text string) string {
	paras := strings.Split(strings.TrimSpace(text), "\n\n")
	for i, p := range paras {
		lines := strings.Split(p, "\n")
		code := true
		for _, l := range lines {
			code = code && strings.HasPrefix(l, "  ")
		}
		if code {
			for k, l := range lines {
				lines[k] = "  " + l
			}
			paras[i] = strings.Join(lines, "\n")
			continue
		}
		paras[i] = markdownEscaper.Replace(p)
	}
	return strings.Join(paras, "\n\n")
}

var markdownEscaper = strings.NewReplacer(`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`,
	`[`, `\[`, `]`, `\]`, `<`, `\<`, `>`, `\>`, `&`, `\&`, `|`, `\|`)

// groupedMarkdownOptions replaces the "Options" block cobra/doc writes in
// page, the reference of the command at path, with one block a flag group.
func groupedMarkdownOptions(page, path string) (string, error) {
	const head = "### Options\n\n```\n"
	i := strings.Index(page, head)
	if i < 0 {
		return page, nil // no flags of its own
	}
	body := page[i+len(head):]
	j := strings.Index(body, "```\n\n")
	if j < 0 {
		return "", fmt.Errorf("%s: the options block is not closed", path)
	}
	var b strings.Builder
	for _, s := range flagSections(path, body[:j]) {
		fmt.Fprintf(&b, "### %s\n\n```\n%s```\n\n", s.Title, s.Lines)
	}
	return page[:i] + b.String() + body[j+len("```\n\n"):], nil
}

// manFlag matches the first line of a flag's entry in a cobra/doc man page
// and captures its long name.
var manFlag = regexp.MustCompile(`^(?:\\fB-\S\\fP, )?\\fB--([^\\]+)\\fP`)

// groupedManOptions lists the flags of the OPTIONS section of page, the
// man page of the command at path, in subsections a flag group.
func groupedManOptions(page, path string) (string, error) {
	const head = ".SH OPTIONS\n"
	i := strings.Index(page, head)
	if i < 0 {
		return page, nil
	}
	body := page[i+len(head):]
	end := strings.Index(body, "\n.SH ")
	if end < 0 {
		end = len(body)
	}
	entries := strings.Split(strings.TrimSpace(body[:end]), "\n\n.PP\n")
	var usages strings.Builder
	byName := map[string]string{}
	for _, e := range entries {
		m := manFlag.FindStringSubmatch(e)
		if m == nil {
			return "", fmt.Errorf("%s: cannot read the man page's flag entry %q", path, e)
		}
		byName[m[1]] = e
		fmt.Fprintf(&usages, "      --%s\n", m[1]) // the form flagSections reads
	}
	var b strings.Builder
	b.WriteString(head)
	for _, s := range flagSections(path, usages.String()) {
		fmt.Fprintf(&b, ".SS %s\n", s.Title)
		for _, l := range strings.Split(strings.TrimSpace(s.Lines), "\n") {
			fmt.Fprintf(&b, ".PP\n%s\n\n", byName[strings.TrimPrefix(strings.TrimSpace(l), "--")])
		}
	}
	return page[:i] + b.String() + body[end:], nil
}

// manDate matches the date of a man page's title line, which cobra/doc
// fills with the month of the run; the pages carry none, so that they are
// the same whenever they are made.
var manDate = regexp.MustCompile(`(?m)^(\.TH "[^"]*" "[^"]*") "[^"]*"`)

// generateReference writes the markdown reference to mdDir and the man
// pages to mDir.
func generateReference(mdDir, mDir string) error {
	root := referenceRoot()
	walkCommands(root, func(c *cobra.Command) { c.Long = markdownText(c.Long) })
	if err := doc.GenMarkdownTree(root, mdDir); err != nil {
		return err
	}
	if err := rewriteFiles(mdDir, groupedMarkdownOptions); err != nil {
		return err
	}

	root = referenceRoot()
	walkCommands(root, func(c *cobra.Command) {
		c.Long = markdownText(c.Long)
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			// The usage as help prints it (`FILE` is the value's name),
			// escaped: cobra/doc writes it into markdown.
			f.Usage = markdownEscaper.Replace(strings.ReplaceAll(f.Usage, "`", ""))
		})
	})
	hdr := &doc.GenManHeader{Source: "simjoin", Manual: "simjoin manual"}
	if err := doc.GenManTree(root, hdr, mDir); err != nil {
		return err
	}
	return rewriteFiles(mDir, func(page, name string) (string, error) {
		page = manDate.ReplaceAllString(page, `$1 ""`)
		path := strings.ReplaceAll(strings.TrimSuffix(name, ".1"), "-", " ")
		return groupedManOptions(page, path)
	})
}

// rewriteFiles applies f to every file of dir, with the command path its
// name stands for (simjoin_index_add.md: "simjoin index add").
func rewriteFiles(dir string, f func(page, path string) (string, error)) error {
	names, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, n := range names {
		p := filepath.Join(dir, n.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		path := strings.ReplaceAll(strings.TrimSuffix(n.Name(), ".md"), "_", " ")
		out, err := f(string(b), path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// TestReference: docs/reference and docs/man are what the commands
// generate (go generate ./cmd/simjoin rewrites them).
func TestReference(t *testing.T) {
	tmp := t.TempDir()
	mdDir, mDir := filepath.Join(tmp, "reference"), filepath.Join(tmp, "man")
	for _, d := range []string{mdDir, mDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := generateReference(mdDir, mDir); err != nil {
		t.Fatal(err)
	}
	for _, d := range [][2]string{{mdDir, referenceDir}, {mDir, manDir}} {
		if *updateReference {
			if err := os.RemoveAll(d[1]); err != nil {
				t.Fatal(err)
			}
			if err := os.CopyFS(d[1], os.DirFS(d[0])); err != nil {
				t.Fatal(err)
			}
			continue
		}
		compareDirs(t, d[0], d[1])
	}
}

// compareDirs fails unless dir holds the files of want with the same bytes.
func compareDirs(t *testing.T, want, dir string) {
	t.Helper()
	list := func(d string) []string {
		es, err := os.ReadDir(d)
		if err != nil {
			t.Fatalf("%v (go generate ./cmd/simjoin writes it)", err)
		}
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		return names
	}
	w, g := list(want), list(dir)
	if !slices.Equal(w, g) {
		t.Errorf("%s holds %v; the commands make %v (go generate ./cmd/simjoin rewrites it)", dir, g, w)
	}
	for _, name := range w {
		a, _ := os.ReadFile(filepath.Join(want, name))
		b, _ := os.ReadFile(filepath.Join(dir, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s is stale (go generate ./cmd/simjoin rewrites it):\n%s", filepath.Join(dir, name), firstDiff(string(a), string(b)))
		}
	}
}
