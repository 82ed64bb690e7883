package scenario

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/cluster"
)

// A kubectl dump with the four device kinds gives the Devices of the
// scenario file written for it, value for value; the pod's claims and its
// container's are read; the golden file shows the values.
func TestKubectlDumpDevices(t *testing.T) {
	dump, err := Load("testdata/kube/devices.yaml")
	require.NoError(t, err)
	file, err := Load("testdata/kube/devices-equivalent.yaml")
	require.NoError(t, err)
	require.Equal(t, file.Devices, dump.Devices)
	require.Equal(t, file.Pods[0].Pod.ResourceClaims, dump.Pods[0].Pod.ResourceClaims)
	require.Equal(t, []cluster.PodResourceClaim{{Name: "gpu", ResourceClaimName: "shared-gpu"}, {Name: "scratch", ResourceClaimTemplateName: "one-gpu"}},
		dump.Pods[0].Pod.ResourceClaims)
	require.Equal(t, []ContainerClaim{{Container: "main", Name: "gpu"}, {Container: "main", Name: "scratch", Request: "gpu"}}, dump.Pods[0].ContainerClaims)
	require.Empty(t, file.Pods[0].ContainerClaims, "a scenario pod has no containers")

	out, err := json.MarshalIndent(dump.Devices, "", "  ")
	require.NoError(t, err)
	golden(t, "testdata/kube/devices.golden.json", append(out, '\n'))

	require.Empty(t, dump.Warnings, "claims are scheduled: nothing to warn of")
	require.Empty(t, file.Warnings)
	require.Equal(t, runFiles(t, "testdata/kube/devices-equivalent.yaml"), runFiles(t, "testdata/kube/devices.yaml"), "both run alike")

	// the scenario file as JSON: the direct decoder gives up on the
	// attribute maps, and the tree reads the same values
	text, err := os.ReadFile("testdata/kube/devices-equivalent.yaml")
	require.NoError(t, err)
	var v any
	require.NoError(t, yaml.Unmarshal(text, &v))
	data, err := json.Marshal(v)
	require.NoError(t, err)
	asJSON, err := Parse("devices.json", data)
	require.NoError(t, err)
	require.Equal(t, file.Devices, asJSON.Devices)
	require.Equal(t, file.Pods[0].Pod.ResourceClaims, asJSON.Pods[0].Pod.ResourceClaims)
}

// deviceObject makes a resource.k8s.io/v1 object of kind with spec (flow
// YAML, one line), and namespace ml for the namespaced kinds.
func deviceObject(kind, name, spec string) string {
	ns := ""
	if kind == "ResourceClaim" || kind == "ResourceClaimTemplate" {
		ns = ", namespace: ml"
	}
	return "apiVersion: resource.k8s.io/v1\nkind: " + kind + "\nmetadata: {name: " + name + ns + "}\nspec: " + spec + "\n"
}

const (
	goodClass = "{selectors: [{cel: {expression: 'device.driver == \"d.example.com\"'}}]}"
	goodSlice = "{driver: d.example.com, nodeName: n, pool: {name: n, resourceSliceCount: 1}, devices: [{name: d0, attributes: {model: {string: x}}, capacity: {mem: {value: 1Gi}}}]}"
	goodClaim = "{devices: {requests: [{name: r, exactly: {deviceClassName: c}}]}}"
)

