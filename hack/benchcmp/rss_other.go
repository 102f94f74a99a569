//go:build !unix

package main

import "os"

// maxRSSKiB is not available on this platform; the table shows 0.0.
func maxRSSKiB(*os.ProcessState) int64 { return 0 }
