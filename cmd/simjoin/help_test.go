package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

var updateHelp = flag.Bool("update-help", false, "rewrite testdata/help from the commands' --help output")

// TestHelp: the --help output of every command is the one pinned in
// testdata/help (rewritten by -update-help), so that a change to a command's
// help, its flags or the way the help is kept shows in review.
func TestHelp(t *testing.T) {
	e := &env{}
	root := &cobra.Command{Use: "simjoin"}
	for _, f := range commands {
		root.AddCommand(f(e))
	}
	paths := [][]string{nil}
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			p := append(append([]string(nil), path...), sub.Name())
			paths = append(paths, p)
			walk(sub, p)
		}
	}
	walk(root, nil)
	for _, path := range paths {
		out, _ := cliOK(t, "", append(path, "--help")...)
		name := filepath.Join("testdata", "help", strings.Join(append([]string{"simjoin"}, path...), "-")+".txt")
		if *updateHelp {
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("%v (run with -update-help to write it)", err)
		}
		if out != string(want) {
			t.Errorf("simjoin %s --help differs from %s:\n%s", strings.Join(path, " "), name, out)
		}
	}
}
