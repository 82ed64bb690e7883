package scenario

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Rules no test pinned before issue 48.

// A label value ends with a letter or digit, as Kubernetes validates it:
// "-", "_" and "." at its end are refused, naming the label.
func TestLabelValueEndingRefused(t *testing.T) {
	for _, v := range []string{"abc-", "abc_", "abc."} {
		_, err := Parse("pods.yaml", []byte("pods:\n  - {name: p, labels: {app: \""+v+"\"}}\n"))
		require.Error(t, err, v)
		require.ErrorContains(t, err, "pods.yaml")
		require.ErrorContains(t, err, "labels", v)
	}
	_, err := Parse("pods.yaml", []byte("pods:\n  - {name: p, labels: {app: a-b_c.d}}\n"))
	require.NoError(t, err)
}

// U+2029 (and U+2028) inside a List are characters of a string, not line
// breaks: the lines an error names are the file's.
func TestListWithParagraphSeparatorKeepsLines(t *testing.T) {
	text := "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n" +
		"{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"a\", \"annotations\": {\"note\": \"x\u2029y\u2028z\"}}, \"spec\": {\"containers\": [{\"name\": \"c\"}]}},\n" +
		"{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"b\"}, \"spec\": {\"containers\": [{\"name\": \"c\", \"resources\": {\"requests\": {\"memroy\": \"1Gi\"}}}]}}\n" +
		"]}\n"
	_, err := Parse("list.json", []byte(text))
	require.Error(t, err)
	require.ErrorContains(t, err, "list.json: line 3:")
	require.ErrorContains(t, err, "memroy")
}
