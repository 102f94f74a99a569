package porttest

import (
	"sync"
	"time"
)

// Clock is a clock that tests move by hand, or that moves on by itself each
// time it is read (Leap).
type Clock struct {
	mu   sync.Mutex
	t    time.Time
	leap time.Duration
}

// NewClock starts a clock at a fixed time.
func NewClock() *Clock { return &Clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

// Now reads the clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.leap)
	return c.t
}

// Add moves the clock on.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Leap makes each reading move the clock on by d first.
func (c *Clock) Leap(d time.Duration) {
	c.mu.Lock()
	c.leap = d
	c.mu.Unlock()
}
