// Package kube imports Kubernetes objects as kubectl prints them (-o json
// or -o yaml: one object, a List, or a stream of documents) into scenario
// entries (docs/kubernetes-inputs.md). Package scenario calls it while it
// loads files; the entries it makes go through the same builder as a
// scenario file's, so that the objects are checked by the same rules and
// a file of either kind may name what the other defines.
//
// What is read: Nodes, Pods, Namespaces, PriorityClasses,
// PodDisruptionBudgets, PodGroups and CompositePodGroups (of every
// scheduling.k8s.io version a cluster of v1.35 to v1.37 serves, read into
// v1.37's model, and v1.35's Workloads and pods' workloadRef as PodGroups:
// versions.go), the device
// objects of resource.k8s.io/v1 (DeviceClass, ResourceSlice,
// ResourceClaim, ResourceClaimTemplate), and a KubeSchedulerConfiguration
// (on its own or in a ConfigMap's data, configmap.go) become the entries
// they stand for; scheduler-plugins' PodGroups, Kueue's pod groups and
// Kueue's topology annotations become PodGroups (gangs.go, members.go,
// kueue.go), and the keys of other schedulers and GPU sharers warn
// (notes.go); a
// Deployment, ReplicaSet, StatefulSet, DaemonSet or Job makes the pods its
// controller would create that the inputs do not hold already; so do a
// JobSet (jobset.go), a TrainJob with its runtime (trainjob.go, through
// the JobSet it makes), an MPIJob and a PyTorchJob (kubeflow.go), which
// record a parent controller and its children, and their gangs; and so do
// the kinds whose controllers keep lists of pods (sets.go): a
// LeaderWorkerSet (lws.go), a RayCluster or RayJob (ray.go) and a Volcano
// Job (volcano.go), with their gangs as PodGroups. The pod templates of
// all these kinds go through the gang labels and the notes as a
// Deployment's template does (members.go). A Kueue Workload
// (kueueworkload.go) adds nothing when its owner is in the inputs, and
// otherwise makes the pods of its pod sets, its topology requests read as
// Kueue's annotations are (kueue.go). A kind is read only in
// its API group (lookupKind; ReadsKind tells a caller which kinds are
// read): another group's kind of the same name is skipped. The
// objects are decoded field for field as the API prints them (types.go):
// a field Kubernetes does not have is an error, one without a meaning for
// scheduling is skipped, one the simulator does not model is a warning.
// Every entry carries its object (schema.Origin), so that the builder's
// errors name the object and the field as Kubernetes spells it; the
// importer's own errors are *Error values with the same parts.
//
// Import runs in two passes: it decodes every object of every input
// first, so that a workload sees the pods it has already and a DaemonSet
// every node, whichever file they are in, then converts the objects in
// order.
//
// Determinism: the entries follow the objects' order (pods by creation
// time, ties in order), and names the controllers or the API server
// (metadata.generateName) would pick at random are made from indexes and
// a hash of the template, so that one set of inputs always gives the same
// entries. Concurrency: an import works on
// the inputs it is given and holds nothing after it returns; separate
// imports may run at once.
package kube
