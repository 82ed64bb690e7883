package scenario

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/podgroup"
)

// Seeds of every version of the scheduling.k8s.io objects a cluster of
// v1.35 to v1.37 serves, for the tests below and the importer's fuzz test.
const (
	// v1.35: a Workload's pod groups inline, pods naming them by
	// spec.workloadRef, one group per replica key
	workloadV1alpha1 = "apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {name: train, namespace: ml}\n" +
		"spec: {controllerRef: {apiGroup: batch, kind: Job, name: train}, podGroups: [{name: workers, policy: {gang: {minCount: 2}}}, {name: loose, policy: {basic: {}}}]}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: w-0, namespace: ml}\nspec: {workloadRef: {name: train, podGroup: workers, podGroupReplicaKey: r0}, containers: [{name: c}]}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: w-1, namespace: ml}\nspec: {workloadRef: {name: train, podGroup: workers, podGroupReplicaKey: r0}, containers: [{name: c}]}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: w-2, namespace: ml}\nspec: {workloadRef: {name: train, podGroup: workers, podGroupReplicaKey: r1}, containers: [{name: c}]}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: l-0, namespace: ml}\nspec: {workloadRef: {name: train, podGroup: loose}, containers: [{name: c}]}\n"
	// v1.36: a standalone PodGroup, its disruption mode a string
	podGroupV1alpha2 = "apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\n" +
		"spec: {podGroupTemplateRef: {workload: {workloadName: train, podGroupTemplateName: workers}}, schedulingPolicy: {gang: {minCount: 2}},\n" +
		"  schedulingConstraints: {topology: [{key: rack}]}, disruptionMode: PodGroup, priority: 100}\n" +
		"---\napiVersion: scheduling.k8s.io/v1alpha2\nkind: Workload\nmetadata: {name: train, namespace: ml}\n" +
		"spec: {podGroupTemplates: [{name: workers, schedulingPolicy: {gang: {minCount: 2}}, disruptionMode: Pod}]}\n"
	// v1.37: a Workload of composite templates, and its groups
	workloadV1beta1 = "apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nmetadata: {name: train, namespace: ml}\n" +
		"spec: {compositePodGroupTemplates: [{name: top, schedulingPolicy: {gang: {minGroupCount: 2}}, disruptionMode: {all: {}},\n" +
		"  podGroupTemplates: [{name: a, schedulingPolicy: {gang: {minCount: 2}}}, {name: b, schedulingPolicy: {basic: {}}}]}]}\n" +
		"---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\n" +
		"spec: {workloadRef: {workloadName: train, templateName: a}, schedulingPolicy: {gang: {minCount: 3}}, disruptionMode: {all: {}}}\n"
	workloadV1alpha3 = "apiVersion: scheduling.k8s.io/v1alpha3\nkind: Workload\nmetadata: {name: train, namespace: ml}\n" +
		"spec: {podGroupTemplates: [{name: a, schedulingPolicy: {basic: {}}, preemptionPolicy: Never}]}\n" +
		"---\napiVersion: scheduling.k8s.io/v1alpha3\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\nspec: {schedulingPolicy: {basic: {}}}\n"
)

func warningKeys(sc *Scenario) []string {
	var out []string
	for _, w := range sc.Warnings {
		out = append(out, strings.TrimSpace(w.Kind+" "+w.Field))
	}
	return out
}

