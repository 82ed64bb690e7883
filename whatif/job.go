package whatif

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/scenario"
)

// A sweep of many variants can run beyond one machine as a Kubernetes
// Indexed Job: completion i runs variant i with the same program and
// prints one JSON line (a Line); Merge reads the lines back into a
// Comparison. Nothing here schedules anything: Kubernetes runs the
// completions, and the index reaches the program through the
// JOB_COMPLETION_INDEX environment variable, which is also how the sweep
// is run and tested locally.

// CompletionIndexEnv is the environment variable Kubernetes sets to a
// completion's index in an Indexed Job.
const CompletionIndexEnv = "JOB_COMPLETION_INDEX"

// ErrSweep is wrapped by every error about a sweep's index or lines.
var ErrSweep = errors.New("whatif: sweep")

// CompletionIndex reads the completion index from the environment
// (getenv is os.Getenv in a program) and checks it against the number of
// variants.
func CompletionIndex(getenv func(string) string, variants int) (int, error) {
	text := getenv(CompletionIndexEnv)
	if text == "" {
		return 0, fmt.Errorf("%w: %s is not set (Kubernetes sets it in an Indexed Job; set it to run one variant here)", ErrSweep, CompletionIndexEnv)
	}
	i, err := strconv.Atoi(text)
	if err != nil || i < 0 || i >= variants {
		return 0, fmt.Errorf("%w: %s=%q is not an index in 0..%d", ErrSweep, CompletionIndexEnv, text, variants-1)
	}
	return i, nil
}

// Line is what one completion prints: its index among Count variants,
// the scenario, the variant and its summary.
type Line struct {
	Index    int     `json:"index"`
	Count    int     `json:"count"`
	Scenario string  `json:"scenario"`
	Variant  string  `json:"variant"`
	Summary  Summary `json:"summary"`
}

// RunIndex runs variant index of base and returns its line.
func RunIndex(base *scenario.Scenario, variants []Variant, index int, domainKeys []string) (Line, error) {
	if index < 0 || index >= len(variants) {
		return Line{}, fmt.Errorf("%w: index %d is not in 0..%d", ErrSweep, index, len(variants)-1)
	}
	sc, err := variants[index].Apply(base)
	if err != nil {
		return Line{}, err
	}
	rep, err := Run(sc, domainKeys)
	if err != nil {
		return Line{}, err
	}
	return Line{Index: index, Count: len(variants), Scenario: base.Name, Variant: variants[index].Name, Summary: Summarize(rep)}, nil
}

// MarshalLine renders the line as one line of JSON with a final newline.
func (l Line) MarshalLine() ([]byte, error) {
	out, err := json.Marshal(l)
	return append(out, '\n'), err
}

// Merge reads the lines of a sweep's completions, in any order (blank
// lines are skipped), and returns the comparison in index order. Every
// index from 0 to count-1 must appear exactly once, and all lines must
// agree on the count and the scenario.
func Merge(r io.Reader) (*Comparison, error) {
	lines := map[int]Line{}
	var first *Line
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var l Line
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("%w: line %d: not a sweep line: %v", ErrSweep, n, err)
		}
		if first == nil {
			first = &l
		}
		if err := checkLine(l, *first, lines, n); err != nil {
			return nil, err
		}
		lines[l.Index] = l
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if first == nil {
		return nil, fmt.Errorf("%w: no lines to merge", ErrSweep)
	}
	if missing := missingIndices(lines, first.Count); len(missing) > 0 {
		return nil, fmt.Errorf("%w: %d of %d completions are missing: indices %s", ErrSweep, len(missing), first.Count, strings.Join(missing, ", "))
	}
	c := &Comparison{Scenario: first.Scenario}
	for _, i := range slices.Sorted(maps.Keys(lines)) {
		c.Variants = append(c.Variants, VariantResult{Variant: lines[i].Variant, Summary: lines[i].Summary})
	}
	return c, nil
}

