//go:build race

package heapstart

// raceOn is set under the race detector, whose shadow memory grows with
// every heap range the program touches or allocates: resident memory then
// says nothing of the heap's own pages.
const raceOn = true
