// Package noderesources holds the plugins that weigh a node's resources:
// NodeResourcesFit (Fit: the filter on free room, the LeastAllocated,
// MostAllocated or RequestedToCapacityRatio node score, and the
// bin-packing placement score) and NodeResourcesBalancedAllocation
// (BalancedAllocation), as kube-scheduler v1.37 computes them, in its
// integer arithmetic.
//
// The node scorers read a pod's and a node's amounts, resource by
// resource, through one resourceWalk (resource_walk.go): they differ in
// how they score a resource and combine the scores, not in what they
// read. BenchmarkScore measures them on 1,000 nodes.
package noderesources
