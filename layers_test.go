package simjoin_test

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// kitLayer is the layer number TestLayers gives the test kit's row ("kit"):
// above every layer, so that no package of a layer may import it.
const kitLayer = 1 << 10

// kitReach is the highest layer the test kit may import: below the face.
const kitReach = 5

// layerRow is one row of the table of layers of docs/architecture.md.
type layerRow struct {
	layer    int      // kitLayer for the test kit
	patterns []string // module-relative: "dir/..." or a path; "." the root
}

// readLayers reads the table of layers from docs/architecture.md: the rows
// whose first cell is a layer number or "kit", their packages the
// backquoted patterns of the second cell.
func readLayers(t *testing.T) []layerRow {
	t.Helper()
	f, err := os.Open("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	quoted := regexp.MustCompile("`([^`]+)`")
	var rows []layerRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) < 4 || cells[0] != "" {
			continue
		}
		name := strings.TrimSpace(cells[1])
		layer, err := strconv.Atoi(name)
		switch {
		case name == "kit":
			layer = kitLayer
		case err != nil:
			continue // the header and its rule
		}
		row := layerRow{layer: layer}
		for _, m := range quoted.FindAllStringSubmatch(cells[2], -1) {
			row.patterns = append(row.patterns, m[1])
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 8 {
		t.Fatalf("docs/architecture.md: %d rows of layers read; the table is gone or changed its form", len(rows))
	}
	return rows
}

// match reports how specifically pattern matches the module-relative path
// rel: the pattern's length, or -1 for no match.
func match(pattern, rel string) int {
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		if rel == dir || strings.HasPrefix(rel, dir+"/") {
			return len(pattern)
		}
		return -1
	}
	if rel == pattern {
		return len(pattern)
	}
	return -1
}

// TestLayers checks the module's import graph against the layers that
// docs/architecture.md draws: every package is in a row (the longest
// pattern that matches it), every row names a package, and every import
// (of the packages themselves, not of their tests) points to the same layer
// or one below. The test kit is imported only from within the kit (tests
// import it freely) and imports nothing above layer kitReach.
func TestLayers(t *testing.T) {
	if testing.Short() {
		t.Skip("lists the module's packages with the go command")
	}
	rows := readLayers(t)
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/simjoin/simjoin"
	rel := func(path string) (string, bool) {
		if path == module {
			return ".", true
		}
		r, ok := strings.CutPrefix(path, module+"/")
		return r, ok
	}
	used := make([]bool, len(rows))
	layerOf := func(pkg string) int {
		best, layer := -1, -1
		for k, row := range rows {
			for _, p := range row.patterns {
				if n := match(p, pkg); n > best {
					best, layer = n, k
				}
			}
		}
		if layer < 0 {
			return -1
		}
		used[layer] = true
		return rows[layer].layer
	}
	name := func(layer int) string {
		if layer == kitLayer {
			return "the test kit"
		}
		return "layer " + strconv.Itoa(layer)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, _ := rel(fields[0])
		for _, imp := range fields[1:] {
			if r, ok := rel(imp); ok {
				imports[pkg] = append(imports[pkg], r)
			}
		}
		if _, ok := imports[pkg]; !ok {
			imports[pkg] = nil
		}
	}
	pkgs := slices.Sorted(func(yield func(string) bool) {
		for p := range imports {
			if !yield(p) {
				return
			}
		}
	})
	for _, pkg := range pkgs {
		l := layerOf(pkg)
		if l < 0 {
			t.Errorf("%s is in no row of docs/architecture.md's table", pkg)
			continue
		}
		for _, imp := range imports[pkg] {
			il := layerOf(imp)
			switch {
			case il < 0:
				// reported as a package of its own
			case il == kitLayer && l != kitLayer:
				t.Errorf("%s (%s) imports %s, of the test kit, which only tests import", pkg, name(l), imp)
			case l == kitLayer && il != kitLayer && il > kitReach:
				t.Errorf("%s, of the test kit, imports %s (%s): the kit imports nothing above layer %d", pkg, imp, name(il), kitReach)
			case l != kitLayer && il > l:
				t.Errorf("%s (%s) imports %s (%s): an import points up a layer", pkg, name(l), imp, name(il))
			}
		}
	}
	for k, row := range rows {
		if !used[k] {
			t.Errorf("docs/architecture.md: the row of %s (%v) names no package of the module", name(row.layer), row.patterns)
		}
	}
}
