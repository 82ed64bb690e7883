// Package placement decides where pods go: the per-pod Filter and Score
// plugins (NodeName, NodeUnschedulable, TaintToleration, NodeAffinity,
// NodeResourcesFit, NodeResourcesBalancedAllocation) and PodScheduler, which
// runs them for one pod over a snapshot as kube-scheduler v1.37 does. The
// PodGroup algorithm and placement generation build on it.
//
// Plugin interfaces are defined here, where they are used, and are small:
// FilterPlugin, ScorePlugin, and the optional ScoreNormalizer and
// ScoreSkipper found by type assertion. Results are plain values: a nil
// *Rejection means the node fits; *FitError lists the rejection per node
// and renders kube-scheduler's "0/N nodes are available: ..." message.
//
// Determinism: nodes are addressed by snapshot index (name order); score
// ties go to the lowest index; the filter scan's start rotates by a
// counter, never at random.
//
// Concurrency: a PodScheduler holds scratch buffers and must be used from
// one goroutine; plugins are stateless values.
package placement
