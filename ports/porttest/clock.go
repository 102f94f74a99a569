package porttest

import (
	"sync"
	"time"

	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Clock is a clock that tests move by hand, or that moves on by itself each
// time it is read (Leap). Its tickers tick when Add moves it past their next
// tick, and Add returns once each tick is taken: a reader that takes its
// ticks in a loop has finished with the previous one by then, with no sleep.
type Clock struct {
	mu      sync.Mutex
	t       time.Time
	leap    time.Duration
	tickers map[*ticker]bool
}

var _ ports.TickingClock = (*Clock)(nil)

// ticker is one of a Clock's tickers.
type ticker struct {
	every   time.Duration
	next    time.Time
	c       chan time.Time
	stopped chan struct{}
	stop    sync.Once
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

// Add moves the clock on, and ticks each ticker whose next tick it passed,
// once (a ticker drops the ticks of a longer move, as time.Ticker does),
// waiting for its reader to take the tick or stop the ticker.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	now := c.t
	var due []*ticker
	for tk := range c.tickers {
		if now.Before(tk.next) {
			continue
		}
		for !now.Before(tk.next) {
			tk.next = tk.next.Add(tk.every)
		}
		due = append(due, tk)
	}
	// Readers read the clock while they handle a tick: no lock held here.
	c.mu.Unlock()
	for _, tk := range due {
		select {
		case tk.c <- now:
		case <-tk.stopped:
		}
	}
}

// Skip moves the clock on without ticking: the time a stalled process
// (paused, swapped out) does not see go by. The tickers tick at the next Add.
func (c *Clock) Skip(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Leap makes each reading move the clock on by d first; a leap ticks no
// ticker.
func (c *Clock) Leap(d time.Duration) {
	c.mu.Lock()
	c.leap = d
	c.mu.Unlock()
}

// Tick starts a ticker that ticks every d of the clock's time.
func (c *Clock) Tick(d time.Duration) (<-chan time.Time, func()) {
	if d <= 0 {
		panic("porttest: non-positive interval for Clock.Tick")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	tk := &ticker{every: d, next: c.t.Add(d), c: make(chan time.Time), stopped: make(chan struct{})}
	if c.tickers == nil {
		c.tickers = map[*ticker]bool{}
	}
	c.tickers[tk] = true
	return tk.c, func() {
		tk.stop.Do(func() { close(tk.stopped) })
		c.mu.Lock()
		delete(c.tickers, tk)
		c.mu.Unlock()
	}
}
