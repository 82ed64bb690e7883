package metrics

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// deviceFragmentation keeps the device-level fragmentation of Weng et
// al.'s "Beware of Fragmentation" (USENIX ATC '23), per device class.
// The workload is the distribution of task types over the pods arrived
// so far that request devices of the class: a type is a pod's request
// (cpu, memory, the other resources, its placement constraints) with its
// demand of the class (a number of whole devices, or a share of one);
// its popularity is its share of those pods. For a node and a type, the
// fragment is the free device capacity the type cannot use there (see
// fragment); a node's expected fragment weighs them by popularity, and
// the class's ratio is the nodes' expected fragments over their free
// capacity.
//
// Each node keeps its fragment for every type; the cluster keeps their
// sums per type, so that a change of the popularities costs O(types) and
// a node's change O(types x its devices). An instant recomputes the nodes
// that changed, and a new type is computed once on every node.
type deviceFragmentation struct {
	types   []*taskType
	typeIdx map[string]int
	// podTypes remembers the types of a pod's request shape and claim
	// specs (by shape, then by the specs' keys), so that an arrival like
	// an earlier one costs two map reads.
	podTypes map[string]map[string][]int
	computed int                   // types computed on every node not dirty
	sum      []int64               // per type: the nodes' fragments (thousandths)
	free     []int64               // per class: the schedulable nodes' free amount
	pods     []int64               // per class: the pods arrived requesting it
	dirty    []*nodeState          // nodes to recompute (flagged devDirty)
	classes  []*classFragmentation // per class number
}

// taskType is one kind of pod requesting devices of a class.
type taskType struct {
	class int
	// whole is the number of devices the type takes whole (-1: all the
	// class's devices on the node); share, when set, is what a sharing
	// type asks of one device's capacities instead.
	whole int64
	share []amount
	shape shape // its request and placement constraints
	count int64 // pods arrived of the type
}

// classFragmentation is a class's expected fragment (thousandths of a
// device) and ratio (millionths) over time.
type classFragmentation struct {
	types       int
	frag, ratio track
}

func newDeviceFragmentation() deviceFragmentation {
	return deviceFragmentation{typeIdx: map[string]int{}, podTypes: map[string]map[string][]int{}}
}

func (f *deviceFragmentation) nodeChanged(ns *nodeState) {
	if !ns.devDirty {
		ns.devDirty = true
		f.dirty = append(f.dirty, ns)
	}
}

// dropNode takes a node's fragments and free amounts out of the sums.
func (f *deviceFragmentation) dropNode(nd *nodeDevices) {
	for t, x := range nd.frag {
		f.sum[t] -= x
	}
	for c, x := range nd.free {
		f.free[c] -= x
	}
	nd.frag, nd.free = nil, nil
}

func (f *deviceFragmentation) class(c int) *classFragmentation {
	for len(f.classes) <= c {
		f.classes = append(f.classes, &classFragmentation{})
		f.free = append(f.free, 0)
		f.pods = append(f.pods, 0)
	}
	return f.classes[c]
}

// arrive counts a new pod's task types, one per class it requests.
func (f *deviceFragmentation) arrive(dv *devices, p *podState) {
	pod := p.info.Pod()
	if dv.src == nil || len(pod.ResourceClaims) == 0 {
		return
	}
	claims := make([]*cluster.ResourceClaim, len(pod.ResourceClaims))
	sig, cacheable := "", true
	for i := range pod.ResourceClaims {
		rc, ok := dv.src.ResourceClaim(pod.ClaimKey(i))
		switch {
		case !ok:
			sig += "\x01missing\x00"
		case rc.SpecKey() == "":
			cacheable = false // a claim not from a cache: no key to remember it by
		case len(pod.ResourceClaims) == 1:
			sig = rc.SpecKey()
		default:
			sig += rc.SpecKey() + "\x00"
		}
		if ok {
			claims[i] = rc
		}
	}
	types, known := f.podTypes[p.shape][sig]
	if !known || !cacheable {
		types = f.typesOf(dv, p, claims)
		if cacheable {
			bySig := f.podTypes[p.shape]
			if bySig == nil {
				bySig = map[string][]int{}
				f.podTypes[p.shape] = bySig
			}
			bySig[sig] = types
		}
	}
	for _, i := range types {
		f.types[i].count++
		f.pods[f.types[i].class]++
	}
}

