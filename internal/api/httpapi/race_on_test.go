//go:build race

package httpapi

// raceEnabled: the race detector makes generating the test network take
// minutes, so the tests over it run only without -race.
const raceEnabled = true
