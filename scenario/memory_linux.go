//go:build linux

package scenario

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// machineMemory is the memory this process may use: the machine's, or
// its container's limit (cgroup v2 memory.max) where that is lower; 0
// where neither can be read.
var machineMemory = sync.OnceValue(func() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	total := int64(si.Totalram) * int64(si.Unit)
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && n < total {
			return n // "max" means no limit
		}
	}
	return total
})