// Good objects load; bad ones give the object, its field and the line,
// as the API server would refuse them.
func TestDeviceObjects(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"class", deviceObject("DeviceClass", "c", goodClass), ""},
		{"slice", deviceObject("ResourceSlice", "s", goodSlice), ""},
		{"claim", deviceObject("ResourceClaim", "c", goodClaim), ""},
		{"template", deviceObject("ResourceClaimTemplate", "t", "{spec: "+goodClaim+"}"), ""},
		{"all nodes and counters", deviceObject("ResourceSlice", "s", "{driver: d.example.com, allNodes: true, pool: {name: p, resourceSliceCount: 2}, sharedCounters: [{name: gpu-0, counters: {mem: {value: 80Gi}}}]}"), ""},
		{"node selector", deviceObject("ResourceSlice", "s", "{driver: d.example.com, nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, values: [a]}]}]}, pool: {name: p, resourceSliceCount: 1}}"), ""},
		{"request without a class", deviceObject("ResourceClaim", "c", "{devices: {requests: [{name: r, exactly: {count: 2}}]}}"),
			"in.yaml: line 4: ResourceClaim ml/c: spec.devices.requests[0].exactly.deviceClassName: must not be empty"},
		{"exactly and firstAvailable", deviceObject("ResourceClaim", "c", "{devices: {requests: [{name: r, exactly: {deviceClassName: c}, firstAvailable: [{name: a, deviceClassName: c}]}]}}"),
			"ResourceClaim ml/c: spec.devices.requests[0]: exactly one of exactly and firstAvailable must be set"},
		{"neither", deviceObject("ResourceClaim", "c", "{devices: {requests: [{name: r}]}}"),
			"ResourceClaim ml/c: spec.devices.requests[0]: exactly one of exactly and firstAvailable must be set"},
		{"template without a class", deviceObject("ResourceClaimTemplate", "t", "{spec: {devices: {requests: [{name: r, firstAvailable: [{name: a}]}]}}}"),
			"ResourceClaimTemplate ml/t: spec.spec.devices.requests[0].firstAvailable[0].deviceClassName: must not be empty"},
		{"admin access in an alternative", deviceObject("ResourceClaim", "c", "{devices: {requests: [{name: r, firstAvailable: [{name: a, deviceClassName: c, adminAccess: true}]}]}}"),
			"ResourceClaim ml/c: spec.devices.requests[0] (r).firstAvailable[0] (a).adminAccess: unknown field (known: name, deviceClassName, selectors, allocationMode, count, tolerations, capacity)"},
		{"constraint names no request", deviceObject("ResourceClaim", "c", "{devices: {requests: [{name: r, exactly: {deviceClassName: c}}], constraints: [{requests: [q], matchAttribute: d.example.com/model}]}}"),
			`spec.devices.constraints[0].requests[0]: "q" names no request of the claim`},
		{"empty selector", deviceObject("DeviceClass", "c", "{selectors: [{}]}"), "DeviceClass c: spec.selectors[0].cel.expression: must not be empty"},
		{"bad quantity", deviceObject("ResourceSlice", "s", strings.Replace(goodSlice, "1Gi", "1Gb", 1)),
			`ResourceSlice s: spec.devices[0].capacity.mem.value: "1Gb" is not a valid quantity`},
		{"capacity without value", deviceObject("ResourceSlice", "s", strings.Replace(goodSlice, "{value: 1Gi}", "{}", 1)),
			"ResourceSlice s: spec.devices[0].capacity.mem.value: required"},
		{"policy on an exclusive device", deviceObject("ResourceSlice", "s", strings.Replace(goodSlice, "{value: 1Gi}", "{value: 1Gi, requestPolicy: {default: 1Mi}}", 1)),
			"ResourceSlice s: spec.devices[0].capacity[mem].requestPolicy: is allowed only when allowMultipleAllocations is true"},
		{"two attribute values", deviceObject("ResourceSlice", "s", strings.Replace(goodSlice, "{string: x}", "{string: x, int: 1}", 1)),
			"ResourceSlice s: spec.devices[0].attributes[model]: exactly one of int, bool, string and version must be set"},
		{"no node", deviceObject("ResourceSlice", "s", "{driver: d.example.com, pool: {name: p, resourceSliceCount: 1}}"),
			"in.yaml: line 1: ResourceSlice s: exactly one of nodeName, nodeSelector and allNodes must be set"},
		{"unknown slice field", deviceObject("ResourceSlice", "s", "{driver: d.example.com, nodeName: n, pool: {name: p, resourceSliceCount: 1, size: 3}}"),
			"ResourceSlice s: spec.pool.size: unknown field"},
		{"taint effect", deviceObject("ResourceSlice", "s", strings.Replace(goodSlice, "capacity:", "taints: [{key: k, effect: Later}], capacity:", 1)),
			`ResourceSlice s: spec.devices[0].taints[0].effect: "Later" is not None, NoSchedule or NoExecute`},
		{"bad name", deviceObject("DeviceClass", "C", goodClass), `in.yaml: line 3: DeviceClass C: metadata.name: "C" is not a DNS subdomain`},
		{"old version", strings.Replace(deviceObject("DeviceClass", "c", goodClass), "v1", "v1beta1", 1), `DeviceClass c: apiVersion: "resource.k8s.io/v1beta1" is not a version of DeviceClass the simulator reads (resource.k8s.io/v1)`},
		{"namespaced class", strings.Replace(deviceObject("DeviceClass", "c", goodClass), "name: c", "name: c, namespace: x", 1), "DeviceClass c: metadata.namespace: DeviceClass is not namespaced"},
		{"twice", deviceObject("DeviceClass", "c", goodClass) + "---\n" + deviceObject("DeviceClass", "c", goodClass),
			"in.yaml: line 6: DeviceClass c: metadata.name: device class c is defined twice: first in in.yaml, line 1 (DeviceClass c)"},
		{"one name, two kinds", deviceObject("ResourceClaim", "c", goodClaim) + "---\n" + deviceObject("ResourceClaimTemplate", "c", "{spec: "+goodClaim+"}"), ""},
		{"pod claim with both names", pod(`resourceClaims: [{name: g, resourceClaimName: a, resourceClaimTemplateName: b}]`),
			"Pod default/p: spec.resourceClaims[0]: exactly one of resourceClaimName and resourceClaimTemplateName must be set"},
		{"pod claims twice", pod(`resourceClaims: [{name: g, resourceClaimName: a}, {name: g, resourceClaimName: b}]`),
			`Pod default/p: spec.resourceClaims[1].name: "g" is listed twice`},
		{"pod claim name", pod(`resourceClaims: [{name: g.1, resourceClaimName: a}]`), `Pod default/p: spec.resourceClaims[0].name: "g.1" is not a DNS label`},
		{"container claim unknown", pod(`resourceClaims: [{name: g, resourceClaimName: a}]`, `claims: [{name: h}]`),
			`in.yaml: line 4: Pod default/p: spec.containers[0].resources.claims[0].name: "h" names no entry of spec.resourceClaims`},
		{"container claim twice", pod(`resourceClaims: [{name: g, resourceClaimName: a}]`, `claims: [{name: g, request: r}, {name: g, request: r}]`),
			`Pod default/p: spec.containers[0].resources.claims[1]: claim "g" (request "r") is listed twice`},
		{"pod-level claims", pod(`resourceClaims: [{name: g, resourceClaimName: a}], resources: {claims: [{name: g}]}`),
			"Pod default/p: spec.resources.claims: must not be set"},
		{"pod claim of a deployment", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c}], resourceClaims: [{name: g}]}}}\n",
			"Deployment default/d (pod d-",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse("in.yaml", []byte(tt.text))
			if tt.want == "" {
				require.NoError(t, err)
				d := sc.Devices
				require.Empty(t, sc.Warnings, "a slice of several nodes is read too")
				require.NotZero(t, len(d.Classes)+len(d.Slices)+len(d.Claims)+len(d.Templates))
				return
			}
			require.Error(t, err)
			require.ErrorIs(t, err, ErrScenario)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

