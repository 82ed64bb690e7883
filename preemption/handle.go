package preemption

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// Handle is what DefaultPreemption needs from the scheduler beyond the
// framework's Handle: victim units and nominations. The scheduler's
// handle implements it; a replacement preemption plugin may use it too.
type Handle interface {
	fw.Handle
	// Units returns the victim units with pods on the node at index node.
	Units(node int) []*Unit
	// AllUnits returns every victim unit in the cluster.
	AllUnits() []*Unit
	// NominatedNode returns the snapshot index of the node the pod is
	// nominated to, or -1.
	NominatedNode(pod cluster.PodKey) int
	// NodeLocal reports whether every filter that runs for pod reads only
	// its own node.
	NodeLocal(pod *cluster.PodInfo) bool
}

// DryRunMemo is a capability a Handle may offer: it remembers the nodes
// where evicting every lower-priority pod did not make a pod fit, for as
// long as nothing that decides it changes (the node's pods, pods nominated
// to it), so that a pod retried cycle after cycle in a busy cluster tries
// again only the nodes that changed. A node passed over this way is no
// candidate, exactly as a new try would find: decisions stay the same.
type DryRunMemo interface {
	// DryRunMemo sets the Request's Known, Rejected, Since, NoneFound,
	// Remembered and Found for one dry run of pod with its PreFilter
	// state, or leaves them nil
	// when its nodes cannot be remembered (a filter that runs for it reads
	// other nodes).
	DryRunMemo(state *fw.CycleState, pod *cluster.PodInfo, req *Request)
}
