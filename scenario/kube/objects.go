package kube

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// Object is one Kubernetes object of an input file, before decoding:
// its kind, name and place, and its node.
type Object struct {
	file       string
	line       int
	where      string // its place in a List ("items[3]"), "" at the top
	apiVersion string
	kind       string
	namespace  string // "default" for a namespaced object without one
	name       string
	// generateName is metadata.generateName: the prefix of the name the
	// importer gives an object without a name (nameGenerated)
	generateName string
	node         *yaml.Node
	exp          *schema.Expansion // its file's aliases; nil in JSON
	// within names the object that holds this one as text, for an object
	// read from a ConfigMap's data ("ConfigMap kube-system/x data[key]")
	within string
	// early is set for an object decoded as it was read (ReadListItem):
	// decoded, until Import takes it, and unmodelled are what decodeKube
	// gives, hash is its pod template's hash, and node keeps only the
	// fields decoded, for the lines of errors about them
	early      bool
	decoded    any
	unmodelled []string
	hash       string
	index      *schema.LineIndex // the lines of node, which early objects let go
	// skipped is what skipping an early object of a kind not read gives,
	// worked out before its tree is pruned
	skipped Skip
}

// lines finds the lines of o's fields: in its tree, or in the index an
// object decoded as it was read keeps instead.
func (o *Object) lines() schema.Lines {
	if o.index != nil {
		return o.index
	}
	return schema.TreeLines{Node: o.node}
}

// Error is a problem with an object of an input file: the file, the line,
// the object and its field ("Pod ml/api: spec.nodeName"), and the cause,
// which errors.Is and errors.As reach (cluster.ErrQuantity, ...). Package
// scenario reports it as its FieldError, with the same parts.
type Error struct {
	File string
	Line int
	Path string
	Err  error
}

