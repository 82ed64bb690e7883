package scenario

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/kueue"
)

// Kueue's own samples (testdata/kube/public/kueue: its documentation's
// queue setups, and kueueviz's cohorts and priority classes) load
// without errors, every object read; so do its two other ResourceFlavor
// samples (testdata/kube/kueue: resource-flavor-taints.yaml and
// resource-flavor-tolerations.yaml, apart since they define the flavor
// "spot" of shared-quota-setup.yaml again). Its documentation's minimal-cq.yaml
// is in testdata/kube/bad: its admission check names onFlavors
// default-flavor in a ClusterQueue with no resource groups, which
// Kueue v0.19's webhook refuses on create (validateAdmissionCheckOnFlavors).
func TestKueuePublicSamples(t *testing.T) {
	files, err := filepath.Glob("testdata/kube/public/kueue/*.yaml")
	require.NoError(t, err)
	more, err := filepath.Glob("testdata/kube/kueue/*.yaml")
	require.NoError(t, err)
	files = append(files, more...)
	total := map[string]int{}
	for _, f := range files {
		sc, err := Load(f)
		require.NoError(t, err, f)
		if o := sc.Kueue; o != nil {
			total["ResourceFlavor"] += len(o.ResourceFlavors)
			total["ClusterQueue"] += len(o.ClusterQueues)
			total["LocalQueue"] += len(o.LocalQueues)
			total["Cohort"] += len(o.Cohorts)
			total["WorkloadPriorityClass"] += len(o.WorkloadPriorityClasses)
			total["Topology"] += len(o.Topologies)
		}
	}
	// the kind: lines of the files (grep -h ^kind: | sort | uniq -c)
	require.Equal(t, map[string]int{"ResourceFlavor": 7, "ClusterQueue": 3, "LocalQueue": 3, "Cohort": 5, "WorkloadPriorityClass": 3, "Topology": 1}, total)
}

// A scenario without Kueue objects has none.
func TestKueueAbsent(t *testing.T) {
	sc, err := Load("testdata/kube/public/kueue/sample-job.yaml")
	require.NoError(t, err)
	require.Nil(t, sc.Kueue)
}

