package ports

import "time"

// Clock tells the time; tests pass a fixed one.
type Clock interface {
	Now() time.Time
}

// SystemClock is the time of day: the clock of every caller that is not a
// test.
type SystemClock struct{}

func (SystemClock) Now() time.Time { return time.Now() }
