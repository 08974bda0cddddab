//go:build race

package sqlite

// raceEnabled: the race detector slows the search suites about tenfold.
const raceEnabled = true
