package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// scenarios is the scenario package's testdata: the scenarios, good and
// bad, whose JSON forms the tests decode.
const scenarios = "../../testdata/scenarios"

// decodeThroughTree decodes a JSON scenario the long way, through the node
// tree, as the loader does when the direct decoder gives up, and counts
// the fields worth a warning.
func decodeThroughTree(data []byte) (*File, int, error) {
	f := &File{}
	docs, _, err := ParseDocuments(data)
	if err != nil {
		return nil, 0, err
	}
	if len(docs) != 1 || MapValue(docs[0].Content[0], "apiVersion") != nil || MapValue(docs[0].Content[0], "kind") != nil {
		return nil, 0, os.ErrInvalid // not one scenario
	}
	warned := 0
	err = (&Decoder{Warn: func(string) { warned++ }}).Decode(docs[0], f)
	return f, warned, err
}

// checkJSONDirect requires that whatever the direct decoder takes, the node
// tree takes too, without a warning, into the same values and lines.
func checkJSONDirect(t *testing.T, data []byte) bool {
	t.Helper()
	direct, halved := &File{}, &File{}
	took, _ := decodeJSONDirect(data, direct, 0)
	tookHalved, _ := decodeJSONDirect(data, halved, 2)
	require.Equal(t, took, tookHalved, "decoding the lists in halves takes what one pass takes, and only that:\n%s", data)
	if !took {
		return false
	}
	require.True(t, reflect.DeepEqual(direct, halved), "the lists decoded in halves differ from one pass on\n%s", data)
	viaTree, nwarn, err := decodeThroughTree(data)
	require.NoError(t, err, "the direct decoder took a file the node tree refuses:\n%s", data)
	require.Zero(t, nwarn, "the direct decoder took a file with warnings:\n%s", data)
	require.True(t, reflect.DeepEqual(viaTree, direct), "the two decoders differ on\n%s", data)
	return true
}

// asJSON rewrites a YAML scenario as indented JSON (aliases expanded), or
// nil when JSON cannot say it (keys that are not strings).
func asJSON(t *testing.T, text []byte) []byte {
	var v any
	if yaml.Unmarshal(text, &v) != nil || v == nil {
		return nil
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil
	}
	return out
}

// Every scenario of testdata, good and bad, as JSON: the direct decoder
// agrees with the node tree on all it takes, and it takes most of them.
func TestJSONDirectAgrees(t *testing.T) {
	paths, err := filepath.Glob(scenarios + "/*.yaml")
	require.NoError(t, err)
	bad, err := filepath.Glob(scenarios + "/bad/*.yaml")
	require.NoError(t, err)
	var converted, taken int
	for _, p := range append(paths, bad...) {
		text, err := os.ReadFile(p)
		require.NoError(t, err)
		data := asJSON(t, text)
		if data == nil {
			continue
		}
		converted++
		if checkJSONDirect(t, data) {
			taken++
		}
		// on one line, and compact: lines and white space do not matter
		var compact bytes.Buffer
		require.NoError(t, json.Compact(&compact, data))
		checkJSONDirect(t, compact.Bytes())
	}
	t.Logf("%d files as JSON, %d taken directly", converted, taken)
	require.Greater(t, converted, 100)
	require.Greater(t, taken*10, converted*8, "the direct decoder gives up on too many files: %d of %d", converted-taken, converted)
}

