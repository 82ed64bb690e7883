//go:build race

package gangsim

// raceOn is set under the race detector, which makes runs ten times
// slower: the randomised tests then take fewer seeds.
const raceOn = true
