package heapstart

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// After Prepare the floor is live heap and, with a second processor, the
// heap's next allocations take pages the prefault mapped; nothing is
// readied for huge pages until the run has gone on for LongRun.
func TestPrepareLeavesFloorAndPrefaultedPages(t *testing.T) {
	before, resident := residentBytes()
	<-Prepare()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapAlloc < FloorBytes {
		t.Errorf("live heap %d bytes, below the floor's %d", m.HeapAlloc, FloorBytes)
	}
	runtime.KeepAlive(floor)
	if readied.Load() {
		t.Error("Prepare readied huge pages at once: a short run pays for them")
	}
	if runtime.GOMAXPROCS(0) < 2 {
		return // no prefault on one processor
	}
	if free := m.HeapIdle; free < PrefaultBytes { // free heap, counted as given back where it was populated
		t.Errorf("free heap %d bytes, below the prefault's %d", free, PrefaultBytes)
	}
	if after, _ := residentBytes(); resident && after-before < PrefaultBytes*9/10 {
		t.Errorf("resident memory grew by %d bytes, the prefault maps %d", after-before, PrefaultBytes)
	}
}

// A run that goes on past LongRun gets its heap readied for huge pages,
// in a fresh process (where Prepare is first).
func TestLongRunReadiesHugePages(t *testing.T) {
	if thpMode() != "madvise" || disabledTHP() || strictOvercommit() || godebug("madvdontneed=0") || raceBuild {
		t.Skip("huge pages are not asked for here")
	}
	if os.Getenv("HEAPSTART_CHILD") == "long run" {
		Prepare()
		if readied.Load() {
			fmt.Println("grew 1: readied at once")
			return
		}
		deadline := time.Now().Add(LongRun + 10*time.Second)
		for !huge.Load() && time.Now().Before(deadline) {
			time.Sleep(LongRun / 10)
		}
		b := make([]byte, 64<<20)
		flags, ok := vmaFlags(unsafe.Pointer(&b[len(b)/2]))
		runtime.KeepAlive(b)
		switch {
		case !ok:
			fmt.Println("grew 0: no smaps")
		case !huge.Load() || !strings.Contains(flags, " hg"):
			fmt.Println("grew 2: not advised:", flags)
		default:
			fmt.Println("grew 0")
		}
		return
	}
	out := child(t, "TestLongRunReadiesHugePages", "long run")
	if !strings.Contains(out, "grew 0") {
		t.Errorf("the heap of a long run is not readied for huge pages:\n%s", out)
	}
}

// hugePages readies the range an allocation of its size then takes, when
// the kernel gives huge pages where asked; and it leaves the heap's
// collector goal where it was (the allocation is collected).
func TestHugePagesReadyTheHeapsNextPages(t *testing.T) {
	if thpMode() != "madvise" || disabledTHP() || strictOvercommit() || godebug("madvdontneed=0") {
		t.Skip("huge pages are not asked for here (the kernel's setting is " + thpMode() + ")")
	}
	if raceBuild {
		t.Skip("a race-detector build readies nothing (TestNoHugePagesInRaceBuilds)")
	}
	if !hugePages(256 << 20) {
		t.Fatal("hugePages(256 MB) did not ready the heap")
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapAlloc > 128<<20 {
		t.Errorf("live heap %d bytes after readying: the readying allocation was not collected", m.HeapAlloc)
	}
	if m.HeapReleased < 200<<20 {
		t.Errorf("%d bytes of heap given back after readying 256 MB: a later allocation of the range would be cleared, every page written", m.HeapReleased)
	}
	b := make([]byte, 128<<20)
	flags, ok := vmaFlags(unsafe.Pointer(&b[len(b)/2]))
	if !ok {
		t.Skip("no /proc/self/smaps")
	}
	if !strings.Contains(flags, " hg") {
		t.Errorf("the next allocation is not advised for huge pages: VmFlags%s", flags)
	}
	runtime.KeepAlive(b)
}

// Readying never writes the range it readies, even where the program
// freed pages it wrote just before; and a large allocation of the range
// readied is not written either. Each case runs in a fresh process, where
// the heap's layout is known: a page freed and kept is cleared when the
// allocator gives it again, and with it the whole allocation it starts.
func TestHugePagesNeverWriteTheirRange(t *testing.T) {
	if thpMode() != "madvise" || disabledTHP() || strictOvercommit() || godebug("madvdontneed=0") {
		t.Skip("huge pages are not asked for here")
	}
	if raceBuild {
		t.Skip("the race detector's shadow memory grows with the heap's ranges")
	}
	if mode := os.Getenv("HEAPSTART_CHILD"); mode != "" {
		fmt.Println("grew", hugePagesChild(mode))
		return
	}
	for _, mode := range []string{"readied after pages freed", "readied range allocated", "readied while prefaulting", "readied while prefaulting", "readied while prefaulting"} {
		out := child(t, "TestHugePagesNeverWriteTheirRange", mode)
		var grew int64
		if _, err := fmt.Sscanf(out[strings.Index(out, "grew "):], "grew %d", &grew); err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, out)
		}
		limit := int64(32 << 20)
		if mode == "readied while prefaulting" {
			limit += PrefaultBytes // the prefault maps its pages
		}
		if grew > limit {
			t.Errorf("%s: resident memory grew by %d bytes", mode, grew)
		}
	}
}

