package ports

import "time"

// Clock tells the time; tests pass a fixed one.
type Clock interface {
	Now() time.Time
}
