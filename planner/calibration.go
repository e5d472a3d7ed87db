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
//
//	go test ./planner -run TestCalibrate -calibrate -v -timeout 1h
//
// Machine: the project's 2-core Linux machines (shared, so CPU time, not wall
// time, is what is fitted), Go 1.26. Fit: exact within 0.63x..1.35x of every
// measured CPU time (relative residual norm 0.77 over 17 runs), LSH within
// 0.75x..1.10x (0.36 over 20 runs). Terms fitted at 0 are collinear with
// others on this suite and absorbed by them. Run it again after changing
// join or approx, and paste its output here.
var Default = Calibration{
	ExactGroup:      126.6,
	ExactIndex:      0,
	ExactProbeToken: 22.78,
	ExactPosting:    10.89,
	ExactExamine:    0,
	ExactCandidate:  18.98,
	ExactVerify:     0,
	ExactResult:     1160,
	LSHToken:        2.212,
	LSHHash:         1.786,
	LSHValue:        14.96,
	LSHProbe:        2.519,
	LSHBand:         83.92,
	LSHCollision:    48.93,
	LSHCandidate:    0,
	LSHVerify:       2.522,
	LSHResult:       5703,
}