// Files the direct decoder must give up on, so that the node tree names
// the problem or words the warning; and files it must take.
func TestJSONDirectGivesUp(t *testing.T) {
	for _, tc := range []struct {
		text  string
		takes bool
	}{
		{`{"nodes": [{"name": "n", "allocatable": {"cpu": "4", "pods": 110}}]}`, true},
		{`{"nodes": [{"name": "n", "labels": {"a": true, "b": null, "c": 1.5}}]}`, true},
		{`{"pods": [{"name": "p\u00e9", "requests": {"cpu": "1"}, "count": 3}]}`, true},
		{`{"pods": [{"name": "p", "count": 1.5}]}`, false},                                           // not a whole number
		{`{"pods": [{"name": "p", "count": "3"}]}`, false},                                           // a string for a number
		{`{"pods": [{"name": "p", "name": "q"}]}`, false},                                            // given twice
		{`{"pods": [{"name": "p", "nmae": "q"}]}`, false},                                            // unknown field
		{`{"nodes": [{"name": "n", "labels": {"a": "1", "a": "2"}}]}`, false},                        // key twice
		{`{"nodes": [{"name": "n", "labels": {"a": [1]}}]}`, false},                                  // not a scalar
		{`{"nodes": [{"name": "n"}]} x`, false},                                                      // trailing data
		{`{"nodes": [{"name": "n"},]}`, false},                                                       // syntax
		{`{"nodes": [{"name": "n"}]`, false},                                                         // cut short
		{`{"pods": [{"name": "p", "tolerations": [{"key": "k", "tolerationSeconds": 30}]}]}`, false}, // a warning
		{`{"apiVersion": "v1", "kind": "Node"}`, false},                                              // a Kubernetes object
		{"{\"pods\": [{\"name\": \"p\xff\"}]}", false},                                               // not UTF-8
		{`{"pods": [{"name": "a\"b"}]}`, true},
		// maps spelled as one before: taken as that one, line breaks and
		// escapes included, a key twice refused each time
		{`{"pods": [{"name": "p", "requests": {"cpu": "1", "memory": "2"}}, {"name": "q", "requests": {"cpu": "1", "memory": "2"}}]}`, true},
		{"{\"nodes\": [{\"name\": \"a\", \"labels\": {\"k\": \"v\",\n \"l\": \"w\"}}, {\"name\": \"b\", \"labels\": {\"k\": \"v\",\n \"l\": \"w\"}},\n {\"name\": \"c\", \"labels\": {\"k\": \"v\", \"l\": \"w\"}}]}", true},
		{`{"nodes": [{"name": "a", "labels": {"k": "a\"}"}}, {"name": "b", "labels": {"k": "a\"}"}}, {"name": "c", "labels": {"k": "a\"}", "m": "}"}}]}`, true},
		{`{"nodes": [{"name": "a", "labels": {"k": "v"}}, {"name": "b", "labels": {"k": "v", "k": "v"}}]}`, false},
		// device objects: lists of structs are taken, maps of structs
		// (attributes, capacities, counters) go the long way
		{`{"deviceClasses": [{"name": "c", "selectors": [{"cel": {"expression": "true"}}], "extendedResourceName": "example.com/gpu"}]}`, true},
		{`{"resourceClaims": [{"name": "c", "namespace": "ml", "devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "c", "count": 2, "adminAccess": true}}], "constraints": [{"requests": ["r"], "matchAttribute": "d/m"}]}}]}`, true},
		{`{"resourceClaimTemplates": [{"name": "t", "devices": {"requests": [{"name": "r", "firstAvailable": [{"name": "a", "deviceClassName": "c", "capacity": {"requests": {"mem": "1Gi"}}}]}]}}]}`, true},
		{`{"pods": [{"name": "p", "resourceClaims": [{"name": "g", "resourceClaimTemplateName": "t"}]}]}`, true},
		{`{"resourceSlices": [{"name": "s", "driver": "d", "allNodes": true, "pool": {"name": "p", "resourceSliceCount": 1}, "devices": [{"name": "d0", "attributes": {"m": {"int": 1}}}]}]}`, false},
		{`{"resourceSlices": [{"name": "s", "driver": "d", "nodeName": "n", "pool": {"name": "p", "resourceSliceCount": 1}, "devices": [{"name": "d0", "bindsToNode": true}]}]}`, false}, // a warning
		{`{"resourceClaims": [{"name": "c", "devices": {"requests": [{"name": "r", "exactly": {"adminAccess": "yes"}}]}}]}`, false},                                                      // not a bool
		{`{"deviceClasses": [{"name": "c", "config": [{"opaque": {"driver": "d"}}]}]}`, false},                                                                                           // a warning
	} {
		got := checkJSONDirect(t, []byte(tc.text))
		require.Equal(t, tc.takes, got, tc.text)
	}
}

// FuzzJSONDirect: on any input, what the direct decoder takes the node tree
// takes into the same values.
func FuzzJSONDirect(f *testing.F) {
	for _, name := range []string{"gang-compete", "ipa-namespaces", "spread-policies", "profiles", "preempt-grace", "workloads", "comp-zone-rack", "devices"} {
		text, err := os.ReadFile(filepath.Join(scenarios, name+".yaml"))
		if err != nil {
			continue
		}
		if data := asJSON(nil, text); data != nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"nodes": [{"name": "n", "allocatable": {"cpu": "4", "pods": 110}, "labels": {"a": true}}], "pods": [{"name": "p", "count": 2, "requests": {"cpu": "1"}}]}`))
	f.Add([]byte(`{"config": {"profiles": [{"schedulerName": "s", "pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated"}}}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !strings.HasPrefix(strings.TrimLeft(string(data), " \t\r\n"), "{") {
			return
		}
		checkJSONDirect(t, data)
	})
}

