//go:build linux

package heapstart

import (
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"unsafe"
)

// hugePages readies n bytes of heap for transparent huge pages and tells
// whether the heap has them. Linux gives them where a program asks
// (madvise, the usual setting) or everywhere (always); the Go runtime
// does not ask. So the heap is grown by an n-byte allocation, which maps
// that much address space (nothing is written, so no memory), the range
// is advised MADV_HUGEPAGE, and the allocation is dropped and collected:
// the heap's next allocations take its pages, and each first write then
// maps 2 MiB. Nothing is done where the kernel has no huge pages, where
// GODEBUG=disablethp=1 says not to (or madvdontneed=0 makes the runtime
// clear pages it gave back), in a race-detector build (raceBuild), or
// where the system counts address space against a strict limit
// (vm.overcommit_memory=2, which a large mapping could exhaust); n is at
// most half the machine's memory.
func hugePages(n int64) bool {
	switch thpMode() {
	case "always":
		return !disabledTHP() // the runtime maps the heap, the kernel backs it with huge pages
	case "madvise":
	default:
		return false
	}
	if raceBuild || disabledTHP() || strictOvercommit() || godebug("madvdontneed=0") {
		return false // the last: pages given back are cleared again when taken, and the allocation below with them
	}
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err == nil {
		n = min(n, int64(si.Totalram)*int64(si.Unit)/2)
	}
	const hugePage = 2 << 20
	if n < 4*hugePage || int64(int(n)) != n {
		return false
	}
	// Free pages given back to the system read as zeros: the allocation
	// below is then never cleared, which would write all of it (a page
	// freed by the program and kept is cleared when it is taken again).
	debug.FreeOSMemory()
	b := make([]byte, n)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	from, to := (p+hugePage-1)&^(hugePage-1), (p+uintptr(n))&^(hugePage-1)
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, from, to-from, madvHugePage)
	runtime.KeepAlive(b)
	b = nil
	// the range free again and given back (never cleared, as above, when
	// a later allocation takes it), and the collector's goal back to the
	// floor's
	debug.FreeOSMemory()
	return errno == 0
}

// madvHugePage is MADV_HUGEPAGE.
const madvHugePage = 14

// populate maps the pages of [from, from+n) as a write to each would,
// without writing (MADV_POPULATE_WRITE, Linux 5.14): a page already
// mapped keeps its contents, a page not mapped is mapped clear. So it may
// be asked of heap the runtime holds free, which it reads as clear once
// given back. It reports whether the kernel did it.
func populate(from, n uintptr) bool {
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, from, n, madvPopulateWrite)
	return errno == 0
}

// madvPopulateWrite is MADV_POPULATE_WRITE.
const madvPopulateWrite = 23

// thpMode is the kernel's transparent huge page setting: "always",
// "madvise" or "never" ("" where it cannot be read).
func thpMode() string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return ""
	}
	s := string(b)
	i, j := strings.IndexByte(s, '['), strings.IndexByte(s, ']')
	if i < 0 || j < i {
		return ""
	}
	return s[i+1 : j]
}

// disabledTHP says GODEBUG asks the runtime not to use huge pages.
func disabledTHP() bool { return godebug("disablethp=1") }

// godebug says GODEBUG holds setting ("name=value").
func godebug(setting string) bool {
	for _, kv := range strings.Split(os.Getenv("GODEBUG"), ",") {
		if strings.TrimSpace(kv) == setting {
			return true
		}
	}
	return false
}

// strictOvercommit says the system refuses address space beyond a commit
// limit (mode 2), where a large mapping of the heap may fail, which the
// runtime cannot survive.
func strictOvercommit() bool {
	b, err := os.ReadFile("/proc/sys/vm/overcommit_memory")
	return err != nil || strings.TrimSpace(string(b)) == "2"
}
