package server

import (
	"context"
	"time"

	"github.com/memd-dev/memd"
)

// admission bounds one kind of work: at most inFlight requests run, up to
// queue more wait at most maxWait for a turn, and the rest are refused at
// once with a BusyError (429 with Retry-After). Without it 300 clients
// recalling held 1.0–1.4 GB while throughput stopped growing past about
// ten of them.
type admission struct {
	work       string // what is admitted, plural, for the refusal
	running    chan struct{}
	waiting    chan struct{}
	maxWait    time.Duration
	retryAfter time.Duration
}

func newAdmission(work string, inFlight, queue int, maxWait time.Duration) *admission {
	return &admission{work: work, running: make(chan struct{}, inFlight), waiting: make(chan struct{}, queue),
		maxWait: maxWait, retryAfter: time.Second}
}

// enter waits for a turn and returns the function that gives it back, or
// a BusyError when the queue is full or the wait runs out, or ctx's error.
func (a *admission) enter(ctx context.Context) (leave func(), err error) {
	select {
	case a.running <- struct{}{}:
		return a.leave, nil
	default:
	}
	select {
	case a.waiting <- struct{}{}:
	default:
		return nil, a.busy()
	}
	defer func() { <-a.waiting }()
	t := time.NewTimer(a.maxWait)
	defer t.Stop()
	select {
	case a.running <- struct{}{}:
		return a.leave, nil
	case <-t.C:
		return nil, a.busy()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (a *admission) leave() { <-a.running }

func (a *admission) busy() error {
	return &memd.BusyError{InFlight: cap(a.running) + cap(a.waiting), RetryAfter: a.retryAfter, Work: a.work}
}
