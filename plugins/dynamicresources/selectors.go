package dynamicresources

import (
	"fmt"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/cluster/deviceselector"
)

// CELSelectors evaluates selectors in Kubernetes' CEL environment
// (cluster/deviceselector), each expression compiled once and kept in a
// cache. It belongs to one goroutine.
type CELSelectors struct {
	cache *deviceselector.Cache
}

var _ SelectorEvaluator = (*CELSelectors)(nil)

// NewCELSelectors returns an evaluator with a cache of the default size.
func NewCELSelectors() *CELSelectors {
	return &CELSelectors{cache: deviceselector.NewCache(deviceselector.DefaultCacheSize)}
}

// Match reports whether the selector selects the device; a compile error
// wraps ErrSelectorCompile.
func (c *CELSelectors) Match(expr, driver string, d *cluster.Device) (bool, error) {
	sel, err := c.cache.Get(expr)
	if err != nil {
		return false, fmt.Errorf("%w: %v", ErrSelectorCompile, err)
	}
	return sel.Matches(driver, d)
}

// NodeState is the allocated state of a node's devices as its claims take
// them (cluster.NodeInfo.DevicesInUse), for Allocate.
func NodeState(ni *cluster.NodeInfo) *AllocatedState {
	st := &AllocatedState{}
	for id, u := range ni.DevicesInUse() {
		if u.Exclusive > 0 {
			if st.Exclusive == nil {
				st.Exclusive = map[cluster.DeviceID]bool{}
			}
			st.Exclusive[id] = true
		}
		if u.Capacity != nil {
			if st.Shared == nil {
				st.Shared = map[cluster.DeviceID]map[cluster.QualifiedName]cluster.Quantity{}
			}
			st.Shared[id] = u.Capacity // read-only, as Allocate reads it
		}
	}
	return st
}
