//go:build race

package scenario

// raceOn is set under the race detector, which makes runs ten times
// slower: the long equivalence tests then take fewer inputs.
const raceOn = true
