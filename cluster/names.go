package cluster

import "fmt"

// NameProblem says why name is no object name ("" when it is one), as the
// API server checks names: a DNS subdomain (pods, nodes, pod groups,
// budgets, priority classes, quotas, limit ranges, device objects), or a
// DNS label (namespaces) when label is set. The scenario reader, the
// Kubernetes importer and the Go API all check names with it.
func NameProblem(name string, label bool) string {
	switch {
	case name == "":
		return "must not be empty"
	case label && !isDNSLabel(name):
		return fmt.Sprintf("%q is not a DNS label (lower case letters, digits and '-', at most 63)", name)
	case !isDNSSubdomain(name):
		return fmt.Sprintf("%q is not a DNS subdomain (lower case letters, digits, '-' and '.', at most 253)", name)
	}
	return ""
}

// namespacedNameProblem checks a namespaced object's name and namespace
// (empty is the default namespace): the field at fault and why.
func namespacedNameProblem(name, namespace string) (string, string) {
	if p := NameProblem(name, false); p != "" {
		return "name", p
	}
	if namespace != "" {
		if p := NameProblem(namespace, true); p != "" {
			return "namespace", p
		}
	}
	return "", ""
}

// NamespacedNameProblem is namespacedNameProblem for the packages above.
func NamespacedNameProblem(name, namespace string) (field, detail string) {
	return namespacedNameProblem(name, namespace)
}
