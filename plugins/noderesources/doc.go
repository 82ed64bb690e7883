// Package noderesources holds the plugins that weigh a node's resources:
// NodeResourcesFit (Fit: the filter on free room, the LeastAllocated or
// MostAllocated node score, and the bin-packing placement score) and
// NodeResourcesBalancedAllocation (BalancedAllocation), as kube-scheduler
// v1.37 computes them, in its integer arithmetic.
package noderesources
