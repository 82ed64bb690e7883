package schema

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The names of objects and resources, checked as the API server checks
// them: the builder checks a scenario file's entries with them, and the
// Kubernetes importer the objects' names and resource lists.

// qualifiedName is the name part of a qualified name (a label key's, an
// extended resource's).
var qualifiedName = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)

// isDNSLabel reports whether s is lower case letters, digits and '-',
// starting and ending with a letter or digit (the length is checked apart).
// Every name of a file is checked: by hand, not by a regular expression.
func isDNSLabel(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// isDNSSubdomain reports whether s is DNS labels joined by '.'.
func isDNSSubdomain(s string) bool {
	for {
		label, rest, more := strings.Cut(s, ".")
		if !isDNSLabel(label) {
			return false
		}
		if !more {
			return true
		}
		s = rest
	}
}

// NameError says what is wrong with a name, as the API server checks
// names: a DNS subdomain (pods, nodes, groups, budgets, classes), or a DNS
// label (namespaces) when label is set. nil for a valid name.
func NameError(name string, label bool) error {
	switch {
	case label && (len(name) > 63 || !isDNSLabel(name)):
		return fmt.Errorf("%q is not a DNS label (lower case letters, digits and '-', at most 63)", name)
	case len(name) > 253 || !isDNSSubdomain(name):
		return fmt.Errorf("%q is not a DNS subdomain (lower case letters, digits, '-' and '.', at most 253)", name)
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
	if len(prefix) > 253 || !isDNSSubdomain(prefix) || base == "" || len(base) > 63 || !qualifiedName.MatchString(base) {
		return fmt.Errorf("%q is not a valid resource name (a DNS prefix, '/', and a name of letters, digits, '-', '_' and '.')", name)
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
