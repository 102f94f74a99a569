//go:build !unix

package main

// addressSpaceLimit is 0 (unlimited) where the system has no address-space
// limit to read, Windows among them.
func addressSpaceLimit() uint64 { return 0 }
