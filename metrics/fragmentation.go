package metrics

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gangsim/gangsim/cluster"
)

// fragmentation keeps the fragmented amount of every resource: on each
// schedulable node holding a pod, the free amount of a resource that at
// least one pending pod eligible for the node requests while no eligible
// pending pod requesting it fits the node's free resources. A pod is
// eligible for a node when it could run there were the node empty: its
// request fits the node's allocatable, it tolerates the node's NoSchedule
// and NoExecute taints, and its node selector and required node affinity
// match. Pending pods are kept as distinct shapes (request and those
// constraints) with counts. The totals are brought up to date once per instant
// (update): every node when the set of shapes changed, else only the
// nodes that changed, so an instant costs O(changed nodes x shapes).
type fragmentation struct {
	shapes  map[string]*shape
	demand  []int64 // pending pods requesting each resource
	dirty   map[string]bool
	lastSet []string // the shape keys at the last update
	total   vecTrack
}

// podsID is the number of the pods resource, which is never counted as
// fragmented: every pod requests one, so free pod slots would count on
// every node a pending pod does not fit, which says nothing new.
const podsID = 2

// shape is a distinct pending request with its placement constraints,
// and how many pending pods have it; pod is one of them.
type shape struct {
	key   string
	vec   []int64
	pod   *cluster.Pod
	count int
}

func newFragmentation() fragmentation {
	return fragmentation{shapes: map[string]*shape{}, dirty: map[string]bool{}}
}

// shapeKey renders a request vector and the pod's placement constraints
// as a map key.
func shapeKey(v []int64, p *cluster.Pod) string {
	var b strings.Builder
	if len(p.Tolerations) > 0 || len(p.NodeSelector) > 0 || p.Affinity != nil && p.Affinity.NodeAffinity != nil {
		fmt.Fprintf(&b, "%v|%v|", p.Tolerations, p.NodeSelector)
		if p.Affinity != nil && p.Affinity.NodeAffinity != nil {
			fmt.Fprintf(&b, "%v|", p.Affinity.NodeAffinity.Required)
		}
	}
	for i, x := range v {
		if x != 0 {
			b.WriteString(strconv.Itoa(i))
			b.WriteByte(':')
			b.WriteString(strconv.FormatInt(x, 10))
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// pending adds (d = 1) or removes (-1) a pending pod.
func (f *fragmentation) pending(p *podState, d int64) {
	s := f.shapes[p.shape]
	if s == nil {
		s = &shape{key: p.shape, vec: p.vec, pod: p.info.Pod()}
		f.shapes[p.shape] = s
	}
	s.count += int(d)
	if s.count == 0 {
		delete(f.shapes, p.shape)
	}
	for i, x := range p.vec {
		if x > 0 {
			if i >= len(f.demand) {
				f.demand = append(f.demand, make([]int64, i+1-len(f.demand))...)
			}
			f.demand[i] += d
		}
	}
}

func (f *fragmentation) nodeChanged(name string) { f.dirty[name] = true }

func (f *fragmentation) nodeRemoved(name string, ns *nodeState) {
	f.total.add(ns.frag, -1)
	ns.frag = nil
	delete(f.dirty, name)
}

// update brings the totals up to date with the pending shapes and the
// nodes.
func (f *fragmentation) update(r *Recorder) {
	keys := make([]string, 0, len(f.shapes))
	for k := range f.shapes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	shapes := make([]*shape, len(keys))
	for i, k := range keys {
		shapes[i] = f.shapes[k]
	}
	if !slices.Equal(keys, f.lastSet) {
		f.lastSet = keys
		for name, ns := range r.nodes {
			f.refresh(ns, shapes)
			delete(f.dirty, name)
		}
		return
	}
	for name := range f.dirty {
		if ns := r.nodes[name]; ns != nil {
			f.refresh(ns, shapes)
		}
		delete(f.dirty, name)
	}
}

// refresh recomputes one node's fragmented amounts.
func (f *fragmentation) refresh(ns *nodeState, shapes []*shape) {
	f.total.add(ns.frag, -1)
	ns.frag = ns.frag[:0]
	if !ns.schedulable || ns.pods == 0 || len(shapes) == 0 {
		return
	}
	free := make([]int64, len(ns.alloc))
	for i := range free {
		free[i] = ns.alloc[i] - at(ns.used, i)
	}
	usable := make([]bool, len(free))
	demanded := make([]bool, len(free))
	for _, s := range shapes {
		if !eligible(s, ns) {
			continue
		}
		fit := fits(s.vec, free)
		for i, x := range s.vec {
			if x > 0 && i < len(free) {
				demanded[i] = true
				usable[i] = usable[i] || fit
			}
		}
	}
	frag := make([]int64, len(free))
	for i, x := range free {
		if i != podsID && x > 0 && demanded[i] && !usable[i] {
			frag[i] = x
		}
	}
	ns.frag = frag
	f.total.add(frag, 1)
}

// eligible reports whether a shape's pods could run on the node were it
// empty.
func eligible(s *shape, ns *nodeState) bool {
	if !fits(s.vec, ns.alloc) || !cluster.MatchesSelector(s.pod.NodeSelector, ns.node.Labels) {
		return false
	}
	for i := range ns.node.Taints {
		t := &ns.node.Taints[i]
		if t.Effect != cluster.TaintPreferNoSchedule && !cluster.TolerationsTolerate(s.pod.Tolerations, t) {
			return false
		}
	}
	return s.pod.Affinity == nil || s.pod.Affinity.NodeAffinity.MatchesNode(ns.node)
}

// fits reports whether a request fits free amounts.
func fits(req, free []int64) bool {
	for i, x := range req {
		if x > at(free, i) {
			return false
		}
	}
	return true
}
