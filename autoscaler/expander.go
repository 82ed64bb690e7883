package autoscaler

import (
	"cmp"
	"slices"
)

// expand picks one option with the configured expander. Every expander
// ends its ties on the group's order in New, then its name, where the
// cluster autoscaler picks at random among equals.
func (a *Autoscaler) expand(opts []option) option {
	byName := func(x, y option) int {
		return cmp.Or(cmp.Compare(x.g.index, y.g.index), cmp.Compare(x.g.Name, y.g.Name))
	}
	var better func(x, y option) int
	switch a.cfg.Expander {
	case "most-pods":
		better = func(x, y option) int { return cmp.Compare(len(y.pods), len(x.pods)) }
	case "price":
		better = func(x, y option) int { return cmp.Compare(pricePerPod(x), pricePerPod(y)) }
	case "priority":
		better = func(x, y option) int { return cmp.Compare(a.priorityOf(y.g.Name), a.priorityOf(x.g.Name)) }
	case "random":
		sorted := slices.Clone(opts)
		slices.SortStableFunc(sorted, byName)
		return sorted[a.rng.IntN(len(sorted))]
	default: // least-waste, then most pods
		better = func(x, y option) int {
			return cmp.Or(cmp.Compare(waste(x), waste(y)), cmp.Compare(len(y.pods), len(x.pods)))
		}
	}
	return slices.MinFunc(opts, func(x, y option) int { return cmp.Or(better(x, y), byName(x, y)) })
}

// waste is the least-waste expander's score: the unused fraction of the
// new nodes' cpu plus that of their memory (GPU nodes: of their GPUs
// too), once the option's pods are on them.
func waste(o option) float64 {
	n := float64(o.nodes)
	t := o.g.resources
	var w float64
	if t.MilliCPU > 0 {
		w += 1 - float64(o.reqCPU)/(n*float64(t.MilliCPU))
	}
	if t.Memory > 0 {
		w += 1 - float64(o.reqMem)/(n*float64(t.Memory))
	}
	if g := t.Get(ResourceGPU); g > 0 {
		w += 1 - float64(o.reqGPU)/(n*float64(g))
	}
	return w
}

// pricePerPod is the price expander's score as this model has it: what
// the option's nodes cost an hour, per pod they help.
func pricePerPod(o option) float64 {
	return float64(o.nodes) * o.g.PricePerHour / float64(len(o.pods))
}

// priorityOf is the highest priority whose expressions match the group's
// name; groups no expression matches rank below all.
func (a *Autoscaler) priorityOf(group string) int64 {
	best, found := int64(0), false
	for _, r := range a.prios {
		if r.re.MatchString(group) && (!found || int64(r.priority) > best) {
			best, found = int64(r.priority), true
		}
	}
	if !found {
		return -1 << 62
	}
	return best
}
