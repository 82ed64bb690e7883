package whatif

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/cluster"
)

// JobSpec describes a sweep as an Indexed Job: Completions copies of one
// container, each running Command with Args and then the paths of the
// scenario files, which ConfigMaps mounted read-only at MountPath hold.
type JobSpec struct {
	Name        string // the Job's name; the ConfigMaps are NAME-scenarios, NAME-scenarios-2, ...
	Namespace   string // "" leaves it to kubectl
	Image       string
	Command     []string
	Args        []string
	Completions int
	Parallelism int // 0: min(Completions, 8)
	// Requests and Limits are the worker container's, by resource name
	// ("cpu", "memory") as Kubernetes quantities; nil sets none. A limit
	// below its request is an error, as the API server finds it.
	Requests, Limits map[string]string
	MountPath        string
	// Files are the scenario files, in the order the program reads them:
	// each one's path under MountPath is appended to Args.
	Files []JobFile
}

// JobFile is a scenario file a sweep ships. Its name is a ConfigMap key
// (letters, digits, '-', '_' and '.'), unique among the spec's files.
type JobFile struct {
	Name string
	Data []byte
}

// MaxConfigMapData is the most data one ConfigMap holds: the API server
// refuses a ConfigMap whose values (data and binaryData together, keys
// not counted) sum to more than 1 MiB.
const MaxConfigMapData = 1 << 20

// How the files travel. A file goes into a ConfigMap's data as it is, or,
// when it is larger than a ConfigMap holds (a kubectl dump of a large
// cluster), gzip-compressed into its binaryData as NAME.gz, which the
// scenario loader reads as it reads NAME; one still too large compressed
// is an error naming both sizes. Files are packed in their order, a new
// ConfigMap each time the next would take one over MaxConfigMapData, and
// several ConfigMaps are mounted together as one projected volume (their
// keys differ, so the files sit side by side).

// storedFile is a file as a ConfigMap holds it.
type storedFile struct {
	key    string
	data   []byte
	binary bool // in binaryData: not UTF-8 text, or compressed
}

// WriteIndexedJob writes the ConfigMaps (when there are files) and the
// Indexed Job as YAML documents, for kubectl create -f. The same spec
// gives the same bytes.
func WriteIndexedJob(w io.Writer, j JobSpec) error {
	if err := j.validate(); err != nil {
		return err
	}
	resources, err := j.resources()
	if err != nil {
		return err
	}
	groups, err := j.pack()
	if err != nil {
		return err
	}
	labels := map[string]string{"app.kubernetes.io/name": "gangsim-sweep"}
	c := container{Name: "sweep", Image: j.Image, Command: j.Command, Args: slices.Clone(j.Args), Resources: resources,
		SecurityContext: restrictedContainer()}
	pod := podSpec{RestartPolicy: "Never", SecurityContext: restrictedPod()}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	var names []string
	for i, files := range groups {
		cm := configMap{APIVersion: "v1", Kind: "ConfigMap",
			Metadata: objectMeta{Name: configMapName(j.Name, i), Namespace: j.Namespace, Labels: labels}}
		for _, f := range files {
			cm.add(f)
			c.Args = append(c.Args, strings.TrimSuffix(j.MountPath, "/")+"/"+f.key)
		}
		if err := enc.Encode(cm); err != nil {
			return err
		}
		names = append(names, cm.Metadata.Name)
	}
	if len(names) > 0 {
		c.VolumeMounts = []volumeMount{{Name: "scenarios", MountPath: j.MountPath, ReadOnly: true}}
		pod.Volumes = []volume{scenarioVolume(names)}
	}
	pod.Containers = []container{c}
	if err := enc.Encode(j.job(pod, labels)); err != nil {
		return err
	}
	return enc.Close()
}

// job is the Job object around the pod.
func (j JobSpec) job(pod podSpec, labels map[string]string) jobObject {
	parallelism := j.Parallelism
	if parallelism == 0 {
		parallelism = min(j.Completions, 8)
	}
	return jobObject{APIVersion: "batch/v1", Kind: "Job",
		Metadata: objectMeta{Name: j.Name, Namespace: j.Namespace, Labels: labels},
		Spec: jobSpec{CompletionMode: "Indexed", Completions: j.Completions, Parallelism: parallelism, BackoffLimit: 3,
			Template: podTemplate{Spec: pod}}}
}

// The worker only reads its files and prints a line, so it runs as the
// "restricted" Pod Security Standard asks (and namespaces that enforce it
// admit it): as a user that is not root (65532, the distroless images'
// nonroot user, which any static binary runs as), with no privilege
// escalation, no capabilities, the runtime's default seccomp profile and
// a read-only root file system.
const workerUser = 65532

func restrictedPod() *podSecurityContext {
	yes, user := true, int64(workerUser)
	return &podSecurityContext{RunAsNonRoot: &yes, RunAsUser: &user, SeccompProfile: &seccompProfile{Type: "RuntimeDefault"}}
}