// pod is a Pod object with more spec fields, and more fields of its
// container's resources.
func pod(spec string, resources ...string) string {
	res := ""
	if len(resources) > 0 {
		res = ", resources: {" + resources[0] + "}"
	}
	return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c" + res + "}], " + spec + "}\n"
}

// The same objects in scenario files: errors name the entry and its field,
// in the file's own terms.
func TestDeviceEntries(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"all four", "deviceClasses: [{name: c, selectors: [{cel: {expression: 'true'}}]}]\n" +
			"resourceSlices: [{name: s, driver: d.example.com, allNodes: true, pool: {name: p, resourceSliceCount: 1}, devices: [{name: d0, capacity: {mem: {value: 1Gi}}}]}]\n" +
			"resourceClaims: [{name: c, namespace: ml, devices: {requests: [{name: r, exactly: {deviceClassName: c, capacity: {requests: {mem: 1Mi}}}}]}}]\n" +
			"resourceClaimTemplates: [{name: t, devices: {requests: [{name: r, firstAvailable: [{name: a, deviceClassName: c}]}]}}]\n" +
			"pods: [{name: p, resourceClaims: [{name: g, resourceClaimTemplateName: t}]}]\n", ""},
		{"request without a class", "resourceClaims:\n  - name: c\n    devices: {requests: [{name: r, exactly: {count: 1}}]}\n",
			"s.yaml: line 2: resourceClaims[0] (c).devices.requests[0].exactly.deviceClassName: must not be empty"},
		{"exactly and firstAvailable", "resourceClaimTemplates: [{name: t, devices: {requests: [{name: r, exactly: {deviceClassName: c}, firstAvailable: [{name: a, deviceClassName: c}]}]}}]\n",
			"resourceClaimTemplates[0] (t).devices.requests[0]: exactly one of exactly and firstAvailable must be set"},
		{"bad name", "deviceClasses: [{name: Big}]\n", `deviceClasses[0] (Big).name: "Big" is not a DNS subdomain`},
		{"no name", "resourceClaims: [{devices: {}}]\n", "resourceClaims[0].name: must not be empty"},
		{"bad namespace", "resourceClaims: [{name: c, namespace: a.b, devices: {}}]\n", `resourceClaims[0] (c).namespace: "a.b" is not a DNS label`},
		{"bad request quantity", "resourceClaims: [{name: c, devices: {requests: [{name: r, exactly: {deviceClassName: c, capacity: {requests: {mem: lots}}}}]}}]\n",
			`resourceClaims[0] (c).devices.requests[0].exactly.capacity.requests.mem: "lots" is not a valid quantity`},
		{"validRange without min", "resourceSlices: [{name: s, driver: d, allNodes: true, pool: {name: p, resourceSliceCount: 1}, devices: [{name: d0, allowMultipleAllocations: true, capacity: {bw: {value: '10', requestPolicy: {validRange: {max: '5'}}}}}]}]\n",
			"resourceSlices[0] (s).devices[0].capacity.bw.requestPolicy.validRange.min: required"},
		{"default outside the range", "resourceSlices: [{name: s, driver: d, allNodes: true, pool: {name: p, resourceSliceCount: 1}, devices: [{name: d0, allowMultipleAllocations: true, capacity: {bw: {value: '10', requestPolicy: {default: '1', validRange: {min: '2'}}}}}]}]\n",
			"resourceSlices[0] (s).devices[0].capacity[bw].requestPolicy.default: 1 is outside validRange"},
		{"both node and all", "resourceSlices: [{name: s, driver: d, nodeName: n, allNodes: true, pool: {name: p, resourceSliceCount: 1}}]\n",
			"resourceSlices[0] (s): exactly one of nodeName, nodeSelector and allNodes must be set"},
		{"twice", "deviceClasses: [{name: c}, {name: c}]\n", "s.yaml: line 1: deviceClasses[1] (c).name: device class c is defined twice: first in s.yaml, line 1 (deviceClasses[0] (c))"},
		{"claims twice", "resourceClaims:\n  - {name: c, devices: {}}\n  - {name: c, namespace: default, devices: {}}\n",
			"s.yaml: line 3: resourceClaims[1] (c).name: resource claim c is defined twice: first in s.yaml, line 2 (resourceClaims[0] (c))"},
		{"one name in two namespaces", "resourceClaims: [{name: c, devices: {}}, {name: c, namespace: ml, devices: {}}]\n", ""},
		{"pod claim without a name", "pods: [{name: p, resourceClaims: [{resourceClaimName: c}]}]\n", "pods[0] (p).resourceClaims[0].name: required"},
		{"pod claim with neither", "pods: [{name: p, resourceClaims: [{name: g}]}]\n", "pods[0] (p).resourceClaims[0]: exactly one of resourceClaimName and resourceClaimTemplateName must be set"},
		{"pod claim of an empty name", "pods: [{name: p, resourceClaims: [{name: g, resourceClaimName: ''}]}]\n", "pods[0] (p).resourceClaims[0].resourceClaimName: must not be empty"},
		{"workload claim", "workloads: [{name: w, replicas: 2, pod: {resourceClaims: [{name: g, resourceClaimName: Bad}]}}]\n", `workloads[0] (w).pod.resourceClaims[0].resourceClaimName: "Bad" is not a DNS subdomain`},
		{"unknown field", "deviceClasses: [{name: c, selector: []}]\n", "deviceClasses[0] (c).selector: unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse("s.yaml", []byte(tt.text))
			if tt.want == "" {
				require.NoError(t, err)
				require.NotEmpty(t, sc.Devices.Claims)
				return
			}
			require.Error(t, err)
			require.ErrorIs(t, err, ErrScenario)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

// Validation errors keep their cause, and name the line of the field in
// an object; a scenario entry's line is the entry's.
func TestDeviceErrorsAreFieldErrors(t *testing.T) {
	_, err := Parse("in.yaml", []byte(deviceObject("ResourceClaim", "c", "\n  devices:\n    requests:\n      - name: r\n        exactly: {count: 2}")))
	require.ErrorIs(t, err, cluster.ErrInvalidDevices)
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, FieldError{File: "in.yaml", Line: 8, Path: "ResourceClaim ml/c: spec.devices.requests[0].exactly.deviceClassName", Err: fe.Err}, *fe)

	_, err = Parse("in.yaml", []byte(deviceObject("ResourceSlice", "s", strings.Replace(goodSlice, "1Gi", "-1", 1))))
	require.ErrorIs(t, err, cluster.ErrQuantity)
}

