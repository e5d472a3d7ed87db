// Package rows writes the output lines of every simjoin command, one record
// or pair a line, in the format asked for (TSV, CSV with a header line, or
// JSONL objects), through internal/fieldenc: the pairs of join, the kept ids
// and clusters of dedup, the pairs, families and matches of passwords, and
// the hits and outcomes of the index commands.
//
// Similarities are written as join writes them (AppendSimilarity): integers
// for the overlap measure, otherwise up to six decimals without trailing
// zeros. Ids that are paths and passwords are any bytes, escaped or quoted
// so that every line parses under its format's strict reader and the bytes
// come back unchanged (see internal/fieldenc).
//
// Every writer buffers its output (64 KiB), keeps the first write error
// (later writes do nothing and return it) and must be flushed. None is safe
// for concurrent use.
package rows
