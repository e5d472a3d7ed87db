package planner

// Default is the calibration the planner uses unless Options.Calibration
// says otherwise: CPU nanoseconds per unit of each term of the cost model.
//
// It was fitted by TestCalibrate (calibrate_test.go), which runs both paths on
// every workload of the calibration suite (workload_test.go: generated sets
// varying n, set size, vocabulary, token skew and threshold, plus three runs
// of the classic MinHash scheme), measures each run's CPU time (the least of
// at least three runs), counts its terms from the run's own statistics, and
// solves for the unit costs by non-negative least squares on relative error:
// first the exact join's index phase (built on one core) on its own time,
// then the rest of the exact path, then LSH. The planning constants are the
// medians of direct measurements (building a 2,000-record sample; measuring
// 20,000 random pairs):
//
//	go test ./planner -run TestCalibrate -calibrate -v -timeout 1h
//
// Machine: the project's 2-core Linux machines (shared, so CPU time, not wall
// time, is what is fitted), Go 1.26, on 2026-11-30 at the join and approx
// of that day. Fit: the exact index phase within 0.47x..1.45x of every
// measured time (relative residual norm 1.01 over 17 runs), the exact path
// within 0.54x..1.33x (0.88), LSH within 0.74x..1.12x (0.42 over 20 runs).
// Terms fitted at 0 are collinear with others on this suite and absorbed by
// them. Run it again after changing join or approx, and paste its output
// here.
var Default = Calibration{
	ExactGroup:      33.27,
	ExactIndex:      11.75,
	ExactProbeToken: 23.61,
	ExactPosting:    4.667,
	ExactExamine:    4.252,
	ExactCandidate:  18.19,
	ExactVerify:     0,
	ExactResult:     1841,
	LSHToken:        2.845,
	LSHHash:         1.752,
	LSHValue:        13.87,
	LSHProbe:        2.509,
	LSHBand:         90.71,
	LSHCollision:    48.47,
	LSHCandidate:    0,
	LSHVerify:       2.498,
	LSHResult:       4503,
	PlanSampleToken: 80.57,
	PlanPairToken:   1.803,
}
