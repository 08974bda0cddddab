//go:build !race

package main

// raceEnabled: the race detector slows generation about tenfold.
const raceEnabled = false
