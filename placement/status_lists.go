package placement

import (
	"unsafe"

	fw "github.com/gangsim/gangsim/framework"
)

// statusLists keeps the node by node rejection lists of recent FitErrors,
// by a hash of their nodes and statuses, so that a pod that fails as a
// recent one did shares its list instead of copying it. In a busy
// cluster the member of a gang that fits no node is rejected again on
// each retry by the same nodes for the same reasons (the common
// rejections are shared statuses), and a copy of 2,000 rejections per
// retry was two fifths of all the memory allocated. FitError.Statuses is
// read-only, which is what makes sharing it safe.
type statusLists struct {
	byHash map[uint64][]fw.NodeStatus
}

// maxStatusLists bounds the lists kept; past it, all are forgotten.
const maxStatusLists = 256

// sorted returns r in node order, as sortedStatuses does: a kept list
// equal to it, or a new one, then kept.
func (l *statusLists) sorted(r []fw.NodeStatus) []fw.NodeStatus {
	wrap, ok := rotation(r)
	if !ok || len(r) == 0 {
		return sortedStatuses(r)
	}
	h := uint64(len(r))
	for _, part := range [2][]fw.NodeStatus{r[wrap:], r[:wrap]} {
		for _, ns := range part {
			h = (h^uint64(ns.Node))*0x100000001b3 ^ uint64(uintptr(unsafe.Pointer(ns.Status)))*0x9e3779b97f4a7c15
		}
	}
	if kept, ok := l.byHash[h]; ok && sameRotated(kept, r, wrap) {
		return kept
	}
	out := sortedStatuses(r)
	if l.byHash == nil || len(l.byHash) >= maxStatusLists {
		l.byHash = map[uint64][]fw.NodeStatus{}
	}
	l.byHash[h] = out
	return out
}

// rotation finds where r, a scan's rejections, wraps around: r[wrap:]
// then r[:wrap] is in node order. It reports false when r is not two
// ascending runs.
func rotation(r []fw.NodeStatus) (int, bool) {
	wrap := 0
	for i := 1; i < len(r); i++ {
		if r[i].Node < r[i-1].Node {
			if wrap != 0 || r[len(r)-1].Node > r[0].Node {
				return 0, false
			}
			wrap = i
		}
	}
	return wrap, true
}

// sameRotated reports whether kept equals r[wrap:] then r[:wrap], the
// same nodes with the same statuses (by identity).
func sameRotated(kept, r []fw.NodeStatus, wrap int) bool {
	if len(kept) != len(r) {
		return false
	}
	tail := len(r) - wrap
	for i, ns := range r[wrap:] {
		if kept[i] != ns {
			return false
		}
	}
	for i, ns := range r[:wrap] {
		if kept[tail+i] != ns {
			return false
		}
	}
	return true
}
