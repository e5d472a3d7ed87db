package pwcheck_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/cmd/simjoin/internal/pwcheck"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/report"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/rows"
	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/passwords"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// check runs a check (List) of the candidates given as arguments or on stdin
// against known, a passwords.Index built over it at threshold t.
func check(t *testing.T, known string, args []string, stdin string) (string, *report.Report, *passwords.CheckStats, error) {
	t.Helper()
	l, _, err := passwords.Read(strings.NewReader(known), passwords.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opt := passwords.Options{Threshold: prefix.Threshold{Num: 3, Den: 5}}
	ix, err := passwords.NewIndex(l, opt)
	if err != nil {
		t.Fatal(err)
	}
	rep := report.NewPasswords("passwords check", nil, opt)
	var out bytes.Buffer
	cs, err := pwcheck.List(context.Background(), rep, pwcheck.Candidates{Args: args, Stdin: strings.NewReader(stdin), Tty: io.Discard}, &out, fieldenc.TSV, l, ix)
	return out.String(), rep, cs, err
}

// TestRun: every candidate is counted by the policy, its matches are written
// with the candidate's number, and the results, their histogram and the
// phase "check" go into the report; arguments and stdin's lines are read
// alike.
func TestRun(t *testing.T) {
	known := "monkey\ndragon\nletmein\n"
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
	}{
		{"args", []string{"monkey1", "", "zzzz"}, ""},
		{"stdin", nil, "monkey1\n\nzzzz\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, rep, cs, err := check(t, known, tc.args, tc.stdin)
			if err != nil {
				t.Fatal(err)
			}
			if out != "1\t1\t0.833333\tmonkey\n" {
				t.Errorf("rows %q", out)
			}
			if *cs != (passwords.CheckStats{Candidates: 3, Empty: 1, TooClose: 1, Matches: 1}) {
				t.Errorf("stats %+v", *cs)
			}
			if rep.Results != 1 || fmt.Sprint(rep.Histogram) != fmt.Sprint(report.Bins(histOf(5.0/6))) {
				t.Errorf("report results %d, histogram %v", rep.Results, rep.Histogram)
			}
			if len(rep.Phases) != 1 || rep.Phases[0].Name != "check" {
				t.Errorf("phases %+v", rep.Phases)
			}
		})
	}
}

func histOf(sims ...float64) []int64 {
	var h report.Histogram
	for _, s := range sims {
		h.Add(s)
	}
	return h[:]
}

// TestIndex: a check against a persisted index writes each hit with the
// candidate's number and the record's id, and counts as a list's does.
func TestIndex(t *testing.T) {
	ctx := context.Background()
	ix, err := index.Create(t.TempDir(), index.Config{Tokens: shingle.Spec{Kind: shingle.QGram, N: 2}, Method: index.Exact,
		MinThreshold: prefix.Threshold{Num: 1, Den: 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Insert(ctx, [][]byte{[]byte("monkey"), []byte("dragon")}, prefix.Threshold{}); err != nil {
		t.Fatal(err)
	}
	rep := &report.Report{}
	var out bytes.Buffer
	cs, err := pwcheck.Index(ctx, rep, pwcheck.Candidates{Args: []string{"zzz", "monkey1"}}, &out, fieldenc.CSV, ix, prefix.Threshold{Num: 1, Den: 2})
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "candidate,id,similarity\n2,1,0.833333\n" {
		t.Errorf("rows %q", out.String())
	}
	if *cs != (passwords.CheckStats{Candidates: 2, TooClose: 1, Matches: 1}) || rep.Results != 1 {
		t.Errorf("stats %+v, results %d", *cs, rep.Results)
	}
}

// TestRunError: an error of the answer stops the check and is returned, and
// no phase is recorded.
func TestRunError(t *testing.T) {
	rep := &report.Report{}
	boom := errors.New("boom")
	w := rows.NewMatches(io.Discard, fieldenc.TSV, false)
	_, err := pwcheck.Run(context.Background(), rep, pwcheck.Candidates{Args: []string{"x"}}, w.Writer, prefix.Jaccard,
		func([][]byte) ([][]int, error) { return nil, boom },
		func(int) float64 { return 1 }, func(int, int) { t.Error("write called") })
	if !errors.Is(err, boom) || len(rep.Phases) != 0 {
		t.Errorf("err %v, phases %+v", err, rep.Phases)
	}
}

// TestFinish: the exit status is ExitTooClose exactly when a candidate is
// too close, and the section's rows end with it.
func TestFinish(t *testing.T) {
	for _, tc := range []struct {
		cs   passwords.CheckStats
		want int
	}{
		{passwords.CheckStats{Candidates: 2, Empty: 1}, 0},
		{passwords.CheckStats{Candidates: 2, TooClose: 1, Matches: 4}, pwcheck.ExitTooClose},
	} {
		rep := &report.Report{}
		if got := pwcheck.Finish(rep, &tc.cs, [2]string{"known", "5"}); got != tc.want {
			t.Errorf("%+v: status %d, want %d", tc.cs, got, tc.want)
		}
		var b bytes.Buffer
		rep.WriteText(&b)
		text := strings.Join(strings.Fields(b.String()), " ")
		if want := fmt.Sprintf("candidates: known 5 checked 2 empty %d too close %d exit status %d", tc.cs.Empty, tc.cs.TooClose, tc.want); !strings.Contains(text, want) {
			t.Errorf("%+v: report text lacks %q:\n%s", tc.cs, want, b.String())
		}
		if _, ok := rep.Sections["check"].(report.Check); !ok {
			t.Errorf("section %T", rep.Sections["check"])
		}
	}
}

// TestOutput: no output file (--silent) writes nowhere.
func TestOutput(t *testing.T) {
	if pwcheck.Output(nil) != io.Discard {
		t.Error("Output(nil) is not io.Discard")
	}
}
