// Package framework is the plugin API: the interfaces of every extension
// point (PreFilter, Filter, PostFilter, PreScore, Score, PlacementGenerate,
// PlacementFeasible, PlacementScore, PodGroupPostFilter), the per-attempt
// CycleState, Status, and the optional capabilities that let the engine go
// faster (Signer, Stateless, NodeLocal, PointwiseNormalizer, QuorumPlugin,
// NodeIndependentScorer, ...). It sits below the algorithms so that the
// built-in plugins (plugins/, one folder each) implement exactly the
// interfaces a user's plugin does; the engine never checks a plugin's
// type, only the capabilities it declares.
//
// A plugin is registered by name with a factory (Registry, PluginFactory;
// ArgsAs and ArgError help a factory read and check its arguments) and
// enabled per extension point by a profile (gangsim.Profile), as
// kube-scheduler's KubeSchedulerConfiguration enables them.
//
// Statuses: nil means Success. Statuses are shared values; never modify
// one (WithPlugin returns a copy).
//
// Determinism and concurrency: plugins are called from one goroutine, in a
// fixed order, and must give the same answer for the same input.
package framework
