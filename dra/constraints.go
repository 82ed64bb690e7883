package dra

import (
	"slices"
	"strings"

	"github.com/gangsim/gangsim/cluster"
)

// constraint is one of a claim's constraints while the search runs: add
// checks a device about to be picked and records it; every successful add
// is undone by exactly one remove with the same arguments. Constraints
// are monotone: once add fails, adding more devices cannot help.
type constraint interface {
	add(request, sub string, dev *cluster.Device, id cluster.DeviceID) bool
	remove(request, sub string, dev *cluster.Device, id cluster.DeviceID)
}

// covers is which requests a constraint applies to: all when it names
// none; else a request it names, and a subrequest when it names the
// request ("req") or the subrequest ("req/sub").
type covers []string

func (c covers) has(request, sub string) bool {
	if len(c) == 0 {
		return true
	}
	if slices.Contains(c, request) {
		return true
	}
	if sub == "" {
		return false
	}
	for _, name := range c {
		if len(name) == len(request)+1+len(sub) && strings.HasPrefix(name, request) &&
			name[len(request)] == '/' && strings.HasSuffix(name, sub) {
			return true
		}
	}
	return false
}

// lookupAttribute finds a fully qualified attribute ("domain/id") on a
// device, or, when the domain is the device's driver, the bare id.
func lookupAttribute(dev *cluster.Device, id cluster.DeviceID, name cluster.QualifiedName) (cluster.DeviceAttribute, bool) {
	if a, ok := dev.Attributes[name]; ok {
		return a, true
	}
	i := strings.IndexByte(string(name), '/')
	if i < 0 || string(name[:i]) != id.Driver {
		return cluster.DeviceAttribute{}, false
	}
	a, ok := dev.Attributes[name[i+1:]]
	return a, ok
}

// matchAttribute: every covered device has the attribute, with the value
// of the first (kube keeps only that value and a count).
type matchAttribute struct {
	requests covers
	name     cluster.QualifiedName
	value    cluster.DeviceAttribute
	n        int
}

func (m *matchAttribute) add(request, sub string, dev *cluster.Device, id cluster.DeviceID) bool {
	if !m.requests.has(request, sub) {
		return true
	}
	a, ok := lookupAttribute(dev, id, m.name)
	if !ok {
		return false
	}
	if m.n == 0 {
		m.value, m.n = a, 1
		return true
	}
	if a.Kind() == "" || !a.Equal(m.value) {
		return false
	}
	m.n++
	return true
}

func (m *matchAttribute) remove(request, sub string, _ *cluster.Device, _ cluster.DeviceID) {
	if m.requests.has(request, sub) {
		m.n--
	}
}

// distinctAttribute: covered devices have pairwise distinct values of the
// attribute (values of different kinds are distinct).
//
// Kube's quirk, reproduced because it changes outcomes: the values seen
// are kept in a map keyed by request name (the parent's name for a
// subrequest), so a request's second device overwrites its first, later
// devices are compared only with the latest value of each request, and
// removing a device deletes its request's entry, forgetting the values of
// that request's other devices still picked. A request for three devices
// can thus get values A, B, A; and after backtracking over a request's
// second device its third is compared with nothing of that request.
type distinctAttribute struct {
	requests covers
	name     cluster.QualifiedName
	keys     []string // the map's keys, in insertion order
	values   []cluster.DeviceAttribute
	n        int
}

func (d *distinctAttribute) add(request, sub string, dev *cluster.Device, id cluster.DeviceID) bool {
	if !d.requests.has(request, sub) {
		return true
	}
	a, ok := lookupAttribute(dev, id, d.name)
	if !ok {
		return false
	}
	if d.n > 0 {
		for _, v := range d.values {
			if a.Kind() == "" || a.Equal(v) {
				return false
			}
		}
	}
	if i := slices.Index(d.keys, request); i >= 0 {
		d.values[i] = a
	} else {
		d.keys = append(d.keys, request)
		d.values = append(d.values, a)
	}
	d.n++
	return true
}

func (d *distinctAttribute) remove(request, sub string, _ *cluster.Device, _ cluster.DeviceID) {
	if !d.requests.has(request, sub) {
		return
	}
	if i := slices.Index(d.keys, request); i >= 0 {
		d.keys = slices.Delete(d.keys, i, i+1)
		d.values = slices.Delete(d.values, i, i+1)
	}
	d.n--
}

// hopeless reports whether some claim's distinctAttribute constraint
// cannot hold on this node, before any search: every request it covers
// needs a device of its own value (a request's latest device keeps its
// request's value, even with kube's quirk), so more covered requests
// than distinct values of the attribute among all the node's candidate
// devices can never fit. It saves the search that would find so only
// after trying every combination. A firstAvailable request counts once,
// under its own name, as the constraint sees it.
func (a *allocator) hopeless() bool {
	for ci := range a.claims {
		c := &a.claims[ci]
		for _, k := range c.constraints {
			d, ok := k.(*distinctAttribute)
			if !ok {
				continue
			}
			covered := 0
			for _, g := range c.requests {
				request, _ := a.reqs[g.alts[0]].baseName()
				if len(d.requests) == 0 || slices.Contains(d.requests, request) {
					covered++
				}
			}
			if covered <= 1 {
				continue
			}
			if a.distinctValues(d.name, covered) < covered {
				return true
			}
		}
	}
	return false
}

// distinctValues counts the distinct values of an attribute among the
// candidate devices, stopping at enough.
func (a *allocator) distinctValues(name cluster.QualifiedName, enough int) int {
	var seen []cluster.DeviceAttribute
	for i := range a.devs {
		v, ok := lookupAttribute(a.devs[i].dev, a.devs[i].id, name)
		if !ok || v.Kind() == "" || slices.ContainsFunc(seen, v.Equal) {
			continue
		}
		if seen = append(seen, v); len(seen) >= enough {
			break
		}
	}
	return len(seen)
}
