package main

import (
	"math"
	"runtime/debug"
)

// Garbage-collector settings for a short-lived CLI: collect rarely while the heap
// is small (fewer collections are most of the speed of a large render), and often
// once it nears a soft memory limit, so that a render of hundreds of megabytes
// stays within the memory it has instead of growing to five times its live heap.
const (
	gcPercent = 400
	// softMemoryLimit is the heap size from which the collector works harder.
	softMemoryLimit = 1 << 30
	// addressSpaceShare of an address-space limit (ulimit -v, prlimit --as) is
	// left to the heap: the runtime reserves address space well beyond it.
	addressSpaceShare = 4
	minMemoryLimit    = 64 << 20
)

// tuneGC applies those settings; a GOGC or GOMEMLIMIT the user set wins, each
// on its own.
func tuneGC(gogcSet, memLimitSet bool) {
	if !memLimitSet {
		debug.SetMemoryLimit(memoryLimit(addressSpaceLimit()))
	}
	if !gogcSet {
		debug.SetGCPercent(gcPercent)
	}
}

// memoryLimit is the soft limit for a process whose address space is limited to
// as bytes (math.MaxUint64 or 0: unlimited).
func memoryLimit(as uint64) int64 {
	limit := int64(softMemoryLimit)
	if as == 0 || as == math.MaxUint64 {
		return limit
	}
	return max(min(limit, int64(min(as/addressSpaceShare, math.MaxInt64))), minMemoryLimit)
}
