// Package rows writes the simjoin command's output lines other than a
// join's pairs and clusters (package sink writes those): the pairs,
// families and matches of passwords, and the hits, outcomes and statistics
// of the index commands, one a line, in the format asked for (TSV, CSV with
// a header line, or JSONL objects), each on a sink.Writer.
//
// Similarities are written as join writes them (sink.AppendSimilarity).
// Ids that are paths and passwords are any bytes, escaped or quoted so that
// every line parses under its format's strict reader and the bytes come back
// unchanged (see internal/fieldenc).
//
// Every writer buffers its output (64 KiB), keeps the first write error
// (later writes do nothing and return it) and must be flushed. None is safe
// for concurrent use.
package rows
