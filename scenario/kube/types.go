package kube

import (
	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// The Kubernetes objects the importer reads, field for field as the API
// prints them (docs/kubernetes-inputs.md). A field of type skipped has no
// meaning for scheduling and is ignored; one of type unmodelled has a
// meaning the simulator does not model and is reported as a warning when
// set; a field Kubernetes does not have is an error, as in kubectl's strict
// validation. Status is written by the server: unknown status fields are
// ignored (openFields).

// The decoder's markers, by the names the tables below use.
type (
	skipped    = schema.Skipped
	unmodelled = schema.Unmodelled
	openFields = schema.OpenFields
)

// kubeMeta is an object's metadata.
type kubeMeta struct {
	Name                       string            `yaml:"name"`
	GenerateName               string            `yaml:"generateName"` // read before decoding; kept for its line
	Namespace                  string            `yaml:"namespace"`
	Labels                     map[string]string `yaml:"labels"`
	Annotations                map[string]string `yaml:"annotations"`
	UID                        string            `yaml:"uid"`
	OwnerReferences            []kubeOwnerRef    `yaml:"ownerReferences"`
	CreationTimestamp          *string           `yaml:"creationTimestamp"`
	ResourceVersion            skipped           `yaml:"resourceVersion"`
	Generation                 skipped           `yaml:"generation"`
	DeletionTimestamp          skipped           `yaml:"deletionTimestamp"`
	DeletionGracePeriodSeconds skipped           `yaml:"deletionGracePeriodSeconds"`
	ManagedFields              skipped           `yaml:"managedFields"`
	Finalizers                 skipped           `yaml:"finalizers"`
	SelfLink                   skipped           `yaml:"selfLink"`
}

type kubeOwnerRef struct {
	APIVersion         string  `yaml:"apiVersion"`
	Kind               string  `yaml:"kind"`
	Name               string  `yaml:"name"`
	UID                string  `yaml:"uid"`
	Controller         *bool   `yaml:"controller"`
	BlockOwnerDeletion skipped `yaml:"blockOwnerDeletion"`
}

// kubeHead is what every object has besides its own fields.
type kubeHead struct {
	APIVersion skipped  `yaml:"apiVersion"` // checked before decoding
	Kind       skipped  `yaml:"kind"`
	Metadata   kubeMeta `yaml:"metadata"`
}

type kubeNode struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		PodCIDR       skipped     `yaml:"podCIDR"`
		PodCIDRs      skipped     `yaml:"podCIDRs"`
		ProviderID    skipped     `yaml:"providerID"`
		ExternalID    skipped     `yaml:"externalID"`
		ConfigSource  skipped     `yaml:"configSource"`
		Taints        []kubeTaint `yaml:"taints"`
		Unschedulable bool        `yaml:"unschedulable"`
	} `yaml:"spec"`
	Status struct {
		openFields
		Allocatable map[string]string `yaml:"allocatable"`
		Capacity    map[string]string `yaml:"capacity"`
	} `yaml:"status"`
}

type kubeTaint struct {
	Key       string  `yaml:"key"`
	Value     string  `yaml:"value"`
	Effect    string  `yaml:"effect"`
	TimeAdded skipped `yaml:"timeAdded"`
}

type kubePod struct {
	kubeHead `yaml:",inline"`
	Spec     kubePodSpec `yaml:"spec"`
	Status   struct {
		openFields
		Phase string `yaml:"phase"`
		// ResourceClaimStatuses name the claims made for the pod's
		// template entries.
		ResourceClaimStatuses []schema.PodResourceClaimStatus `yaml:"resourceClaimStatuses"`
	} `yaml:"status"`
}

