package scenario

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/dra"
	"github.com/gangsim/gangsim/plugins/dynamicresources"
)

// A version attribute that is not a semantic version is refused, naming
// the file, the slice and the attribute's field. Issue 48.
func TestDeviceVersionAttributeNotSemver(t *testing.T) {
	_, err := Parse("in.yaml", []byte(deviceObject("ResourceSlice", "s", strings.Replace(goodSlice, "{string: x}", "{version: latest}", 1))))
	require.ErrorIs(t, err, ErrScenario)
	require.ErrorContains(t, err, `in.yaml: line 4: ResourceSlice s: spec.devices[0].attributes[model].version: "latest" is not a semantic version`)

	_, err = Parse("s.yaml", []byte("resourceSlices: [{name: s, driver: d, nodeName: n, pool: {name: p, resourceSliceCount: 1}, devices: [{name: d0, attributes: {v: {version: '1.2'}}}]}]\n"))
	require.ErrorContains(t, err, `s.yaml: line 1: resourceSlices[0] (s).devices[0].attributes[v].version: "1.2" is not a semantic version`)
}

// A DeviceClass selector whose worst-case cost is over the limit (eight
// nested replace calls would build gigabytes) is refused when loaded,
// naming the file, the class and the field, as the API server refuses
// it. Issue 48.
func TestDeviceSelectorTooCostly(t *testing.T) {
	expr := `device.driver`
	for range 8 {
		expr += `.replace("", "aaaaaaaaaaaaaaaa")`
	}
	_, err := Parse("in.yaml", []byte(deviceObject("DeviceClass", "c", "{selectors: [{cel: {expression: '"+expr+` == ""'}}]}`)))
	require.ErrorIs(t, err, ErrScenario)
	require.ErrorContains(t, err, "in.yaml: line 4: DeviceClass c: spec.selectors[0].cel.expression: Forbidden: too complex, exceeds cost limit")
}

