package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/gangsim/gangsim"

	"github.com/stretchr/testify/require"
)

// sharedNetworkDump is what kubectl prints of a cluster whose one network
// GPU (a slice with allNodes: true) is allocated to a claim two running
// pods on two nodes share (reservedFor lists both; an allNodes
// allocation has no nodeSelector); a pending pod asks for a network GPU
// of its own. Pod a runs 5 more minutes, pod b 10.
const sharedNetworkDump = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
  status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}
- apiVersion: v1
  kind: Node
  metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
  status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: net-gpu}
  spec: {selectors: [{cel: {expression: 'device.driver == "net.example.com"'}}]}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: fabric-xk2p9}
  spec:
    driver: net.example.com
    allNodes: true
    pool: {name: fabric, generation: 1, resourceSliceCount: 1}
    devices: [{name: ngpu-0, attributes: {model: {string: fabric-a}}}]
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: shared, namespace: default, uid: 7d1c0a52-0000-4000-8000-000000000001, resourceVersion: "812"}
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: net-gpu, allocationMode: ExactCount, count: 1}}]}}
  status:
    allocation:
      devices:
        results: [{request: gpu, driver: net.example.com, pool: fabric, device: ngpu-0}]
      allocationTimestamp: "2026-01-01T00:00:00Z"
    reservedFor:
    - {resource: pods, name: a, uid: 7d1c0a52-0000-4000-8000-00000000000a}
    - {resource: pods, name: b, uid: 7d1c0a52-0000-4000-8000-00000000000b}
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: mine, namespace: default}
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: net-gpu}}]}}
- apiVersion: v1
  kind: Pod
  metadata: {name: a, namespace: default, annotations: {gangsim.io/duration: 5m}}
  spec:
    nodeName: n1
    containers: [{name: c, resources: {requests: {cpu: "1"}}}]
    resourceClaims: [{name: gpu, resourceClaimName: shared}]
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: b, namespace: default, annotations: {gangsim.io/duration: 10m}}
  spec:
    nodeName: n2
    containers: [{name: c, resources: {requests: {cpu: "1"}}}]
    resourceClaims: [{name: gpu, resourceClaimName: shared}]
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: c, namespace: default, annotations: {gangsim.io/duration: 5m}}
  spec:
    containers: [{name: c, resources: {requests: {cpu: "1"}}}]
    resourceClaims: [{name: gpu, resourceClaimName: mine}]
`

// The hostile dump of issue 48 loads and runs: the two pods of two nodes
// share the claim allocated the allNodes device, which every node sees in
// use, so the pending pod waits; the device is freed when the claim's
// last pod ends (b, at 10m; a ending at 5m frees nothing), as the
// resourceclaim controller deallocates a claim whose reservedFor empties,
// and the pending pod then gets it.
func TestDumpedSharedNetworkClaim(t *testing.T) {
	sc, err := Parse("dump.yaml", []byte(sharedNetworkDump))
	require.NoError(t, err)
	for _, w := range sc.Warnings {
		require.NotContains(t, w.String(), "allNodes")
		require.NotContains(t, w.String(), "status.allocation")
	}
	var allocated, released time.Duration = -1, -1
	res, err := sc.RunUntil(func(e gangsim.Event) bool {
		switch {
		case e.Kind == gangsim.EventClaimAllocated && e.Claim == "default/mine":
			allocated = e.At
		case e.Kind == gangsim.EventClaimReleased && e.Claim == "default/shared":
			require.Equal(t, time.Duration(-1), released, "released once")
			released = e.At
		}
		return false
	})
	require.NoError(t, err)
	var c *PodResult
	for i := range res.Pods {
		if res.Pods[i].Name == "c" {
			c = &res.Pods[i]
		}
	}
	require.NotNil(t, c)
	require.NotEmpty(t, c.Node, "%+v", res.Pods)
	require.Equal(t, 10*time.Minute, released, "freed with the claim's last pod, b")
	require.Equal(t, 10*time.Minute, allocated, "c waits for it")

	// a pod of a node the allocation's nodeSelector does not select
	// cannot have arrived running with the claim
	sel := strings.Replace(sharedNetworkDump, "      allocationTimestamp:", "      nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n1]}]}]}\n      allocationTimestamp:", 1)
	sc, err = Parse("dump.yaml", []byte(sel))
	require.NoError(t, err)
	_, err = sc.Run()
	require.ErrorContains(t, err, "claim default/shared")
}
