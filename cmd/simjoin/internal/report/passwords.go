package report

import (
	"fmt"
	"strconv"

	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/passwords"
	"github.com/simjoin/simjoin/prefix"
)

// NewPasswords starts the report of a passwords command (command, such as
// "passwords check") over input, joining with opt: its q-grams, measure,
// threshold and workers.
func NewPasswords(command string, input []string, opt passwords.Options) *Report {
	return &Report{
		Command:   command,
		Input:     input,
		Tokens:    "qgram:" + strconv.Itoa(opt.Grams.Q),
		Measure:   opt.Measure.String(),
		Threshold: opt.Threshold.String(),
		Method:    "exact",
		Workers:   opt.Workers,
	}
}

// AddPasswordJoin records the join of a password list (st, from
// passwords.Join or passwords.Families): the phases of its grams, order and
// join, the method with its index keys, the exact join's counters and the
// list's counts.
func (r *Report) AddPasswordJoin(st *passwords.Stats) {
	r.passwordPhases(st, Phase{Name: "join", Seconds: st.JoinTime().Seconds()})
	r.Exact = &st.Exact
}

// AddPasswordIndex records the index built over a known list (st, from
// passwords.Index.Stats): the phases of its grams, order and index, the
// method with its index keys, the list's counts, and the section "known"
// on the list l as indexed (comments: as PasswordList.Rows).
func (r *Report) AddPasswordIndex(st *passwords.Stats, l PasswordList, comments bool) {
	r.passwordPhases(st, Phase{Name: "index", Seconds: st.Exact.IndexTime.Seconds()})
	r.Exact = nil
	r.AddSection("known", "known passwords", l, l.Rows(comments, "indexed"))
}

// AddPasswordPairs records the pairs simjoin passwords found: the section
// "passwords" on the list l as joined (comments: as PasswordList.Rows), and
// the pairs counted by found (their similarities by measure m, SetResults)
// as the results.
func (r *Report) AddPasswordPairs(l PasswordList, comments bool, found *Counter, m prefix.Measure) {
	r.AddSection("passwords", "passwords", l, l.Rows(comments, "joined"))
	r.SetResults(found.N, &found.Hist, m)
}

// AddPasswordFamilies records the families simjoin passwords --families
// found (fams, from pairs similar pairs): the section "passwords" on the
// list l and the families (NewPasswordFamilies; comments: as
// PasswordList.Rows), and the families as the results.
func (r *Report) AddPasswordFamilies(l PasswordList, comments bool, fams []passwords.Family, pairs int64) {
	sec := NewPasswordFamilies(l, fams, pairs)
	r.AddSection("passwords", "passwords", sec, sec.Rows(comments))
	r.Results = int64(len(fams))
}

// passwordPhases records the method, the grams and order phases then last,
// and the list's counts of st.
func (r *Report) passwordPhases(st *passwords.Stats, last Phase) {
	r.Method = "exact: " + ExactKeys(st.Exact.Ell)
	r.Phases = append(r.Phases,
		Phase{Name: "grams", Seconds: st.GramTime.Seconds()},
		Phase{Name: "order", Seconds: st.OrderTime.Seconds()},
		last,
	)
	r.Records, r.Skipped, r.SetTokens, r.Vocabulary = st.Passwords, st.TooShort, st.Grams, st.Vocabulary
}

// PasswordList is the section of simjoin passwords' report on the list read
// and joined ("passwords"), or of passwords check's on the known list read
// and indexed ("known").
type PasswordList struct {
	Lines          int    `json:"lines"`
	Comments       int    `json:"comments_skipped"`
	Empty          int    `json:"empty_skipped"`
	Duplicates     int    `json:"duplicates_merged"`
	Distinct       int    `json:"distinct"`
	TooShort       int    `json:"too_short_skipped"`
	Joined         int    `json:"joined"`
	Normalisations string `json:"normalisations"`
	Counts         string `json:"counts"`
}

