//go:build !race

package heapstart

// raceBuild says the race detector is built in (see race_on.go).
const raceBuild = false
