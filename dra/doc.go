// Package dra allocates the devices of a pod's ResourceClaims on one
// node, as Kubernetes' structured allocator does (the
// dynamic-resource-allocation/structured package, its "incubating"
// variant, which v1.37's default feature gates select because
// DRAConsumableCapacity and device binding conditions are on). It sits
// below the plugins as that package sits below kube-scheduler: the
// DynamicResources plugin (plugins/dynamicresources) calls [Allocate] in
// its Filter, and the Scheduler calls it for the claims of a pod that
// arrives already running on its node. It speaks Go values and errors,
// never a plugin Status, and imports the model alone (cluster, and
// cluster/deviceselector for CEL).
//
// The files follow the allocator's steps: allocator.go holds the API
// ([Input], [Allocate], [Allocator], [Features], [AllocatedState]) and the checks of a
// request and a candidate; pools.go gathers the pools a node reaches;
// search.go is the depth-first search ([NodeDevices] are a node's
// candidates, found once per node and slice list); capacity.go is
// consumable capacity, counters.go partitionable devices' counters,
// constraints.go matchAttribute and distinctAttribute; selectors.go is
// [CELSelectors], the CEL [SelectorEvaluator] with its cache of verdicts,
// and [NodeState], what a node's allocated claims hold.
//
// # Concepts
//
// Drivers publish devices in ResourceSlices; the slices of one driver's
// pool, at one generation, are complete when SliceCount of them exist. A
// node reaches a slice whose NodeName is the node, that is AllNodes, or
// whose NodeSelector matches the node. [Allocate] gathers the pools the
// node reaches (highest generation; incomplete and invalid pools offer no
// device), then searches depth first, with backtracking: claims in order,
// requests in order, a firstAvailable request's alternatives in order
// (the first that leads to a complete solution of everything after it
// wins), and for each device a request needs, the candidates in search
// order (pools by driver then pool name, slices by name, devices in slice
// order), resuming within one request after its previous pick, so that
// only combinations are tried. The first complete solution is the result;
// there is no scoring.
//
// A candidate is checked, in kube's order: not in use (exclusively, by an
// allocated claim or an earlier pick of this call; an admin-access request
// only avoids its own claim's picks); selected by its class's selectors,
// then the request's (through a [SelectorEvaluator], cached per device
// and request); its consumable capacity fits (KEP-5075: default, valid
// range rounded up by Min and Step, valid values, the whole capacity when
// the request names none and there is no default); its pool's counters
// cover it (KEP-4815, partitionable devices); no NoSchedule or NoExecute
// taint it does not tolerate; and the claim's constraints (matchAttribute,
// distinctAttribute) still hold.
//
// Mode All takes every device selected for the request whose capacity
// fits, and fails as a whole if one of them is not usable; over an
// incomplete or invalid pool it is an error. Errors are kube's, with its
// texts: selector errors, more than [MaxDevicesPerClaim] devices in a
// claim, a constraint violated in mode All, a missing class, a feature
// that is off. [ErrInvalidPools] and [ErrTimeout] alone are node-local.
//
// # Determinism and concurrency
//
// The result depends only on the input: no map is iterated into an output
// or into a decision (maps are iterated only to check that all of a set
// hold). Kube's one random element, a shared allocation's shareID, is not
// made. Allocate keeps no state between calls and does not modify its
// input, so calls may run in parallel if the SelectorEvaluator allows it.
// An [Allocator] keeps only memory between calls (its answers are
// Allocate's) and belongs to one goroutine: the DynamicResources plugin
// holds one.
//
// # Where this differs from kube
//
//   - Kube caches each pool's available counters for all nodes one pod is
//     tried on (keyed, like the consumed counters, by pool name alone);
//     a call here computes them afresh. The two differ only when two
//     drivers' pools share a name and both have counters, where kube's
//     answer depends on which node it tried first. Within a call the
//     pool-name keying is reproduced.
//   - Quantities are int64 thousandths (cluster.Quantity), not
//     arbitrary-precision: a quantity from about 8 Pi up is the largest
//     Quantity (cluster.MaxQuantity), and sums never wrap around (a
//     capacity or counter check whose sum does not fit an int64 fails; the
//     allocated state's sums saturate); a capacity's default is matched by value, not by
//     kube's comparison of Quantity structs (which can tell "1Gi" from
//     "1073741824" apart).
//   - Capacity requests are "present" when the map is non-empty (kube: when
//     the request's capacity field is set).
//   - Selectors come through [SelectorEvaluator]; a compile error is an
//     error wrapping [ErrSelectorCompile], found when first evaluated
//     rather than when compiled. CEL's hint about has() is the evaluator's
//     business.
//   - Per-device node selection, binding conditions and DeviceTaintRules
//     are not in the device model: slices carry the taints. Results carry
//     the node as AllocationResult.Node (set when any device's slice names
//     a node) rather than a NodeSelector naming it; an allocation of
//     devices no node owns carries kube's NodeSelector (one term, the
//     slices' requirements; nil for AllNodes slices). Configs are not
//     produced.
//   - Kube's search stops when the DynamicResources filter timeout (10 s
//     by default) expires on the clock; here it stops after a budget of
//     counted steps (Input.MaxSteps, StepsFor: a candidate device looked
//     at is a step, 1,000,000 steps a second of timeout), so that every
//     run decides alike, with kube's error ([ErrTimeout], node-local).
//     Before searching, a distinctAttribute constraint covering more
//     requests than the attribute has distinct values among the node's
//     devices fails at once (kube searches on until its timeout).
//
// Kube's quirks that change outcomes are reproduced, each explained where
// it is coded: distinctAttribute keeps one value per request name; a
// shared device's counters are not given back on backtracking (and an
// empty share entry is never removed); the capacity check repeated after
// the constraints in allocateDevice does not undo them when it fails.
package dra
