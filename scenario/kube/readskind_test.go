package kube

import "testing"

// ReadsKind answers for a kind in its API version: the versions read,
// not another version, not another project's kind of the same name.
func TestReadsKind(t *testing.T) {
	tests := []struct {
		apiVersion, kind string
		want             bool
	}{
		{"v1", "Pod", true},
		{"batch/v1", "Job", true},
		{"batch.volcano.sh/v1alpha1", "Job", true},
		{"batch.example.com/v1", "Job", false},
		{"leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", true},
		{"ray.io/v1", "RayJob", true},
		{"ray.io/v1alpha1", "RayCluster", false},
		{"kubeflow.org/v2beta1", "MPIJob", true},
		{"trainer.kubeflow.org/v1alpha1", "TrainJob", true},
		{"jobset.x-k8s.io/v1alpha2", "JobSet", true},
		{"jobset.x-k8s.io/v1alpha1", "JobSet", false},
		{"apps/v1beta2", "Deployment", false},
		{"scheduling.k8s.io/v1alpha1", "Workload", true},
		{"scheduling.k8s.io/v1alpha2", "Workload", true},
		{"scheduling.k8s.io/v1alpha3", "Workload", true},
		{"scheduling.k8s.io/v1beta1", "Workload", true},
		{"scheduling.k8s.io/v1", "Workload", false},
		{"kueue.x-k8s.io/v1beta2", "Workload", true},
		{"kueue.x-k8s.io/v1beta1", "Workload", true},
		{"kueue.x-k8s.io/v1alpha1", "Workload", false},
		{"kueue.x-k8s.io/v1beta2", "ClusterQueue", true},
		{"kueue.x-k8s.io/v1beta1", "Cohort", true},
		{"kueue.x-k8s.io/v1alpha1", "Cohort", false},
		{"kueue.x-k8s.io/v1beta2", "AdmissionCheck", false},
		{"config.kueue.x-k8s.io/v1beta2", "Configuration", true},
		{"config.kueue.x-k8s.io/v1beta1", "Configuration", true},
		{"scheduling.k8s.io/v1alpha1", "PodGroup", false}, // v1.35 had none
		{"scheduling.k8s.io/v1alpha2", "PodGroup", true},
		{"scheduling.k8s.io/v1beta1", "CompositePodGroup", false},
		{"scheduling.x-k8s.io/v1alpha1", "PodGroup", true},
		{"scheduling.volcano.sh/v1beta1", "PodGroup", false},
	}
	for _, tt := range tests {
		if got := ReadsKind(tt.apiVersion, tt.kind); got != tt.want {
			t.Errorf("ReadsKind(%q, %q) = %v, want %v", tt.apiVersion, tt.kind, got, tt.want)
		}
	}
}
