package metrics

import (
	"iter"
	"maps"
	"slices"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/cluster/deviceselector"
)

// DeviceSource is where a Recorder reads what the event stream does not
// carry about devices: the slices published for a node, the device
// classes, and the claims pods name. *gangsim.Scheduler is one.
type DeviceSource interface {
	Node(name string) (*cluster.NodeInfo, bool)
	DeviceClasses() iter.Seq[*cluster.DeviceClass]
	ResourceClaim(key string) (*cluster.ResourceClaim, bool)
}

var _ DeviceSource = (*gangsim.Scheduler)(nil)

// Attach returns the option that wires the Recorder into the Scheduler
// being made: it observes the Scheduler's stream, as
// gangsim.WithObserver(r.Observe) does, reads its devices
// (Options.Devices), and reads the pending pods' reasons as they stand
// when a report is made (a pod waiting for its gang's members hears of
// it once in the stream; the count it waits for changes without an
// event).
func (r *Recorder) Attach() gangsim.Option {
	return func(s *gangsim.Scheduler) {
		r.dev.src = s
		r.status = s.Pod
		gangsim.WithObserver(r.Observe)(s)
	}
}

// unit is a whole device in the thousandths device amounts are kept in.
const unit = 1000

// modelAttribute is the device attribute devices are grouped by, besides
// their classes.
const modelAttribute = "model"

// productAttribute is the attribute taken for the model when a device has
// no model attribute.
const productAttribute = "productName"

// devices follows the nodes' devices and the claims allocated on them.
// The inventory of a node (its slices, the classes selecting each device)
// is read from the source when the node is added or updated, at the end
// of that instant (so that slices published just after the node count).
// Slices published or withdrawn later count from the node's next update. Use comes
// from the claim events only, so every series is exact in time.
type devices struct {
	src       DeviceSource
	selectors *deviceselector.Cache
	groups    map[groupID]*deviceGroup
	claims    map[string]allocatedClaim // by claim key
	stale     []*nodeState              // nodes whose inventory is to be read (flagged devStale)
	classIdx  map[string]int            // class name -> number
	classes   []string
	frag      deviceFragmentation
}

// allocatedClaim is a claim allocated on a node.
type allocatedClaim struct {
	node  string
	alloc *cluster.AllocationResult
}

// groupID names a group of devices: a class ("class", name) or a model
// ("model", the attribute's value).
type groupID struct{ by, name string }

// deviceGroup is a group's devices and their use; amounts in thousandths
// of a device.
type deviceGroup struct {
	id                         groupID
	total, allocated, capacity track
}

// nodeDevices is a node's devices as the Recorder follows them.
type nodeDevices struct {
	slices  []*cluster.ResourceSlice // the inventory as read
	devs    []device
	index   map[cluster.DeviceID]int
	byClass [][]int // device numbers by class number
	frag    []int64 // its fragment for each task type (thousandths)
	free    []int64 // its free amount of each class (thousandths)
}

// device is one device and what the claims on it take.
type device struct {
	id        cluster.DeviceID
	shared    bool
	caps      []capacity // by name
	holders   int        // claims holding it
	exclusive int        // of which, those holding it whole
	used      int64      // thousandths of the device in use
	groups    []*deviceGroup
}

// capacity is one capacity of a device and what the claims sharing the
// device take of it. (A device has one or two: slices, not maps, for the
// reads of every instant.)
type capacity struct {
	name            cluster.QualifiedName
	value, consumed cluster.Quantity
}

// amount is a quantity of one named capacity: a sharing request's.
type amount struct {
	name cluster.QualifiedName
	q    cluster.Quantity
}

// amounts turns a capacity request into amounts, by name.
func amounts(m map[cluster.QualifiedName]cluster.Quantity) []amount {
	out := make([]amount, 0, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		out = append(out, amount{name, m[name]})
	}
	return out
}

// capacity returns the device's capacity of a name, or nil.
func (d *device) capacity(name cluster.QualifiedName) *capacity {
	for i := range d.caps {
		if d.caps[i].name == name {
			return &d.caps[i]
		}
	}
	return nil
}

func newDevices(src DeviceSource) devices {
	return devices{src: src, groups: map[groupID]*deviceGroup{}, claims: map[string]allocatedClaim{},
		classIdx: map[string]int{}, frag: newDeviceFragmentation()}
}

// free is the part of the device no claim takes, in thousandths.
func (d *device) free() int64 { return unit - d.used }

