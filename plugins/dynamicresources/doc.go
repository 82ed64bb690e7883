// Package dynamicresources is kube-scheduler's DynamicResources plugin:
// it gives a pod the devices its ResourceClaims ask for (Dynamic Resource
// Allocation). PreFilter finds the pod's claims and their device classes,
// and the extended resources a device class serves (KEP-5004); Filter
// checks that the claims already allocated are on the node and allocates
// the others there; Score ranks nodes by the alternatives of
// firstAvailable requests they allow; Reserve reserves the claims on the
// cycle's snapshot, whose rollback undoes them.
//
// The allocation itself is package dra's [dra.Allocate], as the plugin in
// kube calls the structured allocator of a package below it: this folder
// holds what is the plugin's (the cycle state, the claims of extended
// resources, the memo of allocations by node content and claim specs,
// the DRAPreemption gate's freed claims) and none of the device search:
// dynamic_resources.go is the plugin with its cycle state, allocate.go
// Filter's call of the allocator (one [dra.Allocator], reused) with its
// memos, score.go the scoring.
//
// # Determinism and concurrency
//
// The plugin answers from the pod and the snapshot alone (it is
// framework.Stateless): its memos only spare the allocator's work, and a
// test runs with them off (Args.NoAllocationMemo) to show that no
// decision changes. It belongs to the scheduler's one goroutine.
package dynamicresources