// kubePodSpec is core/v1 PodSpec.
type kubePodSpec struct {
	Volumes                       []kubeVolume              `yaml:"volumes"`
	InitContainers                []kubeContainer           `yaml:"initContainers"`
	Containers                    []kubeContainer           `yaml:"containers"`
	EphemeralContainers           skipped                   `yaml:"ephemeralContainers"`
	RestartPolicy                 skipped                   `yaml:"restartPolicy"`
	TerminationGracePeriodSeconds *int64                    `yaml:"terminationGracePeriodSeconds"`
	ActiveDeadlineSeconds         *int64                    `yaml:"activeDeadlineSeconds"`
	DNSPolicy                     skipped                   `yaml:"dnsPolicy"`
	NodeSelector                  map[string]string         `yaml:"nodeSelector"`
	ServiceAccountName            skipped                   `yaml:"serviceAccountName"`
	ServiceAccount                skipped                   `yaml:"serviceAccount"`
	AutomountServiceAccountToken  skipped                   `yaml:"automountServiceAccountToken"`
	NodeName                      string                    `yaml:"nodeName"`
	HostNetwork                   bool                      `yaml:"hostNetwork"`
	HostPID                       skipped                   `yaml:"hostPID"`
	HostIPC                       skipped                   `yaml:"hostIPC"`
	ShareProcessNamespace         skipped                   `yaml:"shareProcessNamespace"`
	SecurityContext               skipped                   `yaml:"securityContext"`
	ImagePullSecrets              skipped                   `yaml:"imagePullSecrets"`
	Hostname                      skipped                   `yaml:"hostname"`
	Subdomain                     skipped                   `yaml:"subdomain"`
	Affinity                      *schema.Affinity          `yaml:"affinity"`
	SchedulerName                 string                    `yaml:"schedulerName"`
	Tolerations                   []schema.Toleration       `yaml:"tolerations"`
	HostAliases                   skipped                   `yaml:"hostAliases"`
	PriorityClassName             string                    `yaml:"priorityClassName"`
	Priority                      *int32                    `yaml:"priority"`
	DNSConfig                     skipped                   `yaml:"dnsConfig"`
	ReadinessGates                skipped                   `yaml:"readinessGates"`
	RuntimeClassName              unmodelled                `yaml:"runtimeClassName"`
	EnableServiceLinks            skipped                   `yaml:"enableServiceLinks"`
	PreemptionPolicy              string                    `yaml:"preemptionPolicy"`
	Overhead                      map[string]string         `yaml:"overhead"`
	TopologySpreadConstraints     []schema.Spread           `yaml:"topologySpreadConstraints"`
	SetHostnameAsFQDN             skipped                   `yaml:"setHostnameAsFQDN"`
	OS                            skipped                   `yaml:"os"`
	HostUsers                     skipped                   `yaml:"hostUsers"`
	SchedulingGates               []schema.SchedulingGate   `yaml:"schedulingGates"`
	ResourceClaims                []schema.PodResourceClaim `yaml:"resourceClaims"`
	Resources                     *kubeResources            `yaml:"resources"`
	HostnameOverride              skipped                   `yaml:"hostnameOverride"`
	SchedulingGroup               *struct {
		PodGroupName string `yaml:"podGroupName"`
	} `yaml:"schedulingGroup"`
	WorkloadRef *kubeWorkloadRef `yaml:"workloadRef"` // v1.35 (versions.go)
}

type kubeContainer struct {
	Name                     string              `yaml:"name"`
	Image                    skipped             `yaml:"image"`
	Command                  skipped             `yaml:"command"`
	Args                     skipped             `yaml:"args"`
	WorkingDir               skipped             `yaml:"workingDir"`
	Ports                    []kubeContainerPort `yaml:"ports"`
	EnvFrom                  skipped             `yaml:"envFrom"`
	Env                      skipped             `yaml:"env"`
	Resources                kubeResources       `yaml:"resources"`
	ResizePolicy             skipped             `yaml:"resizePolicy"`
	RestartPolicy            string              `yaml:"restartPolicy"`
	RestartPolicyRules       skipped             `yaml:"restartPolicyRules"`
	VolumeMounts             skipped             `yaml:"volumeMounts"`
	VolumeDevices            skipped             `yaml:"volumeDevices"`
	LivenessProbe            skipped             `yaml:"livenessProbe"`
	ReadinessProbe           skipped             `yaml:"readinessProbe"`
	StartupProbe             skipped             `yaml:"startupProbe"`
	Lifecycle                skipped             `yaml:"lifecycle"`
	TerminationMessagePath   skipped             `yaml:"terminationMessagePath"`
	TerminationMessagePolicy skipped             `yaml:"terminationMessagePolicy"`
	ImagePullPolicy          skipped             `yaml:"imagePullPolicy"`
	SecurityContext          skipped             `yaml:"securityContext"`
	Stdin                    skipped             `yaml:"stdin"`
	StdinOnce                skipped             `yaml:"stdinOnce"`
	TTY                      skipped             `yaml:"tty"`
}

