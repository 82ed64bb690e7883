package dra

import (
	"cmp"
	"errors"
	"math"
	"math/bits"
	"slices"

	"github.com/gangsim/gangsim/cluster"
)

// Consumable capacity (KEP-5075), as kube's incubating
// consumable_capacity.go computes it.

var errUnknownCapacity = errors.New("some requested capacity has not been defined")

// deviceCapacity is one capacity of a device. A device's capacities are
// read at every candidate the search looks at, so the candidates keep
// them as a list (capacitiesOf) rather than reach into each device's map.
type deviceCapacity struct {
	name cluster.QualifiedName
	cluster.DeviceCapacity
}

// capacitiesOf lists a device's capacities, by name.
func capacitiesOf(dev *cluster.Device) []deviceCapacity {
	if len(dev.Capacity) == 0 {
		return nil
	}
	out := make([]deviceCapacity, 0, len(dev.Capacity))
	for name, c := range dev.Capacity {
		out = append(out, deviceCapacity{name, c})
	}
	slices.SortFunc(out, func(a, b deviceCapacity) int { return cmp.Compare(a.name, b.name) })
	return out
}

// capacityFits reports whether a request's capacity fits on a device
// (its capacities, capacitiesOf) beside what committed (allocated
// claims) and tentative (this call's earlier picks) already take of it:
// for every capacity of the device the amount the request consumes must
// satisfy the capacity's policy and, added to the rest, stay within the
// capacity's value. A request naming a capacity the device lacks is an
// error (kube skips the device).
func capacityFits(caps []deviceCapacity, request, committed, tentative map[cluster.QualifiedName]cluster.Quantity) (bool, error) {
	if len(request) > 0 {
		// the request's names are all the device's when as many of the
		// device's are asked for (a map's names are distinct)
		known := 0
		for i := range caps {
			if _, ok := request[caps[i].name]; ok {
				known++
			}
		}
		if known != len(request) {
			return false, errUnknownCapacity
		}
	}
	for i := range caps {
		c := &caps[i]
		q, asked := request[c.name]
		consumed := consumedAmount(q, asked, c.DeviceCapacity)
		if violatesPolicy(consumed, asked, c.RequestPolicy) {
			return false, nil
		}
		// checked sums: one that does not fit a Quantity exceeds every
		// capacity, where a wrapped one would fit
		sum, ok := cluster.AddQuantities(committed[c.name], consumed)
		if ok {
			sum, ok = cluster.AddQuantities(sum, tentative[c.name])
		}
		if !ok || sum > c.Value {
			return false, nil
		}
	}
	return true, nil
}

// consumedAmount is what a request takes of one capacity: without a
// request the policy's default, or else the whole value; without a policy
// the request itself; else rounded up into the valid range or to the first
// valid value at least as big.
func consumedAmount(q cluster.Quantity, asked bool, c cluster.DeviceCapacity) cluster.Quantity {
	p := c.RequestPolicy
	if !asked {
		if p != nil && p.Default != nil {
			return *p.Default
		}
		return c.Value
	}
	switch {
	case p == nil:
		return q
	case p.ValidRange != nil:
		return roundUpRange(q, p.ValidRange)
	case p.ValidValues != nil:
		for _, v := range p.ValidValues {
			if q <= v {
				return v
			}
		}
	}
	return q
}

// roundUpRange is kube's roundUpRange: below Min, Min; with a Step,
// Min plus whole steps, counted in whole units (Quantity.Value, which
// rounds up) as kube's incubating allocator counts them.
func roundUpRange(q cluster.Quantity, r *cluster.CapacityRange) cluster.Quantity {
	if q < r.Min {
		return r.Min
	}
	if r.Step == nil {
		return q
	}
	step, lo := r.Step.Value(), r.Min.Value()
	if step <= 0 {
		return q
	}
	added := q.Value() - lo
	n := added / step
	if added%step != 0 {
		n++
	}
	// lo + step*n whole units, in thousandths; past the most a Quantity
	// holds it is the most, which fits no capacity but the largest
	hi, units := bits.Mul64(uint64(step), uint64(n))
	if hi != 0 || units > math.MaxInt64/1000 {
		return cluster.MaxQuantity
	}
	total, ok := cluster.AddQuantities(cluster.Quantity(lo), cluster.Quantity(units))
	if !ok || total > math.MaxInt64/1000 {
		return cluster.MaxQuantity
	}
	return total * 1000
}

// violatesPolicy is kube's violatesPolicy: the default is always allowed;
// otherwise a range's Max and Step, or the list of valid values.
func violatesPolicy(consumed cluster.Quantity, asked bool, p *cluster.CapacityRequestPolicy) bool {
	if p == nil {
		return false
	}
	if p.Default != nil && consumed == *p.Default {
		return false
	}
	switch {
	case p.ValidRange != nil:
		r := p.ValidRange
		if r.Max != nil && consumed > *r.Max {
			return true
		}
		if r.Step != nil {
			if step := r.Step.Value(); step > 0 && (consumed.Value()-r.Min.Value())%step != 0 {
				return true
			}
		}
		return false
	case len(p.ValidValues) > 0:
		for _, v := range p.ValidValues {
			if consumed == v {
				return false
			}
		}
		return true
	}
	return false
}

// consumedCapacity is what a shared device's allocation records: the
// amount taken of every capacity of the device (its capacities,
// capacitiesOf).
func consumedCapacity(caps []deviceCapacity, request map[cluster.QualifiedName]cluster.Quantity) map[cluster.QualifiedName]cluster.Quantity {
	out := make(map[cluster.QualifiedName]cluster.Quantity, len(caps))
	for i := range caps {
		q, asked := request[caps[i].name]
		out[caps[i].name] = consumedAmount(q, asked, caps[i].DeviceCapacity)
	}
	return out
}

// sharedUse is this call's tentative use of one shared device: the summed
// capacity its picks take, and whether kube's collection holds an entry
// for the device (an entry that Remove empties to all zeros is deleted;
// one inserted empty, for a device without capacities, never is).
type sharedUse struct {
	present  bool
	consumed map[cluster.QualifiedName]cluster.Quantity
}

// insert adds a share of the device (its capacities, capacitiesOf) for a
// request's capacity.
func (u *sharedUse) insert(caps []deviceCapacity, request map[cluster.QualifiedName]cluster.Quantity) {
	if u.consumed == nil {
		u.consumed = make(map[cluster.QualifiedName]cluster.Quantity, len(caps))
	}
	u.present = true
	for i := range caps {
		q, asked := request[caps[i].name]
		name := caps[i].name
		u.consumed[name] = u.consumed[name].SaturatingAdd(consumedAmount(q, asked, caps[i].DeviceCapacity))
	}
}

// remove takes back what insert added.
func (u *sharedUse) remove(caps []deviceCapacity, request map[cluster.QualifiedName]cluster.Quantity) {
	if !u.present {
		return
	}
	for i := range caps {
		name := caps[i].name
		if _, ok := u.consumed[name]; ok {
			q, asked := request[name]
			u.consumed[name] = u.consumed[name].SaturatingSub(consumedAmount(q, asked, caps[i].DeviceCapacity))
		}
	}
	for _, q := range u.consumed {
		if q != 0 {
			return
		}
	}
	u.present = false
	clear(u.consumed)
}
