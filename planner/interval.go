package planner

import (
	"fmt"

	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a proportion K/N with a Clopper–Pearson confidence interval
// [Lo, Hi]. With N = 0 the proportion is undefined: Estimate is 0 and the
// interval [0, 1].
type Interval struct {
	K        int64   `json:"k"`
	N        int64   `json:"n"`
	Estimate float64 `json:"estimate"`
	Lo       float64 `json:"lo"`
	Hi       float64 `json:"hi"`
}

// ClopperPearson returns the exact (Clopper–Pearson) two-sided interval for a
// binomial proportion with k successes in n trials at the given confidence
// level (such as 0.95): the α/2 quantile of Beta(k, n-k+1) and the 1-α/2
// quantile of Beta(k+1, n-k), with the ends at 0 and 1 when k = 0 or k = n.
// Its coverage is at least the confidence level for every true proportion.
// It panics if k < 0, k > n or confidence is outside (0, 1).
func ClopperPearson(k, n int64, confidence float64) Interval {
	if k < 0 || k > n || !(confidence > 0 && confidence < 1) {
		panic(fmt.Sprintf("planner: ClopperPearson(%d, %d, %v)", k, n, confidence))
	}
	iv := Interval{K: k, N: n, Lo: 0, Hi: 1}
	if n == 0 {
		return iv
	}
	alpha := 1 - confidence
	iv.Estimate = float64(k) / float64(n)
	if k > 0 {
		iv.Lo = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(alpha / 2)
	}
	if k < n {
		iv.Hi = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - alpha/2)
	}
	return iv
}
