package controllers_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

func TestServiceControllers(t *testing.T) {
	daemon := service(controllers.KindDaemonSet, "agent", 0, time.Hour)
	for _, tt := range []struct {
		name    string
		nodes   []cluster.Node
		pods    []given
		w       controllers.Workload
		kinds   []gangsim.EventKind
		want    []string
		wantEnd time.Duration
	}{{
		name:  "a ReplicaSet replaces each pod that ends by the next name",
		pods:  []given{batch()},
		w:     service(controllers.KindReplicaSet, "web", 2, time.Hour),
		kinds: bound, want: []string{
			"0s PodBound batch n1", "0s PodBound web-0 n1", "0s PodBound web-1 n1",
			"1h0m0s PodSucceeded web-0", "1h0m0s PodSucceeded web-1", "1h0m0s PodBound web-2 n1", "1h0m0s PodBound web-3 n1",
			"1h30m0s PodSucceeded batch",
		},
		wantEnd: 90 * time.Minute, // when the batch pod ends, not at 2h when web-2 would
	}, {
		name:  "a StatefulSet makes the pod of an ordinal again under its name",
		pods:  []given{batch()},
		w:     service(controllers.KindStatefulSet, "db", 2, 40*time.Minute),
		kinds: arrivals, want: []string{
			"0s PodArrived batch", "0s PodArrived db-0", "0s PodArrived db-1",
			"40m0s PodSucceeded db-0", "40m0s PodArrived db-0", "40m0s PodSucceeded db-1", "40m0s PodArrived db-1",
			"1h20m0s PodSucceeded db-0", "1h20m0s PodArrived db-0", "1h20m0s PodSucceeded db-1", "1h20m0s PodArrived db-1",
			"1h30m0s PodSucceeded batch",
		},
		wantEnd: 90 * time.Minute,
	}, {
		name:  "a DaemonSet makes a new pod on the node of one that ends",
		nodes: []cluster.Node{gt.MakeNode("a").CPU("8").Obj(), gt.MakeNode("b").CPU("8").Obj()},
		pods: []given{
			{pod: gt.MakePod("agent-a").CPU("1").NodeName("a").Obj(), d: time.Hour, owner: 0},
			{pod: gt.MakePod("agent-b").CPU("1").NodeName("b").Obj(), d: time.Hour, owner: 0},
			batch(),
		},
		w:     daemon,
		kinds: []gangsim.EventKind{gangsim.EventPodBound},
		want:  []string{"0s PodBound batch a", "1h0m0s PodBound agent-a-1 a", "1h0m0s PodBound agent-b-1 b"},
		// the pods that arrive on their node are not bound by a cycle
		wantEnd: 90 * time.Minute,
	}, {
		name:  "services alone settle at once",
		w:     service(controllers.KindReplicaSet, "web", 2, time.Hour),
		kinds: bound, want: []string{"0s PodBound web-0 n1", "0s PodBound web-1 n1"},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			nodes := tt.nodes
			if nodes == nil {
				nodes = node8
			}
			r := runCase(t, nodes, 0, tt.pods, []controllers.Workload{tt.w})
			require.NoError(t, r.err)
			require.Equal(t, tt.want, r.of(tt.kinds...))
			require.Equal(t, tt.wantEnd, r.s.Now())
			require.Empty(t, r.m.Jobs())
		})
	}
}

// The DaemonSet's pods are pinned to their node; a StatefulSet's carry
// their name and ordinal; an Indexed Job's their index: Pod gives each as
// its controller made it.
func TestPodsAsTheControllersMadeThem(t *testing.T) {
	ws := []controllers.Workload{
		service(controllers.KindStatefulSet, "db", 1, 0),
		job("train", 0, controllers.Job{Completions: int32p(1), Parallelism: 1, Indexed: true}),
	}
	r := runCase(t, node8, 0, nil, ws)
	require.NoError(t, r.err)
	require.Equal(t, []cluster.PodKey{"default/db-0", "default/train-0-0"}, r.m.Made())
	db, ok := r.m.Pod("default/db-0")
	require.True(t, ok)
	require.Equal(t, map[string]string{"app": "db", controllers.StatefulSetPodNameLabel: "db-0", controllers.PodIndexLabel: "0"}, db.Labels)
	train, _ := r.m.Pod("default/train-0-0")
	require.Equal(t, "0", train.Labels[controllers.JobCompletionIndexLabel])
	_, ok = r.m.Pod("default/other")
	require.False(t, ok)
	require.NotContains(t, ws[0].Template.Labels, controllers.PodIndexLabel, "the template is not changed")
}

func TestManagerErrors(t *testing.T) {
	long := service(controllers.KindReplicaSet, strings.Repeat("r", 251), 1, time.Minute)
	long.Template.Labels = map[string]string{"app": "long"}
	for _, tt := range []struct {
		name    string
		pods    []given
		w       controllers.Workload
		opts    []controllers.Option
		wantErr error
		wantPod string
		wantAt  time.Duration
	}{{
		// <name>-9 is 253 characters long, Kubernetes' limit, and is
		// made; <name>-10, one more, is not
		name: "a name past 253 characters", pods: []given{batch()},
		w:       long,
		wantErr: controllers.ErrNameTooLong, wantPod: long.Name + "-10", wantAt: 10 * time.Minute,
	}, {
		name:    "more pods than the limit",
		w:       service(controllers.KindReplicaSet, "web", 3, 0),
		opts:    []controllers.Option{controllers.WithPodLimit(2)},
		wantErr: controllers.ErrPodLimit, wantPod: "web-2",
	}} {
		t.Run(tt.name, func(t *testing.T) {
			r := runCase(t, node8, 0, tt.pods, []controllers.Workload{tt.w}, tt.opts...)
			require.ErrorIs(t, r.err, tt.wantErr)
			var pe *controllers.PodError
			require.ErrorAs(t, r.err, &pe)
			require.Equal(t, controllers.PodError{Kind: controllers.KindReplicaSet, Namespace: "default", Name: tt.w.Name,
				Pod: tt.wantPod, At: tt.wantAt, Err: tt.wantErr}, *pe)
		})
	}
}

// The names reserved for the caller's pods are never taken.
func TestReservedNames(t *testing.T) {
	reserved := func(key cluster.PodKey) bool { return key == "default/web-0" || key == "default/web-2" }
	r := runCase(t, node8, 0, nil, []controllers.Workload{service(controllers.KindReplicaSet, "web", 2, 0)},
		controllers.WithReservedNames(reserved))
	require.NoError(t, r.err)
	require.Equal(t, []cluster.PodKey{"default/web-1", "default/web-3"}, r.m.Made())
}
