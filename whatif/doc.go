// Package whatif answers capacity questions by simulation: the fewest
// nodes like a given node (FewestNodesToAdd) or topology domains like a
// given rack (FewestDomainsToAdd) to add so that every pod and gang is
// placed, optionally with no wait above a bound; the most nodes that can
// be removed with everything still placed (MostNodesToRemove); and a
// side-by-side comparison of variants of a scenario (Compare): node
// counts, scoring strategy, plugin weights, node groups and the
// autoscaler's flags (SmallestGroupMax searches a group's max), and
// Kueue's quotas and queues. And when a job starts (StartTimes): from a
// dump of a cluster as it is, run forward until the jobs asked about have
// started, each job's start, Kueue's admission and flavors, its victims
// and why it waited, over seeded draws of the run times.
//
// With Kueue's objects in the scenario, a variant may set a
// ClusterQueue's or a Cohort's nominalQuota, borrowingLimit or
// lendingLimit of one flavor's resource (KueueQuota), or a ClusterQueue's
// queueingStrategy and preemption policies (KueueQueueSetting; "*" for
// every ClusterQueue), turn Kueue's fair sharing on or off with its
// preemption strategies (KueueFairSharing), or set a ClusterQueue's or a
// Cohort's fair-sharing weight (KueueWeight): on a deep copy of the
// objects, checked as Kueue's webhooks and configuration validation
// check them, so that a change Kueue would refuse is refused. Two
// policies are then one comparison ("fairsharing:off" against
// "fairsharing:on"). A comparison has each ClusterQueue's time to
// admission (mean and quantiles), waits for quota and for nodes,
// evictions, workloads preempted and preempted for it, and quota use,
// and the preemptions between each pair of queues (Summary.Kueue), with
// figures of them a bar per variant (Comparison.KueueFigures); and
// SmallestNominalQuota finds the smallest nominal quota, in whole units,
// that admits every workload of a ClusterQueue with a quantile of their
// times to admission under a bound, assuming more quota never lengthens
// them (the runs show where it does).
//
// A Variant is a list of Changes applied to a copy of a loaded scenario;
// ParseVariant reads them from text ("add:gpu-0:4,strategy:MostAllocated").
// Searches gallop (1, 2, 4, ...) to bracket the answer and bisect, and
// report every run their decisions rest on, so the answer's minimality
// can be read off: the count one below an addition answer was run and
// failed. They assume more nodes never hurt, which schedulers mostly but
// not strictly honour (placement is greedy); the runs show where not. A
// search with a wait bound stops each run the moment it fails the bound.
// Answers explain themselves: what they were judged by (Criterion),
// cautions where they may mislead (waits over LongWait, a removal without
// a wait bound), and, when no count places every pod, the pods that fit
// no empty node of the kind added, with the scheduler's reasons (NoFit).
//
// Several runs go at once on a bounded pool of goroutines
// (Options.Workers, runtime.GOMAXPROCS(0) by default), each with its own
// Scheduler; a Scheduler is never shared. Beyond one machine, a sweep of
// variants is written as a Kubernetes Indexed Job (WriteIndexedJob):
// each completion runs one variant (CompletionIndex, RunIndex) and prints
// one JSON line, and Merge gathers the lines. The inputs travel in
// ConfigMaps within the API server's 1 MiB, large files compressed.
//
// Determinism: results, answers, the runs they list and every rendering
// are the same for the same input whatever the number of workers; with
// several workers a search also runs, ahead of need, counts it may not
// use, which change only its wall time. Progress callbacks and Watch
// observers are the only outputs whose order depends on timing.
package whatif
