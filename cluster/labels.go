package cluster

import (
	"fmt"
	"slices"
	"strings"
)

// The API server's rules for labels, applied to every object the
// simulator takes (scenario entries, Kubernetes objects, the Go API): one
// validation path.

// maxLabelValue is the longest label value the API server takes.
const maxLabelValue = 63

// LabelValueProblem says why v is no label value ("" when it is one): at
// most 63 letters, digits, '-', '_' and '.', beginning and ending with a
// letter or digit; empty is allowed.
func LabelValueProblem(v string) string {
	if v == "" {
		return ""
	}
	if len(v) > maxLabelValue {
		return fmt.Sprintf("a label value of %d characters is longer than %d", len(v), maxLabelValue)
	}
	ok := isAlnum(v[0]) && isAlnum(v[len(v)-1])
	for i := 0; ok && i < len(v); i++ {
		c := v[i]
		ok = isAlnum(c) || c == '-' || c == '_' || c == '.'
	}
	if !ok {
		return fmt.Sprintf("%q is not a label value (at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit)", v)
	}
	return ""
}

// LabelKeyProblem says why k is no label key ("" when it is one): a
// qualified name (IsQualifiedName).
func LabelKeyProblem(k string) string {
	if IsQualifiedName(k) {
		return ""
	}
	return fmt.Sprintf("%q is not a label key (an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit)", k)
}

// labelsProblem checks a label map (or a node selector) as the API
// server does; it returns the field at fault (field[key]) and why, the
// first in key order.
func labelsProblem(field string, labels map[string]string) (string, string) {
	valid := true
	for k, v := range labels { // the common case, without a sort or an allocation
		if LabelKeyProblem(k) != "" || LabelValueProblem(v) != "" {
			valid = false
			break
		}
	}
	if valid {
		return "", ""
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		at := field + "[" + k + "]"
		if len(k) > 300 || strings.ContainsFunc(k, isControl) {
			at = field
		}
		if p := LabelKeyProblem(k); p != "" {
			return at, p
		}
		if p := LabelValueProblem(labels[k]); p != "" {
			return at, p
		}
	}
	return "", ""
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// MaxAnnotationsSize is the most the keys and values of one object's
// annotations may hold together, in bytes, as the API server allows.
const MaxAnnotationsSize = 256 << 10

// AnnotationKeyProblem says why k is no annotation key ("" when it is
// one): a qualified name, checked lower-cased as the API server does.
func AnnotationKeyProblem(k string) string {
	if IsQualifiedName(strings.ToLower(k)) {
		return ""
	}
	return fmt.Sprintf("%q is not an annotation key (an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit)", k)
}

// AnnotationsSizeProblem says why annotations of total size bytes are
// too many ("" when they are not).
func AnnotationsSizeProblem(size int) string {
	if size <= MaxAnnotationsSize {
		return ""
	}
	return fmt.Sprintf("Too long: the keys and values hold %d bytes, more than the %d an object's annotations may hold", size, MaxAnnotationsSize)
}
