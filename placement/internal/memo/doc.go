// Package memo is the pod scheduler's memo (the FilterMemo and MemoTree
// shortcuts): it answers a pod's filter-and-score pass from what it
// remembers, exactly as the plain scan would have answered.
//
//   - The memo remembers, per pod signature and node, the verdict of the
//     filters that are framework.Signers and the raw scores of the Signer
//     score plugins, while the node's snapshot stamp holds; plugins that
//     are no Signers run live on top, in their place (memo.go, scan.go).
//   - A signature's last failure on every node is reused while each node
//     changed since rejects the pod as it did (failure.go): a pending pod
//     retried after every change costs the nodes changed.
//   - The memo tree, a segment tree over a signature's remembered answers,
//     finds where the rotating scan would stop and the best node of the
//     range it would score, without visiting the nodes (tree.go); the
//     column reads the same answers packed a few bytes a node, in order
//     (column.go). A pod takes whichever costs less.
//
// placement's PodScheduler makes one call, Memo.Schedule, before its own
// scan; what the memo leaves to the scheduler (filtering with nominated
// pods, the score plugins it does not answer, the FitError) it asks
// through the Scheduler interface. The package's tests hold the memo to
// the plain scan decision by decision.
//
// A Memo keeps scratch buffers between calls: it is not safe for
// concurrent use.
package memo