// v1beta1 and v1beta2 of each kind read to the same values: v1beta1's
// spec.cohort is v1beta2's spec.cohortName, its flavorFungibility Borrow
// and Preempt are MayStopSearch, its admissionChecks names are
// admissionChecksStrategy rules, and its Configuration's enable: true is
// v1beta2's section being there.
func TestKueueVersions(t *testing.T) {
	for _, tt := range []struct{ kind, v1beta1, v1beta2 string }{
		{"ClusterQueue",
			"spec:\n  cohort: all\n  namespaceSelector: {}\n  flavorFungibility: {whenCanBorrow: Borrow, whenCanPreempt: Preempt}\n  admissionChecks: [prov]\n" +
				"  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: default\n      resources:\n      - {name: cpu, nominalQuota: \"9\", lendingLimit: 500m}\n",
			"spec:\n  cohortName: all\n  namespaceSelector: {}\n  flavorFungibility: {whenCanBorrow: MayStopSearch, whenCanPreempt: MayStopSearch}\n  admissionChecksStrategy: {admissionChecks: [{name: prov}]}\n" +
				"  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: default\n      resources:\n      - {name: cpu, nominalQuota: \"9\", lendingLimit: 500m}\n"},
		{"Cohort", "spec: {parentName: root, fairSharing: {weight: \"0.5\"}}\n", "spec: {parentName: root, fairSharing: {weight: 500m}}\n"},
		{"LocalQueue", "spec: {clusterQueue: cq, stopPolicy: Hold}\n", "spec: {clusterQueue: cq, stopPolicy: Hold}\n"},
		{"ResourceFlavor", "spec: {nodeLabels: {pool: a}, topologyName: t, tolerations: [{key: k, operator: Exists, effect: NoSchedule}]}\n",
			"spec: {nodeLabels: {pool: a}, topologyName: t, tolerations: [{key: k, operator: Exists, effect: NoSchedule}]}\n"},
		{"WorkloadPriorityClass", "value: 100\n", "value: 100\n"},
		{"Topology", "spec: {levels: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}\n", "spec: {levels: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}\n"},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			read := func(version, body string) *kueue.Objects {
				text := "apiVersion: kueue.x-k8s.io/" + version + "\nkind: " + tt.kind + "\nmetadata: {name: x, namespace: ns}\n" + body
				if tt.kind != "LocalQueue" {
					text = strings.Replace(text, ", namespace: ns", "", 1)
				}
				sc, err := Parse("in.yaml", []byte(text))
				require.NoError(t, err, version)
				require.NotNil(t, sc.Kueue, version)
				return sc.Kueue
			}
			require.Equal(t, read("v1beta2", tt.v1beta2), read("v1beta1", tt.v1beta1))
		})
	}
	conf := func(text string) *kueue.Configuration {
		sc, err := Parse("c.yaml", []byte(text))
		require.NoError(t, err)
		return sc.Kueue.Configuration
	}
	v1 := conf("apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nwaitForPodsReady: {enable: true, timeout: 30m, blockAdmission: false}\nfairSharing: {enable: true, preemptionStrategies: [LessThanInitialShare]}\n")
	v2 := conf("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nwaitForPodsReady: {}\nfairSharing: {preemptionStrategies: [LessThanInitialShare]}\n")
	require.Equal(t, v2, v1)
	// v1beta2 (Kueue v0.19): 30 minutes, admission not blocked, on even
	// when not given; v1beta1: 5 minutes, admission blocked, when enabled
	require.Equal(t, &kueue.WaitForPodsReady{Timeout: 1800e9}, v2.WaitForPodsReady)
	require.Equal(t, &kueue.WaitForPodsReady{Timeout: 1800e9}, conf("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n").WaitForPodsReady)
	require.Equal(t, &kueue.WaitForPodsReady{Timeout: 300e9, BlockAdmission: true},
		conf("apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nwaitForPodsReady: {enable: true}\n").WaitForPodsReady)
	off := conf("apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nwaitForPodsReady: {enable: false}\nfairSharing: {enable: false}\nmanageJobsWithoutQueueName: true\n")
	require.Nil(t, off.WaitForPodsReady)
	require.Nil(t, off.FairSharing)
	require.True(t, off.ManageJobsWithoutQueueName)
}

// Defaults are Kueue's CRD defaults; a nil namespaceSelector stays nil
// (it matches nothing), an empty one is empty (it matches everything).
func TestKueueDefaults(t *testing.T) {
	sc, err := Parse("q.yaml", []byte("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: a}\nspec: {}\n"+
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: b}\nspec: {namespaceSelector: {}}\n"))
	require.NoError(t, err)
	a, b := sc.Kueue.ClusterQueues[0], sc.Kueue.ClusterQueues[1]
	require.Equal(t, kueue.BestEffortFIFO, a.QueueingStrategy)
	require.Equal(t, kueue.StopNone, a.StopPolicy)
	require.Equal(t, kueue.FlavorFungibility{WhenCanBorrow: kueue.MayStopSearch, WhenCanPreempt: kueue.TryNextFlavor}, a.FlavorFungibility)
	require.Equal(t, kueue.Preemption{ReclaimWithinCohort: kueue.PreemptNever, WithinClusterQueue: kueue.PreemptNever, BorrowWithinCohort: kueue.PreemptNever}, a.Preemption)
	require.Nil(t, a.NamespaceSelector)
	require.NotNil(t, b.NamespaceSelector)
	require.True(t, b.NamespaceSelector.IsEmpty())
}

// The same name in two files is refused, as the API server keeps one.
func TestKueueDuplicateAcrossFiles(t *testing.T) {
	_, err := LoadFiles([]string{"testdata/kube/public/kueue/single-clusterqueue-setup.yaml", "testdata/kube/public/kueue/single-clusterqueue-setup.yaml"})
	require.ErrorContains(t, err, `Duplicate value: "default-flavor": another ResourceFlavor has this name`)
}

// Kueue's Configuration is JSON to Kueue, whose numbers are finite: a
// weight or a rate of YAML's .nan or .inf is refused, naming the field,
// where it was taken and would have made every share NaN or the API
// client unbounded.
func TestKueueConfigNonFinite(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"clientConnection: {qps: .inf}", "c.yaml: line 3: Configuration: clientConnection.qps: Invalid value: +Inf: must be a finite number"},
		{"clientConnection: {qps: 1e39}", "c.yaml: line 3: Configuration: clientConnection.qps: Invalid value: +Inf: must be a finite number"},
		{"clientConnection: {qps: .nan}", "c.yaml: line 3: Configuration: clientConnection.qps: Invalid value: NaN: must be greater than 0"},
		{"admissionFairSharing: {resourceWeights: {cpu: 1, memory: .nan}}",
			"c.yaml: line 3: Configuration: admissionFairSharing.resourceWeights[memory]: Invalid value: NaN: must be a finite number"},
		{"admissionFairSharing: {resourceWeights: {cpu: .inf}}",
			"c.yaml: line 3: Configuration: admissionFairSharing.resourceWeights[cpu]: Invalid value: +Inf: must be a finite number"},
	} {
		_, err := Parse("c.yaml", []byte("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"+tt.in+"\n"))
		require.ErrorContains(t, err, tt.want, tt.in)
	}
}