// Each version is read into v1.37's model: the groups it gives, with the
// warnings that say how.
func TestSchedulingVersionsRead(t *testing.T) {
	type group struct {
		name     string
		minCount int32
		policy   podgroup.Policy
		topology string
		mode     podgroup.DisruptionMode
		priority int32 // 0: none given
	}
	tests := []struct {
		name     string
		text     string
		groups   []group
		members  map[string]string // pod: its group
		warnings []string
	}{
		{"v1alpha1", workloadV1alpha1,
			[]group{{"train-workers-r0", 2, podgroup.Gang, "", "", 0}, {"train-workers-r1", 2, podgroup.Gang, "", "", 0}, {"train-loose", 0, podgroup.Basic, "", "", 0}},
			map[string]string{"w-0": "train-workers-r0", "w-1": "train-workers-r0", "w-2": "train-workers-r1", "l-0": "train-loose"},
			[]string{"Pod spec.workloadRef", "Workload apiVersion scheduling.k8s.io/v1alpha1"}},
		{"v1alpha2", podGroupV1alpha2,
			[]group{{"g", 2, podgroup.Gang, "rack", podgroup.DisruptAll, 100}}, nil,
			[]string{"PodGroup apiVersion scheduling.k8s.io/v1alpha2", "Workload"}},
		{"v1alpha3", workloadV1alpha3, []group{{"g", 0, podgroup.Basic, "", "", 0}}, nil, []string{"Workload"}},
		{"v1beta1", workloadV1beta1, []group{{"g", 3, podgroup.Gang, "", podgroup.DisruptAll, 0}}, nil, []string{"Workload"}},
		// the group takes its first pod's priority
		{"v1alpha1 priority", "apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {name: w}\nspec: {podGroups: [{name: g, policy: {gang: {minCount: 1}}}]}\n" +
			"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {priority: 7, workloadRef: {name: w, podGroup: g}, containers: [{name: c}]}\n",
			[]group{{"w-g", 1, podgroup.Gang, "", "", 7}}, map[string]string{"p": "w-g"}, []string{"Pod spec.workloadRef", "Workload apiVersion scheduling.k8s.io/v1alpha1"}},
		// a pod naming a Workload no input defines waits for it
		{"v1alpha1 missing workload", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {workloadRef: {name: w, podGroup: g}, containers: [{name: c}]}\n",
			nil, map[string]string{"p": "w-g"}, []string{"podGroup", "Pod spec.workloadRef"}},
		{"v1alpha1 missing group", "apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {name: w}\nspec: {podGroups: [{name: a, policy: {basic: {}}}]}\n" +
			"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {workloadRef: {name: w, podGroup: b}, containers: [{name: c}]}\n",
			nil, map[string]string{"p": "w-b"}, []string{"podGroup", "Pod spec.workloadRef", "Pod spec.workloadRef.podGroup", "Workload apiVersion scheduling.k8s.io/v1alpha1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse("in.yaml", []byte(tt.text))
			require.NoError(t, err)
			var got []group
			for _, g := range sc.PodGroups {
				prio := int32(0)
				if g.Priority != nil {
					prio = *g.Priority
				}
				got = append(got, group{g.Name, g.MinCount, g.Policy, g.TopologyKey, g.DisruptionMode, prio})
			}
			require.ElementsMatch(t, tt.groups, got)
			for _, p := range sc.Pods {
				require.Equal(t, tt.members[p.Pod.Name], p.Pod.PodGroup, p.Pod.Name)
			}
			require.Equal(t, tt.warnings, warningKeys(sc))
		})
	}
}

