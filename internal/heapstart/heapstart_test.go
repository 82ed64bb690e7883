package heapstart

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// After Prepare the floor is live heap, and the prefault's pages are back
// in the heap, free and mapped (resident, not returned to the system),
// for the run's next allocations.
func TestPrepareLeavesFloorAndMappedPages(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("the prefault runs only on more than one processor")
	}
	before, resident := residentBytes()
	<-Prepare()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapAlloc < FloorBytes {
		t.Errorf("live heap %d bytes, below the floor's %d", m.HeapAlloc, FloorBytes)
	}
	if kept := m.HeapIdle - m.HeapReleased; kept < PrefaultBytes {
		t.Errorf("free heap kept %d bytes, below the prefault's %d", kept, PrefaultBytes)
	}
	if after, _ := residentBytes(); resident && after-before < PrefaultBytes*9/10 {
		t.Errorf("resident memory grew by %d bytes, the prefault maps %d", after-before, PrefaultBytes)
	}
	runtime.KeepAlive(floor)
}

// residentBytes reads the process's resident memory where the system
// tells it (Linux), and whether it did.
func residentBytes() (int64, bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}

// Expect maps the pages of large inputs, up to MaxPrefaultBytes in all,
// once: small inputs and a second call map nothing.
func TestExpectMapsLargeInputsPagesOnce(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("the prefault runs only on more than one processor")
	}
	<-Expect(1 << 20) // 3 MB: within Prepare's prefault
	if expected.Load() {
		t.Fatal("a small input took Expect's one prefault")
	}
	before, resident := residentBytes()
	<-Expect(1 << 30)
	want := int64(MaxPrefaultBytes - PrefaultBytes)
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if kept := int64(m.HeapIdle - m.HeapReleased); kept < want {
		t.Errorf("free heap kept %d bytes, below the %d mapped", kept, want)
	}
	// the free pages an earlier prefault left (Prepare's, in this
	// process) are taken first: they are mapped already
	if after, _ := residentBytes(); resident && after-before < (want-PrefaultBytes)*9/10 {
		t.Errorf("resident memory grew by %d bytes, Expect maps %d", after-before, want)
	}
	if !expected.Load() {
		t.Fatal("Expect did not note its prefault")
	}
	select {
	case <-Expect(1 << 30):
	default:
		t.Error("a second Expect should map nothing and be done at once")
	}
}
