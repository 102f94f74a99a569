package lock

import (
	"context"
	"time"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Renewal keeps a held lock alive: it calls its renew function every interval
// until stopped, and closes Lost when a renewal reports the lock gone. Every
// lock adapter holds its locks with one.
type Renewal struct {
	lost chan struct{}
	stop context.CancelFunc
	done chan struct{}
}

// StartRenewal starts renewing on clock's ticks. renew reports whether the
// lock is still held; its context ends when the renewal is stopped.
func StartRenewal(clock ports.TickingClock, interval time.Duration, renew func(ctx context.Context) (held bool)) *Renewal {
	ctx, cancel := context.WithCancel(context.Background())
	r := &Renewal{lost: make(chan struct{}), stop: cancel, done: make(chan struct{})}
	// The ticker starts with the lock, not when the goroutine first runs.
	ticks, stop := clock.Tick(interval)
	go func() {
		defer close(r.done)
		defer stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticks:
			}
			if !renew(ctx) && ctx.Err() == nil {
				close(r.lost)
				return
			}
		}
	}()
	return r
}

// Stop ends the renewals and waits for a running one to finish.
func (r *Renewal) Stop() {
	r.stop()
	<-r.done
}

// Lost is closed when a renewal found the lock gone.
func (r *Renewal) Lost() <-chan struct{} { return r.lost }
