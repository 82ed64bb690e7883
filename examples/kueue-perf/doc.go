// Command kueue-perf writes Kueue's scheduler performance configurations
// as gangsim scenario folders, so that gangsim's Kueue admission runs the
// same load Kueue's own performance test runs and its figures can be put
// beside Kueue's published ones:
//
//	go run ./examples/kueue-perf [-config baseline|large-scale|tas|fair-day|FILE] [-o DIR] [-nodes N] [-as pods|workloads] [-seed N] [-scale F]
//	go run ./examples/scenario DIR
//	go run ./examples/kueue-perf -config large-scale -compare   # Kueue's published figures, as a table
//	go run ./examples/kueue-perf -config tas -measure DIR       # run DIR, its figures beside Kueue's
//
// -config takes one of the configurations embedded here (configs/:
// Kueue's baseline, the default, large-scale and tas; gangsim's fair-day,
// below, "A fair-sharing day") or a file in the format of Kueue's
// generator: cohorts[].{className, count, queuesSets[].{className, count,
// nominalQuota, borrowingLimit, reclaimWithinCohort, withinClusterQueue,
// workloadsSets[].{count, creationIntervalMs, workloads[].{className,
// runtimeMs, priority, request, podCount, tasConstraint, tasLevel,
// sliceSize}}}}, resourceFlavor.{name, nodeLabel, topologyName} and
// topology.{name, levels[].{name, count, nodeLabel, capacity.{cpu,
// memory}}} (tas.go says how the TAS fields are written). Three fields
// are gangsim's extensions, not Kueue's: fairSharing.preemptionStrategies
// at the top (Kueue's Configuration gets a fairSharing section),
// cohorts[].parentName and fairWeight (the set's cohorts become Cohort
// objects under a root Cohort of that name, with that weight), and
// queuesSets[].fairWeight (the ClusterQueues' fair-sharing weight). An
// unknown field is refused; an error names the file and the field.
// -measure runs a folder written for -config and prints gangsim's figures
// beside Kueue's (run.go). -o is the folder to write (kueue-perf-<config>
// by default); -nodes the nodes that share the capacity (4); -as the form
// of the workloads (below, "Pods or Workloads"); -seed, when not 0, makes
// each workload set's creations a Poisson process of the same mean
// interval (exponential gaps drawn from the seed, per queue and set)
// instead of Kueue's fixed intervals; -scale multiplies every workload
// set's count and every quota by the factor, the span of the creations
// kept, so the load per cpu stays. The same configuration and flags give
// the same bytes; the
// large-scale folder (50,000 workloads) is written in about a quarter of a
// second. The exit status is 2 for a bad configuration or flag, 1 when the
// folder cannot be written.
//
// # The folder
//
//   - kueue.yaml: Kubernetes objects: Kueue's Configuration, the
//     ResourceFlavor, and per ClusterQueue the ClusterQueue, its namespace
//     and its LocalQueue, in the order Kueue's generator makes them.
//   - workloads.json: a scenario file (docs/scenario-format.md): the
//     scheduler's config, a PriorityClass per workload priority, the
//     nodes, and one pod per Kueue Workload, one a line, in order of
//     creation.
//
// Each workload is a scenario pod, not a batch/v1 Job, because the format
// gives an arrival time only to a scenario file's pods: Kubernetes objects
// all arrive at time 0 (their creationTimestamp orders them, it does not
// delay them; docs/kubernetes-inputs.md, "Pods"), and so does a Kueue
// Workload object. A pod's `at` is its creation, and so its Workload's
// (the scenario format's Kueue contract), and its `duration` is its run
// time once bound, as the annotation gangsim.io/duration gives a Job's
// pods. The pod carries the label kueue.x-k8s.io/queue-name, so it joins
// Kueue as a plain pod, a Workload of its own; the Configuration enables
// Kueue's pod integration for that, as a cluster running these files
// would need.
//
// # Pods or Workloads
//
// Kueue's test creates Workload objects, and its runner puts a Workload
// that Kueue evicts back to pending, to be admitted again (below). With
// -as pods (the default) each is a plain pod instead, created at its time;
// but Kueue stops a plain pod it preempts by deleting it
// (pkg/controller/jobs/pod/pod_controller.go, Stop), and nothing makes it
// again: a preempted workload ends there, where in Kueue's test it waits
// and is admitted again, and its time to admission counts to its one
// admission, not its latest. The load itself is the same.
//
// -as workloads writes the Workload objects of Kueue's test instead, field
// for field (names, spec.priority, one pod set "main" of one pod,
// container "c", the queue, the class label), with the run time as the
// annotation gangsim.io/duration of the pod template and
// metadata.creationTimestamp at 2026-01-01T00:00:00Z plus the creation
// time: cluster.json (the scheduler's config and the nodes), kueue.yaml,
// and workloads.json, a v1 List of the Workloads, one a line. The format
// gives Kubernetes objects no arrival time yet, so today they all arrive at
// time 0 (in creationTimestamp order); a format that read the creation
// time as the arrival would run Kueue's test as it is, preemptions
// included.
//
// # What Kueue's performance test makes
//
// Kueue v0.19.2 keeps the test in test/performance/scheduler/ of its
// repository; the facts below are read from the files named, in that
// folder unless a path says otherwise.
//
//   - Configurations (configs/baseline/generator.yaml,
//     configs/large-scale/generator.yaml): baseline is 5 cohorts of 6
//     ClusterQueues, each with nominalQuota 20 cpu and borrowingLimit 100,
//     reclaimWithinCohort Any and withinClusterQueue LowerPriority, and
//     per queue 350 small workloads (1 cpu, 200 ms, priority 50, one every
//     100 ms), 100 medium (5 cpu, 500 ms, priority 100, every 500 ms) and
//     50 large (20 cpu, 1 s, priority 200, every 1.2 s): 15,000 in all.
//     large-scale is 10 cohorts of 100 such queues, each receiving 35
//     small (150 ms, every 60 ms), 11 medium (350 ms, every 300 ms) and 4
//     large (700 ms, every 700 ms): 50,000. configs/ here holds both,
//     value for value.
//   - Names (runner/generator/generator.go): cohort i of a cohort set is
//     "<className>-<i>"; queue i of queue set s in cohort C is the
//     ClusterQueue "<className>-<s>-<i>-<C>" (cq-0-3-cohort-2), and a
//     namespace and a LocalQueue of that same name are made for it. The
//     template t of workload set w, the k-th time the set is repeated, is
//     the Workload "<className>-<w>-<k>-<t>" (small-0-12-0) in the queue's
//     namespace; the pods here have those names and namespaces.
//   - Objects (runner/generator/generator.go): one ResourceFlavor, "rf"
//     unless the configuration names one, without labels or taints. No
//     Cohort object: a cohort exists only as the ClusterQueues'
//     cohortName. Each ClusterQueue has one resource group covering cpu
//     with the one flavor, nominalQuota and borrowingLimit as given (no
//     lendingLimit), the two preemption policies as given, and the label
//     kueue.x-k8s.io/performance-scheduler-class: <queue className>; its
//     other fields are the test builder's
//     (pkg/util/testing/v1beta2/wrappers.go, MakeClusterQueue):
//     namespaceSelector {} (every namespace), queueingStrategy
//     BestEffortFIFO, flavorFungibility whenCanBorrow MayStopSearch and
//     whenCanPreempt TryNextFlavor.
//   - Workloads (runner/generator/generator.go, and MakeWorkload and
//     MakePodSet in wrappers.go): Workload objects with no job behind
//     them, each one pod set "main" of one pod, one container requesting
//     `request` cpu; the priority is the Workload's spec.priority itself,
//     with no WorkloadPriorityClass and no PriorityClass; the label
//     kueue.x-k8s.io/performance-scheduler-class: <workload className>.
//     Here the priority comes from a PriorityClass "priority-<value>",
//     since a pod takes its priority from its class (the API server
//     refuses a pod that sets a priority of its own), and Kueue takes a
//     plain pod's Workload priority from that class when no
//     WorkloadPriorityClass is named
//     (pkg/controller/jobframework/reconciler.go, ExtractPriority); the
//     value is the same. The pods carry the class label, so a result can
//     be split by class.
//   - Creation (runner/generator/generator.go): every workload set of
//     every queue is generated concurrently, each waiting one
//     creationIntervalMs before each creation, so the k-th workload of a
//     set (from 1) is created k intervals after the start. Here that is
//     its `at`. Kueue's creations drift by the time each API call takes;
//     the order of creations at one instant is a race there, and here it
//     is the file's order: cohort set, cohort, queue set, queue, workload
//     set, repetition, template.
//   - Run time (runner/controller/controller.go): the runner marks a
//     Workload Finished runtimeMs after it saw it Admitted, and Kueue
//     then releases its quota. Here the pod runs `duration` (runtimeMs)
//     from the moment it is bound, which, with nodes that never hold it
//     back, is the moment Kueue admits it. An evicted Workload is put
//     back to pending at once (its quota reservation removed), since it
//     has no pods to stop.
//   - No nodes (runner/main.go): the test runs an API server (envtest)
//     and no kubelet; only quota limits admission. Here -nodes nodes
//     (node-0 ...) share twice the nominal quota of all ClusterQueues
//     (the most Kueue can admit at once, since no Cohort adds quota), in
//     whole cores and at least the largest request, with room for every
//     pod at once (at least 110 each), so that the scheduler never holds
//     an admitted pod back: baseline 4 nodes of 300 cpu, large-scale 4 of
//     10,000. The scheduler's terminationGracePeriod is 0s, so that a pod
//     of a Workload Kueue preempts leaves at once, as in the test, where
//     there is no pod to wait for.
//   - Kueue's configuration (minimalkueue/main.go): the test's Kueue is
//     its core controllers and scheduler, started with an empty
//     Configuration: no waitForPodsReady, no fair sharing. kueue.yaml's
//     Configuration gives neither section, which gangsim reads as both
//     off. (Kueue's own defaulting of a v1beta2 Configuration,
//     apis/config/v1beta2/defaults.go, would turn waitForPodsReady on
//     with a 30-minute timeout and no blockAdmission; that changes nothing
//     here, where every pod is bound as soon as it is admitted.) Its API
//     client is limited to 50 requests a second
//     (burst 100), and each admission is at least one write (the
//     Workload's status), so it admits at most about 50 Workloads a
//     second: 300 s for baseline's 15,000 and 1,000 s for large-scale's
//     50,000, against published walls of 351 s and 1,179 s. The published
//     times to admission measure that limit as much as Kueue's algorithm.
//   - Queue order (pkg/cache/queue/cluster_queue.go, baseCompareFunc, and
//     pkg/workload/workload.go, GetQueueOrderTimestamp): within a
//     ClusterQueue, higher priority first, then the earlier creation
//     timestamp, which the API stores in whole seconds, then the
//     Workload's UID, which is random: Workloads of one priority created
//     in the same second come in an order that varies from run to run.
//
// # The tas configuration
//
// Kueue's tas configuration (configs/tas.yaml) is baseline's queues and
// load, each workload now 2, 4 or 8 pods (small, medium, large, the same
// cpu in all) with a constraint on a rack: required, preferred, or
// "balanced", which Kueue's generator writes as slices of 1, 2 or 4 pods
// each required in a rack (Kueue's balanced placement algorithm itself is
// behind a gate that is off). The 640 nodes hold 61,440 cpu against the
// queues' 600 of nominal quota (at most 3,600 with borrowing), so the
// topology never holds a workload back: the constraints cost Kueue search
// time, not room. Here a workload is a Kueue pod group, admitted whole and
// its pods steered to the domains Kueue chose.
//
// With -measure (gangsim's cycle of 1 ms, the client limit of 50 queries
// a second; Kueue's averages of its 10 calibration runs):
//
//	measure                          Kueue tas   gangsim tas   Kueue baseline   gangsim baseline
//	wall time of the run             401.5 s     343.2 s       351.1 s          345.7 s
//	mean time to admission, large    ~39 s       28.5-30.4 s   16.5 s           21.8 s
//	mean time to admission, medium   ~106.5 s    94.3-96.3 s   76.8 s           71.1 s
//	mean time to admission, small    ~243 s      221.2-229.5 s 215.5 s          217.1 s
//
// gangsim's tas run takes the time of its baseline run: the pace is set by
// the writes through the API client's limit (15,000 admissions and some
// 2,200 status writes of workloads waiting, at 50 a second), and a cycle
// takes 1 ms however much topology it searches. Kueue's tas run takes 50 s
// (14 %) longer than its baseline, and its times to admission grow most
// for the large workloads (16.5 s to 39 s). As far as the published
// figures tell, that is the real time of its TAS cycles (a snapshot of
// 640 nodes and a search per head), which gangsim does not charge; Kueue
// publishes no profile that would split it further. The ClusterQueue usage is not compared: in
// Kueue's test a Workload holds its quota until the runner, under its
// own client limit, marks it finished, well after its run time, so the
// published usage (62.4 % here, 55.9 % for baseline) measures that
// delay; gangsim's (19.2 %, the work over the quota and the run's span)
// counts each Workload's run time only.
//
// Two choices differ from Kueue's generator: each node's hostname is its
// own name (Kueue's gives all nodes of one index in the ten racks the same
// hostname, which its TAS cache then reads as one leaf), and each
// workload's pods are real pods, bound by the scheduler, where Kueue's
// test has Workload objects and no pod.
// # A fair-sharing day
//
// -config fair-day (configs/fair-day.yaml) is not one of Kueue's: it is
// the day of a cluster shared by ten teams under Kueue's fair sharing,
// written in the generator's format with gangsim's extensions. The root
// Cohort "company" holds two cohorts, research-0 and product-0; research
// has two train teams (300 cpu each, weight 2) and three eval teams (100,
// weight 1), product two serve teams (200, weight 1.5) and three batch
// teams (100, weight 0.5): 1,600 cpu of quota, no borrowing limit, every
// queue reclaiming from its cohort (Any) and preempting lower priorities
// within itself. Fair sharing is on with Kueue's default strategies. Each
// team receives 10,000 workloads over the day: 7,000 small (priority 50,
// 5 minutes, one every 12 s), 2,500 medium (priority 100, 20 minutes,
// every 34 s) and 500 large (priority 200, an hour, every 170 s), of 2, 4
// and 8 cpu for train, 1, 1 and 2 for eval, 2, 2 and 4 for serve, 1, 1 and
// 3 for batch: about 1.1 times the quota on average, unevenly (train asks
// for 354 cpu against its 300, batch for 121 against 100). As with
// Kueue's configurations, a preempted pod is deleted and not made again.
//
// A run of the day (seed 0, the fixed intervals) admits the 100,000
// workloads and preempts 40,518 of them (27,238 within their queue,
// 11,424 by reclaim, 1,856 by fair sharing); it ends after 24h36m40s of
// simulated time. The batch teams, of the lowest weight, lose the most
// (20,484 preemptions), then train, the most demanding (14,119); eval and
// serve, asking for about their quota, lose 3,549 and 2,366. With
// Poisson creations (-seed), bursts make more borrowing and more fair
// sharing: about 30,000 preemptions, 12,000 of them by fair sharing.
//
// The whole process takes under 20 s. Measured with /usr/bin/time
// on the project's 2-core machine, shared with other jobs (its load
// average, given, makes the wall time vary; user and system time vary
// less), generating the folder and running it with examples/scenario
// (reading the 100,000 pods, the simulation, and writing its 165 MB of
// JSON):
//
//	seed  scale  workloads  simulated   preemptions (in queue, reclaim, fair)   generate  run wall  run user+sys  peak RSS  load
//	0     1      100,000    24h36m40s   40,518 (27,238, 11,424, 1,856)          0.4 s     13.8 s    16.5 s        1.59 GB   3.6
//	1     1      100,000    26h28m55s   30,737 (6,184, 12,548, 12,005)          0.3 s     13.8 s    14.4 s        1.46 GB   3.5
//	2     1      100,000    26h18m25s   31,086 (6,446, 12,702, 11,938)          0.6 s     18.4 s    16.6 s        1.53 GB   3.9
//	3     1      100,000    26h37m35s   29,936 (5,825, 12,675, 11,436)          0.5 s     15.3 s    14.9 s        1.51 GB   3.6
//	1     0.5     50,000    27h49m35s   13,422 (2,674, 5,736, 5,012)            0.2 s      6.9 s     6.6 s        0.76 GB   3.7
//	1     1.5    150,000    25h53m42s   47,852 (9,728, 20,076, 18,048)          5.1 s     50.0 s    27.9 s        2.31 GB   5.5
//
// (The run's wall time includes reading the folder, about a second, and
// writing the JSON, 3 to 5 s. With the machine busier, a load average of
// 9, the same runs took 33 to 45 s of wall time for 16 to 19 s of user and
// system time.)
//
// The time grows faster than the size: a preemption's search looks at
// every admitted workload of lower priority in the cohort tree, and there
// are more of them. Profiling the run (a CPU profile of the simulation)
// found three hot spots in the engine, each fixed with the event stream
// unchanged (the JSON of the day is byte for byte the same): the
// candidates of fair-sharing preemption were collected by sorting every
// queue's admitted workloads by name and the whole list by Kueue's order
// at each search (each queue's list is now kept in order until it
// changes); a head's preemption search was made twice, in the flavor
// assignment and for its targets (now once); and the dominant resource
// share built maps at each call. These took the simulation of the day
// from 28 s to 13 s of CPU time (the profile's samples).
//
// # The load against the quota
//
// Worked out from the configurations: a baseline queue receives 1,320
// cpu-seconds of work (small 350 × 1 cpu × 0.2 s = 70, medium 100 × 5 ×
// 0.5 = 250, large 50 × 20 × 1 = 1,000) over the 60 s in which its
// workloads arrive, 22 cpu on average against 20 of nominal quota; all 30
// queues, 39,600 cpu-seconds on 600 cpu, need at least 66 s. A
// large-scale queue receives 80.5 cpu-seconds (5.25 + 19.25 + 56) over
// 3.3 s of arrivals, 24 cpu on average; all 1,000 queues, 80,500
// cpu-seconds on 20,000 cpu, need at least 4 s. Kueue's walls (351 s and
// 1,179 s) are set by its rate of admissions far more than by the quota.
//
// # Kueue's published figures
//
// Each configuration's rangespec.yaml gives the averages of its
// calibration runs (in comments) and the bounds its checker enforces
// (checker/checker_test.go); -compare prints them:
//
//	measure                          baseline (5 runs)        large-scale (19 runs)
//	                                 average    bound         average     bound
//	wall time of the run             351.1 s    ≤ 425 s       1,179.4 s   ≤ 1,416 s
//	ClusterQueue usage, class cq     55.9 %     ≥ 50 %        38.6 %      ≥ 31.6 %
//	mean time to admission, large    16.5 s     ≤ 23 s        105.6 s     ≤ 128 s
//	mean time to admission, medium   76.8 s     ≤ 90 s        256.4 s     ≤ 308 s
//	mean time to admission, small    215.5 s    ≤ 260 s       700.4 s     ≤ 841 s
//
// The wall time is that of the minimalkueue process (runner/main.go,
// runner/stats), from its start until the recorder, checking every 5 s
// once the generator is done, sees every ClusterQueue with nothing
// pending or reserving. Kueue runs in real time, so its wall time is the
// span of the load: gangsim's counterpart is the run's simulated time
// (the last Workload finishing), not the seconds gangsim takes.
//
// # How Kueue measures them
//
// runner/recorder/recorder.go records, and checker/checker_test.go
// checks:
//
//   - Time to admission of a Workload: from the first event the runner
//     sees of it (its creation) to the event in which it is Admitted; a
//     Workload admitted again after an eviction counts to its latest
//     admission. A class's mean is the sum over its Workloads divided by
//     their count (in whole milliseconds); a Workload never admitted
//     counts with 0.
//   - ClusterQueue usage of a queue class: for each ClusterQueue, the
//     integral over time of the cpu its admitted Workloads use (status
//     flavorsUsage of its one flavor, borrowed cpu included), held
//     constant between the ClusterQueue's status updates, from its first
//     event (its creation) to its last; summed over the queues of the
//     class, and divided by the sum of their nominal quotas times the
//     time from the earliest first event to the latest last event of the
//     class, in percent. Because cohorts hold no quota of their own and
//     borrowing only moves quota between sibling queues, 100 % would mean
//     every core of every cohort in use all the time.
//
// gangsim computes the same from a run: per ClusterQueue, the integral of
// its admitted cpu from time 0 (the queues exist from the start) to the
// last change of its usage (the last Workload finishing), summed over the
// queues of the class "cq" and divided by their summed nominal quota (20
// cpu each) times that span; and per workload class (the pod label
// kueue.x-k8s.io/performance-scheduler-class), the mean of the latest
// admission minus `at`. measure (measure.go) does both from per-Workload
// records (creation, latest admission, the spans in which it held quota),
// and writeCompare puts its figures beside Kueue's.
package main
