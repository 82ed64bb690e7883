package helper

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"

	"github.com/gangsim/gangsim/cluster"
)

// Signature helpers for plugins that are framework.Signers: each appends
// one part of a pod to a signature so that two pods with equal parts are
// equal in what the part says (the engine keeps the parts of different
// plugins apart itself).

// AppendString appends s with its length before it, so that a string that
// holds separators cannot pass for several.
func AppendString(sig []byte, s string) []byte {
	sig = strconv.AppendInt(sig, int64(len(s)), 10)
	sig = append(sig, ':')
	return append(sig, s...)
}

// AppendLabels appends labels in key order, each key and value with its
// length (AppendString).
func AppendLabels(sig []byte, labels map[string]string) []byte {
	if len(labels) == 0 {
		return append(sig, 0)
	}
	var buf [8]string // most pods have few labels: no allocation
	keys := buf[:0]
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	sig = strconv.AppendInt(sig, int64(len(keys)), 10)
	for _, k := range keys {
		sig = AppendString(sig, k)
		sig = AppendString(sig, labels[k])
	}
	return append(sig, 0)
}

// AppendNodeAffinity appends the pod's node selector (sorted) and its node
// affinity.
func AppendNodeAffinity(sig []byte, p *cluster.Pod) []byte {
	sig = AppendLabels(sig, p.NodeSelector)
	if na := PodNodeAffinity(p); na != nil {
		sig = fmt.Appendf(sig, "%q|%q", na.Required, na.Preferred)
	}
	return sig
}

// AppendTolerations appends the pod's tolerations.
func AppendTolerations(sig []byte, p *cluster.Pod) []byte {
	if t := p.Tolerations; len(t) > 0 {
		sig = fmt.Appendf(sig, "%q", t)
	}
	return sig
}

// AppendRequests appends a pod's requests without allocating: each
// quantity as its eight bytes, each extended resource's name with its
// length (the memo signs each pod it schedules, and formatting the
// numbers as text was most of that).
func AppendRequests(sig []byte, r *cluster.Resources) []byte {
	sig = binary.LittleEndian.AppendUint64(sig, uint64(r.MilliCPU))
	sig = binary.LittleEndian.AppendUint64(sig, uint64(r.Memory))
	for sc := range r.Scalars() {
		sig = binary.AppendUvarint(sig, uint64(len(sc.Name)))
		sig = append(sig, sc.Name...)
		sig = binary.LittleEndian.AppendUint64(sig, uint64(sc.Value))
	}
	return sig
}
