// Package podtopologyspread is the PodTopologySpread plugin: a pod's
// topology spread constraints (and the system default spreading) filter
// and score nodes by how many matching pods each domain holds.
//
// The files follow kube-scheduler's folder of the same name: plugin.go
// holds the arguments, the type, New and the wiring; common.go the
// constraints as evaluated, the counts per domain they read and the
// plugin's cycle state; filtering.go PreFilter, its AddPod/RemovePod
// extensions and Filter (whenUnsatisfiable DoNotSchedule); scoring.go
// PreScore, Score and NormalizeScore (ScheduleAnyway).
package podtopologyspread