// The DynamicResources plugin's arguments docs/devices.md documents
// (features, preemption) and kube's filterTimeout are read from a
// profile's pluginConfig, in a scenario file and in a
// KubeSchedulerConfiguration. Issue 48.
func TestDynamicResourcesArgs(t *testing.T) {
	args := "{features: {prioritizedList: false, consumableCapacity: true, partitionableDevices: true, deviceTaints: false, adminAccess: true}, preemption: true, filterTimeout: 5s}"
	sc, err := Parse("s.yaml", []byte("config: {profiles: [{schedulerName: default-scheduler, pluginConfig: [{name: DynamicResources, args: "+args+"}]}]}\n"))
	require.NoError(t, err)
	got := sc.Config.Profiles[0].PluginConfig[0].Args.(*dynamicresources.Args)
	require.Equal(t, dra.Features{AdminAccess: true, ConsumableCapacity: true, PartitionableDevices: true}, got.Features)
	require.True(t, got.Preemption)
	require.Equal(t, 5*time.Second, got.FilterTimeout)

	// unset fields keep their defaults; 0 disables the timeout
	sc, err = Parse("s.yaml", []byte("config: {profiles: [{schedulerName: default-scheduler, pluginConfig: [{name: DynamicResources, args: {filterTimeout: 0s}}]}]}\n"))
	require.NoError(t, err)
	got = sc.Config.Profiles[0].PluginConfig[0].Args.(*dynamicresources.Args)
	require.Equal(t, dra.DefaultFeatures(), got.Features)
	require.Zero(t, got.FilterTimeout)

	_, err = Parse("s.yaml", []byte("config: {profiles: [{schedulerName: default-scheduler, pluginConfig: [{name: DynamicResources, args: {filterTimeout: soon}}]}]}\n"))
	require.ErrorContains(t, err, `pluginConfig[0].args.filterTimeout: "soon" is not a valid duration`)
	_, err = Parse("s.yaml", []byte("config: {profiles: [{schedulerName: default-scheduler, pluginConfig: [{name: DynamicResources, args: {filterTimeout: -1s}}]}]}\n"))
	require.ErrorContains(t, err, "pluginConfig[0].args: filterTimeout -1s must not be negative")

	sc, err = Parse("in.yaml", []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [{pluginConfig: [{name: DynamicResources, args: {kind: DynamicResourcesArgs, filterTimeout: 20s}}]}]\n"))
	require.NoError(t, err)
	got = sc.Config.Profiles[0].PluginConfig[0].Args.(*dynamicresources.Args)
	require.Equal(t, 20*time.Second, got.FilterTimeout)
}

// distinctClaimScenario is a node of 28 devices with seven indexes and
// one more of another model, and a pod whose claim asks for eight
// devices of the first model with distinct indexes: a search with no
// answer that tries every combination.
func distinctClaimScenario(filterTimeout string) string {
	var devs []string
	for i := range 28 {
		devs = append(devs, fmt.Sprintf("{name: a%d, attributes: {model: {string: a}, index: {int: %d}}}", i, i/4))
	}
	devs = append(devs, "{name: b0, attributes: {model: {string: b}, index: {int: 7}}}")
	var reqs []string
	for i := range 8 {
		reqs = append(reqs, fmt.Sprintf(`{name: r%d, exactly: {deviceClassName: gpu, selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].model == "a"'}}]}}`, i))
	}
	cfg := ""
	if filterTimeout != "" {
		cfg = "config: {profiles: [{schedulerName: default-scheduler, pluginConfig: [{name: DynamicResources, args: {filterTimeout: " + filterTimeout + "}}]}]}\n"
	}
	return cfg + `nodes: [{name: n1, allocatable: {cpu: "8", pods: 10}}]
deviceClasses: [{name: gpu, selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}]
resourceSlices: [{name: s, driver: gpu.example.com, nodeName: n1, pool: {name: n1, resourceSliceCount: 1}, devices: [` + strings.Join(devs, ", ") + `]}]
resourceClaims: [{name: eight, devices: {requests: [` + strings.Join(reqs, ", ") + `], constraints: [{distinctAttribute: gpu.example.com/index}]}}]
pods: [{name: p, requests: {cpu: "1"}, resourceClaims: [{name: g, resourceClaimName: eight}]}]
`
}

// A search that spends its budget rejects the node with kube's status
// for an expired filter timeout; the budget follows filterTimeout. Issue
// 48.
func TestDeviceSearchTimesOut(t *testing.T) {
	for _, timeout := range []string{"", "1ms"} {
		sc, err := Parse("s.yaml", []byte(distinctClaimScenario(timeout)))
		require.NoError(t, err)
		res, err := sc.Run()
		require.NoError(t, err)
		require.Equal(t, gangsim.PhasePending, res.Pods[0].Phase)
		require.Contains(t, res.Pods[0].Reason, "timed out trying to allocate devices", timeout)
	}
}

// A device capacity of 16Ei, which Kubernetes takes, loads (as the
// largest quantity there is). Issue 48.
func TestDeviceHugeCapacityLoads(t *testing.T) {
	sc, err := Parse("in.yaml", []byte(deviceObject("ResourceSlice", "s", strings.Replace(goodSlice, "1Gi", "16Ei", 1))))
	require.NoError(t, err)
	require.Equal(t, cluster.MaxQuantity, sc.Devices.Slices[0].Devices[0].Capacity["mem"].Value)
}

// A slice reaching several nodes (allNodes, or a nodeSelector) is read,
// with no warning: its devices are network devices every node it selects
// reaches. Issue 48.
func TestMultiNodeSliceIsRead(t *testing.T) {
	for _, spec := range []string{
		"{driver: d.example.com, allNodes: true, pool: {name: p, resourceSliceCount: 1}, devices: [{name: d0}]}",
		"{driver: d.example.com, nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, values: [a]}]}]}, pool: {name: p, resourceSliceCount: 1}, devices: [{name: d0}]}",
	} {
		sc, err := Parse("in.yaml", []byte(deviceObject("ResourceSlice", "s", spec)))
		require.NoError(t, err)
		require.Empty(t, sc.Warnings)
		require.Len(t, sc.Devices.Slices, 1)
	}
	sc, err := Parse("s.yaml", []byte("resourceSlices: [{name: s, driver: d, allNodes: true, pool: {name: p, resourceSliceCount: 1}}]\n"))
	require.NoError(t, err)
	require.Empty(t, sc.Warnings)
}

// twoGPUNode begins a kubectl List of a node of two GPUs: the node, the
// GPUs' DeviceClass and the node's ResourceSlice.
const twoGPUNode = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
  status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: gpu}
  spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: n1-gpus}
  spec:
    driver: gpu.example.com
    nodeName: n1
    pool: {name: n1, generation: 1, resourceSliceCount: 1}
    devices: [{name: gpu-0}, {name: gpu-1}]
`

// allocatedDump is a node of two GPUs and a claim the dump shows allocated
// on the second, held by pod a, which runs; pod b, pending, asks for a GPU
// of its own. device names the allocated device.
func allocatedDump(device string) string {
	return twoGPUNode + `- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: held, namespace: default}
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
  status:
    allocation:
      devices:
        results: [{request: gpu, driver: gpu.example.com, pool: n1, device: ` + device + `}]
      nodeSelector:
        nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}]
      allocationTimestamp: "2026-01-01T00:00:00Z"
    reservedFor: [{resource: pods, name: a, uid: u1}]
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: mine, namespace: default}
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
- apiVersion: v1
  kind: Pod
  metadata: {name: a, namespace: default}
  spec:
    nodeName: n1
    containers: [{name: c, resources: {requests: {cpu: "1"}}}]
    resourceClaims: [{name: gpu, resourceClaimName: held}]
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: b, namespace: default}
  spec:
    containers: [{name: c, resources: {requests: {cpu: "1"}}}]
    resourceClaims: [{name: gpu, resourceClaimName: mine}]