func restrictedContainer() *securityContext {
	no, yes := false, true
	return &securityContext{AllowPrivilegeEscalation: &no, ReadOnlyRootFilesystem: &yes, Capabilities: &capabilities{Drop: []string{"ALL"}}}
}

// ConfigMaps returns the names of the ConfigMaps WriteIndexedJob writes
// for the spec's files (none without files), or the error it returns for
// a file too large.
func (j JobSpec) ConfigMaps() ([]string, error) {
	groups, err := j.pack()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(groups))
	for i := range groups {
		names[i] = configMapName(j.Name, i)
	}
	return names, nil
}

// configMapName names the i-th ConfigMap of a Job's files.
func configMapName(job string, i int) string {
	if i == 0 {
		return job + "-scenarios"
	}
	return fmt.Sprintf("%s-scenarios-%d", job, i+1)
}

// scenarioVolume mounts the ConfigMaps: one as a configMap volume,
// several as the sources of one projected volume.
func scenarioVolume(names []string) volume {
	if len(names) == 1 {
		return volume{Name: "scenarios", ConfigMap: &configMapRef{Name: names[0]}}
	}
	p := &projected{}
	for _, n := range names {
		p.Sources = append(p.Sources, projection{ConfigMap: configMapRef{Name: n}})
	}
	return volume{Name: "scenarios", Projected: p}
}

// pack stores the files and groups them, in order, into ConfigMaps of at
// most MaxConfigMapData bytes of data each.
func (j JobSpec) pack() ([][]storedFile, error) {
	var groups [][]storedFile
	size := 0
	for _, f := range j.Files {
		sf, err := store(f, MaxConfigMapData)
		if err != nil {
			return nil, err
		}
		if len(groups) == 0 || size+len(sf.data) > MaxConfigMapData {
			groups, size = append(groups, nil), 0
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], sf)
		size += len(sf.data)
	}
	return groups, nil
}

// store returns a file as a ConfigMap holds it: as it is (in binaryData
// when it is not UTF-8 text, which data cannot hold), or compressed when
// it is larger than limit.
func store(f JobFile, limit int) (storedFile, error) {
	if len(f.Data) <= limit {
		return storedFile{key: f.Name, data: f.Data, binary: !utf8.Valid(f.Data)}, nil
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b) // no name, no time: the same bytes every time
	if _, err := zw.Write(f.Data); err != nil {
		return storedFile{}, err
	}
	if err := zw.Close(); err != nil {
		return storedFile{}, err
	}
	if b.Len() > limit {
		return storedFile{}, fmt.Errorf("%w: scenario file %s is %s, and %s compressed: more than one ConfigMap holds (%d bytes of data, the API server's limit); "+
			"split it into several files (a scenario's entries and objects may be spread over files, which merge), or build it into the image",
			ErrSweep, f.Name, sizeText(len(f.Data)), sizeText(b.Len()), limit)
	}
	return storedFile{key: f.Name + ".gz", data: b.Bytes(), binary: true}, nil
}

// sizeText renders a byte count with its MiB.
func sizeText(n int) string { return fmt.Sprintf("%d bytes (%.1f MiB)", n, float64(n)/(1<<20)) }

// resources checks and renders the container's requests and limits.
func (j JobSpec) resources() (*resourceRequirements, error) {
	if len(j.Requests) == 0 && len(j.Limits) == 0 {
		return nil, nil
	}
	requests, err := parseQuantities("request", j.Requests)
	if err != nil {
		return nil, err
	}
	limits, err := parseQuantities("limit", j.Limits)
	if err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(limits)) {
		if req, ok := requests[name]; ok && req > limits[name] {
			return nil, fmt.Errorf("%w: the worker's %s request %s is more than its limit %s", ErrSweep, name, j.Requests[name], j.Limits[name])
		}
	}
	return &resourceRequirements{Requests: j.Requests, Limits: j.Limits}, nil
}

// parseQuantities parses a list of requests or limits, in name order.
func parseQuantities(kind string, list map[string]string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, name := range slices.Sorted(maps.Keys(list)) {
		v, err := cluster.ParseResourceQuantity(cluster.ResourceName(name), list[name])
		if err != nil {
			return nil, fmt.Errorf("%w: the worker's %s of %s: %v", ErrSweep, kind, name, err)
		}
		out[name] = v
	}
	return out, nil
}

