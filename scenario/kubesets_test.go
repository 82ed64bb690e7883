package scenario

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

// The public samples of LeaderWorkerSet, KubeRay and Volcano
// (testdata/kube/public-samples/<kind>/, each file as its project
// publishes it but for a first line naming it), each run on a node set
// written for it, with a default run time of 10 minutes. The pods, their
// nodes and gangs are worked out by hand in each folder's README.md and
// pinned here; the golden files hold the whole results.
func TestPublicSamplesOfSets(t *testing.T) {
	tests := []struct {
		dir      string
		pods     []string // name@node:phase, in the result's order
		groups   []string // the PodGroups
		warnings []string // kind and field
	}{
		{
			// three groups of four, each alone in a node pool: leader g on
			// the first node of pool g, workers pinned to its pool
			dir: "leaderworkerset",
			pods: []string{
				"leaderworkerset-sample-0@a-1:Bound", "leaderworkerset-sample-1@b-1:Bound", "leaderworkerset-sample-2@c-1:Bound",
				"leaderworkerset-sample-0-1@a-2:Bound", "leaderworkerset-sample-0-2@a-1:Bound", "leaderworkerset-sample-0-3@a-2:Bound",
				"leaderworkerset-sample-1-1@b-2:Bound", "leaderworkerset-sample-1-2@b-1:Bound", "leaderworkerset-sample-1-3@b-2:Bound",
				"leaderworkerset-sample-2-1@c-2:Bound", "leaderworkerset-sample-2-2@c-1:Bound", "leaderworkerset-sample-2-3@c-2:Bound",
			},
			warnings: []string{"LeaderWorkerSet metadata.annotations[leaderworkerset.sigs.k8s.io/exclusive-topology]", "Node metadata.labels[cloud.google.com/gke-nodepool]"},
		},
		{
			// three groups of four on two nodes of 1 cpu; at 5m a worker
			// of group 1 is deleted: the group is deleted and made again
			// (16 bindings, 1 restart), groups 0 and 2 run on
			dir: "leaderworkerset-restart",
			pods: []string{
				"leaderworkerset-sample-0@n1:Bound", "leaderworkerset-sample-0-1@n2:Bound", "leaderworkerset-sample-0-2@n1:Bound", "leaderworkerset-sample-0-3@n2:Bound",
				"leaderworkerset-sample-1@n2:Bound", "leaderworkerset-sample-1-1@n1:Bound", "leaderworkerset-sample-1-2@n1:Bound", "leaderworkerset-sample-1-3@n2:Bound",
				"leaderworkerset-sample-2@n1:Bound", "leaderworkerset-sample-2-1@n2:Bound", "leaderworkerset-sample-2-2@n1:Bound", "leaderworkerset-sample-2-3@n2:Bound",
			},
		},
		{
			// two gangs of four 50m pods on 300m: the first whole, the
			// second none
			dir: "leaderworkerset-volcano",
			pods: []string{
				"lws-sample-volcano-0@n1:Bound", "lws-sample-volcano-0-1@n1:Bound", "lws-sample-volcano-0-2@n1:Bound", "lws-sample-volcano-0-3@n1:Bound",
				"lws-sample-volcano-1@:Pending", "lws-sample-volcano-1-1@:Pending", "lws-sample-volcano-1-2@:Pending", "lws-sample-volcano-1-3@:Pending",
			},
			groups:   []string{"lws-sample-volcano-0-", "lws-sample-volcano-1-"},
			warnings: []string{"LeaderWorkerSet spec.leaderWorkerTemplate.workerTemplate.spec.schedulerName"},
		},
		{
			// a head and two workers, a gang of 3, on two nodes of 2 cpus
			dir: "raycluster",
			pods: []string{
				"test-podgroup-0-head-0@n1:Bound", "test-podgroup-0-worker-worker-0@n2:Bound", "test-podgroup-0-worker-worker-1@n2:Bound",
			},
			groups:   []string{"test-podgroup-0"},
			warnings: []string{"RayCluster metadata.labels[ray.io/gang-scheduling-enabled]"},
		},
		{
			// the cluster rayjob-sample-0 (a head and one worker), then
			// its submitter Job once they are bound; at 10m every pod
			// ends: the cluster's are replaced (shutdownAfterJobFinishes
			// is false), the Job completes
			dir: "rayjob",
			pods: []string{
				"rayjob-sample-0-head-0@n1:Succeeded", "rayjob-sample-0-small-group-worker-0@n1:Succeeded", "rayjob-sample-0@n1:Succeeded",
				"rayjob-sample-0-head-1@n1:Bound", "rayjob-sample-0-small-group-worker-1@n1:Bound",
			},
			warnings: []string{"ConfigMap "},
		},
		{
			// a gang of 3; the master's task completes at 10m, and
			// CompleteJob deletes the workers
			dir: "volcano-job",
			pods: []string{
				"lm-mpi-job-mpimaster-0@n1:Succeeded", "lm-mpi-job-mpiworker-0@:Deleted", "lm-mpi-job-mpiworker-1@:Deleted",
			},
			groups:   []string{"lm-mpi-job-0"},
			warnings: []string{"Job spec.minAvailable"},
		},
		{
			// a Kueue Workload with no job in the inputs: its pod set main
			// makes count 3 pods <workload>-<podset>-<index> of 1 cpu,
			// spread as the default scoring spreads them (least
			// allocated): main-0 on n1, main-1 on the emptier n2, main-2
			// on n1 (a tie, the first node); no gang (no topology
			// request); each runs the default 10m and succeeds
			dir: "kueue-workload",
			pods: []string{
				"team-a/sample-job-main-0@n1:Succeeded", "team-a/sample-job-main-1@n2:Succeeded", "team-a/sample-job-main-2@n1:Succeeded",
			},
			warnings: []string{"Workload spec.podSets", "Workload spec.queueName"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			dir := filepath.Join("testdata/kube/public-samples", tt.dir)
			sc, err := Load(dir, WithDefaultDuration(FixedRunTime(10*time.Minute)))
			require.NoError(t, err)
			var warned []string
			for _, w := range sc.Warnings {
				warned = append(warned, w.Kind+" "+w.Field)
			}
			require.Equal(t, tt.warnings, warned)
			res, err := sc.Run()
			require.NoError(t, err)
			var pods []string
			for _, p := range res.Pods {
				pods = append(pods, p.Name+"@"+p.Node+":"+string(p.Phase))
			}
			require.Equal(t, tt.pods, pods)
			var groups []string
			for _, g := range res.PodGroups {
				groups = append(groups, g.Name)
			}
			require.Len(t, groups, len(tt.groups))
			for i, g := range tt.groups {
				require.True(t, strings.HasPrefix(groups[i], g), "group %s is %s...", groups[i], g)
			}
			if tt.dir == "leaderworkerset-restart" {
				require.Equal(t, 16, res.Stats.Scheduled)
				require.Equal(t, []WorkloadResult{{Kind: "LeaderWorkerSet", Name: "leaderworkerset-sample", Status: "Running", Restarts: 1, Active: 12}}, res.Workloads)
			}
			out, err := json.MarshalIndent(res, "", "  ")
			require.NoError(t, err)
			golden(t, filepath.Join(dir, "result.golden"), append(out, '\n'))
		})
	}
}