// An object's fields the simulator does not model warn: config, a claim's
// allocation of a device left out, and a slice whose devices each say
// their nodes is left out.
func TestDeviceWarnings(t *testing.T) {
	text := deviceObject("DeviceClass", "c", "{config: [{opaque: {driver: d, parameters: {a: 1}}}]}") + "---\n" +
		deviceObject("ResourceClaim", "c", "{devices: {requests: [{name: r, exactly: {deviceClassName: c, tolerations: [{key: k, operator: Exists, tolerationSeconds: 5}]}}], config: [{requests: [r]}]}}") +
		"status: {allocation: {devices: {results: [{request: r, driver: d.example.com, pool: p, device: d0}]}}, reservedFor: [{resource: pods, name: p, uid: u}]}\n---\n" +
		deviceObject("ResourceSlice", "s", "{driver: d.example.com, perDeviceNodeSelection: true, pool: {name: p, resourceSliceCount: 1}, devices: [{name: d0, nodeName: n}]}")
	sc, err := Parse("in.yaml", []byte(text))
	require.NoError(t, err)
	require.Empty(t, sc.Devices.Slices, "the slice is left out")
	var got []string
	for _, w := range sc.Warnings {
		got = append(got, w.String())
	}
	require.Equal(t, []string{
		"DeviceClass spec.config: not modelled, ignored (1 object, first in.yaml: DeviceClass c)",
		"ResourceClaim spec.devices.config: not modelled, ignored (1 object, first in.yaml: ResourceClaim ml/c)",
		"ResourceClaim spec.devices.requests[].exactly.tolerations[].tolerationSeconds: not modelled, ignored (1 object, first in.yaml: ResourceClaim ml/c)",
		"ResourceClaim status.allocation: names a device of a slice left out: the claim is taken as not allocated (1 object, first in.yaml: ResourceClaim ml/c)",
		"ResourceSlice spec.devices[].nodeName: not modelled, ignored (1 object, first in.yaml: ResourceSlice s)",
		"ResourceSlice spec.perDeviceNodeSelection: not modelled: the slice is left out (1 object, first in.yaml: ResourceSlice s)",
	}, got)

	sc, err = Parse("s.yaml", []byte("resourceSlices: [{name: s, driver: d, perDeviceNodeSelection: true, pool: {name: p, resourceSliceCount: 1}}]\n"+
		"deviceClasses: [{name: c, config: [{opaque: {driver: d}}]}]\n"))
	require.NoError(t, err)
	got = nil
	for _, w := range sc.Warnings {
		got = append(got, w.String())
	}
	require.Equal(t, []string{
		"deviceClasses[].config: not modelled, ignored (1 object, first s.yaml: deviceClasses[0] (c))",
		"resourceSlices[].perDeviceNodeSelection: not modelled: the slice is left out (1 object, first s.yaml: resourceSlices[0] (s))",
	}, got)
}

