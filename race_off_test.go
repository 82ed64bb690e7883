//go:build !race

package gangsim

const raceOn = false