// take adds (sign 1) or takes away (-1) one claim's allocation of the
// device, keeping its groups' totals in step.
func (d *device) take(a *cluster.DeviceRequestAllocation, sign int) {
	wasHeld, wasUsed := d.holders > 0, d.used
	d.holders += sign
	if !d.shared || a.ConsumedCapacity == nil {
		d.exclusive += sign
	} else {
		for name, q := range a.ConsumedCapacity {
			if c := d.capacity(name); c != nil {
				c.consumed += cluster.Quantity(sign) * q
			}
		}
	}
	d.used = d.fraction()
	d.account(wasHeld, wasUsed)
}

// account moves the device's change of use into its groups' totals.
func (d *device) account(wasHeld bool, wasUsed int64) {
	held := d.holders > 0
	for _, g := range d.groups {
		g.capacity.cur += d.used - wasUsed
		switch {
		case held && !wasHeld:
			g.allocated.cur++
		case !held && wasHeld:
			g.allocated.cur--
		}
	}
}

// fraction is how much of the device is in use, in thousandths: all of
// it when a claim holds it whole, else its most used capacity's share.
func (d *device) fraction() int64 {
	if d.exclusive > 0 {
		return unit
	}
	var f int64
	for _, c := range d.caps {
		if c.value > 0 {
			f = max(f, (int64(c.consumed)*unit+int64(c.value)/2)/int64(c.value))
		}
	}
	return min(f, unit)
}

// fitsShare reports whether a sharing request fits what is left of the
// device: each capacity it asks for is free enough (a device not shared
// fits when free).
func (d *device) fitsShare(share []amount) bool {
	if d.holders > 0 && (!d.shared || d.exclusive > 0) {
		return false
	}
	if !d.shared {
		return true
	}
	for _, a := range share {
		if c := d.capacity(a.name); c == nil || c.value-c.consumed < a.q {
			return false
		}
	}
	return true
}

func (dv *devices) group(id groupID) *deviceGroup {
	g := dv.groups[id]
	if g == nil {
		g = &deviceGroup{id: id}
		dv.groups[id] = g
	}
	return g
}

func (dv *devices) classNumber(name string) int {
	if i, ok := dv.classIdx[name]; ok {
		return i
	}
	dv.classIdx[name] = len(dv.classes)
	dv.classes = append(dv.classes, name)
	return len(dv.classes) - 1
}

// nodeChanged marks a node whose inventory is to be read again. (Lists
// with flags, not maps: an emptied map still costs its size to iterate,
// and the instants of a busy run are many.)
func (dv *devices) nodeChanged(ns *nodeState) {
	if dv.src != nil && !ns.devStale {
		ns.devStale = true
		dv.stale = append(dv.stale, ns)
	}
}

// readStale reads the inventory of the nodes marked stale (still in the
// cluster).
func (dv *devices) readStale(r *Recorder) {
	for _, ns := range dv.stale {
		ns.devStale = false
		if r.nodes[ns.node.Name] == ns {
			dv.readInventory(ns.node.Name, ns)
		}
	}
	dv.stale = dv.stale[:0]
}

// readInventory takes a node's slices from the source; when they changed,
// the node's devices are rebuilt and the claims on it applied again.
func (dv *devices) readInventory(name string, ns *nodeState) {
	ni, ok := dv.src.Node(name)
	if !ok {
		return
	}
	sl := ni.Slices()
	if ns.dev != nil && slices.Equal(sl, ns.dev.slices) {
		return
	}
	dv.dropNode(ns)
	// a node without slices keeps an empty inventory, read again only
	// when the node changes
	nd := &nodeDevices{slices: slices.Clone(sl), index: map[cluster.DeviceID]int{}}
	classes := slices.Collect(dv.src.DeviceClasses())
	for _, s := range sl {
		for i := range s.Devices {
			dv.addDevice(nd, s, &s.Devices[i], classes)
		}
	}
	ns.dev = nd
	for _, key := range slices.Sorted(maps.Keys(dv.claims)) {
		if c := dv.claims[key]; c.node == name {
			dv.apply(ns, c.alloc, 1)
		}
	}
	dv.frag.nodeChanged(ns)
}