type kubeContainerPort struct {
	Name          skipped    `yaml:"name"`
	ContainerPort skipped    `yaml:"containerPort"`
	Protocol      skipped    `yaml:"protocol"`
	HostIP        skipped    `yaml:"hostIP"`
	HostPort      unmodelled `yaml:"hostPort"`
}

type kubeResources struct {
	Limits   map[string]string    `yaml:"limits"`
	Requests map[string]string    `yaml:"requests"`
	Claims   []kubeContainerClaim `yaml:"claims"`
}

// kubeContainerClaim is an entry of a container's resources.claims.
type kubeContainerClaim struct {
	Name    string `yaml:"name"`
	Request string `yaml:"request"`
}

// kubeVolume: the sources that tie a pod to storage with node limits or
// topology warn; the others have no meaning for scheduling.
type kubeVolume struct {
	Name                  skipped    `yaml:"name"`
	ConfigMap             skipped    `yaml:"configMap"`
	Secret                skipped    `yaml:"secret"`
	Projected             skipped    `yaml:"projected"`
	EmptyDir              skipped    `yaml:"emptyDir"`
	DownwardAPI           skipped    `yaml:"downwardAPI"`
	HostPath              skipped    `yaml:"hostPath"`
	NFS                   skipped    `yaml:"nfs"`
	GitRepo               skipped    `yaml:"gitRepo"`
	Image                 skipped    `yaml:"image"`
	PersistentVolumeClaim unmodelled `yaml:"persistentVolumeClaim"`
	Ephemeral             unmodelled `yaml:"ephemeral"`
	CSI                   unmodelled `yaml:"csi"`
	GCEPersistentDisk     unmodelled `yaml:"gcePersistentDisk"`
	AWSElasticBlockStore  unmodelled `yaml:"awsElasticBlockStore"`
	AzureDisk             unmodelled `yaml:"azureDisk"`
	AzureFile             unmodelled `yaml:"azureFile"`
	Cinder                unmodelled `yaml:"cinder"`
	RBD                   unmodelled `yaml:"rbd"`
	ISCSI                 unmodelled `yaml:"iscsi"`
	FC                    unmodelled `yaml:"fc"`
	FlexVolume            unmodelled `yaml:"flexVolume"`
	Flocker               unmodelled `yaml:"flocker"`
	CephFS                unmodelled `yaml:"cephfs"`
	Glusterfs             unmodelled `yaml:"glusterfs"`
	PortworxVolume        unmodelled `yaml:"portworxVolume"`
	Quobyte               unmodelled `yaml:"quobyte"`
	ScaleIO               unmodelled `yaml:"scaleIO"`
	StorageOS             unmodelled `yaml:"storageos"`
	VsphereVolume         unmodelled `yaml:"vsphereVolume"`
	PhotonPersistentDisk  unmodelled `yaml:"photonPersistentDisk"`
}

// kubePodTemplate is a workload's pod template.
type kubePodTemplate struct {
	Metadata kubeMeta    `yaml:"metadata"`
	Spec     kubePodSpec `yaml:"spec"`
}

// kubeWorkloadSpec holds the fields the workloads share; each kind's
// struct adds its own.
type kubeWorkloadSpec struct {
	Selector        *schema.LabelSelector `yaml:"selector"`
	Template        kubePodTemplate       `yaml:"template"`
	MinReadySeconds skipped               `yaml:"minReadySeconds"`
}

