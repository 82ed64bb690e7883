//go:build unix

package trace

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// A trace is read as scenario files are: a device is refused before it is
// read (/dev/zero as the pod file would never end), and a named pipe with
// no writer is an error at once, not a wait for ever.
func TestLoadRefusesSpecialFiles(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	_, err := Load("testdata/nodes.csv", "/dev/zero", Options{})
	require.ErrorIs(t, err, ErrTrace)
	require.EqualError(t, err, "trace: /dev/zero: is a device, not a file or a pipe")
	fifo := filepath.Join(t.TempDir(), "pods.csv")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	_, err = Load("testdata/nodes.csv", fifo, Options{})
	require.ErrorContains(t, err, fifo+": nothing to read: a pipe with no writer")
}
