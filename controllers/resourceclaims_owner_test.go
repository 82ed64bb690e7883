package controllers_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// A pod that arrives with its template entry's claim recorded in its
// status (a dump's, made with Kubernetes' random suffix) keeps it; the
// controller deletes it when the pod ends, as the pod owns it, and never
// deletes a claim the pod does not own, even one its status names.
// Issue 48.
func TestResourceClaimsDeleteTheClaimsAPodOwns(t *testing.T) {
	cc := newClaimsCase(t, 2)
	require.NoError(t, cc.s.AddResourceClaim(cluster.ResourceClaim{Name: "web-gpu", Spec: gt.GPUSpec(1, "", 0)}))
	require.NoError(t, cc.s.AddResourceClaim(cluster.ResourceClaim{Name: "web-gpu-x7k2p", Spec: gt.GPUSpec(1, "", 0),
		Owner: &cluster.ClaimOwner{Kind: cluster.OwnerPod, Name: "web"}}))
	require.NoError(t, cc.s.AddResourceClaim(cluster.ResourceClaim{Name: "api-gpu-q9z4m", Spec: gt.GPUSpec(1, "", 0),
		Owner: &cluster.ClaimOwner{Kind: cluster.OwnerPod, Name: "other"}}))

	web := templatePod("web", "gpu", "one")
	web.ResourceClaimStatuses = []cluster.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: "web-gpu-x7k2p"}}
	cc.add(web, time.Minute)
	require.Equal(t, []string{"default/web-gpu-x7k2p"}, cc.c.Owned("default/web"))

	api := templatePod("api", "gpu", "one")
	api.ResourceClaimStatuses = []cluster.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: "api-gpu-q9z4m"}}
	cc.add(api, time.Minute)
	require.Empty(t, cc.c.Owned("default/api"), "the claim is another pod's")

	require.NoError(t, cc.s.Run())
	require.NoError(t, cc.c.Sync())
	_, ok := cc.claim("default/web-gpu-x7k2p")
	require.False(t, ok, "the pod's own claim is deleted with it")
	_, ok = cc.claim("default/web-gpu")
	require.True(t, ok, "the user's claim stays")
	_, ok = cc.claim("default/api-gpu-q9z4m")
	require.True(t, ok, "a claim the pod does not own stays")
}