// typesOf returns the numbers of a pod's task types, adding new ones.
func (f *deviceFragmentation) typesOf(dv *devices, p *podState, claims []*cluster.ResourceClaim) []int {
	demands := podDemand(dv, claims)
	var out []int
	for _, c := range slices.Sorted(maps.Keys(demands)) {
		d := demands[c]
		key := d.key(c) + "|" + p.shape
		i, ok := f.typeIdx[key]
		if !ok {
			i = len(f.types)
			f.typeIdx[key] = i
			f.types = append(f.types, &taskType{class: c, whole: d.whole, share: d.share, shape: shape{vec: p.vec, pod: p.info.Pod()}})
			f.sum = append(f.sum, 0)
			f.class(c).types++
		}
		out = append(out, i)
	}
	return out
}

// demand is a pod's demand of one class.
type demand struct {
	whole int64
	share []amount // by name
}

func (d demand) key(class int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d|%d|", class, d.whole)
	for _, a := range d.share {
		fmt.Fprintf(&b, "%s=%d ", a.name, a.q)
	}
	return b.String()
}

// podDemand reads what a pod's claims ask of each class: the first
// alternative of a FirstAvailable request, admin access left out. A
// request of one device with capacities is a share; a pod asking for
// exactly one share of a class is a sharing type of it, and any other
// mix counts each share as a whole device. Claims the source does not
// hold (nil: not added yet) ask for nothing.
func podDemand(dv *devices, claims []*cluster.ResourceClaim) map[int]demand {
	type acc struct {
		whole  int64
		all    bool
		shares []map[cluster.QualifiedName]cluster.Quantity
	}
	per := map[int]*acc{}
	for _, rc := range claims {
		if rc == nil {
			continue
		}
		for j := range rc.Spec.Requests {
			req := &rc.Spec.Requests[j]
			ex := req.Exactly
			if ex == nil && len(req.FirstAvailable) > 0 {
				ex = &req.FirstAvailable[0].ExactDeviceRequest
			}
			if ex == nil || ex.AdminAccess {
				continue
			}
			c := dv.classNumber(ex.DeviceClassName)
			a := per[c]
			if a == nil {
				a = &acc{}
				per[c] = a
			}
			switch {
			case ex.EffectiveMode() == cluster.DeviceAllocationAll:
				a.all = true
			case len(ex.Capacity) > 0 && ex.EffectiveCount() == 1:
				a.shares = append(a.shares, ex.Capacity)
			default:
				a.whole += ex.EffectiveCount()
			}
		}
	}
	out := make(map[int]demand, len(per))
	for c, a := range per {
		switch {
		case a.all:
			out[c] = demand{whole: -1}
		case a.whole == 0 && len(a.shares) == 1:
			out[c] = demand{share: amounts(a.shares[0])}
		default:
			out[c] = demand{whole: a.whole + int64(len(a.shares))}
		}
	}
	return out
}

// update brings the sums up to date: new types on every node, then the
// nodes that changed; then the classes' tracks.
func (f *deviceFragmentation) update(r *Recorder) {
	if f.computed < len(f.types) {
		for _, ns := range r.nodes {
			if ns.dev != nil && !ns.devDirty {
				f.extend(ns)
			}
		}
		f.computed = len(f.types)
	}
	for _, ns := range f.dirty {
		ns.devDirty = false
		if ns.dev != nil && r.nodes[ns.node.Name] == ns {
			f.refresh(ns)
		}
	}
	f.dirty = f.dirty[:0]
	for c, cf := range f.classes {
		e := f.expected(c)
		cf.frag.cur = int64(e + 0.5)
		cf.ratio.cur = 0
		if f.free[c] > 0 {
			cf.ratio.cur = int64(1e6*e/float64(f.free[c]) + 0.5)
		}
	}
}