// Error renders "FILE: line N: PATH: what is wrong".
func (e *Error) Error() string {
	msg := cluster.PrintableLine(e.File)
	if e.Line > 0 {
		msg += fmt.Sprintf(": line %d", e.Line)
	}
	if e.Path != "" {
		msg += ": " + cluster.PrintableLine(e.Path)
	}
	return msg + ": " + cluster.Printable(e.Err.Error())
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ref names the object as errors and warnings do: "Pod ml/train-0",
// "Node n1".
func (o *Object) ref() string {
	if o.within != "" {
		return o.within + ": " + o.plainRef()
	}
	return o.plainRef()
}

// plainRef is ref without the object that holds this one.
func (o *Object) plainRef() string {
	if o.kind == "KubeSchedulerConfiguration" || o.kind == "Configuration" && apiGroup(o.apiVersion) == kueueConfigGroup {
		return o.kind
	}
	name := o.name
	if name == "" {
		name = "(no name"
		if o.where != "" {
			name += " at " + o.where
		}
		name += ")"
	}
	if o.namespace != "" {
		return o.kind + " " + o.namespace + "/" + name
	}
	return o.kind + " " + name
}

// Scenario fields and the Kubernetes fields they come from; any other
// field of a pod lies under the pod spec, of a group or a budget under
// spec, of a class or a configuration at the top.
var (
	kubePodFields = map[string]string{"name": "metadata.name", "namespace": "metadata.namespace",
		"labels": "{meta}.labels", "requests": "{spec}.containers[].resources.requests",
		"podGroup": "{spec}.schedulingGroup.podGroupName", "resourceClaimStatuses": "status.resourceClaimStatuses", "": "{spec}"}
	kubeNodeFields = map[string]string{"name": "metadata.name", "labels": "metadata.labels",
		"allocatable": "status.allocatable", "": "spec"}
	kubeGroupFields = map[string]string{"name": "metadata.name", "namespace": "metadata.namespace",
		"parent": "spec.parentCompositePodGroupName", "topologyKey": "spec.schedulingConstraints.topology[0].key",
		"minCount": "spec.schedulingPolicy.gang.minCount", "minGroupCount": "spec.schedulingPolicy.gang.minGroupCount",
		"resourceClaims": "spec.resourceClaims", "": "spec"}
	kubeBudgetFields = map[string]string{"name": "metadata.name", "namespace": "metadata.namespace", "": "spec"}
	kubeMetaFields   = map[string]string{"name": "metadata.name", "labels": "metadata.labels", "": ""}
	// kubeDeviceFields serve DeviceClasses, ResourceSlices and
	// ResourceClaims; a template's claim spec is one level down.
	kubeDeviceFields   = map[string]string{"name": "metadata.name", "namespace": "metadata.namespace", "status": "status", "": "spec"}
	kubeTemplateFields = map[string]string{"name": "metadata.name", "namespace": "metadata.namespace", "": "spec.spec"}
)

// newOrigin is the origin of an entry made from o; fields translate its
// field names.
func newOrigin(o *Object, fields map[string]string) *schema.Origin {
	return &schema.Origin{Object: o.ref(), Where: o.ref(), Fields: fields, Spec: "spec", Lines: o.lines()}
}

// kubeKind is what the importer knows of a kind: its API versions, whether
// it is namespaced, and the value its objects decode into.
type kubeKind struct {
	versions   []string
	namespaced bool
	decoded    func() any
}

// kubeKinds are the kinds the importer reads; any other kind is skipped
// with a warning.
var kubeKinds = map[string]kubeKind{
	"Node":                {[]string{"v1"}, false, func() any { return new(kubeNode) }},
	"Pod":                 {[]string{"v1"}, true, func() any { return new(kubePod) }},
	"Namespace":           {[]string{"v1"}, false, func() any { return new(kubeNamespace) }},
	"PriorityClass":       {[]string{"scheduling.k8s.io/v1"}, false, func() any { return new(kubePriorityClass) }},
	"PodDisruptionBudget": {[]string{"policy/v1"}, true, func() any { return new(kubeBudget) }},
	"PodGroup":            {[]string{"scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha3", "scheduling.k8s.io/v1alpha2"}, true, func() any { return new(kubePodGroup) }},
	"Workload": {[]string{"scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha3", "scheduling.k8s.io/v1alpha2", "scheduling.k8s.io/v1alpha1"}, true,
		func() any { return new(kubeWorkload) }},
	"CompositePodGroup":          {[]string{"scheduling.k8s.io/v1alpha3"}, true, func() any { return new(kubeCompositePodGroup) }},
	"Deployment":                 {[]string{"apps/v1"}, true, func() any { return new(kubeDeployment) }},
	"ReplicaSet":                 {[]string{"apps/v1"}, true, func() any { return new(kubeReplicaSet) }},
	"StatefulSet":                {[]string{"apps/v1"}, true, func() any { return new(kubeStatefulSet) }},
	"DaemonSet":                  {[]string{"apps/v1"}, true, func() any { return new(kubeDaemonSet) }},
	"Job":                        {[]string{"batch/v1"}, true, func() any { return new(kubeJob) }},
	"KubeSchedulerConfiguration": {[]string{"kubescheduler.config.k8s.io/v1"}, false, func() any { return new(kubeSchedulerConfig) }},
	"DeviceClass":                {[]string{"resource.k8s.io/v1"}, false, func() any { return new(kubeDeviceClass) }},
	"ResourceSlice":              {[]string{"resource.k8s.io/v1"}, false, func() any { return new(kubeResourceSlice) }},
	"ResourceClaim":              {[]string{"resource.k8s.io/v1"}, true, func() any { return new(kubeResourceClaim) }},
	"ResourceClaimTemplate":      {[]string{"resource.k8s.io/v1"}, true, func() any { return new(kubeResourceClaimTemplate) }},
	"LimitRange":                 {[]string{"v1"}, true, func() any { return new(kubeLimitRange) }},
	"ResourceQuota":              {[]string{"v1"}, true, func() any { return new(kubeResourceQuota) }},
	"JobSet":                     {[]string{"jobset.x-k8s.io/v1alpha2"}, true, func() any { return new(kubeJobSet) }},
	"TrainJob":                   {[]string{trainerVersion}, true, func() any { return new(kubeTrainJob) }},
	"TrainingRuntime":            {[]string{trainerVersion}, true, func() any { return new(kubeTrainingRuntime) }},
	"ClusterTrainingRuntime":     {[]string{trainerVersion}, false, func() any { return new(kubeTrainingRuntime) }},
	"MPIJob":                     {[]string{"kubeflow.org/v2beta1"}, true, func() any { return new(kubeMPIJob) }},
	"PyTorchJob":                 {[]string{"kubeflow.org/v1"}, true, func() any { return new(kubePyTorchJob) }},
	"LeaderWorkerSet":            {[]string{"leaderworkerset.x-k8s.io/v1"}, true, func() any { return new(kubeLeaderWorkerSet) }},
	"RayCluster":                 {[]string{"ray.io/v1"}, true, func() any { return new(kubeRayCluster) }},
	"RayJob":                     {[]string{"ray.io/v1"}, true, func() any { return new(kubeRayJob) }},
}

// IsDocument reports whether a document is a Kubernetes object (or a List
// of them) rather than a scenario: it has apiVersion or kind at the top,
// which a scenario file never has.
func IsDocument(doc *yaml.Node) bool {
	n := doc
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	return schema.MapValue(n, "apiVersion") != nil || schema.MapValue(n, "kind") != nil
}

// scalarAt returns the string at key of a mapping ("" when absent) or an
// error when it is not a single value.
func scalarAt(n *yaml.Node, key string) (string, *yaml.Node, error) {
	v := schema.MapValue(n, key)
	if v == nil || v.Tag == "!!null" {
		return "", nil, nil
	}
	if v.Kind != yaml.ScalarNode {
		return "", v, fmt.Errorf("expected a single value, got %s", schema.KindName(v))
	}
	return v.Value, v, nil
}

// Objects reads the objects of one document of file: one object, or the
// items of a List ("List", or a typed list such as "PodList", whose items
// may leave out their kind). exp counts what the file's aliases repeat
// (nil for JSON); an error is an *Error.
func Objects(file string, doc *yaml.Node, exp *schema.Expansion) ([]*Object, error) {
	n := doc
	if n.Kind == yaml.DocumentNode {
		n = n.Content[0]
	}
	objs, err := kubeItems(file, n, "", "", "", exp)
	for _, o := range objs {
		o.exp = exp
	}
	return objs, err
}

// IsList reports whether a document is a List of objects ("List", or a
// typed list such as "PodList").
func IsList(doc *yaml.Node) bool {
	n := doc
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	kind, _, err := scalarAt(n, "kind")
	return err == nil && strings.HasSuffix(kind, "List") && schema.MapValue(n, "items") != nil
}

// ReadListItem reads the item at index i of a List of file as Objects
// does and decodes it at once, with d; what decoding ignores is dropped
// from its tree, so that a dump's items are never all held whole. It
// returns false for an item it cannot take so, one with a problem or
// without its own apiVersion and kind (which a typed List gives it): the
// caller then reads the file as a whole, which reports the problem.
func ReadListItem(file string, i int, item *yaml.Node, d *schema.Decoder) ([]*Object, bool) {
	if item.Kind != yaml.MappingNode || schema.MapValue(item, "apiVersion") == nil || schema.MapValue(item, "kind") == nil {
		return nil, false
	}
	objs, err := kubeItems(file, item, fmt.Sprintf("items[%d]", i), "", "", nil)
	if err != nil {
		return nil, false
	}
	for _, o := range objs {
		if !o.decodeEarly(d) {
			return nil, false
		}
	}
	return objs, true
}

// ReadDocument reads one document of a YAML stream as Objects does, and
// decodes each of its objects at once as ReadListItem decodes a List's
// items, so that the document's tree is let go: a stream of a million
// small objects is then never held as a million trees. An object that
// cannot be decoded so (an object with a problem, which the decoding of
// the import then reports) keeps its whole tree, untouched: the early
// decoding works on a copy. d is the stream's decoder, nil-free (its
// cache of struct fields serves every document).
func ReadDocument(file string, doc *yaml.Node, d *schema.Decoder) ([]*Object, error) {
	objs, err := Objects(file, doc, nil)
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		if o.within != "" {
			continue // read from a ConfigMap's text: decoded as Objects' are
		}
		try := *o
		try.node = schema.CloneTree(o.node)
		if try.decodeEarly(d) {
			*o = try
		}
	}
	return objs, nil
}

