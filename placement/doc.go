// Package placement runs plugins: it is kube-scheduler's framework runtime
// and scheduling algorithm, without the plugins themselves (those are in
// plugins/, one folder each).
//
//   - PodScheduler runs one profile's PreFilter, Filter, PreScore and Score
//     plugins for one pod over a snapshot, as kube-scheduler v1.37 does:
//     the rotating filter scan that stops at percentageOfNodesToScore,
//     weighted scores, the pick of the best node, and a *FitError with
//     every node's rejection when none fits (pod.go, pod_score.go).
//   - GroupScheduler is the PodGroup algorithm: generate candidate
//     placements, check each by placing the group's pods in order, score
//     the feasible ones and re-apply the best (group.go, prune.go), and
//     the same recursively over a CompositePodGroup hierarchy (tree.go).
//   - The memo remembers, per pod signature and node, the verdicts and
//     raw scores of plugins that are framework.Signers while the node is
//     unchanged, and the tree over it finds the node a scan would pick
//     without visiting the nodes (memo.go, memo_scan.go, memotree.go).
//
// Determinism: nodes are addressed by snapshot index (name order); score
// ties go to the lowest index; the filter scan's start rotates by a
// counter, never at random.
//
// Concurrency: a PodScheduler or GroupScheduler holds scratch buffers and
// must be used from one goroutine.
package placement
