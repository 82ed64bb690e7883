package scenario

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A merged folder's mistakes come at once, one line each: a file that
// does not parse, then the objects of the other files that do not
// decode, in input order. The node's taint, checked when the scenario is
// built, comes once these are fixed: the build needs every object.
func TestAllErrorsAtOnce(t *testing.T) {
	files := []File{
		{Name: "a.yaml", Data: []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c, resources: {requests: {memroy: 1Gi}}}]}\n")},
		{Name: "b.yaml", Data: []byte("nodes: [{name: n\n")},
		{Name: "c.yaml", Data: []byte("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {taints: [{key: k, effect: Sometimes}]}\nstatus: {allocatable: {cpu: \"1\"}}\n---\n" +
			"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: -1}\n")},
		{Name: "d.yaml", Data: []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: ok}\nspec: {containers: [{name: c}]}\n")},
	}
	_, err := ParseFiles(files)
	require.Error(t, err)
	var list *Errors
	require.ErrorAs(t, err, &list)
	lines := strings.Split(err.Error(), "\n")
	require.Len(t, lines, 3, err.Error())
	for i, file := range []string{"b.yaml", "a.yaml", "c.yaml"} {
		assert.True(t, strings.HasPrefix(lines[i], "invalid scenario: "+file), lines[i])
	}
	assert.Contains(t, lines[0], "b.yaml") // a parse error, found first: reading comes before importing
	assert.Contains(t, lines[1], "memroy") // the objects' errors, in input order
	assert.Contains(t, lines[2], "replicas")
	assert.ErrorIs(t, err, ErrScenario)
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "b.yaml", fe.File, "errors.As finds the first")
}

// Errors of the build, a file each (a pod bound to a node no input
// has), are all reported too; past MaxErrors, a last line counts the
// rest. One error alone is that error, as before.
func TestErrorsBounded(t *testing.T) {
	var files []File
	for i := range MaxErrors + 5 {
		files = append(files, File{Name: fmt.Sprintf("p%02d.yaml", i), Data: []byte(fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata: {name: p%d}\nspec: {nodeName: nowhere, containers: [{name: c}]}\n", i))})
	}
	_, err := ParseFiles(files)
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.Len(t, lines, MaxErrors+1, err.Error())
	assert.Equal(t, "and 5 more errors", lines[MaxErrors])
	assert.Contains(t, lines[0], "p00.yaml")

	_, err = ParseFiles(files[:1])
	var fe *FieldError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, err, error(fe), "one error is returned as it is")
}
