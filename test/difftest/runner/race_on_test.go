//go:build race

package runner

// raceDetector: the race detector reserves more address space than any limit allows.
const raceDetector = true
