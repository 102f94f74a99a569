//go:build !unix

package hostproc

// Alive cannot tell here: a lock then lasts until it expires.
func Alive(int) bool { return true }
