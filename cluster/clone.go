package cluster

import "maps"

// Clone returns an independent copy of the cache, for a fork of a running
// simulation. Pods (a PodInfo never changes once made: a transition makes
// a new one) and node objects (replaced, never changed, on update) are
// shared; node accounts, indexes, budgets and namespaces are copied.
// Snapshots of the copy start afresh.
func (c *Cache) Clone() *Cache {
	cp := &Cache{
		nodes:            make(map[string]*nodeItem, len(c.nodes)),
		byName:           c.byName.Clone(), // copy-on-write; its items are replaced below
		pods:             maps.Clone(c.pods),
		budgets:          make([]*budgetItem, len(c.budgets)),
		generation:       c.generation,
		nodeSetVersion:   c.nodeSetVersion,
		nodeVersion:      c.nodeVersion,
		budgetVersion:    c.budgetVersion,
		namespaces:       maps.Clone(c.namespaces),
		namespaceVersion: c.namespaceVersion,
		slices:           maps.Clone(c.slices), // the lists are replaced, never changed
		devices:          c.devices.clone(),
		net:              &netDevices{},
	}
	cp.net.copyFrom(c.net)
	var last *nodeItem
	for it := c.recent; it != nil; it = it.next { // same recency order
		n := &nodeItem{info: it.info.clone(), prev: last}
		n.info.net = cp.net
		if last == nil {
			cp.recent = n
		} else {
			last.next = n
		}
		last = n
		cp.nodes[n.info.node.Name] = n
		cp.byName.ReplaceOrInsert(n)
	}
	for i, b := range c.budgets {
		nb := *b
		cp.budgets[i] = &nb
	}
	if cp.pods == nil {
		cp.pods = map[PodKey]*PodInfo{}
	}
	return cp
}

// Clone returns an independent copy of the classes.
func (pc PriorityClasses) Clone() PriorityClasses {
	return PriorityClasses{byName: maps.Clone(pc.byName), globalDefault: pc.globalDefault}
}
