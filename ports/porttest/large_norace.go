//go:build !race

package porttest

// largeRecordBytes is the size of the large-record test's file.
const largeRecordBytes = LargeChartBytes
