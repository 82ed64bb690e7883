//go:build unix

package scenario

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Special files: a device is refused before it is read (/dev/zero would
// fill memory to the limit first), a named pipe with no writer is an
// error at once rather than a wait for ever, a pipe with a writer is read.
func TestSpecialFiles(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	_, err := LoadFiles([]string{"/dev/zero"})
	require.ErrorContains(t, err, "/dev/zero: is a device, not a file or a pipe")

	fifo := t.TempDir() + "/fifo"
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here")
	}
	// a wait would be the test binary's timeout, which names the test
	_, err = LoadFiles([]string{fifo})
	require.ErrorContains(t, err, "nothing to read: a pipe with no writer")

	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			f.WriteString("nodes: [{name: a, allocatable: {cpu: \"1\"}}]\n")
			f.Close()
		}
	}()
	time.Sleep(100 * time.Millisecond) // the writer opens first, as a shell's pipe does
	sc, err := LoadFiles([]string{fifo})
	require.NoError(t, err)
	require.Len(t, sc.Nodes, 1)
}