func (j JobSpec) validate() error {
	switch {
	case j.Name == "" || len(j.Name) > 52 || strings.Trim(j.Name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" || strings.HasPrefix(j.Name, "-") || strings.HasSuffix(j.Name, "-"):
		return fmt.Errorf("%w: job name %q is not a DNS label of at most 52 characters", ErrSweep, j.Name)
	case j.Image == "":
		return fmt.Errorf("%w: job image is empty: the container image holding the program is needed", ErrSweep)
	case j.Completions < 1:
		return fmt.Errorf("%w: %d completions: a sweep needs at least one variant", ErrSweep, j.Completions)
	case len(j.Files) > 0 && !strings.HasPrefix(j.MountPath, "/"):
		return fmt.Errorf("%w: mount path %q is not absolute", ErrSweep, j.MountPath)
	}
	seen := map[string]bool{}
	for _, f := range j.Files {
		switch {
		case !IsConfigMapKey(f.Name + ".gz"): // the name it may be stored under
			return fmt.Errorf("%w: file name %q is not a ConfigMap key (letters, digits, '-', '_' and '.', at most 250)", ErrSweep, f.Name)
		case seen[f.Name] || seen[f.Name+".gz"]:
			return fmt.Errorf("%w: two files are named %s", ErrSweep, f.Name)
		}
		seen[f.Name], seen[f.Name+".gz"] = true, true
	}
	return nil
}

// IsConfigMapKey reports whether name may name a file in a ConfigMap:
// letters, digits, '-', '_' and '.', at most 253 of them, not "." or "..".
func IsConfigMapKey(name string) bool {
	if name == "" || len(name) > 253 || name == "." || name == ".." {
		return false
	}
	for _, r := range name {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// The Kubernetes objects WriteIndexedJob writes, with Kubernetes' field
// names, in their usual order.
type (
	objectMeta struct {
		Name      string            `yaml:"name"`
		Namespace string            `yaml:"namespace,omitempty"`
		Labels    map[string]string `yaml:"labels,omitempty"`
	}
	configMap struct {
		APIVersion string            `yaml:"apiVersion"`
		Kind       string            `yaml:"kind"`
		Metadata   objectMeta        `yaml:"metadata"`
		Data       map[string]string `yaml:"data,omitempty"`
		BinaryData map[string]string `yaml:"binaryData,omitempty"` // base64, as in JSON
	}
	jobObject struct {
		APIVersion string     `yaml:"apiVersion"`
		Kind       string     `yaml:"kind"`
		Metadata   objectMeta `yaml:"metadata"`
		Spec       jobSpec    `yaml:"spec"`
	}
	jobSpec struct {
		CompletionMode string      `yaml:"completionMode"`
		Completions    int         `yaml:"completions"`
		Parallelism    int         `yaml:"parallelism"`
		BackoffLimit   int         `yaml:"backoffLimit"`
		Template       podTemplate `yaml:"template"`
	}
	podTemplate struct {
		Spec podSpec `yaml:"spec"`
	}
	podSpec struct {
		RestartPolicy   string              `yaml:"restartPolicy"`
		SecurityContext *podSecurityContext `yaml:"securityContext,omitempty"`
		Containers      []container         `yaml:"containers"`
		Volumes         []volume            `yaml:"volumes,omitempty"`
	}
	podSecurityContext struct {
		RunAsNonRoot   *bool           `yaml:"runAsNonRoot,omitempty"`
		RunAsUser      *int64          `yaml:"runAsUser,omitempty"`
		SeccompProfile *seccompProfile `yaml:"seccompProfile,omitempty"`
	}
	seccompProfile struct {
		Type string `yaml:"type"`
	}
	securityContext struct {
		AllowPrivilegeEscalation *bool         `yaml:"allowPrivilegeEscalation,omitempty"`
		ReadOnlyRootFilesystem   *bool         `yaml:"readOnlyRootFilesystem,omitempty"`
		Capabilities             *capabilities `yaml:"capabilities,omitempty"`
	}
	capabilities struct {
		Drop []string `yaml:"drop"`
	}
	container struct {
		Name            string                `yaml:"name"`
		Image           string                `yaml:"image"`
		Command         []string              `yaml:"command,omitempty"`
		Args            []string              `yaml:"args,omitempty"`
		Resources       *resourceRequirements `yaml:"resources,omitempty"`
		SecurityContext *securityContext      `yaml:"securityContext,omitempty"`
		VolumeMounts    []volumeMount         `yaml:"volumeMounts,omitempty"`
	}
	resourceRequirements struct {
		Requests map[string]string `yaml:"requests,omitempty"`
		Limits   map[string]string `yaml:"limits,omitempty"`
	}
	volumeMount struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		ReadOnly  bool   `yaml:"readOnly"`
	}
	volume struct {
		Name      string        `yaml:"name"`
		ConfigMap *configMapRef `yaml:"configMap,omitempty"`
		Projected *projected    `yaml:"projected,omitempty"`
	}
	configMapRef struct {
		Name string `yaml:"name"`
	}
	projected struct {
		Sources []projection `yaml:"sources"`
	}
	projection struct {
		ConfigMap configMapRef `yaml:"configMap"`
	}
)

// add puts a stored file in the ConfigMap.
func (cm *configMap) add(f storedFile) {
	if f.binary {
		if cm.BinaryData == nil {
			cm.BinaryData = map[string]string{}
		}
		cm.BinaryData[f.key] = base64.StdEncoding.EncodeToString(f.data)
		return
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[f.key] = string(f.data)
}
