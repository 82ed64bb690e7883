// Package preemption chooses victims: remove-all-then-reprieve for one pod
// and for a whole group, over victim units (a pod, a PodGroup, a
// CompositePodGroup) ranked by a documented importance order. It receives
// "does the preemptor fit now?" as a function value and never imports
// placement. The DefaultPreemption plugin (plugins/defaultpreemption) runs
// these searches through the scheduler's Handle, declared here.
package preemption
