// Package progress draws the progress bars of the simjoin command on its
// standard error (github.com/schollz/progressbar/v3), and only when that is a
// terminal: a bar's carriage-return redraws would litter a file or a pipe,
// so on anything else every call does nothing.
//
// A Bars value follows one run. Report takes the library's events
// (simjoin.Options.Progress) and draws one bar per stage, started when the
// stage starts and cleared when it ends; Bytes and Count start bars that the
// caller drives itself (the passwords commands). Bars are redrawn at most ten
// times a second. Neither type is safe for concurrent use: the library calls
// Progress from the goroutine that called it.
package progress
