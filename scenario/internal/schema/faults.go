package schema

import (
	"errors"
	"runtime/debug"
)

// ErrFileChanged is the error of a file read from a mapping of it (the
// loader maps large files) that was cut short while it was read: the
// pages past its new end are gone, and touching one is a fault, which
// CaughtFault turns into this error instead of a crash.
var ErrFileChanged = errors.New("the file changed while it was read (it was cut short): read it again once it is written")

// CaughtFault tells whether r, what recover returned in a goroutine that
// runs with debug.SetPanicOnFault(true), is a memory fault; any other
// panic goes on. A fault is what reading a mapped file that was cut short
// gives.
func CaughtFault(r any) bool {
	if r == nil {
		return false
	}
	if _, fault := r.(interface{ Addr() uintptr }); fault {
		return true
	}
	panic(r)
}

// catchingFaults runs read with faults caught (CaughtFault): ok is false
// when read touched memory that is gone.
func catchingFaults(read func()) (ok bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if CaughtFault(recover()) {
			ok = false
		}
	}()
	read()
	return true
}
