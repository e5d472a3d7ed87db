package main

import (
	"regexp"
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