// The pods of a LeaderWorkerSet carry the labels of LWS's controller and
// webhook; the leader of an exclusive placement has its group's affinity
// and the other groups' anti-affinity; its workers the pool of their
// leader's node as a node selector.
func TestLeaderWorkerSetPods(t *testing.T) {
	sc, err := Load("testdata/kube/public-samples/leaderworkerset")
	require.NoError(t, err)
	var leader *cluster.Pod
	for i := range sc.Pods {
		if sc.Pods[i].Pod.Name == "leaderworkerset-sample-1" {
			leader = &sc.Pods[i].Pod
		}
	}
	require.NotNil(t, leader)
	key := leader.Labels["leaderworkerset.sigs.k8s.io/group-key"]
	require.Len(t, key, 40, "a sha1 of namespace/leader")
	require.Equal(t, "leaderworkerset-sample", leader.Labels["leaderworkerset.sigs.k8s.io/name"])
	require.Equal(t, "1", leader.Labels["leaderworkerset.sigs.k8s.io/group-index"])
	require.Equal(t, "0", leader.Labels["leaderworkerset.sigs.k8s.io/worker-index"])
	require.NotEmpty(t, leader.Labels["leaderworkerset.sigs.k8s.io/template-revision-hash"])
	require.Equal(t, &cluster.Owner{Kind: "StatefulSet", Name: "leaderworkerset-sample", Selector: &cluster.LabelSelector{MatchLabels: map[string]string{
		"leaderworkerset.sigs.k8s.io/name": "leaderworkerset-sample", "leaderworkerset.sigs.k8s.io/worker-index": "0"}}}, leader.Owner)
	aff := leader.Affinity
	require.Len(t, aff.PodAffinity.Required, 1)
	require.Equal(t, "cloud.google.com/gke-nodepool", aff.PodAffinity.Required[0].TopologyKey)
	require.Len(t, aff.PodAntiAffinity.Required, 1)
	require.Equal(t, "cloud.google.com/gke-nodepool", aff.PodAntiAffinity.Required[0].TopologyKey)
	// only the leaders arrive at time 0: the workers wait for them
	var names []string
	for _, p := range sc.Pods {
		names = append(names, p.Pod.Name)
	}
	require.Equal(t, []string{"leaderworkerset-sample-0", "leaderworkerset-sample-1", "leaderworkerset-sample-2"}, names)

	res, err := sc.Run()
	require.NoError(t, err)
	require.True(t, slices.ContainsFunc(res.Pods, func(p PodResult) bool { return p.Name == "leaderworkerset-sample-1-3" && p.Node == "b-2" }))
}