// A quota or a weight may carry one minus sign (Kueue, not the parser,
// refuses a negative one), then its number: a second sign, a space or
// nothing after it is not a quantity, and the error quotes the text as
// written. Before, the sign was cut and the rest parsed: "-+1" read as
// -1, and "--1" was refused quoting "-1".
func TestKueueSignedQuantities(t *testing.T) {
	quota := func(q string) string {
		return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: c}\nspec:\n  resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: \"" + q + "\"}]}]}]\n"
	}
	weight := func(w string) string {
		return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: c}\nspec:\n  fairSharing: {weight: \"" + w + "\"}\n"
	}
	const at = "q.yaml: line 5: Cohort c: spec."
	for _, tt := range []struct{ in, want string }{
		{quota("--1"), at + `resourceGroups[0].flavors[0].resources[0].nominalQuota: "--1" is not a valid quantity: no number after the sign`},
		{quota("-+1"), at + `resourceGroups[0].flavors[0].resources[0].nominalQuota: "-+1" is not a valid quantity: no number after the sign`},
		{quota("- 1"), at + `resourceGroups[0].flavors[0].resources[0].nominalQuota: "- 1" is not a valid quantity: no number after the sign`},
		{quota("-"), at + `resourceGroups[0].flavors[0].resources[0].nominalQuota: "-" is not a valid quantity: no number after the sign`},
		{quota("-1X"), at + `resourceGroups[0].flavors[0].resources[0].nominalQuota: "-1X" is not a valid quantity: unknown suffix "X"`},
		{quota("-1"), at + `resourceGroups[0].flavors[0].resources[0].nominalQuota: Invalid value: "-1": must be greater than or equal to 0`},
		{weight("-+1"), at + `fairSharing.weight: "-+1" is not a valid quantity: no number after the sign`},
		{weight("-1e"), at + `fairSharing.weight: "-1e" is not a valid quantity`},
	} {
		_, err := Parse("q.yaml", []byte(tt.in))
		require.ErrorContains(t, err, tt.want, tt.in)
	}
}

// A name given twice is an error about the second object's
// metadata.name: the path names the object and the field, as every
// error about an object does, and the cause is Kueue's message alone.
func TestKueueDuplicateNamesTheField(t *testing.T) {
	_, err := Parse("q.yaml", []byte("apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq, namespace: a}\nspec: {clusterQueue: cq}\n"+
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq, namespace: a}\nspec: {clusterQueue: other}\n"))
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, "q.yaml", fe.File)
	require.Equal(t, "LocalQueue a/lq: metadata.name", fe.Path)
	require.Equal(t, `Duplicate value: "a/lq": another LocalQueue has this name`, fe.Err.Error())
}
