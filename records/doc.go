// Package records is the front end of a join: it reads records from strings,
// ready sets, the lines of a reader or files under directories, tokenizes
// them (package shingle) and hands each record's token keys to a sink, an
// order.Input (which builds the token order and the collections) or a
// KeyBatches (the key sets of the LSH path, which needs no order).
//
// A Source says where one side's records come from and reads nothing until
// a Reader reads it. Lines are read by one goroutine in blocks of about
// 1 MiB of whole lines and tokenized on Options.Workers goroutines, the sets
// handed on in line order (parallel.OrderedStream); files are read and
// tokenized whole, gzip and zstd decompressed, on as many, in file order.
// ReadBatches and LineReader serve the callers that take lines a batch at a
// time, as the index's inserts and searches do.
//
// Errors name what was bad and never quote it (records may be passwords): a
// *LineError names the input and the 1-based line, a *RecordError the side
// and index of a record given in memory, a file's error its path.
//
// # What it does not do
//
// It does not order tokens (package order), join, or decide what an error
// means to a user: the command words its errors as flags.
package records