func checkLine(l, first Line, seen map[int]Line, n int) error {
	switch {
	case l.Count < 1 || l.Index < 0 || l.Index >= l.Count:
		return fmt.Errorf("%w: line %d: index %d is not in 0..%d", ErrSweep, n, l.Index, l.Count-1)
	case l.Count != first.Count || l.Scenario != first.Scenario:
		return fmt.Errorf("%w: line %d: from another sweep (%q of %d variants, not %q of %d)", ErrSweep, n, l.Scenario, l.Count, first.Scenario, first.Count)
	}
	if _, dup := seen[l.Index]; dup {
		return fmt.Errorf("%w: line %d: index %d given twice", ErrSweep, n, l.Index)
	}
	return nil
}

func missingIndices(lines map[int]Line, count int) []string {
	var out []string
	for i := range count {
		if _, ok := lines[i]; !ok {
			out = append(out, strconv.Itoa(i))
		}
	}
	return out
}

// JobSpec describes a sweep as an Indexed Job: Completions copies of one
// container, each running Command with Args, and the scenario files in a
// ConfigMap mounted read-only at MountPath.
type JobSpec struct {
	Name        string // the Job's name; the ConfigMap is NAME-scenarios
	Namespace   string // "" leaves it to kubectl
	Image       string
	Command     []string
	Args        []string
	Completions int
	Parallelism int // 0: min(Completions, 8)
	MountPath   string
	Files       map[string][]byte // file name -> content, in the ConfigMap
}

// WriteIndexedJob writes the ConfigMap (when there are files) and the
// Indexed Job as YAML documents, for kubectl apply -f. The same spec gives
// the same bytes.
func WriteIndexedJob(w io.Writer, j JobSpec) error {
	if err := j.validate(); err != nil {
		return err
	}
	labels := map[string]string{"app.kubernetes.io/name": "gangsim-sweep"}
	parallelism := j.Parallelism
	if parallelism == 0 {
		parallelism = min(j.Completions, 8)
	}
	c := container{Name: "sweep", Image: j.Image, Command: j.Command, Args: j.Args}
	pod := podSpec{RestartPolicy: "Never"}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if len(j.Files) > 0 {
		cm := configMap{APIVersion: "v1", Kind: "ConfigMap", Data: map[string]string{},
			Metadata: objectMeta{Name: j.Name + "-scenarios", Namespace: j.Namespace, Labels: labels}}
		for name, content := range j.Files {
			cm.Data[name] = string(content)
		}
		if err := enc.Encode(cm); err != nil {
			return err
		}
		c.VolumeMounts = []volumeMount{{Name: "scenarios", MountPath: j.MountPath, ReadOnly: true}}
		pod.Volumes = []volume{{Name: "scenarios", ConfigMap: configMapRef{Name: cm.Metadata.Name}}}
	}
	pod.Containers = []container{c}
	job := jobObject{APIVersion: "batch/v1", Kind: "Job",
		Metadata: objectMeta{Name: j.Name, Namespace: j.Namespace, Labels: labels},
		Spec: jobSpec{CompletionMode: "Indexed", Completions: j.Completions, Parallelism: parallelism, BackoffLimit: 3,
			Template: podTemplate{Spec: pod}}}
	if err := enc.Encode(job); err != nil {
		return err
	}
	return enc.Close()
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
	return nil
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
		Data       map[string]string `yaml:"data"`
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
		RestartPolicy string      `yaml:"restartPolicy"`
		Containers    []container `yaml:"containers"`
		Volumes       []volume    `yaml:"volumes,omitempty"`
	}
	container struct {
		Name         string        `yaml:"name"`
		Image        string        `yaml:"image"`
		Command      []string      `yaml:"command,omitempty"`
		Args         []string      `yaml:"args,omitempty"`
		VolumeMounts []volumeMount `yaml:"volumeMounts,omitempty"`
	}
	volumeMount struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		ReadOnly  bool   `yaml:"readOnly"`
	}
	volume struct {
		Name      string       `yaml:"name"`
		ConfigMap configMapRef `yaml:"configMap"`
	}
	configMapRef struct {
		Name string `yaml:"name"`
	}
)
