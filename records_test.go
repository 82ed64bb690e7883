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

// SharedPod answers as Pod(p.Key()) whatever the order it is asked in:
// for pods kept as given, pods admission copied (no priority), pods
// refused, pods never added, and a pod ended and added again under its
// key (the first one's record no longer answers for the key).
func TestSharedPodIsPodByKey(t *testing.T) {
	s, err := New(Config{})
	require.NoError(t, err)
	require.NoError(t, s.AddNode(cluster.Node{Name: "n", Allocatable: cluster.NewResources(4000, 8<<30, 110)}))
	prio := int32(0)
	pods := make([]cluster.Pod, 12)
	for i := range pods {
		pods[i] = cluster.Pod{Namespace: "default", Name: fmt.Sprintf("p%d", i), Requests: cluster.NewResources(100, 1<<20, 0)}
		if i%3 != 0 {
			pods[i].Priority = &prio // kept as given; the others are copied
		}
	}
	pods[4].Name = "Not A Name" // refused
	again := pods[7]            // p7 again, once the first has gone
	added := []*cluster.Pod{}
	for i := range pods {
		if err := s.AddSharedPod(&pods[i], 0); err == nil {
			added = append(added, &pods[i])
		}
	}
	require.NoError(t, s.Run())
	require.NoError(t, s.DeletePod(pods[7].Key()))
	require.NoError(t, s.AddSharedPod(&again, 0))
	require.NoError(t, s.Run())
	stranger := cluster.Pod{Namespace: "default", Name: "stranger"}
	asks := [][]*cluster.Pod{
		append(append([]*cluster.Pod{}, added...), &again, &stranger, &pods[4]),
		{&again, &pods[7], &pods[8], &pods[2], &pods[1], &stranger, &pods[11], &pods[10]},
		added,
	}
	for _, ask := range asks {
		for _, p := range ask {
			want, wantOK := s.Pod(p.Key())
			got, ok := s.SharedPod(p)
			require.Equal(t, wantOK, ok, p.Name)
			require.Equal(t, want, got, p.Name)
		}
	}
	first, _ := s.SharedPod(&pods[7])
	require.Equal(t, PhaseBound, first.Phase, "the key names the pod added again, not the deleted one")
}
