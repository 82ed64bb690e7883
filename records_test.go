package gangsim

import (
	"testing"
	"unsafe"

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
