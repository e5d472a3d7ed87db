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
// time, is what is fitted), Go 1.26, on 2026-11-30 at the join, order and
// approx of commit c5092a7. Fit: the exact index phase within 0.47x..1.58x
// of every measured time (relative residual norm 1.11 over 17 runs), the
// exact path within 0.50x..1.31x (0.87), LSH within 0.74x..1.13x (0.45 over
// 20 runs).
// Terms fitted at 0 are collinear with others on this suite and absorbed by
// them. Run it again after changing join or approx, and paste its output
// here.
var Default = Calibration{
	ExactGroup:      31.42,
	ExactIndex:      11.35,
	ExactProbeToken: 27.16,
	ExactPosting:    2.783,
	ExactExamine:    6.166,
	ExactCandidate:  18.02,
	ExactVerify:     0,
	ExactResult:     1469,
	LSHToken:        2.855,
	LSHHash:         1.74,
	LSHValue:        13.4,
	LSHProbe:        2.392,
	LSHBand:         89.45,
	LSHCollision:    48.39,
	LSHCandidate:    0,
	LSHVerify:       2.533,
	LSHResult:       5003,
	PlanSampleToken: 76.84,
	PlanPairToken:   2.004,
}
