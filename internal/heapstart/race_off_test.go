//go:build !race

package heapstart

const raceOn = false
