package helper

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/gangsim/gangsim/cluster"
)

// Signature helpers for plugins that are framework.Signers: each appends
// one part of a pod to a signature, unambiguously, so that two pods with
// equal signatures are equal in that part.

// AppendLabels appends labels in key order.
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
	for _, k := range keys {
		sig = append(sig, k...)
		sig = append(sig, '=')
		sig = append(sig, labels[k]...)
		sig = append(sig, ',')
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

// AppendRequests appends a pod's requests without allocating.
func AppendRequests(sig []byte, r *cluster.Resources) []byte {
	sig = strconv.AppendInt(sig, r.MilliCPU, 10)
	sig = append(sig, ',')
	sig = strconv.AppendInt(sig, r.Memory, 10)
	for sc := range r.Scalars() {
		sig = append(sig, ',')
		sig = append(sig, sc.Name...)
		sig = append(sig, '=')
		sig = strconv.AppendInt(sig, sc.Value, 10)
	}
	return sig
}