// NewPasswordList summarises a list as read (rs, with the counts layout it
// was read with) and as joined or indexed (st, with its normalisations).
func NewPasswordList(rs passwords.ReadStats, st *passwords.Stats, norm passwords.Norm, counts passwords.Counts) PasswordList {
	return PasswordList{
		Lines: rs.Lines, Comments: rs.Comments, Empty: rs.Empty, Duplicates: rs.Duplicates,
		Distinct: st.Passwords, TooShort: st.TooShort, Joined: st.Joined,
		Normalisations: norm.String(), Counts: counts.String(),
	}
}

// Rows is the text of the section: comments says whether comment lines were
// skipped (their row is shown only then), joined names the row of the
// passwords given to the join ("joined", or "indexed").
func (s *PasswordList) Rows(comments bool, joined string) [][2]string {
	rows := [][2]string{{"lines read", numfmt.Group(int64(s.Lines))}}
	if comments {
		rows = append(rows, [2]string{"comments (skipped)", numfmt.Group(int64(s.Comments))})
	}
	return append(rows,
		[2]string{"empty (skipped)", numfmt.Group(int64(s.Empty))},
		[2]string{"duplicates (merged)", numfmt.Group(int64(s.Duplicates))},
		[2]string{"distinct passwords", numfmt.Group(int64(s.Distinct))},
		[2]string{"too short for q (skipped)", numfmt.Group(int64(s.TooShort))},
		[2]string{joined, numfmt.Group(int64(s.Joined))},
		[2]string{"normalisations", s.Normalisations},
		[2]string{"counts", s.Counts},
	)
}

// PasswordFamilies is the "passwords" section of simjoin passwords
// --families: the list's, then the families'.
type PasswordFamilies struct {
	PasswordList
	Families        int   `json:"families"`
	FamilyPasswords int   `json:"family_passwords"`
	Largest         int   `json:"largest_family"`
	Pairs           int64 `json:"pairs"` // similar pairs the families were built from
}

// NewPasswordFamilies summarises fams, found among the list of l from pairs
// similar pairs.
func NewPasswordFamilies(l PasswordList, fams []passwords.Family, pairs int64) PasswordFamilies {
	s := PasswordFamilies{PasswordList: l, Families: len(fams), Pairs: pairs}
	for _, f := range fams {
		s.FamilyPasswords += len(f.Members)
		s.Largest = max(s.Largest, len(f.Members))
	}
	return s
}

// Rows is the text of the section, as PasswordList.Rows with "joined".
func (s *PasswordFamilies) Rows(comments bool) [][2]string {
	return append(s.PasswordList.Rows(comments, "joined"),
		[2]string{"families", numfmt.Group(int64(s.Families))},
		[2]string{"  passwords in them", numfmt.Group(int64(s.FamilyPasswords))},
		[2]string{"  largest", numfmt.Group(int64(s.Largest))},
	)
}

// Check is the "check" section of simjoin passwords check: the candidates
// as the check policy counted them (passwords.CheckStats).
type Check struct {
	Candidates int `json:"candidates"`
	Empty      int `json:"empty"`
	TooClose   int `json:"too_close"`
}

// NewCheck takes the section's figures from cs.
func NewCheck(cs *passwords.CheckStats) Check {
	return Check{Candidates: cs.Candidates, Empty: cs.Empty, TooClose: cs.TooClose}
}

// Rows is the text of the section: the rows first (such as the known
// passwords' count), the candidates, and the command's exit status.
func (s *Check) Rows(exitStatus int, first ...[2]string) [][2]string {
	return append(first,
		[2]string{"checked", numfmt.Group(int64(s.Candidates))},
		[2]string{"empty", numfmt.Group(int64(s.Empty))},
		[2]string{"too close", numfmt.Group(int64(s.TooClose))},
		[2]string{"exit status", strconv.Itoa(exitStatus)},
	)
}

// ExactKeys names the exact join's index keys, as the report's method says
// them: the prefix filter's ("prefix", one token a key, Ell 0 or 1) or the
// ℓ-prefix's ("l-prefix (l = 2)": pairs or triples of tokens).
func ExactKeys(ell int) string {
	if ell <= 1 {
		return "prefix"
	}
	return fmt.Sprintf("l-prefix (l = %d)", ell)
}