// decodeEarly decodes o as decodeKube will ask, and keeps of its tree what
// later errors may point to: the lines of the fields decoded; for a kind
// the importer skips, its apiVersion, kind and metadata.
func (o *Object) decodeEarly(d *schema.Decoder) bool {
	kind, known := lookupKind(o.apiVersion, o.kind)
	if !known {
		o.skipped = skip(o)
		// a copy of its own: a List item's nodes are taken again for the
		// next item (schema.ParseJSONListItems)
		head := *o.node
		head.Content = nil
		for i := 0; i+1 < len(o.node.Content); i += 2 {
			if k := o.node.Content[i].Value; k == "apiVersion" || k == "kind" || k == "metadata" {
				head.Content = append(head.Content, schema.CloneTree(o.node.Content[i]), schema.CloneTree(o.node.Content[i+1]))
			}
		}
		o.node, o.early = &head, true
		return true
	}
	if !slices.Contains(kind.versions, o.apiVersion) {
		return false
	}
	o.hash = templateHash(o) // of the whole template, before pruning
	// an object read from a ConfigMap's text may hold aliases: not pruned
	d.Prune = o.within == ""
	defer func() { d.Prune = false }()
	v := kind.decoded()
	d.Warn, d.Aliases = func(path string) { o.unmodelled = append(o.unmodelled, path) }, o.exp
	if err := d.Decode(o.node, v); err != nil {
		return false
	}
	o.decoded, o.early = v, true
	o.index, o.node = schema.IndexLines(o.node), nil
	return true
}

