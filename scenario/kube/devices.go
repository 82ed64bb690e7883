package kube

import (
	"fmt"
	"strings"

	"github.com/gangsim/gangsim/cluster"

	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// devices converts a DeviceClass, ResourceSlice, ResourceClaim or
// ResourceClaimTemplate into its scenario entry; the builder checks it as
// the API server would (the Validate methods of package cluster).
func (k *kubeImport) devices(o *Object, v any, f *schema.File) error {
	if err := checkName(o, false); err != nil {
		return err
	}
	switch v := v.(type) {
	case *kubeDeviceClass:
		f.DeviceClasses = append(f.DeviceClasses, schema.DeviceClass{Line: o.line, Name: o.name, DeviceClassSpec: v.Spec,
			Origin: newOrigin(o, kubeDeviceFields)})
	case *kubeResourceSlice:
		f.ResourceSlices = append(f.ResourceSlices, schema.ResourceSlice{Line: o.line, Name: o.name, ResourceSliceSpec: v.Spec,
			Origin: newOrigin(o, kubeDeviceFields)})
	case *kubeResourceClaim:
		f.ResourceClaims = append(f.ResourceClaims, schema.ResourceClaim{Line: o.line, Name: o.name, Namespace: o.namespace,
			ResourceClaimSpec: v.Spec, Origin: newOrigin(o, kubeDeviceFields), Allocation: v.Status.Allocation,
			Owner: claimOwner(&v.Metadata)})
	case *kubeResourceClaimTemplate:
		f.ResourceClaimTemplates = append(f.ResourceClaimTemplates, schema.ResourceClaimTemplate{Line: o.line, Name: o.name,
			Namespace: o.namespace, ResourceClaimSpec: v.Spec.Spec, Origin: newOrigin(o, kubeTemplateFields)})
	}
	return nil
}

// podClaims reads a pod spec's claims: the pod's, which the builder
// checks, and its containers', which must name one of them, as the API
// server requires. Pod-level resources name no claims.
func (k *kubeImport) podClaims(o *Object, spec *kubePodSpec, at string, s *schema.Pod) error {
	s.ResourceClaims = spec.ResourceClaims
	if r := spec.Resources; r != nil && len(r.Claims) > 0 {
		return o.failf(nil, at+".resources.claims", "must not be set: pod-level resources name no claims (a container's do)")
	}
	names := map[string]bool{}
	for _, c := range spec.ResourceClaims {
		names[c.Name] = true
	}
	for _, list := range []struct {
		field      string
		containers []kubeContainer
	}{{"initContainers", spec.InitContainers}, {"containers", spec.Containers}} {
		for i := range list.containers {
			c := &list.containers[i]
			seen := map[kubeContainerClaim]bool{}
			for j, claim := range c.Resources.Claims {
				field := fmt.Sprintf("%s.%s[%d].resources.claims[%d]", at, list.field, i, j)
				switch {
				case claim.Name == "":
					return o.failf(nil, field+".name", "required")
				case !names[claim.Name]:
					return o.failf(nil, field+".name", "%q names no entry of %s.resourceClaims", claim.Name, at)
				case seen[claim]:
					return o.failf(nil, field, "claim %q (request %q) is listed twice", claim.Name, claim.Request)
				}
				seen[claim] = true
				s.ContainerClaims = append(s.ContainerClaims, schema.ContainerClaim{Container: c.Name, Name: claim.Name, Request: claim.Request})
			}
		}
	}
	return nil
}

// claimOwner is the pod or PodGroup a claim was made for, as its
// controller owner reference says; nil for a claim a user made (or one
// of another owner, which no pod takes for its template entry).
func claimOwner(m *kubeMeta) *cluster.ClaimOwner {
	ref := controllerOf(m)
	switch {
	case ref == nil:
		return nil
	case ref.Kind == cluster.OwnerPod && (ref.APIVersion == "v1" || ref.APIVersion == ""):
		return &cluster.ClaimOwner{Kind: cluster.OwnerPod, Name: ref.Name}
	case ref.Kind == cluster.OwnerPodGroup && strings.HasPrefix(ref.APIVersion, "scheduling.k8s.io/"):
		return &cluster.ClaimOwner{Kind: cluster.OwnerPodGroup, Name: ref.Name}
	}
	return nil
}
