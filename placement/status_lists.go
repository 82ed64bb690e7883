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
	h := hashStatuses(r, wrap)
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

// hashStatuses hashes the nodes and statuses of r in node order
// (r[wrap:] then r[:wrap]): the k-th goes to lane k mod 4. Four
// independent lanes, because one chain of multiplies over two thousand
// rejections waited on each multiply (a failed pod hashes its list at
// every retry).
func hashStatuses(r []fw.NodeStatus, wrap int) uint64 {
	n := uint64(len(r))
	var lanes [4]uint64
	l0, l1, l2, l3 := hashLanes(n, n+1, n+2, n+3, r[wrap:])
	// the second part's first rejection goes to lane m: its lanes are
	// the first part's, turned by m
	m := (len(r) - wrap) % 4
	turned := [4]uint64{l0, l1, l2, l3}
	l0, l1, l2, l3 = hashLanes(turned[m], turned[(m+1)%4], turned[(m+2)%4], turned[(m+3)%4], r[:wrap])
	for j, l := range [4]uint64{l0, l1, l2, l3} {
		lanes[(m+j)%4] = l
	}
	return ((lanes[0]*31+lanes[1])*31+lanes[2])*31 + lanes[3]
}

// hashLanes mixes r's rejections into four lanes in turn, the first into
// h0.
func hashLanes(h0, h1, h2, h3 uint64, r []fw.NodeStatus) (uint64, uint64, uint64, uint64) {
	mix := func(h uint64, ns fw.NodeStatus) uint64 {
		return (h^uint64(ns.Node))*0x100000001b3 ^ uint64(uintptr(unsafe.Pointer(ns.Status)))*0x9e3779b97f4a7c15
	}
	i := 0
	for ; i+4 <= len(r); i += 4 {
		h0, h1, h2, h3 = mix(h0, r[i]), mix(h1, r[i+1]), mix(h2, r[i+2]), mix(h3, r[i+3])
	}
	switch len(r) - i {
	case 3:
		h2 = mix(h2, r[i+2])
		fallthrough
	case 2:
		h1 = mix(h1, r[i+1])
		fallthrough
	case 1:
		h0 = mix(h0, r[i])
	}
	return h0, h1, h2, h3
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
