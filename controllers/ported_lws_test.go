package controllers_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// TestPortedLeaderWorkerSet ports the rules LeaderWorkerSet's pod
// controller and its tests pin (handleRestartPolicy, the worker
// StatefulSet's making under startupPolicy and exclusive placement): a
// group is a leader <lws>-<g> and size - 1 workers <lws>-<g>-<i>; with
// RecreateGroupOnPodRestart a pod of the group deleted (or a container
// restarted, which the simulator's pods never do) deletes the leader,
// and the group is made again; without it only the pod that went is made
// again, unless it is the leader, which owns its workers' StatefulSet; a
// group of size 1 has no workers; under LeaderReady, or exclusive
// placement, the workers are made once the leader is ready (bound) and,
// exclusive, pinned to its domain. Left out: rolling updates, the
// status conditions, subgroups' own restarts, the headless services (not
// modelled).
func TestPortedLeaderWorkerSet(t *testing.T) {
	lifecycle := func(events []string) []string {
		var out []string
		for _, e := range events {
			if f := strings.Fields(e); f[1] == "PodArrived" || f[1] == "PodDeleted" {
				out = append(out, e)
			}
		}
		return out
	}
	// once fails the pod named name on its first binding, after d
	once := func(name string, d time.Duration) func(cluster.PodKey, int) (time.Duration, bool) {
		return func(key cluster.PodKey, n int) (time.Duration, bool) {
			return d, key.Display() == name && n == 0
		}
	}
	for _, tt := range []struct {
		name  string // LWS's case or rule
		nodes []cluster.Node
		set   controllers.Workload
		fate  func(cluster.PodKey, int) (time.Duration, bool)
		want  []string
		sets  string
	}{{
		name: "RecreateGroupOnPodRestart: a worker deleted deletes its leader, the group is made again",
		set:  leading(groups("lws", 2, 2, "1", 0, 0, controllers.ActionRestartGroup)),
		fate: once("lws-0-1", 10*time.Minute),
		want: []string{"0s PodArrived lws-0", "0s PodArrived lws-0-1", "0s PodArrived lws-1", "0s PodArrived lws-1-1",
			"10m0s PodDeleted lws-0-1", "10m0s PodDeleted lws-0", "10m0s PodArrived lws-0", "10m0s PodArrived lws-0-1"},
		sets: "lws Running 1 4",
	}, {
		name: "RecreateGroupOnPodRestart: the leader deleted, the group is made again",
		set:  leading(groups("lws", 1, 3, "1", 0, 0, controllers.ActionRestartGroup)),
		fate: once("lws-0", 10*time.Minute),
		want: []string{"0s PodArrived lws-0", "0s PodArrived lws-0-1", "0s PodArrived lws-0-2",
			"10m0s PodDeleted lws-0", "10m0s PodDeleted lws-0-1", "10m0s PodDeleted lws-0-2",
			"10m0s PodArrived lws-0", "10m0s PodArrived lws-0-1", "10m0s PodArrived lws-0-2"},
		sets: "lws Running 1 3",
	}, {
		name: "restartPolicy None: a worker deleted is made again by its StatefulSet, alone",
		set:  leading(groups("lws", 1, 3, "1", 0, 0, controllers.ActionRestartPod)),
		fate: once("lws-0-2", 10*time.Minute),
		want: []string{"0s PodArrived lws-0", "0s PodArrived lws-0-1", "0s PodArrived lws-0-2",
			"10m0s PodDeleted lws-0-2", "10m0s PodArrived lws-0-2"},
		sets: "lws Running 0 3",
	}, {
		name: "restartPolicy None: the leader deleted takes the workers it owns",
		set:  leading(groups("lws", 1, 2, "1", 0, 0, controllers.ActionRestartPod)),
		fate: once("lws-0", 10*time.Minute),
		want: []string{"0s PodArrived lws-0", "0s PodArrived lws-0-1",
			"10m0s PodDeleted lws-0", "10m0s PodDeleted lws-0-1", "10m0s PodArrived lws-0", "10m0s PodArrived lws-0-1"},
		sets: "lws Running 1 2",
	}, {
		name: "size 1: no worker StatefulSet, replicas leaders alone",
		set:  leading(groups("lws", 3, 1, "1", 0, 0, controllers.ActionRestartGroup)),
		fate: never,
		want: []string{"0s PodArrived lws-0", "0s PodArrived lws-1", "0s PodArrived lws-2"},
		sets: "lws Running 0 3",
	}, {
		name:  "LeaderReady: the worker StatefulSet waits for the leader to be ready",
		nodes: []cluster.Node{gt.MakeNode("n1").CPU("2").Obj()},
		// a leader of 3 cpus never fits: no worker is made
		set:  following(leading(groups("lws", 1, 2, "3", 0, 0, controllers.ActionRestartGroup)), ""),
		fate: never,
		want: []string{"0s PodArrived lws-0"},
		sets: "lws Running 0 1",
	}, {
		name:  "LeaderCreated: the workers are made with their leader, ready or not",
		nodes: []cluster.Node{gt.MakeNode("n1").CPU("2").Obj()},
		set:   leading(groups("lws", 1, 2, "3", 0, 0, controllers.ActionRestartGroup)),
		fate:  never,
		want:  []string{"0s PodArrived lws-0", "0s PodArrived lws-0-1"},
		sets:  "lws Running 0 2",
	}, {
		name:  "exclusive placement: a leader on a node without the topology label gets no workers",
		nodes: []cluster.Node{gt.MakeNode("n1").CPU("8").Obj()},
		set:   following(leading(groups("lws", 1, 3, "1", 0, 0, controllers.ActionRestartGroup)), "pool"),
		fate:  never,
		want:  []string{"0s PodArrived lws-0"},
		sets:  "lws Running 0 1",
	}} {
		t.Run(tt.name, func(t *testing.T) {
			nodes := tt.nodes
			if nodes == nil {
				nodes = node8
			}
			m, events, err := runFailing(t, nodes, []controllers.Workload{tt.set}, tt.fate)
			require.NoError(t, err)
			require.Equal(t, tt.want, lifecycle(events), "%v", events)
			require.Equal(t, []string{tt.sets}, run{m: m}.sets())
		})
	}
}