// expected is the class's expected fragment: each type's summed fragment
// weighed by its popularity.
func (f *deviceFragmentation) expected(c int) float64 {
	if f.pods[c] == 0 {
		return 0
	}
	var e float64
	for t, tt := range f.types {
		if tt.class == c {
			e += float64(tt.count) * float64(f.sum[t])
		}
	}
	return e / float64(f.pods[c])
}

// extend computes the types a node has no fragment for yet.
func (f *deviceFragmentation) extend(ns *nodeState) {
	nd := ns.dev
	if len(nd.frag) == 0 && len(nd.free) == 0 {
		f.refresh(ns) // never computed
		return
	}
	for t := len(nd.frag); t < len(f.types); t++ {
		x := fragment(ns, f.types[t])
		nd.frag = append(nd.frag, x)
		f.sum[t] += x
	}
}

// refresh recomputes a node's fragments and free amounts, in place.
func (f *deviceFragmentation) refresh(ns *nodeState) {
	nd := ns.dev
	nd.frag = grow(nd.frag, len(f.types))
	for t, tt := range f.types {
		x := fragment(ns, tt)
		f.sum[t] += x - nd.frag[t]
		nd.frag[t] = x
	}
	nd.free = grow(nd.free, len(nd.byClass))
	for c := range nd.byClass {
		f.class(c)
		var x int64
		if ns.schedulable {
			x = freeOf(nd, c)
		}
		f.free[c] += x - nd.free[c]
		nd.free[c] = x
	}
}

// grow extends v with zeros to length n.
func grow(v []int64, n int) []int64 {
	if len(v) < n {
		v = append(v, make([]int64, n-len(v))...)
	}
	return v
}

// freeOf is the free amount of a class's devices on a node.
func freeOf(nd *nodeDevices, c int) int64 {
	var free int64
	for _, k := range nd.byClass[c] {
		free += nd.devs[k].free()
	}
	return free
}

// fragment is the free capacity of the type's class on a node that the
// type cannot use (thousandths of a device), 0 on a node that is not
// schedulable:
//
//   - all of it when the type cannot run on the node: its request does
//     not fit the node's free resources, the node's taints, selector or
//     affinity exclude it, or too few devices are free (whole devices
//     for a whole type, one with room for the share for a sharing type);
//   - else, for a sharing type, the free part of the devices without room
//     for its share;
//   - else, for a whole type, the free part of the devices partly used.
func fragment(ns *nodeState, t *taskType) int64 {
	nd := ns.dev
	if !ns.schedulable || t.class >= len(nd.byClass) {
		return 0
	}
	devs := nd.byClass[t.class]
	var total, whole, unusable int64
	fits := false
	for _, k := range devs {
		d := &nd.devs[k]
		free := d.free()
		total += free
		if free == unit {
			whole++
		}
		if t.share != nil && free > 0 {
			if d.fitsShare(t.share) {
				fits = true
			} else {
				unusable += free
			}
		}
	}
	if total == 0 {
		return 0
	}
	if !runs(ns, &t.shape) {
		return total
	}
	if t.share != nil {
		if !fits {
			return total
		}
		return unusable
	}
	need := t.whole
	if need < 0 {
		need = int64(len(devs))
	}
	if whole < need {
		return total
	}
	return total - whole*unit
}

// runs reports whether a shape's request fits the node's free resources
// and its placement constraints admit the node.
func runs(ns *nodeState, s *shape) bool {
	if !eligible(s, ns) {
		return false
	}
	for i, x := range s.vec {
		if x > at(ns.alloc, i)-at(ns.used, i) {
			return false
		}
	}
	return true
}

// flush records the classes' tracks.
func (f *deviceFragmentation) flush(at time.Duration) {
	for _, cf := range f.classes {
		cf.frag.flush(at)
		cf.ratio.flush(at)
	}
}
