package httpapi

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/simjoin/simjoin/index"
)

// groupCommit merges concurrent insert requests into one index batch; the
// benchmark turns it off to measure what it buys. Can change for testing.
var groupCommit = true

// maxGroupRecords caps the records of one merged batch.
const maxGroupRecords = 1 << 14

// committer merges the insert requests waiting for the index into one
// Insert: one write-ahead-log append and one fsync for all of them (group
// commit, as databases do). Requests are taken in arrival order, and only
// runs of consecutive requests with the same dedup threshold and conflict
// rule are merged, so the outcome of each record is the one serial
// requests would get (search before insert sees every earlier record of
// the merged batch, exactly as it would have seen them held, and so does
// the check of a key). There is no goroutine of its own: the request at the
// head of the queue runs one merged batch for everyone in it, then hands
// the turn to the next request waiting, if any.
type committer struct {
	ix *index.Index

	mu    sync.Mutex // protects queue and busy
	queue []*pending // requests not yet inserted, in arrival order
	busy  bool       // a request is running a batch (it heads the queue until it hands over)
}

// pending is one insert request waiting in the committer's queue.
type pending struct {
	recs []index.Record
	opt  index.InsertOptions
	// wake receives true when the request must run the next batch, false
	// when its outcomes are ready.
	wake chan bool
	outs []index.Outcome
	err  error
}

// insert inserts recs with opt, merged with the requests waiting at the
// same time, and returns once they are durable; ctx is checked before the
// records join the queue. As index.InsertRecords, it returns outcomes with
// an error when the records are durable but a checkpoint after them failed.
func (c *committer) insert(ctx context.Context, recs []index.Record, opt index.InsertOptions) ([]index.Outcome, error) {
	// A request past its time (or whose client left) is refused here; once
	// queued it is inserted and answered whatever its context says, since
	// its records may be durable.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !groupCommit {
		return c.ix.InsertRecords(ctx, recs, opt)
	}
	p := &pending{recs: recs, opt: opt, wake: make(chan bool, 1)}
	c.mu.Lock()
	c.queue = append(c.queue, p)
	lead := !c.busy
	c.busy = true
	c.mu.Unlock()
	if !lead && !<-p.wake {
		return p.outs, p.err
	}
	// p heads the queue: take it and the requests behind it that share its
	// threshold.
	c.mu.Lock()
	n, size := 1, len(p.recs)
	for n < len(c.queue) && c.queue[n].opt == p.opt && size+len(c.queue[n].recs) <= maxGroupRecords {
		size += len(c.queue[n].recs)
		n++
	}
	group := c.queue[:n:n]
	c.queue = c.queue[n:]
	c.mu.Unlock()
	c.runGuarded(group, size)
	for _, q := range group[1:] {
		q.wake <- false
	}
	c.mu.Lock()
	if len(c.queue) > 0 {
		c.queue[0].wake <- true
	} else {
		c.busy = false
	}
	c.mu.Unlock()
	return p.outs, p.err
}

// runGuarded is run, with a panic of the index turned into the error of
// every request of the group (net/http would recover it for one request;
// here it must not leave the others waiting, nor the queue without a head).
func (c *committer) runGuarded(group []*pending, size int) {
	defer func() {
		if r := recover(); r != nil {
			for _, p := range group {
				p.outs, p.err = nil, fmt.Errorf("index: insert panicked: %v", r)
			}
		}
	}()
	c.run(group, size)
}

// run inserts the records of group as one batch and gives each request its
// outcomes. A record the index refuses (one that does not tokenize, or
// whose key is held under ConflictError) fails the whole batch before
// anything is written; the requests are then inserted one by one, so that
// only the request holding it fails.
func (c *committer) run(group []*pending, size int) {
	if len(group) == 1 {
		p := group[0]
		p.outs, p.err = c.ix.InsertRecords(context.Background(), p.recs, p.opt)
		return
	}
	all := make([]index.Record, 0, size)
	for _, p := range group {
		all = append(all, p.recs...)
	}
	outs, err := c.ix.InsertRecords(context.Background(), all, group[0].opt)
	var re *index.RecordError
	var ke *index.KeyError
	if errors.As(err, &re) || errors.As(err, &ke) {
		for _, p := range group {
			p.outs, p.err = c.ix.InsertRecords(context.Background(), p.recs, p.opt)
		}
		return
	}
	// Outcomes come with an error when the batch is durable but the
	// checkpoint after it failed: every request gets both.
	for _, p := range group {
		p.err = err
		if outs != nil {
			p.outs, outs = outs[:len(p.recs):len(p.recs)], outs[len(p.recs):]
		}
	}
}