// The rules of the importer for the set kinds, each on a small object: the
// pods made at time 0 (name and the labels that tell them apart), the
// gangs (name and minCount) and, run, the pods' end states.
func TestSetKindsRules(t *testing.T) {
	node := "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {rack: r1}}\nstatus: {allocatable: {cpu: \"16\", memory: 64Gi, pods: \"110\"}}\n"
	for _, tt := range []struct {
		name   string
		doc    string
		label  string   // the label shown beside each pod made at time 0
		pods   []string // name=label value
		groups []string // name/minCount
		parent string   // the CompositePodGroup the groups are children of: name/minGroupCount
		ran    []string // name:phase after the run, when set
	}{{
		name: "LWS LeaderReady with Volcano: leaders first, a gang of 1 per group",
		doc: "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: l}\n" +
			"spec: {replicas: 2, startupPolicy: LeaderReady, leaderWorkerTemplate: {size: 3, workerTemplate: {spec: {schedulerName: volcano, containers: [{name: c}]}}}}\n",
		label:  "leaderworkerset.sigs.k8s.io/group-index",
		pods:   []string{"l-0=0", "l-1=1"},
		groups: []string{"l-0-/1", "l-1-/1"},
		ran:    []string{"l-0:Bound", "l-1:Bound", "l-0-1:Bound", "l-0-2:Bound", "l-1-1:Bound", "l-1-2:Bound"},
	}, {
		name: "LWS subgroups: the leader is the extra pod of the first subgroup when size - 1 divides",
		doc: "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: l}\n" +
			"spec: {leaderWorkerTemplate: {size: 5, subGroupPolicy: {subGroupSize: 2}, workerTemplate: {spec: {containers: [{name: c}]}}}}\n",
		label: "leaderworkerset.sigs.k8s.io/subgroup-index",
		pods:  []string{"l-0=0", "l-0-1=0", "l-0-2=0", "l-0-3=1", "l-0-4=1"},
	}, {
		name: "LWS subgroups of a size that divides: the workers count from 0",
		doc: "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: l}\n" +
			"spec: {leaderWorkerTemplate: {size: 4, subGroupPolicy: {subGroupSize: 2}, workerTemplate: {spec: {containers: [{name: c}]}}}}\n",
		label: "leaderworkerset.sigs.k8s.io/subgroup-index",
		pods:  []string{"l-0=0", "l-0-1=0", "l-0-2=1", "l-0-3=1"},
	}, {
		name: "Ray: replicas bounded by maxReplicas, times numOfHosts; a suspended group makes none; the gang counts the head",
		doc: "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: rc, labels: {ray.io/gang-scheduling-enabled: \"true\"}}\n" +
			"spec: {headGroupSpec: {rayStartParams: {}, template: {spec: {containers: [{name: h}]}}}, workerGroupSpecs: [\n" +
			"  {groupName: GPU, replicas: 5, minReplicas: 1, maxReplicas: 3, numOfHosts: 2, rayStartParams: {}, template: {spec: {containers: [{name: w}]}}},\n" +
			"  {groupName: off, suspend: true, replicas: 2, minReplicas: 0, maxReplicas: 2, rayStartParams: {}, template: {spec: {containers: [{name: w}]}}}]}\n",
		label: "ray.io/group",
		pods: []string{"rc-head-0=headgroup", "rc-gpu-worker-0=GPU", "rc-gpu-worker-1=GPU", "rc-gpu-worker-2=GPU", "rc-gpu-worker-3=GPU",
			"rc-gpu-worker-4=GPU", "rc-gpu-worker-5=GPU"},
		groups: []string{"rc/7"},
	}, {
		name: "RayJob: the submitter runs once the cluster is bound; shutdownAfterJobFinishes deletes the cluster",
		doc: "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: rj}\nspec: {shutdownAfterJobFinishes: true,\n" +
			"  submitterPodTemplate: {metadata: {annotations: {gangsim.io/duration: 5m}}, spec: {containers: [{name: s}]}},\n" +
			"  rayClusterSpec: {headGroupSpec: {rayStartParams: {}, template: {spec: {containers: [{name: h}]}}},\n" +
			"    workerGroupSpecs: [{groupName: w, replicas: 1, minReplicas: 1, maxReplicas: 1, rayStartParams: {}, template: {spec: {containers: [{name: w}]}}}]}}\n",
		label: "ray.io/cluster",
		pods:  []string{"rj-0-head-0=rj-0", "rj-0-w-worker-0=rj-0"},
		ran:   []string{"rj-0-head-0:Deleted", "rj-0-w-worker-0:Deleted", "rj-0:Succeeded"},
	}, {
		name: "RayJob in HTTPMode: the cluster alone, and it stays",
		doc: "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: rj}\nspec: {submissionMode: HTTPMode, shutdownAfterJobFinishes: true,\n" +
			"  rayClusterSpec: {headGroupSpec: {rayStartParams: {}, template: {spec: {containers: [{name: h}]}}}}}\n",
		label: "ray.io/node-type",
		pods:  []string{"rj-0-head-0=head"},
		ran:   []string{"rj-0-head-0:Bound"},
	}, {
		name: "RayJob with a clusterSelector: its submitter runs on the cluster of the inputs, which stays",
		doc: "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: shared}\nspec: {headGroupSpec: {rayStartParams: {}, template: {spec: {containers: [{name: h}]}}}}\n" +
			"---\napiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: rj}\nspec: {clusterSelector: {ray.io/cluster: shared},\n" +
			"  submitterPodTemplate: {metadata: {annotations: {gangsim.io/duration: 5m}}, spec: {containers: [{name: s}]}}}\n",
		label: "ray.io/cluster",
		pods:  []string{"shared-head-0=shared"},
		ran:   []string{"shared-head-0:Bound", "rj-0:Succeeded"},
	}, {
		name: "RayJob with a clusterSelector naming no cluster of the inputs: no pods",
		doc:  "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: rj}\nspec: {clusterSelector: {ray.io/cluster: elsewhere}}\n",
		ran:  []string{},
	}, {
		name: "Volcano: default task names, the gang of minAvailable (the sum of the tasks' by default), a uid in its name",
		doc: "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: vj, uid: 42}\n" +
			"spec: {tasks: [{replicas: 2, template: {spec: {containers: [{name: c}]}}}, {replicas: 1, template: {spec: {containers: [{name: c}]}}}]}\n",
		label:  "volcano.sh/task-spec",
		pods:   []string{"vj-default0-0=default0", "vj-default0-1=default0", "vj-default1-0=default1"},
		groups: []string{"vj-42/3"},
	}, {
		name: "Volcano: a task's own minimum is a gang of its own under a composite of the job",
		doc: "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: vj}\n" +
			"spec: {tasks: [{name: ps, replicas: 2, minAvailable: 1, template: {spec: {containers: [{name: c}]}}}, {name: w, replicas: 3, template: {spec: {containers: [{name: c}]}}},\n" +
			"  {name: extra, replicas: 1, minAvailable: 0, template: {spec: {containers: [{name: c}]}}}]}\n",
		label:  "volcano.sh/task-spec",
		pods:   []string{"vj-ps-0=ps", "vj-ps-1=ps", "vj-w-0=w", "vj-w-1=w", "vj-w-2=w", "vj-extra-0=extra"},
		groups: []string{"vj-0-ps/1", "vj-0-w/3"},
		parent: "vj-0/2",
		// all placed, all succeed at 1h
		ran: []string{"vj-ps-0:Succeeded", "vj-ps-1:Succeeded", "vj-w-0:Succeeded", "vj-w-1:Succeeded", "vj-w-2:Succeeded", "vj-extra-0:Succeeded"},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse("f.yaml", []byte(tt.doc+node), WithDefaultDuration(FixedRunTime(time.Hour)))
			require.NoError(t, err)
			var pods []string
			for _, p := range sc.Pods {
				pods = append(pods, p.Pod.Name+"="+p.Pod.Labels[tt.label])
			}
			require.Equal(t, tt.pods, pods)
			var groups []string
			for _, g := range sc.PodGroups {
				groups = append(groups, fmt.Sprintf("%s/%d", g.Name, g.MinCount))
			}
			require.Len(t, groups, len(tt.groups))
			for i, g := range tt.groups {
				prefix, count, _ := strings.Cut(g, "/")
				require.True(t, strings.HasPrefix(groups[i], prefix) && strings.HasSuffix(groups[i], "/"+count), "%s is %s", groups[i], g)
			}
			var parents []string
			for _, g := range sc.CompositePodGroups {
				parents = append(parents, fmt.Sprintf("%s/%d", g.Name, g.MinGroupCount))
			}
			if tt.parent != "" {
				require.Equal(t, []string{tt.parent}, parents)
				for _, g := range sc.PodGroups {
					require.Equal(t, strings.Split(tt.parent, "/")[0], g.Parent)
				}
			} else {
				require.Empty(t, parents)
			}
			if tt.ran == nil {
				return
			}
			res, err := sc.Run()
			require.NoError(t, err)
			ran := []string{}
			for _, p := range res.Pods {
				ran = append(ran, p.Name+":"+string(p.Phase))
			}
			require.Equal(t, tt.ran, ran)
		})
	}
}