// An object of one file and an entry of another with one name: an error
// naming both.
func TestDeviceDuplicatesAcrossFiles(t *testing.T) {
	objs := File{Name: "objs.yaml", Data: []byte(deviceObject("ResourceClaimTemplate", "t", "{spec: "+goodClaim+"}"))}
	file := File{Name: "s.yaml", Data: []byte("resourceClaimTemplates: [{name: t, namespace: ml, devices: {}}]\n")}
	_, err := ParseFiles([]File{objs, file})
	require.EqualError(t, err, "invalid scenario: s.yaml: line 1: resourceClaimTemplates[0] (t).name: resource claim template ml/t is defined twice: first in objs.yaml, line 1 (ResourceClaimTemplate ml/t)")
}

// A gang with a topology key whose pods ask for an extended resource that
// devices serve (a device class's extendedResourceName) is placed: the
// quick bound on a domain's free room does not count allocatable for a
// resource the nodes do not list. (It pruned every domain; the group then
// came back at once, cycle after cycle, until the cap stopped the run.)
func TestGangWithDeviceServedResourceInARack(t *testing.T) {
	sc, err := Parse("racks.yaml", []byte(`
nodes:
  - {name: a, labels: {rack: ra}, allocatable: {cpu: "8", memory: 64Gi}}
  - {name: b, labels: {rack: rb}, allocatable: {cpu: "8", memory: 64Gi}}
deviceClasses:
  - {name: gpu.example.com, selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}], extendedResourceName: example.com/gpu}
resourceSlices:
  - {name: a-gpus, driver: gpu.example.com, nodeName: a, pool: {name: a, resourceSliceCount: 1}, devices: [{name: gpu-0}, {name: gpu-1}]}
  - {name: b-gpus, driver: gpu.example.com, nodeName: b, pool: {name: b, resourceSliceCount: 1}, devices: [{name: gpu-0}, {name: gpu-1}]}
podGroups:
  - {name: g, minCount: 2, topologyKey: rack}
pods:
  - {podGroup: g, name: w, requests: {cpu: "1", example.com/gpu: 1}, count: 2}
`))
	require.NoError(t, err)
	sc.Config.CheckInvariants = true
	res, err := sc.Run()
	require.NoError(t, err)
	require.Empty(t, res.Stopped)
	for _, p := range res.Pods {
		require.Equal(t, "a", p.Node, p.Name)
	}
}

