//go:build !race

package scenario_test

const raceOn = false