// countElements is the length of any well-formed array (nested values,
// strings with escaped quotes, brackets and commas), and never more than
// the bytes left on any input.
func TestCountElements(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var value func(depth int) any
	value = func(depth int) any {
		switch k := r.IntN(7); {
		case k == 0 && depth < 4:
			list := []any{}
			for range r.IntN(4) {
				list = append(list, value(depth+1))
			}
			return list
		case k == 1 && depth < 4:
			obj := map[string]any{}
			for range r.IntN(4) {
				obj[fmt.Sprint(r.IntN(100), `,"]}[{\`)] = value(depth + 1)
			}
			return obj
		case k == 2:
			return `a,"b"]}\` + fmt.Sprint(r.IntN(10))
		case k == 3:
			return nil
		default:
			return r.IntN(1000)
		}
	}
	for range 2000 {
		list := []any{}
		for range r.IntN(6) {
			list = append(list, value(1))
		}
		data, err := json.MarshalIndent(list, "", strings.Repeat(" ", r.IntN(3)))
		require.NoError(t, err)
		s := &jsonDirect{data: data}
		require.Equal(t, len(list), s.countElements(), "%s", data)
		s = &jsonDirect{data: data[:r.IntN(len(data)+1)]}
		require.LessOrEqual(t, s.countElements(), len(s.data))
	}
}

// A large file's lists decoded in two halves at once equal one pass's,
// lines included, whatever the white space and the lengths (odd and even),
// and a fault in either half is found.
func TestJSONDirectHalvesAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, n := range []int{2, 3, 4097, 5000} {
		var b strings.Builder
		b.WriteString("{\n\"nodes\": [{\"name\": \"n\", \"allocatable\": {\"cpu\": \"4\"}}],\n\"pods\": [")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString([]string{"", "\n", " \n  ", "\n\n"}[rng.IntN(4)])
			fmt.Fprintf(&b, `{"name": "p-%d", "requests": {"cpu": "%dm", "memory": "%d"},%s"labels": {"app": "a%d", "n": "x,]}\"y"}}`,
				i, 100+rng.IntN(5), 1<<20+rng.IntN(3), []string{" ", "\n"}[rng.IntN(2)], rng.IntN(3))
		}
		b.WriteString("\n]\n}\n")
		data := []byte(b.String())
		one, halved := &File{}, &File{}
		ok, lists := decodeJSONDirect(data, one, 0)
		require.True(t, ok, "n=%d", n)
		require.Zero(t, lists)
		ok, lists = decodeJSONDirect(data, halved, 2)
		require.True(t, ok, "n=%d", n)
		require.Equal(t, 1, lists, "n=%d: the pods in halves (the one node in one pass)", n)
		require.Len(t, halved.Pods, n)
		require.True(t, reflect.DeepEqual(one, halved), "n=%d: the halves differ from one pass", n)
		require.Equal(t, one.Pods[n-1].Line, halved.Pods[n-1].Line)
		// a fault in the first half, in the second, at the split
		for _, at := range []int{n / 4, n/2 + n/4, n / 2} {
			bad := bytes.Replace(data, fmt.Appendf(nil, `"p-%d"`, at), fmt.Appendf(nil, `"p-%d" "`, at), 1)
			ok, _ := decodeJSONDirect(bad, &File{}, 0)
			require.False(t, ok)
			ok, _ = decodeJSONDirect(bad, &File{}, 2)
			require.False(t, ok, "n=%d: a fault at element %d", n, at)
		}
	}
}

// BenchmarkDecodeJSONDirect decodes 20,000 pods on 2,000 nodes in one
// pass and in halves (on two processors).
func BenchmarkDecodeJSONDirect(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("{\"nodes\": [")
	for i := range 2000 {
		if i > 0 {
			sb.WriteString(",\n")
		}
		fmt.Fprintf(&sb, `{"name": "node-%05d", "allocatable": {"cpu": "16000m", "memory": "68719476736", "pods": 110}, "labels": {"topology.kubernetes.io/zone": "zone-%d"}}`, i, i%4)
	}
	sb.WriteString("],\n\"pods\": [")
	for i := range 20000 {
		if i > 0 {
			sb.WriteString(",\n")
		}
		fmt.Fprintf(&sb, `{"name": "pod-%06d", "requests": {"cpu": "%dm", "memory": "%d"}, "priority": 0}`, i, 100*(1+i%5), 1<<28*(1+i%4))
	}
	sb.WriteString("]}\n")
	data := []byte(sb.String())
	for _, halves := range []int{0, halvesFrom} {
		b.Run(fmt.Sprintf("halvesFrom=%d", halves), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if ok, _ := decodeJSONDirect(data, &File{}, halves); !ok {
					b.Fatal("not decoded")
				}
			}
		})
	}
}
