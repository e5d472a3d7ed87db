package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexKeys walks an index with string keys and stored text through
// the command line: add from JSON Lines and KEY<TAB>TEXT lines under each
// conflict rule, search with --fields and --only by key, get and delete by
// key (arguments and stdin), every output naming records by key; and the
// refusals, each with its exit status and one line.
func TestIndexKeys(t *testing.T) {
	dir := t.TempDir()
	ix := filepath.Join(dir, "k.idx")
	cliOK(t, "", "index", "create", ix, "--tokens", "words", "--min-threshold", "0.5", "--keys", "string", "--store", "text")
	docs := cliWrite(t, dir, "docs.jsonl", `{"id": "a1", "text": "the quick brown fox jumps over the lazy dog", "payload": {"src": "web"}}
{"id": "a2", "text": "the quick brown fox jumped over the lazy dog"}
{"id": "b1", "text": "lorem ipsum dolor sit amet", "payload": {"src": "book"}}
`)
	more := cliWrite(t, dir, "more.tsv", "a1\tthe quick red fox\nc1\tlorem ipsum dolor sit amet consectetur\n")
	queries := cliWrite(t, dir, "q.txt", "lorem ipsum dolor sit\n")
	for _, c := range []struct {
		args  []string
		stdin string
		out   string
	}{
		{[]string{"index", "add", ix, "--input-format", "jsonl", "--dedup", "-t", "0.7", docs}, "", "1\tinserted\ta1\n2\tduplicate\ta1\t0.777778\n3\tinserted\tb1\n"},
		{[]string{"index", "add", ix, "--input-format", "tsv", "--on-conflict", "skip", more}, "", "1\texists\ta1\n2\tinserted\tc1\n"},
		{[]string{"index", "add", ix, "--input-format", "tsv", "--on-conflict", "replace", "--format", "jsonl", more}, "",
			`{"line":1,"status":"replaced","id":"a1"}` + "\n" + `{"line":2,"status":"replaced","id":"c1"}` + "\n"},
		{[]string{"index", "search", ix, "-t", "0.5", "--fields", "text,payload", queries}, "",
			"1\tb1\t0.8\tlorem ipsum dolor sit amet\t{\"src\":\"book\"}\n1\tc1\t0.666667\tlorem ipsum dolor sit amet consectetur\t\n"},
		{[]string{"index", "search", ix, "-t", "0.5", "--only", "c1,zz", "--format", "jsonl", queries}, "", `{"query":1,"id":"c1","sim":0.666667}` + "\n"},
		{[]string{"index", "get", ix, "a1", "-"}, "b1\n", "a1\tthe quick red fox\t\nb1\tlorem ipsum dolor sit amet\t{\"src\":\"book\"}\n"},
		{[]string{"index", "get", "--format", "jsonl", ix, "b1"}, "", `{"id":"b1","text":"lorem ipsum dolor sit amet","payload":{"src":"book"}}` + "\n"},
		{[]string{"index", "delete", ix, "a1", "-"}, "zz\nc1\n", "deleted 2 of 3 keys\n"},
	} {
		if out, _ := cliOK(t, c.stdin, c.args...); out != c.out {
			t.Errorf("%q:\n got %q\nwant %q", c.args, out, c.out)
		}
	}
	plain := filepath.Join(dir, "plain.idx")
	cliOK(t, "", "index", "create", plain, "--min-threshold", "0.5")
	for _, c := range []struct {
		args  []string
		stdin string
		code  int
		msg   string
	}{
		{[]string{"index", "add", ix, "--input-format", "tsv", "-"}, "d1\tnew text\nb1\tother text\n", 1, `<stdin>:2: key "b1" is held by a live record (--on-conflict replace or skip takes it)`},
		{[]string{"index", "add", ix, more}, "", 2, "takes a string key with each record: give --input-format tsv (KEY<TAB>TEXT) or jsonl"},
		{[]string{"index", "add", ix, "--input-format", "csv", more}, "", 2, `unknown --input-format "csv"`},
		{[]string{"index", "add", ix, "--on-conflict", "upsert", more}, "", 2, `unknown --on-conflict "upsert"`},
		{[]string{"index", "add", plain, "--input-format", "tsv", more}, "", 2, "has no keys (it names records by id): give lines or jsonl"},
		{[]string{"index", "add", ix, "--input-format", "jsonl", more}, "", 1, "more.tsv:1: not a record: malformed JSON"},
		{[]string{"index", "get", ix, "a1"}, "", 1, `no live record "a1" (1 of 1 keys)`},
		{[]string{"index", "get", ix, "d1", "b1"}, "", 1, `no live record "d1" (1 of 2 keys)`}, // the refused batch inserted nothing
		{[]string{"index", "get", plain, "x"}, "", 2, `"x" is not a record id`},
		{[]string{"index", "get", ix, "-"}, "ok\nbad\x01key\n", 1, "<stdin>:2: not a key: a control character (U+0001)"},
		{[]string{"index", "search", plain, "-t", "0.5", "--fields", "text", queries}, "", 2, "--fields: the index stores no text (create it with --store text)"},
		{[]string{"index", "search", ix, "-t", "0.5", "--fields", "body", queries}, "", 2, `--fields "body": want text, payload or text,payload`},
		{[]string{"index", "create", filepath.Join(dir, "x"), "--min-threshold", "0.5", "--keys", "uuid"}, "", 2, `unknown --keys "uuid"`},
		{[]string{"index", "create", filepath.Join(dir, "x"), "--min-threshold", "0.5", "--store", "all"}, "", 2, `unknown --store "all"`},
	} {
		code, out, errs := cliRun(t, c.stdin, c.args...)
		if code != c.code || !strings.Contains(errs, c.msg) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and %q", c.args, code, out, errs, c.code, c.msg)
		}
	}
}
