package httpapi

// SetGroupCommit turns the merging of concurrent inserts on or off (the
// benchmark compares the two) and returns the previous setting.
func SetGroupCommit(on bool) bool {
	old := groupCommit
	groupCommit = on
	return old
}

// OnHandlerStart makes f run as each request's handler starts (nil: nothing).
func OnHandlerStart(f func()) { handlerStarted = f }
