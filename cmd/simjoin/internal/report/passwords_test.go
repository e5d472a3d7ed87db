package report_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/simjoin/simjoin/cmd/simjoin/internal/report"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/passwords"
	"github.com/simjoin/simjoin/prefix"
)

// TestPasswordSections: the passwords commands' sections carry the
// library's counters under the schema's keys, and their text rows say the
// same figures (the comments row only when comments were skipped).
func TestPasswordSections(t *testing.T) {
	rs := passwords.ReadStats{Lines: 12345, Comments: 2, Empty: 1, Duplicates: 40}
	st := passwords.Stats{Passwords: 12302, TooShort: 3, Joined: 12299}
	l := report.NewPasswordList(rs, &st, passwords.FoldCase|passwords.StripSuffix, passwords.CountLast)
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"lines":12345,"comments_skipped":2,"empty_skipped":1,"duplicates_merged":40,"distinct":12302,"too_short_skipped":3,"joined":12299,"normalisations":"strip-suffix+fold-case","counts":"last"}`
	if string(b) != want {
		t.Errorf("list JSON:\n got %s\nwant %s", b, want)
	}
	if rows := l.Rows(false, "indexed"); fmt.Sprint(rows) != "[[lines read 12,345] [empty (skipped) 1] [duplicates (merged) 40] [distinct passwords 12,302] [too short for q (skipped) 3] [indexed 12,299] [normalisations strip-suffix+fold-case] [counts last]]" {
		t.Errorf("list rows: %v", rows)
	}
	if rows := l.Rows(true, "joined"); len(rows) != 9 || rows[1] != [2]string{"comments (skipped)", "2"} {
		t.Errorf("list rows with comments: %v", rows)
	}

	fams := []passwords.Family{{Members: []int{4, 1, 7}, Count: 9}, {Members: []int{2, 3}, Count: 2}}
	f := report.NewPasswordFamilies(l, fams, 4)
	b, _ = json.Marshal(f)
	want = want[:len(want)-1] + `,"families":2,"family_passwords":5,"largest_family":3,"pairs":4}`
	if string(b) != want {
		t.Errorf("families JSON:\n got %s\nwant %s", b, want)
	}
	if rows := f.Rows(false); len(rows) != 11 || fmt.Sprint(rows[8:]) != "[[families 2] [  passwords in them 5] [  largest 3]]" {
		t.Errorf("families rows: %v", rows)
	}

	cs := passwords.CheckStats{Candidates: 1500, Empty: 2, TooClose: 7, Matches: 9}
	c := report.NewCheck(&cs)
	b, _ = json.Marshal(c)
	if string(b) != `{"candidates":1500,"empty":2,"too_close":7}` {
		t.Errorf("check JSON: %s", b)
	}
	if rows := c.Rows(3, [2]string{"known", "10"}); fmt.Sprint(rows) != "[[known 10] [checked 1,500] [empty 2] [too close 7] [exit status 3]]" {
		t.Errorf("check rows: %v", rows)
	}
	if report.ExactKeys(1) != "prefix" || report.ExactKeys(0) != "prefix" || report.ExactKeys(3) != "l-prefix (l = 3)" {
		t.Errorf("ExactKeys: %q %q %q", report.ExactKeys(0), report.ExactKeys(1), report.ExactKeys(3))
	}
}

// TestPasswordReports: a passwords command's report names its q-grams,
// measure and threshold; a join records its phases, method and the exact
// join's counters, an index its phases and no join counters.
func TestPasswordReports(t *testing.T) {
	opt := passwords.Options{Grams: passwords.Grams{Q: 3}, Measure: prefix.Dice, Threshold: prefix.Threshold{Num: 3, Den: 4}, Workers: 2}
	r := report.NewPasswords("passwords check", []string{"--against", "k.txt"}, opt)
	if r.Command != "passwords check" || r.Tokens != "qgram:3" || r.Measure != "dice" || r.Threshold != "0.75" || r.Method != "exact" || r.Workers != 2 {
		t.Errorf("report %+v", r)
	}
	st := passwords.Stats{Passwords: 10, TooShort: 1, Grams: 50, Vocabulary: 20, GramTime: time.Second}
	st.Exact.Ell = 2
	r.AddPasswordJoin(&st)
	names := func(r *report.Report) (s []string) {
		for _, p := range r.Phases {
			s = append(s, p.Name)
		}
		return s
	}
	if got := names(r); !slices.Equal(got, []string{"grams", "order", "join"}) || r.Phases[0].Seconds != 1 {
		t.Errorf("join phases %v", r.Phases)
	}
	if r.Method != "exact: l-prefix (l = 2)" || r.Exact != &st.Exact || r.Records != 10 || r.Skipped != 1 || r.SetTokens != 50 || r.Vocabulary != 20 {
		t.Errorf("joined report %+v", r)
	}
	r = report.NewPasswords("passwords check", nil, opt)
	st.Exact.Ell = 1
	l := report.NewPasswordList(passwords.ReadStats{Lines: 11}, &st, 0, passwords.NoCounts)
	r.AddPasswordIndex(&st, l, false)
	if got := names(r); !slices.Equal(got, []string{"grams", "order", "index"}) || r.Exact != nil || r.Method != "exact: prefix" {
		t.Errorf("indexed report: phases %v, %+v", got, r)
	}
	if r.Sections["known"] != l || len(sectionRows(r, "known passwords")) != 8 {
		t.Errorf("indexed report: known section %+v", r.Sections)
	}
}

// sectionRows returns the text rows of r's section title.
func sectionRows(r *report.Report, title string) [][2]string {
	var b strings.Builder
	r.WriteText(&b)
	_, after, _ := strings.Cut(b.String(), title+":\n")
	var rows [][2]string
	for _, line := range strings.Split(after, "\n") {
		if !strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "  phases") {
			break
		}
		rows = append(rows, [2]string{line})
	}
	return rows
}

// TestPasswordResults: simjoin passwords' pairs are its results, with their
// histogram; its families are its results with --families, and each adds
// the "passwords" section.
func TestPasswordResults(t *testing.T) {
	st := passwords.Stats{Passwords: 5, Joined: 5}
	l := report.NewPasswordList(passwords.ReadStats{Lines: 6, Comments: 1}, &st, 0, passwords.NoCounts)
	var found report.Counter
	found.Add(join.Pair{A: 0, B: 1, Sim: 0.9})
	found.Add(join.Pair{A: 0, B: 2, Sim: 0.8})
	r := report.NewPasswords("passwords", nil, passwords.Options{})
	r.AddPasswordPairs(l, true, &found, prefix.Jaccard)
	if r.Results != 2 || len(r.Histogram) != 2 || r.Sections["passwords"] != l || len(sectionRows(r, "passwords")) != 9 {
		t.Errorf("pairs: results %d, histogram %v, sections %+v", r.Results, r.Histogram, r.Sections)
	}
	r = report.NewPasswords("passwords", nil, passwords.Options{})
	fams := []passwords.Family{{Members: []int{0, 1, 2}, Count: 3}}
	r.AddPasswordFamilies(l, false, fams, 2)
	sec, ok := r.Sections["passwords"].(report.PasswordFamilies)
	if r.Results != 1 || !ok || sec.Pairs != 2 || sec.Largest != 3 || len(sectionRows(r, "passwords")) != 11 {
		t.Errorf("families: results %d, section %+v", r.Results, r.Sections["passwords"])
	}
}
