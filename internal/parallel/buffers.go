package parallel

// Buffers is a bounded free list of slices that a pipeline's consumer hands
// back for its workers to reuse (an output once consumed, a block of input
// once tokenized), so that the items in flight share a few buffers instead
// of allocating one each (and the runtime clearing fresh memory for every
// one). It is safe for concurrent use.
type Buffers[T any] struct {
	free chan []T
}

// NewBuffers returns a free list that holds up to n buffers.
func NewBuffers[T any](n int) *Buffers[T] {
	return &Buffers[T]{free: make(chan []T, n)}
}

// Get returns an empty slice of capacity at least n: the buffer at the head
// of the list if it is large enough (one that is not is dropped), a new one
// otherwise. It never waits.
func (b *Buffers[T]) Get(n int) []T {
	select {
	case s := <-b.free:
		if cap(s) >= n {
			return s[:0]
		}
	default:
	}
	return make([]T, 0, n)
}

// Put offers s for reuse, dropping it when the list is full. The caller
// must not use s afterwards. It never waits.
func (b *Buffers[T]) Put(s []T) {
	select {
	case b.free <- s[:0]:
	default:
	}
}
