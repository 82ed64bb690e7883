package placement

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// localPlugin is one plugin of a profile as localFor judges it.
type localPlugin struct {
	podLocal fw.PodLocal // nil: not declared
	signer   fw.Signer   // nil: no Signer
	// filterOnly is a NodeLocal plugin at PreFilter and Filter alone: its
	// answers read the node and the pod
	filterOnly bool
	reserves   bool
}

// localPlugins lists each plugin of the profile once, in the order first
// met (PreFilter, Filter, PreScore, Score, Reserve).
func localPlugins(plugins PodPlugins) []localPlugin {
	var order []fw.Plugin
	index := map[string]int{}
	scoring := map[string]bool{}
	reserving := map[string]bool{}
	add := func(p fw.Plugin) {
		if _, ok := index[p.Name()]; !ok {
			index[p.Name()] = len(order)
			order = append(order, p)
		}
	}
	for _, p := range plugins.PreFilter {
		add(p)
	}
	for _, p := range plugins.Filter {
		add(p)
	}
	for _, p := range plugins.PreScore {
		add(p)
		scoring[p.Name()] = true
	}
	for _, ws := range plugins.Score {
		add(ws.Plugin)
		scoring[ws.Plugin.Name()] = true
	}
	for _, p := range plugins.Reserve {
		add(p)
		reserving[p.Name()] = true
	}
	out := make([]localPlugin, len(order))
	for i, p := range order {
		l := &out[i]
		l.podLocal, _ = p.(fw.PodLocal)
		l.signer, _ = p.(fw.Signer)
		_, nodeLocal := p.(fw.NodeLocal)
		l.filterOnly = nodeLocal && !scoring[p.Name()] && !reserving[p.Name()]
		l.reserves = reserving[p.Name()]
	}
	return out
}

// localFor reports whether every plugin of the profile reads, for pod on
// snap, only the pod and the node it is given (framework.PodLocal): a
// plugin that says so for the pod, a Signer that signs it (but not at
// Reserve), or a NodeLocal filter.
func (ps *PodScheduler) localFor(pod *cluster.PodInfo, snap *cluster.Snapshot) bool {
	for i := range ps.locals {
		l := &ps.locals[i]
		switch {
		case l.podLocal != nil:
			if !l.podLocal.PodLocalFor(pod, snap) {
				return false
			}
		case l.signer != nil && !l.reserves:
			var ok bool
			if ps.sig, ok = l.signer.Sign(pod, ps.sig[:0]); !ok {
				return false
			}
		case l.filterOnly:
		default:
			return false
		}
	}
	return true
}

// PodLocal reports whether every plugin of the profile reads, for pod on
// snap, only the pod and the node it is given: a pod's outcome on an
// unchanged node is then its outcome there before.
func (ps *PodScheduler) PodLocal(pod *cluster.PodInfo, snap *cluster.Snapshot) bool {
	return ps.localFor(pod, snap)
}

// ScansAll reports whether every filter scan of n candidates visits them
// all (scansAll).
func (ps *PodScheduler) ScansAll(n int) bool { return ps.scansAll(n) }

// scansAll reports whether a filter scan of n candidates visits them all
// whatever node it starts at: its outcome then does not depend on where
// the last scan stopped, and it leaves the next scan's start at the old
// start modulo n.
func (ps *PodScheduler) scansAll(n int) bool {
	return len(ps.plugins.Score) > 0 && NumFeasibleNodesToFind(ps.percentage, n) >= n
}
