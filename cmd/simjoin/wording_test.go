package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReportWording checks the text reports' formatting: floats rounded,
// singular nouns for one, thousands separators, and the top similarity bin
// closed at 1 in every histogram.
func TestReportWording(t *testing.T) {
	sets := "../../testdata/sets.txt"
	two := "a b c\na b c\n"

	out, errs := cliOK(t, "", "explain", "-t", "0.5", "-j", "1", sets)
	if strings.Contains(out, "1 cores") || !strings.Contains(out, "on 1 core ") {
		t.Errorf("explain -j 1 should say \"on 1 core\":\n%s", out)
	}

	_, errs = cliOK(t, two, "dedup", "-t", "0.5", "--stats", "-")
	if strings.Contains(errs, "1 clusters") || !strings.Contains(errs, "1 cluster, 2 records") {
		t.Errorf("dedup should say \"1 cluster\":\n%s", errs)
	}

	out, errs = cliOK(t, "", "plot", "-t", "0.5", "--shapes", "12x4", "--sample", "2000", "--stats", sets)
	if m := regexp.MustCompile(`\d{4}`).FindString(out); m != "" {
		t.Errorf("plot's table has a number without thousands separators (%s):\n%s", m, out)
	}
	if !strings.Contains(out, "[0.95, 1.00]") || strings.Contains(out, "1.00)") {
		t.Errorf("plot's top bin should be closed at 1:\n%s", out)
	}
	plotRow := regexp.MustCompile(`(?m)^  12x4 .*$`).FindString(errs)
	if regexp.MustCompile(`\d{4}`).MatchString(plotRow) || strings.Contains(plotRow, "1 seeds") {
		t.Errorf("plot's statistics row: %q", plotRow)
	}
	if !strings.Contains(errs, "[0.95, 1.00]") {
		t.Errorf("plot --stats histogram's top bin should be closed at 1:\n%s", errs)
	}
}

// TestErrorsDoNotStutter runs the join and passwords commands into the
// errors they can meet and checks each message: one line, and no part of it
// (between ": ") a package's name or the part before it again, as in
// "--lsh: approx: bad LSH shape" or "simjoin: simjoin: order: ...".
func TestErrorsDoNotStutter(t *testing.T) {
	dir := t.TempDir()
	in := cliWrite(t, dir, "in", "a b c\na b c d\n")
	pw := cliWrite(t, dir, "pw", "password1\npassword2\n")
	bad := cliWrite(t, dir, "bad", "\xff\xfe bad\n")
	trunc := writeBytes(t, dir, "trunc.gz", gzipText(t, "a b c\na b c d\n")[:20])
	for _, args := range [][]string{
		{"join", in},
		{"join", "-t", "2", in},
		{"join", "-t", "0.5", "--tokens", "qgram:0", in},
		{"join", "-t", "0.5", "--tokens", "bogus", in},
		{"join", "-t", "0.5", "--tokens", "set:2", in},
		{"join", "-t", "0.5", "--tokens", "words", bad},
		{"join", "-t", "0.5", "--measure", "bogus", in},
		{"join", "-t", "0.5", "--method", "lsh", "--lsh", "0x1", in},
		{"join", "-t", "0.5", "--method", "lsh", "--lsh", "99x99", in},
		{"join", "-t", "0.5", "--method", "lsh", "--perm", "0", in},
		{"join", "-t", "0.5", filepath.Join(dir, "missing")},
		{"join", "-t", "0.5", dir},
		{"join", "-t", "0.5", "--files", "--include", "[", dir},
		{"join", "-t", "0.5", "--files", "--include", "*.x", dir},
		{"join", "-t", "0.5", "-o", filepath.Join(dir, "no", "x"), in},
		{"join", "-t", "0.5", "--stats-json", filepath.Join(dir, "no", "x"), in},
		{"join", "-t", "0.5", "--cpuprofile", filepath.Join(dir, "no", "p"), in},
		{"join", "-t", "0.5", "--memory-limit", "lots", in},
		{"join", "-t", "0.5", "--memory-limit", "10", in},
		{"join", "-t", "0.5", trunc},
		{"explain", "-t", "2", "--measure", "overlap", "--cross-check", "5", in},
		{"plot", "-t", "0.5", "--shapes", "2x2,0x1", in},
		{"plot", "-t", "0.5", "--measure", "cosine", in},
		{"dedup", "-t", "0.5", "--against", in, in},
		{"passwords", "-q", "0", pw},
		{"passwords", "--counts=bogus", pw},
		{"passwords", "--counts=last", pw},
		{"passwords", trunc},
		{"passwords", "check", "--against", filepath.Join(dir, "missing"), "x"},
		{"passwords", "check", "--against", pw, "--memory-limit", "10", "x"},
		{"passwords", "check", "--index", dir, "x"},
	} {
		code, _, stderr := cliRun(t, "", args...)
		msg := strings.TrimSuffix(stderr, "\n")
		if code == 0 || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "simjoin: ") {
			t.Errorf("%v: exit %d, %q: want one line", args, code, stderr)
			continue
		}
		parts := strings.Split(strings.TrimPrefix(msg, "simjoin: "), ": ")
		for i, p := range parts {
			if slices.Contains([]string{"simjoin", "approx", "shingle", "order", "planner", "prefix", "join", "passwords", "cluster", "index"}, p) ||
				i > 0 && p == parts[i-1] {
				t.Errorf("%v: %q stutters at %q", args, msg, p)
			}
		}
	}
}
