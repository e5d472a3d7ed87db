// Package report renders what the simjoin command reports about a run for
// people and machines: the sections of the statistics report (the plan, the
// exact and LSH joins' counters, the files read, the clusters of dedup, the
// password lists and checks of simjoin passwords) as aligned text rows and
// as the JSON of docs/stats.schema.json, and the explanation of simjoin
// explain. It only formats: the figures come from the
// library (simjoin.Stats, planner.Plan, simjoin.Explanation), and nothing here
// measures or decides. Every function is deterministic, so that reports are
// byte-identical across runs and worker counts.
package report
