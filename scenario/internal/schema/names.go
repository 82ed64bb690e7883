package schema

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gangsim/gangsim/cluster"
)

// The names of objects and resources, checked as the API server checks
// them: the builder checks a scenario file's entries with them, and the
// Kubernetes importer the objects' names and resource lists.

// NameError says what is wrong with a name, as the API server checks
// names (cluster.NameProblem, the one check the Go API makes too): a DNS
// subdomain (pods, nodes, groups, budgets, classes), or a DNS label
// (namespaces) when label is set. nil for a valid name.
func NameError(name string, label bool) error {
	if p := cluster.NameProblem(name, label); p != "" {
		return errors.New(p)
	}
	return nil
}

// ResourceUse says where a resource list appears, which decides the
// standard names it may hold.
type ResourceUse int

// The places of resource lists.
const (
	ResourcesOfContainer ResourceUse = iota // containers, pod overhead, pod-level resources
	ResourcesOfNode                         // a node's allocatable: pods too
)

// CheckResourceName checks a resource name as the API server does: a name
// without a domain prefix must be a standard one (so "memroy" is a typo,
// not a new extended resource); a prefixed one must be a qualified name.
func CheckResourceName(name string, use ResourceUse) error {
	prefix, base, prefixed := strings.Cut(name, "/")
	if !prefixed {
		switch {
		case name == "cpu", name == "memory", name == "ephemeral-storage", strings.HasPrefix(name, "hugepages-"):
			return nil
		case use == ResourcesOfNode && (name == "pods" || strings.HasPrefix(name, "attachable-volumes-")):
			return nil
		}
		return fmt.Errorf("%q is not a standard resource name (cpu, memory, ephemeral-storage, hugepages-<size>%s); an extended resource needs a domain prefix, such as example.com/%s",
			name, map[bool]string{true: ", pods"}[use == ResourcesOfNode], name)
	}
	if prefix == "" || base == "" || !cluster.IsQualifiedName(name) {
		return fmt.Errorf("%q is not a valid resource name (a DNS prefix, '/', and a name of letters, digits, '-', '_' and '.')", name)
	}
	return nil
}

// LabelKeyError checks a label key (and so a node label a topology names)
// as the API server does: a name of at most 63 letters, digits, '-', '_'
// and '.', after an optional DNS subdomain prefix and '/'.
func LabelKeyError(key string) error {
	if p := cluster.LabelKeyProblem(key); p != "" {
		return errors.New(p)
	}
	return nil
}

// standardQuotaResources are the names a ResourceQuota may limit without
// a domain prefix, as the API server lists them (besides huge pages).
var standardQuotaResources = []string{"cpu", "memory", "ephemeral-storage", "pods", "services", "replicationcontrollers",
	"resourcequotas", "secrets", "configmaps", "persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
	"requests.storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage", "limits.cpu", "limits.memory",
	"limits.ephemeral-storage"}

// CheckQuotaResourceName checks the name of a ResourceQuota's limit as
// the API server does: without a '/' a standard quota resource
// (requests.cpu, pods, services...), with one a qualified name
// (count/pods, requests.nvidia.com/gpu).
func CheckQuotaResourceName(name string) error {
	if strings.Contains(name, "/") {
		return CheckResourceName(name, ResourcesOfContainer)
	}
	if slices.Contains(standardQuotaResources, name) || strings.HasPrefix(name, "hugepages-") || strings.HasPrefix(name, "requests.hugepages-") {
		return nil
	}
	return fmt.Errorf("%q must be a standard resource for quota (requests.cpu, limits.memory, pods, ...), or a name with a domain (count/pods, requests.example.com/gpu)", name)
}
