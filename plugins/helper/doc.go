// Package helper holds what several built-in plugins share, as plain
// functions a user's plugin may call too: score normalisation as
// kube-scheduler's DefaultNormalizeScore, node affinity matching, the
// pieces of a framework.Signer's signature, and TopologyCounts, the
// counts of matching pods per topology domain that InterPodAffinity and
// PodTopologySpread keep up to date through the snapshot's change feed.
//
// Determinism: nothing here reads a clock or a map in an order that
// reaches a result (labels are signed in key order).
//
// Concurrency: TopologyCounts and TopologyCache belong to one plugin
// instance, used from one goroutine.
package helper