type kubeDeployment struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		kubeWorkloadSpec        `yaml:",inline"`
		Replicas                *int32  `yaml:"replicas"`
		Strategy                skipped `yaml:"strategy"`
		RevisionHistoryLimit    skipped `yaml:"revisionHistoryLimit"`
		Paused                  skipped `yaml:"paused"`
		ProgressDeadlineSeconds skipped `yaml:"progressDeadlineSeconds"`
	} `yaml:"spec"`
	Status skipped `yaml:"status"`
}

type kubeReplicaSet struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		kubeWorkloadSpec `yaml:",inline"`
		Replicas         *int32 `yaml:"replicas"`
	} `yaml:"spec"`
	Status skipped `yaml:"status"`
}

type kubeStatefulSet struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		kubeWorkloadSpec                     `yaml:",inline"`
		Replicas                             *int32     `yaml:"replicas"`
		ServiceName                          skipped    `yaml:"serviceName"`
		VolumeClaimTemplates                 unmodelled `yaml:"volumeClaimTemplates"`
		PodManagementPolicy                  string     `yaml:"podManagementPolicy"`
		UpdateStrategy                       skipped    `yaml:"updateStrategy"`
		RevisionHistoryLimit                 skipped    `yaml:"revisionHistoryLimit"`
		PersistentVolumeClaimRetentionPolicy skipped    `yaml:"persistentVolumeClaimRetentionPolicy"`
		Ordinals                             *struct {
			Start int32 `yaml:"start"`
		} `yaml:"ordinals"`
	} `yaml:"spec"`
	Status skipped `yaml:"status"`
}

type kubeDaemonSet struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		kubeWorkloadSpec     `yaml:",inline"`
		UpdateStrategy       skipped `yaml:"updateStrategy"`
		RevisionHistoryLimit skipped `yaml:"revisionHistoryLimit"`
	} `yaml:"spec"`
	Status skipped `yaml:"status"`
}

type kubeJob struct {
	kubeHead `yaml:",inline"`
	Spec     kubeJobSpec `yaml:"spec"`
	Status   skipped     `yaml:"status"`
}

// kubeJobSpec is a Job's spec: a Job's own, or the template of the Jobs a
// JobSet makes.
type kubeJobSpec struct {
	Selector                *schema.LabelSelector `yaml:"selector"`
	ManualSelector          *bool                 `yaml:"manualSelector"`
	Template                kubePodTemplate       `yaml:"template"`
	Parallelism             *int32                `yaml:"parallelism"`
	Completions             *int32                `yaml:"completions"`
	CompletionMode          string                `yaml:"completionMode"`
	Suspend                 *bool                 `yaml:"suspend"`
	ManagedBy               string                `yaml:"managedBy"`
	ActiveDeadlineSeconds   *int64                `yaml:"activeDeadlineSeconds"`
	BackoffLimit            *int32                `yaml:"backoffLimit"`
	BackoffLimitPerIndex    unmodelled            `yaml:"backoffLimitPerIndex"`
	MaxFailedIndexes        unmodelled            `yaml:"maxFailedIndexes"`
	PodFailurePolicy        unmodelled            `yaml:"podFailurePolicy"`
	SuccessPolicy           unmodelled            `yaml:"successPolicy"`
	TTLSecondsAfterFinished skipped               `yaml:"ttlSecondsAfterFinished"` // a finished Job's pods hold nothing
	PodReplacementPolicy    string                `yaml:"podReplacementPolicy"`
}

type kubePriorityClass struct {
	kubeHead         `yaml:",inline"`
	Value            int32   `yaml:"value"`
	GlobalDefault    bool    `yaml:"globalDefault"`
	PreemptionPolicy string  `yaml:"preemptionPolicy"`
	Description      skipped `yaml:"description"`
}

type kubeBudget struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		Selector                   *yaml.Node `yaml:"selector"` // decoded by the importer
		MinAvailable               *string    `yaml:"minAvailable"`
		MaxUnavailable             *string    `yaml:"maxUnavailable"`
		UnhealthyPodEvictionPolicy skipped    `yaml:"unhealthyPodEvictionPolicy"`
	} `yaml:"spec"`
	Status skipped `yaml:"status"`
}

