//go:build !race

package scenario

const raceOn = false
