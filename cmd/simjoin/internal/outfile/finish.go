package outfile

import (
	"context"
	"errors"
	"os"
)

// Finish ends the outputs of s as the run that wrote them ended: when ctx
// was ended by Catch (its cause an Interrupted), they are removed (Abort)
// and the signal is returned; otherwise they are committed when ok (the run
// succeeded) and removed when not. The error is Commit's.
//
// The decision and Catch are ordered: a signal either ended ctx before
// Finish looked, and the old files stay; or it comes after, and Catch
// ignores it while the new files are committed whole (see Catch).
func (s *Set) Finish(ctx context.Context, ok bool) (os.Signal, error) {
	var in Interrupted
	caught.mu.Lock()
	if errors.As(context.Cause(ctx), &in) {
		caught.mu.Unlock()
		s.Abort()
		return in.Signal, nil
	}
	if !ok {
		caught.mu.Unlock()
		s.Abort()
		return nil, nil
	}
	caught.sealed = true
	caught.mu.Unlock()
	pause("commit")
	return nil, s.Commit()
}
