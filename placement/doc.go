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
//   - The shortcuts, each a cache that never changes a decision (switched
//     off by Shortcuts): the memo remembers, per pod signature and node,
//     the verdicts and raw scores of plugins that are framework.Signers
//     while the node is unchanged, reuses a signature's failure, and its
//     tree finds the node a scan would pick without visiting the nodes
//     (placement/internal/memo; Schedule calls it once, memo.go); the
//     known group failures pass over a gang's placements that failed
//     before on nodes unchanged since (known_groups.go).
//
// Determinism: nodes are addressed by snapshot index (name order); score
// ties go to the lowest index; the filter scan's start rotates by a
// counter, never at random.
//
// Concurrency: a PodScheduler or GroupScheduler holds scratch buffers and
// must be used from one goroutine.
package placement
