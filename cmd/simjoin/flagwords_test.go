package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/passwords"
	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/shingle"
)

// TestFlagWording: the library's errors name no flag (a library user has
// none), and the command words each with the flag that sets its limit, in
// place, as it always has: --min-tokens, --max-line, --tokens set, in
// errors and in --keep-going's warnings.
func TestFlagWording(t *testing.T) {
	for _, err := range []error{
		&records.NoRecordsError{Files: 2, TooFew: 2, MinTokens: 5},
		&records.FileError{Path: "b.txt", Err: shingle.ErrUTF8},
		&passwords.LineError{Name: "pw.txt", Line: 2, Err: passwords.ErrLineTooLong},
	} {
		if strings.Contains(err.Error(), "--") {
			t.Errorf("library error %q names a flag", err)
		}
		if w := inFlags(err); !errors.Is(w, err) || !strings.Contains(w.Error(), "--") {
			t.Errorf("inFlags(%q) = %q: want a flag named, err within", err, w)
		}
	}
	if err := errors.New("other"); inFlags(err) != err {
		t.Error("an error with no flag to name is reworded")
	}
	dir := t.TempDir()
	cliWrite(t, dir, "a.txt", "a b\n")
	cliWrite(t, dir, "b.txt", "caf\xe9 x\n")
	list := cliWrite(t, t.TempDir(), "pw.txt", "x\n"+strings.Repeat("y", 300)+"\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"join", "-t", "0.5", "--files", "--min-tokens", "5", dir}, exitRuntime,
			"simjoin: no record left of 2 files (0 unreadable, 2 below --min-tokens 5)\n"},
		{[]string{"join", "-t", "0.5", "--files", "--tokens", "words", dir}, exitRuntime,
			"simjoin: " + dir + "/b.txt: invalid UTF-8 (use --tokens set for binary files)\n"},
		{[]string{"join", "-t", "0.5", "--files", "--tokens", "words", "--keep-going", dir}, exitOK,
			"simjoin: warning: " + dir + "/b.txt: invalid UTF-8 (use --tokens set for binary files) (skipped)\n"},
		{[]string{"passwords", "--max-line", "100", list}, exitRuntime,
			"simjoin: " + list + ":2: line longer than the limit (--max-line): more than 100 bytes\n"},
	} {
		code, _, stderr := cliRun(t, "", c.args...)
		if code != c.code || stderr != c.want {
			t.Errorf("%q: exit %d, stderr %q; want %d, %q", c.args, code, stderr, c.code, c.want)
		}
	}
}