type kubeNamespace struct {
	kubeHead `yaml:",inline"`
	Spec     skipped `yaml:"spec"`
	Status   skipped `yaml:"status"`
}

// kubeGroupSpec holds the fields PodGroups and CompositePodGroups share
// (scheduling.k8s.io v1beta1 and v1alpha3).
type kubeGroupSpec struct {
	SchedulingConstraints *struct {
		Topology []struct {
			Key string `yaml:"key"`
		} `yaml:"topology"`
	} `yaml:"schedulingConstraints"`
	DisruptionMode *struct {
		Single *struct{} `yaml:"single"`
		All    *struct{} `yaml:"all"`
	} `yaml:"disruptionMode"`
	PriorityClassName           string  `yaml:"priorityClassName"`
	Priority                    *int32  `yaml:"priority"`
	PreemptionPolicy            string  `yaml:"preemptionPolicy"`
	ParentCompositePodGroupName string  `yaml:"parentCompositePodGroupName"`
	WorkloadRef                 skipped `yaml:"workloadRef"`
	PodGroupTemplateRef         skipped `yaml:"podGroupTemplateRef"`
}

type kubePodGroup struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		kubeGroupSpec `yaml:",inline"`
		// ResourceClaims are the claims the group's pods share
		// (DRAWorkloadResourceClaims, beta in v1.37).
		ResourceClaims   []schema.PodResourceClaim `yaml:"resourceClaims"`
		SchedulingPolicy *struct {
			Basic *struct{} `yaml:"basic"`
			Gang  *struct {
				MinCount *int32 `yaml:"minCount"`
			} `yaml:"gang"`
		} `yaml:"schedulingPolicy"`
	} `yaml:"spec"`
	Status skipped `yaml:"status"`
}

type kubeCompositePodGroup struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		kubeGroupSpec    `yaml:",inline"`
		ResourceClaims   unmodelled `yaml:"resourceClaims"`
		SchedulingPolicy *struct {
			Basic *struct{} `yaml:"basic"`
			Gang  *struct {
				MinGroupCount *int32 `yaml:"minGroupCount"`
			} `yaml:"gang"`
		} `yaml:"schedulingPolicy"`
	} `yaml:"spec"`
	Status skipped `yaml:"status"`
}

// The device objects of resource.k8s.io/v1: their specs are the scenario
// entries' (schema/devices.go).

type kubeDeviceClass struct {
	kubeHead `yaml:",inline"`
	Spec     schema.DeviceClassSpec `yaml:"spec"`
}

type kubeResourceSlice struct {
	kubeHead `yaml:",inline"`
	Spec     schema.ResourceSliceSpec `yaml:"spec"`
}

type kubeResourceClaim struct {
	kubeHead `yaml:",inline"`
	Spec     schema.ResourceClaimSpec `yaml:"spec"`
	// Status is the server's: the allocation is kept (its devices stay
	// the claim's while the pods that run with it hold it, which is what
	// reservedFor says); the devices' status is not modelled.
	Status struct {
		openFields
		Allocation  *schema.ClaimAllocation `yaml:"allocation"`
		ReservedFor skipped                 `yaml:"reservedFor"`
		Devices     unmodelled              `yaml:"devices"`
	} `yaml:"status"`
}

type kubeResourceClaimTemplate struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		Metadata skipped                  `yaml:"metadata"` // labels and annotations for the claims
		Spec     schema.ResourceClaimSpec `yaml:"spec"`
	} `yaml:"spec"`
}

// The API server's admission objects of a namespace: their specs are
// the scenario entries' (schema/admission.go).

type kubeLimitRange struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		Limits []schema.LimitRangeItem `yaml:"limits"`
	} `yaml:"spec"`
}

type kubeResourceQuota struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		Hard          map[string]string     `yaml:"hard"`
		Scopes        []string              `yaml:"scopes"`
		ScopeSelector *schema.ScopeSelector `yaml:"scopeSelector"`
	} `yaml:"spec"`
	// Status is the quota controller's count: the simulator counts the
	// pods of the inputs instead.
	Status skipped `yaml:"status"`
}