func kubeItems(file string, n *yaml.Node, where, defVersion, defKind string, exp *schema.Expansion) ([]*Object, error) {
	bad := func(at *yaml.Node, field string, err error) error {
		return &Error{File: file, Line: at.Line, Path: joinWhere(where, field), Err: err}
	}
	if n.Kind != yaml.MappingNode {
		return nil, bad(n, "", fmt.Errorf("expected a Kubernetes object (a mapping), got %s", schema.KindName(n)))
	}
	o := &Object{file: file, line: n.Line, where: where, node: n}
	var err error
	var at *yaml.Node
	if o.apiVersion, at, err = scalarAt(n, "apiVersion"); err != nil {
		return nil, bad(at, "apiVersion", err)
	}
	if o.kind, at, err = scalarAt(n, "kind"); err != nil {
		return nil, bad(at, "kind", err)
	}
	o.apiVersion, o.kind = cmpOr(o.apiVersion, defVersion), cmpOr(o.kind, defKind)
	switch {
	case o.kind == "":
		return nil, bad(n, "kind", errors.New("required"))
	case o.apiVersion == "":
		return nil, bad(n, "apiVersion", errors.New("required"))
	}
	if items := schema.MapValue(n, "items"); items != nil && (o.kind == "List" || strings.HasSuffix(o.kind, "List")) {
		return kubeListItems(file, o, items, where, exp)
	}
	if err := o.readName(); err != nil {
		return nil, err
	}
	if o.kind == "ConfigMap" && o.apiVersion == "v1" {
		return configMapObjects(o)
	}
	return []*Object{o}, nil
}

func kubeListItems(file string, list *Object, items *yaml.Node, where string, exp *schema.Expansion) ([]*Object, error) {
	items = schema.Unalias(items)
	if items.Kind != yaml.SequenceNode {
		if items.Tag == "!!null" {
			return nil, nil
		}
		return nil, &Error{File: file, Line: items.Line, Path: joinWhere(where, "items"), Err: fmt.Errorf("expected a list, got %s", schema.KindName(items))}
	}
	var defVersion, defKind string
	if list.kind != "List" {
		defVersion, defKind = list.apiVersion, strings.TrimSuffix(list.kind, "List")
	}
	var out []*Object
	for i, item := range items.Content {
		aliasLine := 0
		if item.Kind == yaml.AliasNode {
			aliasLine = item.Line
			// the object an alias repeats is read again: counted as
			// what any alias repeats
			if err := exp.ChargeAlias(item); err != nil {
				return nil, &Error{File: file, Line: item.Line, Path: joinWhere(where, fmt.Sprintf("items[%d]", i)), Err: err}
			}
			item = schema.Unalias(item)
		}
		objs, err := kubeItems(file, item, joinWhere(where, fmt.Sprintf("items[%d]", i)), defVersion, defKind, exp)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			if aliasLine > 0 {
				o.line = aliasLine // where the file gives this object
			}
		}
		out = append(out, objs...)
	}
	return out, nil
}