// hugePagesChild runs one case of TestHugePagesNeverWriteTheirRange and
// returns by how much the peak of resident memory grew.
func hugePagesChild(mode string) int64 {
	debug.SetGCPercent(-1) // no collection but the ones asked for: nothing freed while the case runs
	var before, after int64
	switch mode {
	case "readied after pages freed":
		b := make([]byte, 64<<20) // at the heap's top: fresh
		for i := range b {
			b[i] = 1
		}
		runtime.KeepAlive(b)
		b = nil
		runtime.GC() // freed, kept: pages the allocator must clear to give again
		before = peakResident()
		hugePages(1 << 30)
		after = peakResident()
	case "readied while prefaulting":
		// a large input's readying, right after Prepare started the
		// prefault, whose pages it frees as the readying allocates
		debug.SetGCPercent(100)
		before = peakResident()
		Prepare()
		<-Expect(200 << 20)
		after = peakResident()
	case "readied range allocated":
		hugePages(256 << 20)
		before = peakResident()
		c := make([]byte, 1<<30)
		after = peakResident()
		runtime.KeepAlive(c)
	}
	return after - before
}

// Expect readies heap for large inputs only, once.
func TestExpectReadiesLargeInputsOnce(t *testing.T) {
	<-Expect(1 << 20) // 1 MB: within what Prepare readied, or its prefault
	if expected.Load() {
		t.Fatal("a small input took Expect's one readying")
	}
	if runtime.GOMAXPROCS(0) < 2 && !huge.Load() {
		return
	}
	<-Expect(200 << 20)
	if !expected.Load() {
		t.Fatal("Expect did not note its readying of a 200 MB input's heap")
	}
	select {
	case <-Expect(1 << 30):
	default:
		t.Error("a second Expect should ready nothing and be done at once")
	}
}

// The prefault maps its pages: the resident memory of a fresh process
// grows by them, and they are in the heap, free (where populated, the
// runtime counts them given back, though they are mapped).
func TestPrefaultMapsPages(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("the prefault runs only on more than one processor")
	}
	if _, ok := residentBytes(); !ok || raceBuild {
		t.Skip("no resident memory figure of the heap's own pages")
	}
	if os.Getenv("HEAPSTART_CHILD") == "prefault" {
		before, _ := residentBytes()
		<-prefault(64 << 20)
		after, _ := residentBytes()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		fmt.Println("grew", after-before, "kept", m.HeapIdle)
		return
	}
	out := child(t, "TestPrefaultMapsPages", "prefault")
	var grew, kept int64
	if _, err := fmt.Sscanf(out[strings.Index(out, "grew "):], "grew %d kept %d", &grew, &kept); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if kept < (64<<20)*3/4 { // the rest taken again
		t.Errorf("free heap %d bytes, the prefault's %d", kept, 64<<20)
	}
	if grew < (64<<20)*9/10 {
		t.Errorf("resident memory grew by %d bytes, the prefault maps %d", grew, 64<<20)
	}
}

// child runs the test named in a fresh process of this binary, with
// HEAPSTART_CHILD=mode, and returns its output.
func child(t *testing.T, test, mode string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), "HEAPSTART_CHILD="+mode)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", mode, err, out)
	}
	if !strings.Contains(string(out), "grew ") {
		t.Fatalf("%s: no figure\n%s", mode, out)
	}
	return string(out)
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

// peakResident is the peak of the process's resident memory (Linux's
// VmHWM), 0 where it cannot be read.
func peakResident() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// vmaFlags is the VmFlags line of the mapping holding p (Linux's
// /proc/self/smaps), from after its colon; "hg" marks MADV_HUGEPAGE.
func vmaFlags(p unsafe.Pointer) (string, bool) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", false
	}
	defer f.Close()
	addr := uint64(uintptr(p))
	in := false
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok {
			if in {
				return rest, true
			}
			continue
		}
		f := strings.Fields(line)
		if len(f) < 5 || strings.HasSuffix(f[0], ":") {
			continue // a field of the mapping ("Rss: 4 kB")
		}
		lo, hi, _ := strings.Cut(f[0], "-") // a mapping's first line: "7f00-7f80 rw-p ..."
		from, err1 := strconv.ParseUint(lo, 16, 64)
		to, err2 := strconv.ParseUint(hi, 16, 64)
		in = err1 == nil && err2 == nil && from <= addr && addr < to
	}
	return "", false
}

// A race-detector build readies nothing: the detector would shadow the
// whole range (CI runs this package under it).
func TestNoHugePagesInRaceBuilds(t *testing.T) {
	if !raceBuild {
		t.Skip("not a race-detector build")
	}
	if hugePages(HugeBytes) {
		t.Fatal("a race-detector build readied huge pages")
	}
}
