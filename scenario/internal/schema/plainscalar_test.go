package schema

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// plainScalar decodes what it takes as yaml.v3 does: for each scalar of
// a file (JSON's, and YAML's plain and quoted ones) and each kind of
// field, the value it sets is yaml.v3's, and what it leaves, yaml.v3
// decodes (or refuses).
func TestPlainScalarAgreesWithYAML(t *testing.T) {
	docs := []string{
		`{"s": "x", "e": "", "t": true, "f": false, "i": 42, "n": -7, "z": 0, "big": 9223372036854775807, "huge": 18446744073709551615, "fl": 1.5, "ex": 1e3, "q": "12", "qb": "true"}`,
		"s: x\nyes: yes\nhex: 0x1F\noct: 0o17\nunder: 1_000\nplus: +5\nlead: 007\nstr: !!str 12\ntilde: ~\nnum: 300\nneg: -129\nstamp: 2001-12-14\nnan: .nan\nq: '5'\n",
	}
	kinds := []any{"", true, int(0), int8(0), int16(0), int32(0), int64(0), uint(0), uint8(0), uint16(0), uint32(0), uint64(0), float64(0)}
	checked := 0
	for _, doc := range docs {
		root, err := ParseJSON([]byte(doc))
		if err != nil {
			var n yaml.Node
			require.NoError(t, yaml.Unmarshal([]byte(doc), &n))
			root = &n
		}
		m := root.Content[0]
		for i := 1; i < len(m.Content); i += 2 {
			n := m.Content[i]
			for _, k := range kinds {
				want := reflect.New(reflect.TypeOf(k)).Elem()
				errWant := n.Decode(want.Addr().Interface())
				got := reflect.New(reflect.TypeOf(k)).Elem()
				if plainScalar(n, got) {
					checked++
					require.NoError(t, errWant, "%s into %T: plainScalar took what yaml.v3 refuses", n.Value, k)
					require.Equal(t, want.Interface(), got.Interface(), "%s (%s) into %T", n.Value, n.Tag, k)
				}
			}
		}
	}
	require.Greater(t, checked, 30)
}
