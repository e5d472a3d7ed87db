package main

import (
	"embed"
	"strings"
)

// The reference of every command, docs/reference (markdown) and docs/man
// (roff), is generated from the commands (reference_test.go):
//
//go:generate go test -run ^TestReference$ -update-reference

// helpFiles are the long help texts of the commands, one file a command
// named by its path ("index create" is help/index-create.txt).
//
//go:embed help/*.txt
var helpFiles embed.FS

// help returns the long help of the command at path, such as "index
// create": its file without the final newline.
func help(path string) string {
	b, err := helpFiles.ReadFile("help/" + strings.ReplaceAll(path, " ", "-") + ".txt")
	if err != nil {
		panic(err) // the files are built in: only a name mistyped here fails
	}
	return strings.TrimSuffix(string(b), "\n")
}