// The pods a workload makes from Kubernetes objects are given devices
// through their claims (the importer reads them and the scheduler
// allocates them), and the result lists each bound pod's devices. By
// hand in the file: 3 inference pods of one GPU, bound to the end, and 2
// training pods of two, which succeed after 1h and let theirs go.
func TestKubeWorkloadsGetDevices(t *testing.T) {
	sc, err := Load("../examples/capacity-planning/testdata/dra/cluster.yaml")
	require.NoError(t, err)
	res, err := sc.Run()
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, p := range res.Pods {
		if p.Phase != "Bound" {
			require.Empty(t, p.Claims, p.Name)
			continue
		}
		require.Len(t, p.Claims["gpu"], 1, p.Name)
		for _, d := range p.Claims["gpu"] {
			require.False(t, seen[d], "%s given twice", d)
			seen[d] = true
		}
	}
	require.Len(t, seen, 3)
}

// A PodGroup's resourceClaims (v1.37's DRAWorkloadResourceClaims) are read
// in a scenario file and from a PodGroup object, checked as a pod's
// entries are, at most four.
func TestPodGroupClaims(t *testing.T) {
	sc, err := Parse("s.yaml", []byte("podGroups: [{name: g, minCount: 2, resourceClaims: [{name: gpu, resourceClaimTemplateName: one}, {name: nic, resourceClaimName: shared}]}]\n"))
	require.NoError(t, err)
	require.Equal(t, []cluster.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: "one"}, {Name: "nic", ResourceClaimName: "shared"}}, sc.PodGroups[0].ResourceClaims)

	sc, err = Load("testdata/scenarios/podgroup-claims.yaml")
	require.NoError(t, err)
	require.Len(t, sc.PodGroups, 2)
	require.Equal(t, []cluster.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: "one-gpu"}}, sc.PodGroups[1].ResourceClaims)

	for _, tt := range []struct{ text, want string }{
		{"podGroups: [{name: g, minCount: 1, resourceClaims: [{name: gpu}]}]\n",
			"podGroups[0] (g).resourceClaims[0]: exactly one of resourceClaimName and resourceClaimTemplateName must be set"},
		{"podGroups: [{name: g, minCount: 1, resourceClaims: [{name: a, resourceClaimName: x}, {name: a, resourceClaimName: y}]}]\n",
			`podGroups[0] (g).resourceClaims[1].name: "a" is listed twice`},
		{"podGroups: [{name: g, minCount: 1, resourceClaims: [{name: a, resourceClaimName: x}, {name: b, resourceClaimName: x}, {name: c, resourceClaimName: x}, {name: d, resourceClaimName: x}, {name: e, resourceClaimName: x}]}]\n",
			"podGroups[0] (g).resourceClaims: 5 entries, at most 4 are allowed"},
	} {
		_, err := Parse("s.yaml", []byte(tt.text))
		require.ErrorContains(t, err, tt.want)
	}
	_, err = Parse("pg.yaml", []byte("apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec:\n  schedulingPolicy: {gang: {minCount: 1}}\n  resourceClaims: [{name: gpu, resourceClaimTemplateName: Bad}]\n"))
	require.ErrorContains(t, err, `PodGroup default/g: spec.resourceClaims[0].resourceClaimTemplateName: "Bad" is not a DNS subdomain`)
}
