// Package knowngroups is the group search's shortcut (KnownGroupFailures):
// it remembers, per group, the placements its last all-or-nothing search
// found infeasible, with the state their nodes were in then. In a busy
// cluster a gang that found no room is retried after nearly every change,
// and most of its placements (a rack, a block) are untouched by it: while
// a placement's nodes hold what they held and carry the same nominations,
// its evaluation would fail the same way, so the search passes over it,
// and a retry costs the placements that changed, not all of them.
//
// It answers only where an evaluation depends on its placement's nodes
// alone; placement's GroupScheduler decides when that is (its
// known_groups.go) and makes one call per placement where the shortcut
// may answer instead of an evaluation. The root package's
// TestKnownGroupFailuresKeepDecisions and
// TestKnownGroupFailuresReplayTheScanStart hold it to the search without
// it, on the scheduler's event streams.
package knowngroups
