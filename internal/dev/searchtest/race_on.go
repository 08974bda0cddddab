//go:build race

package searchtest

// raceSample is how many of the sequential checks run under the race
// detector: one in raceSample (see sampled).
const raceSample = 4
