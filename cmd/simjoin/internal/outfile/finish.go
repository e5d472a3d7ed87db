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
func (s *Set) Finish(ctx context.Context, ok bool) (os.Signal, error) {
	var in Interrupted
	if errors.As(context.Cause(ctx), &in) {
		s.Abort()
		return in.Signal, nil
	}
	if ok {
		return nil, s.Commit()
	}
	s.Abort()
	return nil, nil
}
