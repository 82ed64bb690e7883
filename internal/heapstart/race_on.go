//go:build race

package heapstart

// raceBuild says the race detector is built in. Its runtime keeps shadow
// memory for each heap range the program maps, and clears it when the
// range is given back: readying a GiB of heap for huge pages then costs
// seconds and hundreds of MB, in a build no one times.
const raceBuild = true
