package scenario_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/scenario"
)

// writeTree writes files (path relative to dir -> contents) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
}

const (
	folderNodes = "nodes: [{name: n, allocatable: {cpu: \"4\"}, count: 2}]\n"
	folderPodA  = "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {nodeName: n-1, containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}\n"
	folderPodB  = `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "b"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}`
)

// A folder stands for its .yaml, .yml and .json files in name order, as
// kubectl apply -f reads one; other files and sub-folders are not read,
// and a sub-folder holding inputs is named in a warning.
func TestFolderInputs(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"cluster.yaml":          folderNodes,
		"pods/b.json":           folderPodB,
		"pods/a.yml":            folderPodA,
		"pods/README.md":        "not an input",
		"pods/old/c.yaml":       "not: read",
		"pods/empty/notes.txt":  "no inputs here",
		"pods/kustomize/x.toml": "",
	})
	files, err := scenario.InputFiles([]string{filepath.Join(dir, "cluster.yaml"), filepath.Join(dir, "pods")})
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, "cluster.yaml"), filepath.Join(dir, "pods", "a.yml"), filepath.Join(dir, "pods", "b.json")}, files)

	sc, err := scenario.LoadFiles([]string{filepath.Join(dir, "cluster.yaml"), filepath.Join(dir, "pods")})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "cluster.yaml")+", "+filepath.Join(dir, "pods"), sc.Name, "named after the paths as given")
	require.Len(t, sc.Pods, 2)
	assert.Equal(t, "a", sc.Pods[0].Pod.Name)
	assert.Equal(t, "n-1", sc.Pods[0].Pod.NodeName, "a pod of the folder names a node of the file")
	require.Len(t, sc.Warnings, 1)
	w := sc.Warnings[0]
	assert.Equal(t, "sub-folder of an input folder", w.Field)
	assert.Equal(t, 1, w.Objects, "the folder without inputs is not named")
	assert.Equal(t, filepath.Join(dir, "pods", "old"), w.First)
}

func TestFolderErrors(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"empty/README.md": "", "bad/x.yaml": "nodes: [{name: n, allocatable: {cpu: lots}}]\n"})
	_, err := scenario.LoadFiles([]string{filepath.Join(dir, "empty")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "empty")+": the folder holds no .yaml, .yml or .json file")

	_, err = scenario.LoadFiles([]string{filepath.Join(dir, "bad")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "bad", "x.yaml"), "an error names the file in the folder")

	_, err = scenario.InputFiles([]string{filepath.Join(dir, "nowhere")})
	require.ErrorIs(t, err, os.ErrNotExist)
}

// gzipped compresses text.
func gzipped(t *testing.T, text string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write([]byte(text))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return b.String()
}

// A file whose name ends in .gz is read decompressed, given by name or
// in a folder; its decompressed size is bounded as any file's.
func TestGzippedInputs(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"in/cluster.yaml.gz": gzipped(t, folderNodes),
		"in/pods.json.gz":    gzipped(t, folderPodB),
		"in/other.gz":        gzipped(t, "not an input name"),
		"bad.yaml.gz":        "plain text",
	})
	files, err := scenario.InputFiles([]string{filepath.Join(dir, "in")})
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, "in", "cluster.yaml.gz"), filepath.Join(dir, "in", "pods.json.gz")}, files)
	sc, err := scenario.LoadFiles([]string{filepath.Join(dir, "in")})
	require.NoError(t, err)
	assert.Len(t, sc.Nodes, 2)
	assert.Len(t, sc.Pods, 1)

	_, err = scenario.LoadFiles([]string{filepath.Join(dir, "bad.yaml.gz")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad.yaml.gz: not gzip data")

	_, err = scenario.ParseFiles([]scenario.File{{Name: "big.yaml.gz", Data: []byte(gzipped(t, folderNodes+strings.Repeat("# padding\n", 100)))}},
		scenario.WithLimits(scenario.Limits{FileSize: 200}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "big.yaml.gz: decompressed, the file is more than 200 bytes")
}

// A kubectl dump and a folder of manifests, merged into one simulation:
// the folder stands for its .yaml, .yml and .json files in name order.
func ExampleInputFiles() {
	dir, err := os.MkdirTemp("", "inputs")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	for name, text := range map[string]string{
		"nodes.yaml":               folderNodes,
		"manifests/b.json":         folderPodB,
		"manifests/a.yml":          folderPodA,
		"manifests/README.md":      "not an input",
		"manifests/old/c.yaml":     "not read",
		"manifests/notes/x.txt":    "not an input",
		"manifests/more/d.yaml.gz": "",
	} {
		path := filepath.Join(dir, name)
		_ = os.MkdirAll(filepath.Dir(path), 0o755)
		_ = os.WriteFile(path, []byte(text), 0o644)
	}
	paths := []string{filepath.Join(dir, "nodes.yaml"), filepath.Join(dir, "manifests")}
	files, err := scenario.InputFiles(paths)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		fmt.Println(rel)
	}
	sc, err := scenario.LoadFiles(paths)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(sc.Nodes), "nodes,", len(sc.Pods), "pods,", sc.Warnings[0].Objects, "sub-folders not read")
	// Output:
	// nodes.yaml
	// manifests/a.yml
	// manifests/b.json
	// 2 nodes, 2 pods, 2 sub-folders not read
}
