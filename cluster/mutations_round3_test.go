package cluster

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// An object's namespace is a DNS label, not a subdomain: a namespace with
// a dot is refused, naming the namespace field, while a name may hold dots.
func TestNamespaceIsALabel(t *testing.T) {
	field, detail := NamespacedNameProblem("web.v1", "team.a")
	require.Equal(t, "namespace", field)
	require.Contains(t, detail, `"team.a" is not a DNS label`)
	field, detail = NamespacedNameProblem("web.v1", "team-a")
	require.Empty(t, field)
	require.Empty(t, detail)
}

// Every C1 control character, U+0080 included, is escaped in messages.
func TestPrintableEscapesAllOfC1(t *testing.T) {
	require.Equal(t, `a\u0080b\u009fc`, Printable("a\u0080b\u009fc"))
	require.Equal(t, `\u0080`, PrintableLine("\u0080"))
	require.Equal(t, "\u00a0", Printable("\u00a0"))
}

// A bad label key of more than 300 characters is named by its field only,
// not quoted in the path; one of 300 is still quoted there.
func TestLongLabelKeyNotInThePath(t *testing.T) {
	key := func(n int) string { return "a/" + strings.Repeat("b", n-2) }
	at, p := labelsProblem("labels", map[string]string{key(301): "v"})
	require.Equal(t, "labels", at)
	require.NotEmpty(t, p)
	at, p = labelsProblem("labels", map[string]string{key(300): "v"})
	require.Equal(t, "labels["+key(300)+"]", at)
	require.NotEmpty(t, p)
}

// Annotations may hold exactly 256 KiB of keys and values, not a byte more.
func TestAnnotationsSizeLimitInclusive(t *testing.T) {
	require.Empty(t, AnnotationsSizeProblem(MaxAnnotationsSize))
	require.Contains(t, AnnotationsSizeProblem(MaxAnnotationsSize+1), "Too long")
}
