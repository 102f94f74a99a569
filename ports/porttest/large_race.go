//go:build race

package porttest

// largeRecordBytes is the size of the large-record test's file under the race
// detector, which instruments every byte that gzip, base64 and JSON touch (5
// MiB made that one test most of the unit run): 1.5 MiB still makes a record
// past Kubernetes' 1 MiB object limit, stored in several chunks. The
// end-to-end contract (test/e2e/releases), run without the detector, stores
// LargeChartBytes.
const largeRecordBytes = 3 << 19
