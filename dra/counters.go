package dra

import "github.com/gangsim/gangsim/cluster"

// Partitionable devices (KEP-4815): a device that consumes counters of
// its pool's counter sets can be picked only while no counter of any set
// of the pool would be consumed beyond what is available.

// counterSets are counter values by set name, then counter name.
type counterSets map[string]map[string]cluster.Quantity

// counters is the counter bookkeeping of one call.
//
// Kube keys both the available and the consumed counters by pool name
// alone, not by driver and pool; so do we (two drivers' pools of one name
// share one entry, the first computed). Kube also caches the available
// counters across the nodes one pod is tried on; one call here computes
// them afresh, which is the same unless two drivers share a pool name.
type counters struct {
	available map[string]counterSets // per pool name: sets minus committed use
	consumed  map[string]counterSets // per pool name: this call's tentative use
}

// availableFor computes, once per pool name, the pool's counters minus the
// consumption of every committed device of the pool: those in the slices
// that target the node and in the others, exclusive or shared.
func (c *counters) availableFor(p *pool, committed func(cluster.DeviceID) bool) counterSets {
	if a, ok := c.available[p.name]; ok {
		return a
	}
	a := make(counterSets, len(p.counterSets))
	for set, cs := range p.counterSets {
		m := make(map[string]cluster.Quantity, len(cs))
		for name, q := range cs {
			m[name] = q
		}
		a[set] = m
	}
	for _, group := range [][]*cluster.ResourceSlice{p.slices, p.others} {
		for _, s := range group {
			for i := range s.Devices {
				d := &s.Devices[i]
				if len(d.ConsumesCounters) == 0 || !committed(cluster.DeviceID{Driver: s.Driver, Pool: s.Pool.Name, Device: d.Name}) {
					continue
				}
				for _, use := range d.ConsumesCounters {
					set := a[use.CounterSet]
					for name, q := range use.Counters {
						if have, ok := set[name]; ok {
							set[name] = have.SaturatingSub(q) // may go negative: nothing left
						}
					}
				}
			}
		}
	}
	if c.available == nil {
		c.available = map[string]counterSets{}
	}
	c.available[p.name] = a
	return a
}

// take adds the device's consumption to the pool's tentative use and
// reports whether every counter of every set of the pool is still
// covered; if not, it takes the consumption back.
func (c *counters) take(p *pool, d *cluster.Device, committed func(cluster.DeviceID) bool) bool {
	avail := c.availableFor(p, committed)
	if c.consumed == nil {
		c.consumed = map[string]counterSets{}
	}
	used := c.consumed[p.name]
	if used == nil {
		used = counterSets{}
		c.consumed[p.name] = used
	}
	// the values changed, to be put back when the device does not fit;
	// a sum that does not fit a Quantity fits no counter
	type before struct {
		set  map[string]cluster.Quantity
		name string
		v    cluster.Quantity
	}
	var changed []before
	fits := true
	for _, use := range d.ConsumesCounters {
		set := used[use.CounterSet]
		if set == nil {
			set = map[string]cluster.Quantity{}
			used[use.CounterSet] = set
		}
		for name, q := range use.Counters {
			sum, ok := cluster.AddQuantities(set[name], q)
			if !ok {
				fits = false
				break
			}
			changed = append(changed, before{set, name, set[name]})
			set[name] = sum
		}
		if !fits {
			break
		}
	}
	for setName, set := range avail {
		if !fits {
			break
		}
		usedSet := used[setName]
		for name, q := range set {
			if q < usedSet[name] {
				fits = false
				break
			}
		}
	}
	if !fits {
		for i := len(changed) - 1; i >= 0; i-- {
			changed[i].set[changed[i].name] = changed[i].v
		}
	}
	return fits
}

// give takes the device's consumption out of the pool's tentative use.
func (c *counters) give(p *pool, d *cluster.Device) {
	used := c.consumed[p.name]
	for _, use := range d.ConsumesCounters {
		set := used[use.CounterSet]
		for name, q := range use.Counters {
			set[name] -= q
		}
	}
}
