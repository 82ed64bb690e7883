// Package interpodaffinity is the InterPodAffinity plugin: a pod's
// required affinity and anti-affinity to other pods filter nodes (with the
// symmetry of existing pods' anti-affinity), and preferred terms score
// them.
//
// The files follow kube-scheduler's folder of the same name: plugin.go
// holds the arguments, the type, New and the wiring; common.go the terms
// as evaluated, the counts per domain they read (one counter serves both
// halves) and the plugin's cycle state; filtering.go PreFilter, its
// AddPod/RemovePod extensions and Filter; scoring.go the counter's score
// contributions, PreScore, Score and NormalizeScore.
package interpodaffinity
