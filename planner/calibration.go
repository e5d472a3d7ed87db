package planner

// DefaultCalibration returns the calibration the planner uses unless
// Options.Calibration says otherwise (a copy: changing it changes no plan).
func DefaultCalibration() Calibration { return defaultCalibration }

// defaultCalibration is the calibration the planner uses unless
// Options.Calibration says otherwise: CPU nanoseconds per unit of each term
// of the cost model.
//
// It was fitted by TestCalibrate (calibrate_test.go), which runs both paths on
// every workload of the calibration suite (workload_test.go: generated sets
// varying n, set size, vocabulary, token skew and threshold, plus three runs
// of the classic MinHash scheme), measures each run's CPU time (the least of
// at least three runs), counts its terms from the run's own statistics, and
// solves for the unit costs by non-negative least squares on relative error:
// first the exact join's index phase (built on one core) on its own time,
// then the rest of the exact path, then LSH. The planning constants are the
// medians of direct measurements (copying a 2,000-record sample into a
// sub-collection; measuring 20,000 random pairs):
//
//	go test ./planner -run TestCalibrate -calibrate -v -timeout 1h
//
// Machine: the project's 2-core Linux machines (shared, so CPU time, not wall
// time, is what is fitted), Go 1.26, on 2026-11-30 at the join, order and
// approx of commit 9ecd4bd. Fit: the exact index phase within 0.54x..1.32x
// of every measured time (relative residual norm 0.93 over 17 runs), the
// exact path within 0.47x..1.35x (1.01), LSH within 0.76x..1.13x (0.41 over
// 20 runs).
//
// Terms fitted at 0 are collinear with others on this suite and absorbed by
// them. Run it again after changing join or approx, and paste its output
// here.
var defaultCalibration = Calibration{
	ExactGroup:      33.96,
	ExactIndex:      14.17,
	ExactProbeToken: 27.81,
	ExactPosting:    5.499,
	ExactExamine:    3.393,
	ExactCandidate:  17.64,
	ExactVerify:     0,
	ExactResult:     2228,
	LSHToken:        3.151,
	LSHHash:         1.73,
	LSHValue:        12.98,
	LSHProbe:        2.457,
	LSHBand:         88.34,
	LSHCollision:    55.5,
	LSHCandidate:    0,
	LSHVerify:       2.456,
	LSHResult:       6962,
	PlanSampleToken: 1.041,
	PlanPairToken:   1.803,
}