// addDevice adds one device of a slice to a node's inventory.
func (dv *devices) addDevice(nd *nodeDevices, s *cluster.ResourceSlice, d *cluster.Device, classes []*cluster.DeviceClass) {
	dev := device{id: cluster.DeviceID{Driver: s.Driver, Pool: s.Pool.Name, Device: d.Name}, shared: d.AllowMultipleAllocations}
	for _, name := range slices.Sorted(maps.Keys(d.Capacity)) {
		dev.caps = append(dev.caps, capacity{name: name, value: d.Capacity[name].Value})
	}
	n := len(nd.devs)
	for _, c := range classes {
		if dv.selects(c, s.Driver, d) {
			k := dv.classNumber(c.Name)
			for len(nd.byClass) <= k {
				nd.byClass = append(nd.byClass, nil)
			}
			nd.byClass[k] = append(nd.byClass[k], n)
			dev.groups = append(dev.groups, dv.group(groupID{"class", c.Name}))
		}
	}
	if m := model(s.Driver, d); m != "" { // a device without one is in its classes only
		dev.groups = append(dev.groups, dv.group(groupID{"model", m}))
	}
	for _, g := range dev.groups {
		g.total.cur++
	}
	nd.index[dev.id] = n
	nd.devs = append(nd.devs, dev)
}

// selects reports whether every selector of a class selects the device
// (a selector that fails to compile or to run selects nothing).
func (dv *devices) selects(c *cluster.DeviceClass, driver string, d *cluster.Device) bool {
	if dv.selectors == nil {
		dv.selectors = deviceselector.NewCache(0)
	}
	for _, sel := range c.Selectors {
		s, err := dv.selectors.Get(sel.CEL)
		if err != nil {
			return false
		}
		if ok, err := s.Matches(driver, d); err != nil || !ok {
			return false
		}
	}
	return true
}

// model is a device's model: its attribute model (or <driver>/model),
// else productName (or <driver>/productName), which NVIDIA's DRA driver
// publishes ("NVIDIA H100 80GB HBM3"); "" without either.
func model(driver string, d *cluster.Device) string {
	var a cluster.DeviceAttribute
	ok := false
	for _, name := range []string{modelAttribute, productAttribute} {
		if a, ok = d.Attributes[cluster.QualifiedName(name)]; ok {
			break
		}
		if a, ok = d.Attributes[cluster.QualifiedName(driver+"/"+name)]; ok {
			break
		}
	}
	switch {
	case !ok:
		return ""
	case a.StringValue != nil:
		return *a.StringValue
	}
	return a.String()
}

// dropNode takes a node's devices out of the groups' totals.
func (dv *devices) dropNode(ns *nodeState) {
	if ns.dev == nil {
		return
	}
	for i := range ns.dev.devs {
		d := &ns.dev.devs[i]
		for _, g := range d.groups {
			g.total.cur--
			g.capacity.cur -= d.used
			if d.holders > 0 {
				g.allocated.cur--
			}
		}
	}
	dv.frag.dropNode(ns.dev)
	ns.dev = nil
}

// removeNode forgets a node and the claims allocated on it.
func (dv *devices) removeNode(name string, ns *nodeState) {
	dv.dropNode(ns)
	for key, c := range dv.claims {
		if c.node == name {
			delete(dv.claims, key)
		}
	}
}

// allocated records a claim's allocation on a node.
func (dv *devices) allocated(r *Recorder, key, node string, alloc *cluster.AllocationResult) {
	if alloc == nil {
		return
	}
	dv.released(r, key) // allocated again without a release: replace it
	dv.claims[key] = allocatedClaim{node: node, alloc: alloc}
	if ns := r.nodes[node]; ns != nil {
		dv.apply(ns, alloc, 1)
	}
}

// released frees a claim's devices.
func (dv *devices) released(r *Recorder, key string) {
	c, ok := dv.claims[key]
	if !ok {
		return
	}
	delete(dv.claims, key)
	if ns := r.nodes[c.node]; ns != nil {
		dv.apply(ns, c.alloc, -1)
	}
}

// apply adds (1) or takes away (-1) an allocation's devices on a node;
// admin access takes nothing, and devices the node's inventory lacks
// (those of slices not bound to the node) are not counted. On a node
// whose inventory is not read yet, the inventory is read at the end of
// the instant, which applies the claims on it then.
func (dv *devices) apply(ns *nodeState, alloc *cluster.AllocationResult, sign int) {
	if ns.dev == nil {
		dv.nodeChanged(ns)
		return
	}
	for i := range alloc.Devices {
		a := &alloc.Devices[i]
		if a.AdminAccess {
			continue
		}
		if k, ok := ns.dev.index[a.DeviceID()]; ok {
			ns.dev.devs[k].take(a, sign)
		}
	}
	dv.frag.nodeChanged(ns)
}

// flush records the groups' tracks.
func (dv *devices) flush(r *Recorder) {
	for _, g := range dv.groups {
		g.total.flush(r.now)
		g.allocated.flush(r.now)
		g.capacity.flush(r.now)
	}
	dv.frag.flush(r.now)
}
