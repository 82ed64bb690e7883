// Package autoscaler is the Kubernetes cluster autoscaler in simulated
// time, beside a gangsim.Scheduler: node groups (a template node, min,
// max, a provisioning delay, a price) grow when the scheduler marks pods
// unschedulable and shrink when nodes stay under-used, with the cluster
// autoscaler's parameters, defaults and rules (docs/autoscaling.md lists
// them, and what is modelled and what is not).
//
// Each scan interval, the autoscaler
//   - adds the nodes whose provisioning delay is over (AddNode), and
//     gives up on those not ready after MaxNodeProvisionTime;
//   - scales up: the pods the scheduler marked unschedulable
//     (PodStatus.Unschedulable) that would not fit on nodes already on
//     the way are packed onto template nodes of each group, in a
//     gangsim.Sandbox with the pods' own filter plugins; the expander
//     picks one group; a gang (a PodGroup with the Gang policy) scales up
//     atomically, in one new topology domain when it has a topology key;
//   - scales down: a node of a group under the utilisation threshold
//     whose pods can all move elsewhere (simulated in the sandbox, with
//     the drain rules) is unneeded; unneeded for ScaleDownUnneededTime,
//     outside the cooldowns, it is drained and removed.
//
// Determinism: every list is sorted on a unique key (group order, node
// number, pod key); the only randomness is the rand given to New
// (provisioning delays drawn from distributions, the random expander).
// Scans are skipped while nothing can change, so NextTime ends a run
// that has nothing more to do; a skipped scan would have decided nothing.
//
// Concurrency: an Autoscaler and its Scheduler are driven from one
// goroutine.
package autoscaler
