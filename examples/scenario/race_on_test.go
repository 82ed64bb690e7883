//go:build race

package main

// raceOn is set under the race detector, which makes runs ten times
// slower.
const raceOn = true
