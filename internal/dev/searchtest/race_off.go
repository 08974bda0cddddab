//go:build !race

package searchtest

// raceSample is 1 without the race detector: every check runs.
const raceSample = 1