`
}

// A dump's allocated claim keeps the devices its status.allocation names,
// held by its running pod: the pending pod gets the other GPU. A device
// the allocation names that no slice has is an error naming the file,
// the claim and the field. Issue 48.
func TestDumpedAllocationIsKept(t *testing.T) {
	sc, err := Parse("dump.yaml", []byte(allocatedDump("gpu-1")))
	require.NoError(t, err)
	for _, w := range sc.Warnings {
		require.NotContains(t, w.String(), "status.allocation")
		require.NotContains(t, w.String(), "status.reservedFor")
	}
	res, err := sc.Run()
	require.NoError(t, err)
	claims := map[string][]string{}
	for _, p := range res.Pods {
		claims[p.Name] = p.Claims["gpu"]
	}
	require.Equal(t, map[string][]string{"a": {"gpu.example.com/n1/gpu-1"}, "b": {"gpu.example.com/n1/gpu-0"}}, claims)

	_, err = Parse("dump.yaml", []byte(allocatedDump("gpu-9")))
	require.ErrorIs(t, err, ErrScenario)
	require.ErrorContains(t, err, `dump.yaml: line 27: ResourceClaim default/held: status.allocation.devices.results[0].device: device gpu.example.com/n1/gpu-9 is in no ResourceSlice`)
}

// ownedDump is a dump of a pod that runs with the claim the resourceclaim
// controller made from its template (named with Kubernetes' random
// suffix, owned by the pod, allocated the second GPU, recorded in the
// pod's status), beside a user's claim that has the name a suffix-less
// rule would give, used by a pending pod.
const ownedDump = twoGPUNode + `- apiVersion: resource.k8s.io/v1
  kind: ResourceClaimTemplate
  metadata: {name: one, namespace: default}
  spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}}
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: web-gpu, namespace: default}
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata:
    name: web-gpu-x7k2p
    namespace: default
    ownerReferences: [{apiVersion: v1, kind: Pod, name: web, uid: u1, controller: true, blockOwnerDeletion: true}]
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
  status:
    allocation: {devices: {results: [{request: gpu, driver: gpu.example.com, pool: n1, device: gpu-1}]}}
    reservedFor: [{resource: pods, name: web, uid: u1}]
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: default}
  spec:
    nodeName: n1
    containers: [{name: c, resources: {requests: {cpu: "1"}}}]
    resourceClaims: [{name: gpu, resourceClaimTemplateName: one}]
  status:
    phase: Running
    resourceClaimStatuses: [{name: gpu, resourceClaimName: web-gpu-x7k2p}]
- apiVersion: v1
  kind: Pod
  metadata: {name: user, namespace: default}
  spec:
    containers: [{name: c, resources: {requests: {cpu: "1"}}}]
    resourceClaims: [{name: gpu, resourceClaimName: web-gpu}]
`

// A dumped pod's status.resourceClaimStatuses and its claim's owner
// reference are read: the pod keeps the claim made for it (and its GPU),
// and the user's claim of the name "<pod>-<entry>" is the user's pod's.
// Issue 48.
func TestDumpedPodKeepsItsOwnClaim(t *testing.T) {
	sc, err := Parse("dump.yaml", []byte(ownedDump))
	require.NoError(t, err)
	var web *cluster.Pod
	for i := range sc.Pods {
		if sc.Pods[i].Pod.Name == "web" {
			web = &sc.Pods[i].Pod
		}
	}
	require.Equal(t, []cluster.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: "web-gpu-x7k2p"}}, web.ResourceClaimStatuses)
	for _, c := range sc.Devices.Claims {
		if c.Name == "web-gpu-x7k2p" {
			require.Equal(t, &cluster.ClaimOwner{Kind: cluster.OwnerPod, Name: "web"}, c.Owner)
		} else {
			require.Nil(t, c.Owner)
		}
	}
	res, err := sc.Run()
	require.NoError(t, err)
	claims := map[string][]string{}
	for _, p := range res.Pods {
		claims[p.Name] = p.Claims["gpu"]
	}
	require.Equal(t, map[string][]string{"web": {"gpu.example.com/n1/gpu-1"}, "user": {"gpu.example.com/n1/gpu-0"}}, claims)

	_, err = Parse("dump.yaml", []byte(strings.Replace(ownedDump, "resourceClaimStatuses: [{name: gpu,", "resourceClaimStatuses: [{name: gpu2,", 1)))
	require.ErrorContains(t, err, `Pod default/web: status.resourceClaimStatuses[0].name: "gpu2" is no entry of spec.resourceClaims`)
}
