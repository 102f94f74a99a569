//go:build !unix

package repo

// lockConfig does not lock where flock is unavailable; writes stay atomic.
func lockConfig(string) (func(), error) { return func() {}, nil }
