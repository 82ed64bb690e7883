package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/scenario/kube"
)

// publicRow is a row of testdata/kube/public/expected.tsv: an object of a
// public manifest, the pods its real controller makes before any of them
// runs, their names (a regular expression; a random suffix of the real
// controller is [a-z0-9]+), and the gangs they form ("-", or "<scheduler>
// <groups>x<minCount>").
type publicRow struct {
	file, kind, object string
	pods               int
	names              *regexp.Regexp
	gangs, minCount    int // 0: no gang
	scheduler          string
}

func readPublicRows(t *testing.T, path string) []publicRow {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var rows []publicRow
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n")[1:] {
		cols := strings.Split(line, "\t")
		require.Len(t, cols, 7, "expected.tsv line %d: file, kind, object, pods, names, gang, note", i+2)
		r := publicRow{file: cols[0], kind: cols[1], object: cols[2]}
		r.pods, err = strconv.Atoi(cols[3])
		require.NoError(t, err, "line %d", i+2)
		r.names = regexp.MustCompile("^(" + cols[4] + ")$")
		if cols[5] != "-" {
			var sched string
			_, err := fmt.Sscanf(cols[5], "%s %dx%d", &sched, &r.gangs, &r.minCount)
			require.NoError(t, err, "line %d: gang %q", i+2, cols[5])
			r.scheduler = sched
		}
		rows = append(rows, r)
	}
	return rows
}

// apiVersionOf finds the apiVersion of the object of kind named name (or
// generated from the prefix name) in a file of Kubernetes objects.
func apiVersionOf(t *testing.T, path, kind, name string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc struct {
			APIVersion string `yaml:"apiVersion"`
			Kind       string `yaml:"kind"`
			Metadata   struct {
				Name         string `yaml:"name"`
				GenerateName string `yaml:"generateName"`
			} `yaml:"metadata"`
		}
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, path)
		if doc.Kind == kind && (doc.Metadata.Name == name || doc.Metadata.Name == "" && doc.Metadata.GenerateName == name) {
			return doc.APIVersion
		}
	}
	t.Fatalf("%s holds no %s %s", path, kind, name)
	return ""
}

// The public manifests of testdata/kube/public, gathered from the projects
// GPU users deploy (README.md there names each source), load together with
// the eight GPU nodes of nodes.yaml into one simulation; each object makes
// the pods expected.tsv works out from its real controller's rules, by
// count, name and gang. A row whose kind the importer does not read yet is
// skipped, naming the kind: it runs as soon as the importer reads it.
func TestPublicManifests(t *testing.T) {
	dir := "testdata/kube/public"
	rows := readPublicRows(t, filepath.Join(dir, "expected.tsv"))
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.yaml"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 37)
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		require.True(t, slices.ContainsFunc(rows, func(r publicRow) bool { return r.file == filepath.ToSlash(rel) }), "%s has a row in expected.tsv", rel)
		first, err := os.ReadFile(f)
		require.NoError(t, err)
		require.Regexp(t, `^# Source: \S+/\S+ \S+ at [0-9a-f]{40}, (Apache-2.0|MIT); unchanged below this comment.\n`, string(first), rel)
	}
	sc, err := LoadFiles(append([]string{filepath.Join(dir, "nodes.yaml")}, files...), SkipUnknownPlugins())
	require.NoError(t, err)
	require.Len(t, sc.Nodes, 8)
	res, err := sc.Run()
	require.NoError(t, err)
	placed := map[string]PodResult{} // by namespace/name
	for _, p := range res.Pods {
		key := p.Name
		if !strings.Contains(key, "/") {
			key = "default/" + key
		}
		placed[key] = p
	}
	labels := map[string]map[string]string{}
	for _, n := range sc.Nodes {
		labels[n.Name] = n.Labels
	}

	groups := map[string]int32{} // minCount by namespace/name; 0 for basic
	topology := map[string]string{}
	for _, g := range sc.PodGroups {
		groups[g.Namespace+"/"+g.Name] = g.MinCount
		topology[g.Namespace+"/"+g.Name] = g.TopologyKey
	}
	read := map[string]int{} // the pods of the rows read, by file
	for _, r := range rows {
		path := filepath.Join(dir, filepath.FromSlash(r.file))
		apiVersion := apiVersionOf(t, path, r.kind, r.object)
		if kube.ReadsKind(apiVersion, r.kind) {
			read[path] += r.pods
		}
		t.Run(r.file+"/"+r.kind+"/"+r.object, func(t *testing.T) {
			if !kube.ReadsKind(apiVersion, r.kind) {
				t.Skipf("%s %s: the importer does not read this kind yet", apiVersion, r.kind)
			}
			var names []string
			gangs := map[string]bool{}
			for _, p := range sc.Pods {
				if p.Source.File != path || !r.names.MatchString(p.Pod.Name) {
					continue
				}
				names = append(names, p.Pod.Name)
				switch {
				case r.gangs == 0:
					require.Empty(t, p.Pod.PodGroup, "pod %s is in no gang", p.Pod.Name)
				default:
					key := p.Pod.Namespace + "/" + p.Pod.PodGroup
					require.NotEmpty(t, p.Pod.PodGroup, "pod %s is in a gang (%s)", p.Pod.Name, r.scheduler)
					require.Equal(t, int32(r.minCount), groups[key], "PodGroup %s's minCount", key)
					gangs[key] = true
				}
			}
			require.Len(t, names, r.pods, "pods %v", names)
			require.Len(t, gangs, r.gangs, "gangs")
			// where they went: a gang with a topology key in one domain,
			// a pod's devices on its own node (the drivers name a node's
			// pool after it)
			bound, domains := 0, map[string]map[string]bool{}
			for _, p := range sc.Pods {
				if p.Source.File != path || !r.names.MatchString(p.Pod.Name) {
					continue
				}
				got := placed[p.Pod.Namespace+"/"+p.Pod.Name]
				if got.Node == "" {
					continue
				}
				bound++
				for claim, devices := range got.Claims {
					for _, d := range devices {
						require.Equal(t, got.Node, strings.Split(d, "/")[1], "pod %s claim %s device %s", p.Pod.Name, claim, d)
					}
				}
				if g := p.Pod.Namespace + "/" + p.Pod.PodGroup; topology[g] != "" {
					if domains[g] == nil {
						domains[g] = map[string]bool{}
					}
					domains[g][labels[got.Node][topology[g]]] = true
				}
			}
			for g, d := range domains {
				require.Len(t, d, 1, "the pods of %s in one domain of %s", g, topology[g])
			}
			t.Logf("%d pods, %d bound", len(names), bound)
		})
	}
	// no file makes pods that no row of a kind read accounts for
	made := map[string]int{}
	for _, p := range sc.Pods {
		if strings.HasPrefix(p.Source.File, dir) {
			made[p.Source.File]++
		}
	}
	for _, f := range files {
		require.Equal(t, read[f], made[f], "%s: pods made against the rows of kinds read", f)
	}
}