// What a version gets wrong is an error naming the file, the object and
// the field.
func TestSchedulingVersionsErrors(t *testing.T) {
	w1 := func(spec string) string {
		return "apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {name: w}\nspec: " + spec + "\n"
	}
	pg2 := func(spec string) string {
		return "apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: g}\nspec: " + spec + "\n"
	}
	w2 := func(spec string) string {
		return "apiVersion: scheduling.k8s.io/v1alpha2\nkind: Workload\nmetadata: {name: w}\nspec: " + spec + "\n"
	}
	w3 := func(spec string) string {
		return "apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w}\nspec: " + spec + "\n"
	}
	pod := func(ref string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {workloadRef: " + ref + ", containers: [{name: c}]}\n"
	}
	basic := "schedulingPolicy: {basic: {}}"
	tests := []struct{ name, text, want string }{
		// v1alpha1
		{"v1alpha1 no groups", w1("{podGroups: []}"), `Workload default/w: spec.podGroups: required: at least one`},
		{"v1alpha1 group name", w1("{podGroups: [{name: A_b, policy: {basic: {}}}]}"), `Workload default/w: spec.podGroups[0] (A_b).name:`},
		{"v1alpha1 group twice", w1("{podGroups: [{name: a, policy: {basic: {}}}, {name: a, policy: {basic: {}}}]}"), `spec.podGroups[1] (a).name: "a" is given twice in the Workload`},
		{"v1alpha1 no policy", w1("{podGroups: [{name: a}]}"), `Workload default/w: spec.podGroups[0] (a).policy: required`},
		{"v1alpha1 both policies", w1("{podGroups: [{name: a, policy: {basic: {}, gang: {minCount: 1}}}]}"), `spec.podGroups[0] (a).policy: exactly one of basic and gang`},
		{"v1alpha1 zero count", w1("{podGroups: [{name: a, policy: {gang: {minCount: 0}}}]}"), `spec.podGroups[0] (a).policy.gang.minCount: 0 is below 1`},
		{"v1alpha1 v1.36 field", w1("{podGroupTemplates: []}"), `Workload default/w: spec.podGroupTemplates:`},
		{"v1alpha1 nine groups", w1("{podGroups: [" + strings.Repeat("{name: a, policy: {basic: {}}}, ", 8) + "{name: b, policy: {basic: {}}}]}"), `spec.podGroups: 9 entries, more than 8`},
		{"workloadRef without group", pod("{name: w}"), `Pod default/p: spec.workloadRef.podGroup: required`},
		{"workloadRef bad key", pod("{name: w, podGroup: g, podGroupReplicaKey: R.1}"), `Pod default/p: spec.workloadRef.podGroupReplicaKey:`},
		{"workloadRef and schedulingGroup", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {schedulingGroup: {podGroupName: g}, workloadRef: {name: w, podGroup: g}, containers: [{name: c}]}\n",
			`Pod default/p: spec.workloadRef: a pod names its group once`},
		// v1alpha2
		{"v1alpha2 disruption mode", pg2("{" + basic + ", disruptionMode: All}"), `PodGroup default/g: spec.disruptionMode: "All" is not Pod or PodGroup (v1.37's {all: {}} is a field of v1alpha3 and v1beta1)`},
		{"v1alpha2 v1.37 union", pg2("{" + basic + ", disruptionMode: {all: {}}}"), `PodGroup default/g: spec.disruptionMode:`},
		{"v1alpha2 v1.37 field", pg2("{" + basic + ", preemptionPolicy: Never}"), `PodGroup default/g: spec.preemptionPolicy:`},
		{"v1alpha2 empty ref", pg2("{" + basic + ", podGroupTemplateRef: {}}"), `PodGroup default/g: spec.podGroupTemplateRef: exactly one reference`},
		{"v1alpha2 ref without template", pg2("{" + basic + ", podGroupTemplateRef: {workload: {workloadName: w}}}"), `spec.podGroupTemplateRef.workload.podGroupTemplateName: required`},
		{"v1alpha2 no policy", pg2("{}"), `PodGroup default/g: spec.schedulingPolicy: required`},
		{"v1alpha2 two keys", pg2("{" + basic + ", schedulingConstraints: {topology: [{key: a}, {key: b}]}}"), `spec.schedulingConstraints.topology: at most one`},
		{"v1alpha2 workload template mode", w2("{podGroupTemplates: [{name: a, " + basic + ", disruptionMode: Gang}]}"), `Workload default/w: spec.podGroupTemplates[0] (a).disruptionMode: "Gang" is not Pod or PodGroup`},
		{"v1alpha2 workload priorities", w2("{podGroupTemplates: [{name: a, " + basic + ", priority: 1}, {name: b, " + basic + ", priority: 2}]}"),
			`spec.podGroupTemplates[1] (b): priority and priorityClassName differ from spec.podGroupTemplates[0] (a)'s`},
		{"v1alpha2 workload no templates", w2("{}"), `Workload default/w: spec.podGroupTemplates: required`},
		// v1beta1 and v1alpha3
		{"v1beta1 both lists", w3("{podGroupTemplates: [{name: a, " + basic + "}], compositePodGroupTemplates: [{name: c, " + basic + ", podGroupTemplates: [{name: b, " + basic + "}]}]}"),
			`Workload default/w: spec: exactly one of podGroupTemplates and compositePodGroupTemplates`},
		{"v1beta1 composite without children", w3("{compositePodGroupTemplates: [{name: c, " + basic + "}]}"), `spec.compositePodGroupTemplates[0] (c): a composite template has at least one child`},
		{"v1beta1 composite count", w3("{compositePodGroupTemplates: [{name: c, schedulingPolicy: {gang: {minGroupCount: 0}}, podGroupTemplates: [{name: b, " + basic + "}]}]}"),
			`spec.compositePodGroupTemplates[0] (c).schedulingPolicy.gang.minGroupCount: 0 is below 1`},
		{"v1beta1 name twice in the tree", w3("{compositePodGroupTemplates: [{name: c, " + basic + ", podGroupTemplates: [{name: c, " + basic + "}]}]}"),
			`spec.compositePodGroupTemplates[0] (c).podGroupTemplates[0] (c).name: "c" is given twice in the Workload`},
		{"v1beta1 too deep", w3("{compositePodGroupTemplates: [{name: c1, " + basic + ", compositePodGroupTemplates: [{name: c2, " + basic + ", compositePodGroupTemplates: [{name: c3, " + basic +
			", compositePodGroupTemplates: [{name: c4, " + basic + ", podGroupTemplates: [{name: p, " + basic + "}]}]}]}]}]}"), `templates nested deeper than 4 levels`},
		{"v1beta1 preemption policy", w3("{podGroupTemplates: [{name: a, " + basic + ", preemptionPolicy: Sometimes}]}"), `spec.podGroupTemplates[0] (a).preemptionPolicy: "Sometimes" is not PreemptLowerPriority or Never`},
		{"v1beta1 v1.36 mode", w3("{podGroupTemplates: [{name: a, " + basic + ", disruptionMode: Pod}]}"), `Workload default/w: spec.podGroupTemplates[0] (a).disruptionMode: expected a mapping`},
		{"v1beta1 v1.35 field", w3("{podGroups: [{name: a, policy: {basic: {}}}]}"), `Workload default/w: spec.podGroups:`},
		{"v1alpha3 composite policy", "apiVersion: scheduling.k8s.io/v1alpha3\nkind: Workload\nmetadata: {name: w}\nspec: {compositePodGroupTemplates: [{name: c, podGroupTemplates: [{name: b, " + basic + "}]}]}\n",
			`spec.compositePodGroupTemplates[0] (c).schedulingPolicy: required`},
		{"line of a nested template", "apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w}\nspec:\n  compositePodGroupTemplates:\n  - name: c\n    schedulingPolicy: {basic: {}}\n" +
			"    podGroupTemplates:\n    - name: a\n      schedulingPolicy: {gang: {minCount: 0}}\n",
			`in.yaml: line 10: Workload default/w: spec.compositePodGroupTemplates[0] (c).podGroupTemplates[0] (a).schedulingPolicy.gang.minCount: 0 is below 1`},
		{"line of a v1alpha1 group", "apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {name: w}\nspec:\n  podGroups:\n  - name: a\n    policy: {basic: {}}\n  - name: b\n    policy: {}\n",
			`in.yaml: line 9: Workload default/w: spec.podGroups[1] (b).policy: exactly one of basic and gang`},
		{"workload twice", w1("{podGroups: [{name: a, policy: {basic: {}}}]}") + "---\n" + w3("{podGroupTemplates: [{name: a, "+basic+"}]}"),
			`in.yaml: line 8: Workload default/w: metadata.name: Workload default/w is defined twice: first in in.yaml, line 1 (Workload default/w)`},
		{"unknown version", "apiVersion: scheduling.k8s.io/v1\nkind: Workload\nmetadata: {name: w}\nspec: {}\n",
			`Workload default/w: apiVersion: "scheduling.k8s.io/v1" is not a version of Workload the simulator reads (scheduling.k8s.io/v1beta1, scheduling.k8s.io/v1alpha3, scheduling.k8s.io/v1alpha2, scheduling.k8s.io/v1alpha1)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("in.yaml", []byte(tt.text))
			require.Error(t, err)
			require.ErrorIs(t, err, ErrScenario)
			require.Contains(t, err.Error(), "in.yaml: line ")
			require.Contains(t, err.Error(), tt.want)
		})
	}
}

// Kinds of other API groups that share a name with one the importer
// reads are other kinds: skipped with a warning, not refused for their
// version.
func TestSameNameOtherGroup(t *testing.T) {
	text := "apiVersion: batch.example.com/v1\nkind: Job\nmetadata: {name: j}\nspec: {minAvailable: 1, tasks: []}\n" +
		"---\napiVersion: workloads.example.com/v1\nkind: Workload\nmetadata: {name: w}\nspec: {}\n" +
		"---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {minMember: 1}\n"
	sc, err := Parse("in.yaml", []byte(text))
	require.NoError(t, err)
	require.Equal(t, []string{"Job", "PodGroup", "Workload"}, warningKeys(sc))
	require.Empty(t, sc.PodGroups)
	// in a group of Kubernetes' own, the kind is refused for its version:
	// an old group, a typo, a group of k8s.io
	for _, apiVersion := range []string{"extensions/v1beta1", "app/v1", "apps.k8s.io/v1"} {
		_, err = Parse("in.yaml", []byte("apiVersion: "+apiVersion+"\nkind: Deployment\nmetadata: {name: d}\nspec: {}\n"))
		require.ErrorContains(t, err, `apiVersion: "`+apiVersion+`" is not a version of Deployment`)
	}
}

// A v1.36 PodGroup's resourceClaims are the claims its pods share: in the
// dra-example-driver's public sample, two Deployments of two pods, each
// in its group with one GPU from a template, so each group's two pods get
// the same single device, and the two groups different ones.
func TestV1alpha2PodGroupClaims(t *testing.T) {
	dir := "testdata/kube/public"
	sc, err := LoadFiles([]string{dir + "/nodes.yaml", dir + "/dra-example-driver/podgroup-resourceclaimtemplate.yaml"})
	require.NoError(t, err)
	require.Len(t, sc.PodGroups, 2)
	for _, g := range sc.PodGroups {
		require.Len(t, g.ResourceClaims, 1, g.Name)
	}
	res, err := sc.Run()
	require.NoError(t, err)
	byGroup := map[string]map[string]bool{} // the devices of each group's pods
	for _, p := range res.Pods {
		require.Equal(t, "Bound", string(p.Phase), p.Name)
		_, name, _ := strings.Cut(p.Name, "/")
		group := strings.SplitN(name, "-", 3) // group-<n>-<hash>-<k>
		require.Len(t, group, 3, p.Name)
		g := group[0] + "-" + group[1]
		if byGroup[g] == nil {
			byGroup[g] = map[string]bool{}
		}
		for _, devices := range p.Claims {
			for _, d := range devices {
				byGroup[g][d] = true
			}
		}
	}
	require.Len(t, byGroup, 2)
	var all []string
	for g, devices := range byGroup {
		require.Len(t, devices, 1, "group %s shares one device", g)
		for d := range devices {
			all = append(all, d)
		}
	}
	require.NotEqual(t, all[0], all[1])
}
