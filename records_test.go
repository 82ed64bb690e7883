package gangsim

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/gangsim/gangsim/cluster"

	"github.com/stretchr/testify/require"
)

// A chunk of pod records is a large allocation, rounded up to whole 8 KiB
// pages: a chunk whose records leave much of its last page unused wastes
// that much for every 512 pods of a run.
func TestRecordChunkFillsItsPages(t *testing.T) {
	const page = 8192
	size := int(unsafe.Sizeof(podRecord{})) * recordChunk
	waste := (page - size%page) % page
	require.LessOrEqual(t, waste*20, size, "a chunk of %d pod records (%d bytes) leaves %d bytes of its pages unused: choose recordChunk anew", recordChunk, size, waste)
}

// Admitting a pod allocates what it keeps: its PodInfo and key, the
// default priority admission gives it, its queue item and the item's key
// (a pod without a PodGroup makes no group key to look up: on a million
// pods each allocation is a visible share of the load).
func TestAddPodAllocatesWhatItKeeps(t *testing.T) {
	s, err := New(Config{})
	require.NoError(t, err)
	pods := make([]cluster.Pod, 200)
	for i := range pods {
		pods[i] = cluster.Pod{Name: fmt.Sprintf("p%d", i), Requests: cluster.NewResources(100, 1<<20, 0)}
	}
	i := 0
	allocs := testing.AllocsPerRun(100, func() {
		require.NoError(t, s.AddSharedPod(&pods[i], 0))
		i++
	})
	require.LessOrEqual(t, allocs, 6.0)
}
