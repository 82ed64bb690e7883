// Package scenario reads, checks and runs scenario files: a cluster, its
// workloads, the scheduler's configuration and timed events, in YAML or
// JSON (docs/scenario-format.md). It is the user layer above the engine:
// it builds a gangsim.Scheduler from the file, drives it through simulated
// time, and builds the Result from the scheduler's event stream.
//
// It also reads Kubernetes objects as kubectl prints them (package
// scenario/kube, docs/kubernetes-inputs.md): they become scenario entries,
// so that one builder checks both, and several files of either kind merge
// into one scenario (LoadFiles). What an input holds that the simulator
// does not model is listed in Scenario.Warnings. The file's structures and
// their strict decoders are internal (scenario/internal/schema): programs
// use the Scenario this package builds from them.
//
// The components beside the scheduler are not here: the workload
// controllers of Kubernetes objects (package controllers) and the cluster
// autoscaler (package autoscaler). The builder turns the parsed entries
// into their Go values (controllers.Workload, autoscaler.NodeGroup); the
// runner starts them beside the Scheduler (controllers.go,
// autoscaling.go) and interleaves them with the timeline (drive.go), and
// the result reports what they did.
//
// Loading is strict: unknown or repeated fields are errors, and every
// error is a *FieldError naming the file, line, entry and field, wrapping
// the cause so that errors.Is finds fs.ErrNotExist, cluster.ErrQuantity,
// gangsim.ErrAdmission and the like. Priorities are checked with the
// scheduler's own admission rules at load time.
//
// Determinism: a scenario's result is the same, byte for byte, on every
// run. Concurrency: a Scenario is read-only once loaded, so several runs of
// it may go on at once, each with its own Scheduler.
package scenario
