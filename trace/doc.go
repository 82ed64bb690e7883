// Package trace turns cluster traces into scenarios, to replay a real
// workload through the simulator (docs/traces.md).
//
// It reads the Alibaba GPU cluster trace "openb" (cluster-trace-gpu-v2023):
// a node CSV (sn, cpu_milli, memory_mib, gpu, model) and a pod CSV (name,
// cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, creation_time,
// deletion_time, ...). Nodes become nodes, pods arrive at their creation
// time and run until their deletion time.
//
// GPUs are devices (Dynamic Resource Allocation): each node's GPUs are a
// ResourceSlice of shareable devices of 1000 milligpu, and each pod asking
// for GPUs names the ResourceClaimTemplate of its shape (whole GPUs, or a
// share of one; one template per distinct shape, not per pod), whose
// request selects the pod's GPU models (gpu_spec) by CEL. With
// Options.PooledGPUs they are instead one extended resource in thousandths
// of a GPU per node, and gpu_spec a node affinity: an approximation, as
// the shares of different GPUs pool together.
//
// The trace has no racks and no gangs. Options synthesise them: nodes
// labelled into racks of a given size, and the multi-GPU pods grouped into
// gangs (PodGroups) that arrive together, optionally kept to one rack.
//
// The trace is research-use data: it is read at run time and never part
// of this module. Reading is deterministic: the same files and options
// give the same scenario, and errors name the file, line and column.
package trace
