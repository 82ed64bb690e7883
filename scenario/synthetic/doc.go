// Package synthetic writes scenario files of a busy cluster that nobody
// tuned: a topology of zones, blocks and racks, gangs with and without
// topology keys, services guarded by disruption budgets, batch and
// critical work that preempts, run times of hours, nodes that fail and
// nodes that are drained. It is the workload the project measures its
// speed on, and a synthetic cluster for users who have no trace of their
// own.
//
// A Config gives the size (nodes, pods, hours of arrivals) and a seed;
// Write turns it into a scenario file in the JSON form of the scenario
// format, which the scenario package reads straight from its bytes. The
// same Config gives the same bytes on every run and every machine: all
// randomness comes from a PCG generator seeded by Config.Seed, and every
// list is written in the order it was drawn.
//
// The mix, per size (Large is the reference; Medium and Small scale nodes
// and pods down together, so the cluster stays as busy):
//
//   - nodes of 32 cpu and 128 GiB, labelled topology.kubernetes.io/zone,
//     block and rack; racks of 25 nodes, 4 racks a block, 5 blocks a zone;
//   - arrivals over 72 hours, as a Poisson process of entries;
//   - about a quarter of the pods in gangs (PodGroups with minCount 4, 8
//     or 16 and as many members); a quarter of the gangs keep to one rack,
//     a quarter to one block, half have no topology key;
//   - the rest single pods in entries of 1 to 10: services (priority class
//     service, the global default, 100) that never end, a budget of
//     minAvailable 50% over some of them; batch (0) and critical (1,000)
//     pods that run 3 to 36 hours;
//   - requests of 2 to 8 cpu and 4 to 32 GiB;
//   - node events over the arrival window: 4% of the nodes fail (two
//     thirds of them come back hours later), 3.35% are drained and
//     uncordoned later;
//   - a termination grace period of 30 s.
//
// The reference size, Large, is 2,000 nodes and about 50,000 pods, of
// which about 12,800 in some 1,440 gangs, with 20 budgets and about 267
// node events.
package synthetic