// readName reads metadata.name and metadata.namespace, so that errors name
// the object before it is decoded.
func (o *Object) readName() error {
	kind, known := lookupKind(o.apiVersion, o.kind)
	meta := schema.MapValue(o.node, "metadata")
	for _, f := range []struct {
		key  string
		into *string
	}{{"name", &o.name}, {"generateName", &o.generateName}, {"namespace", &o.namespace}} {
		v, at, err := scalarAt(meta, f.key)
		if err != nil {
			return &Error{File: o.file, Line: at.Line, Path: o.ref() + ": metadata." + f.key, Err: err}
		}
		*f.into = v
	}
	switch {
	case known && !kind.namespaced && o.namespace != "":
		o.namespace = ""
		return o.failf(schema.MapValue(meta, "namespace"), "metadata.namespace", "%s is not namespaced", o.kind)
	case known && kind.namespaced && o.namespace == "":
		o.namespace = "default" // where kubectl creates it
	}
	for _, at := range []string{"metadata", "spec.template.metadata"} {
		if err := o.checkAnnotations(at); err != nil {
			return err
		}
	}
	return nil
}

// checkAnnotations checks the annotations of the metadata at the path
// (the object's, or its pod template's) as the API server does: keys are
// qualified names, and keys and values together hold at most 256 KiB.
func (o *Object) checkAnnotations(path string) error {
	meta := o.node
	for key := range strings.SplitSeq(path, ".") {
		meta = schema.MapValue(meta, key)
	}
	ann := schema.MapValue(meta, "annotations")
	if ann == nil || ann.Kind != yaml.MappingNode {
		return nil // absent, or not a map: decoding says so
	}
	size := 0
	for i := 0; i+1 < len(ann.Content); i += 2 {
		k, v := ann.Content[i], ann.Content[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if p := cluster.AnnotationKeyProblem(k.Value); p != "" {
			return &Error{File: o.file, Line: k.Line, Path: o.ref() + ": " + path + ".annotations", Err: errors.New(p)}
		}
		size += len(k.Value) + len(v.Value)
	}
	if p := cluster.AnnotationsSizeProblem(size); p != "" {
		return &Error{File: o.file, Line: ann.Line, Path: o.ref() + ": " + path + ".annotations", Err: errors.New(p)}
	}
	return nil
}

func joinWhere(where, field string) string {
	if where == "" {
		return field
	}
	if field == "" {
		return where
	}
	return where + "." + field
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// decodeKube decodes an object into its kind's value, checking its API
// version, and returns the paths of the fields it holds that are not
// modelled; d's cache of struct fields serves every object. A kind the
// importer does not read gives nil and a warning.
func decodeKube(o *Object, ws Warnings, d *schema.Decoder) (any, []string, error) {
	if o.early {
		v := o.decoded
		o.decoded = nil // held by the importer from here
		if v == nil {
			addSkip(ws, o.skipped)
		}
		return v, o.unmodelled, nil
	}
	kind, ok := lookupKind(o.apiVersion, o.kind)
	if !ok {
		addSkip(ws, skip(o))
		return nil, nil, nil
	}
	if !slices.Contains(kind.versions, o.apiVersion) {
		return nil, nil, o.fail(schema.MapValue(o.node, "apiVersion"), "apiVersion", fmt.Errorf("%q is not a version of %s the simulator reads (%s)%s",
			o.apiVersion, o.kind, strings.Join(kind.versions, ", "), versionHint(o)))
	}
	v := kind.decoded()
	var unmodelled []string
	d.Warn, d.Aliases = func(path string) { unmodelled = append(unmodelled, path) }, o.exp
	if err := d.Decode(o.node, v); err != nil {
		return nil, nil, o.decodeFail(err)
	}
	return v, unmodelled, nil
}

// fail returns an error about a field of the object, at the line of at
// (the field's, found by its path, when at is nil).
func (o *Object) fail(at *yaml.Node, field string, err error) error {
	line := o.lines().LineOf(field)
	if at != nil {
		line = at.Line
	}
	path := o.ref()
	if field != "" {
		path += ": " + field
	}
	return &Error{File: o.file, Line: line, Path: path, Err: err}
}

// failLine returns an error about a field of the object at a line.
func (o *Object) failLine(line int, field string, err error) error {
	return &Error{File: o.file, Line: line, Path: o.ref() + ": " + field, Err: err}
}

// decodeFail reports a decoding problem inside the object.
func (o *Object) decodeFail(err error) error {
	var de *schema.DecodeError
	if errors.As(err, &de) {
		return &Error{File: o.file, Line: de.Line, Path: o.ref() + ": " + de.Path, Err: de.Err}
	}
	return o.fail(nil, "", err)
}

// failf is fail with a formatted cause.
func (o *Object) failf(at *yaml.Node, field, format string, args ...any) error {
	return o.fail(at, field, fmt.Errorf(format, args...))
}
