package ports

import "time"

// Clock tells the time; tests pass a fixed one.
type Clock interface {
	Now() time.Time
}

// TickingClock is a Clock that also ticks: a lock holder renews its lock on
// the ticks, so that tests move renewals on with the clock instead of
// sleeping.
type TickingClock interface {
	Clock
	// Tick sends the time on ticks every d (dropping ticks for a slow
	// reader, as time.Ticker does) until stop is called.
	Tick(d time.Duration) (ticks <-chan time.Time, stop func())
}

// SystemClock is the time of day: the clock of every caller that is not a
// test.
type SystemClock struct{}

var _ TickingClock = SystemClock{}

func (SystemClock) Now() time.Time { return time.Now() }

// Tick ticks with a time.Ticker.
func (SystemClock) Tick(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}
