package scenario

import (
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// decodeStrict decodes a YAML node into v (a pointer) like yaml.v3 does,
// but rejects unknown and repeated fields and names the path of every
// problem ("pods[2] (api).requests.cpu"), so that an error says which
// object and which field is wrong.
func decodeStrict(n *yaml.Node, v any) error {
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	return decodeValue(n, reflect.ValueOf(v).Elem(), "")
}

// decodeError is a decoding problem at a path and line.
type decodeError struct {
	Path string
	Line int
	Err  error
}

func (e *decodeError) Error() string {
	where := e.Path
	if where == "" {
		where = "top level"
	}
	return fmt.Sprintf("line %d: %s: %v", e.Line, where, e.Err)
}

func fail(n *yaml.Node, path, format string, args ...any) error {
	if path == "" {
		path = "top level"
	}
	return &decodeError{Path: path, Line: n.Line, Err: fmt.Errorf(format, args...)}
}

var yamlNodeType = reflect.TypeFor[yaml.Node]()

func decodeValue(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if v.Type() == yamlNodeType {
		v.Set(reflect.ValueOf(*n))
		return nil
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil // absent: leave the zero value
	}
	switch v.Kind() {
	case reflect.Pointer:
		elem := reflect.New(v.Type().Elem())
		if err := decodeValue(n, elem.Elem(), path); err != nil {
			return err
		}
		v.Set(elem)
		return nil
	case reflect.Struct:
		return decodeStruct(n, v, path)
	case reflect.Slice:
		return decodeSlice(n, v, path)
	case reflect.Map:
		return decodeMap(n, v, path)
	}
	if n.Kind != yaml.ScalarNode {
		return fail(n, path, "expected a single value, got %s", kindName(n))
	}
	if err := n.Decode(v.Addr().Interface()); err != nil {
		return fail(n, path, "%q is not a valid %s", n.Value, v.Kind())
	}
	return nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return "a value"
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func decodeStruct(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode {
		return fail(n, path, "expected a mapping, got %s", kindName(n))
	}
	if line := v.FieldByName("Line"); line.IsValid() && line.Kind() == reflect.Int {
		line.SetInt(int64(n.Line))
	}
	fields := map[string][]int{}
	var names []string
	collectFields(v.Type(), nil, fields, &names)
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		idx, ok := fields[key.Value]
		switch {
		case !ok:
			return fail(key, join(path, key.Value), "unknown field (known: %s)", strings.Join(names, ", "))
		case seen[key.Value]:
			return fail(key, join(path, key.Value), "field given twice")
		}
		seen[key.Value] = true
		if err := decodeValue(val, v.FieldByIndex(idx), join(path, key.Value)); err != nil {
			return err
		}
	}
	return nil
}

func decodeSlice(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.SequenceNode {
		return fail(n, path, "expected a list, got %s", kindName(n))
	}
	out := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		if err := decodeValue(item, out.Index(i), elementPath(path, i, item)); err != nil {
			return err
		}
	}
	v.Set(out)
	return nil
}

// elementPath names a list element by index and, when it has one, by name.
func elementPath(path string, i int, item *yaml.Node) string {
	p := fmt.Sprintf("%s[%d]", path, i)
	if item.Kind == yaml.MappingNode {
		for j := 0; j+1 < len(item.Content); j += 2 {
			if item.Content[j].Value == "name" && item.Content[j+1].Kind == yaml.ScalarNode {
				return fmt.Sprintf("%s (%s)", p, item.Content[j+1].Value)
			}
		}
	}
	return p
}

func decodeMap(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode {
		return fail(n, path, "expected a mapping, got %s", kindName(n))
	}
	out := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		kp := join(path, key.Value)
		k := reflect.New(v.Type().Key()).Elem()
		if err := decodeValue(key, k, kp); err != nil {
			return err
		}
		if out.MapIndex(k).IsValid() {
			return fail(key, kp, "key given twice")
		}
		e := reflect.New(v.Type().Elem()).Elem()
		if err := decodeValue(val, e, kp); err != nil {
			return err
		}
		out.SetMapIndex(k, e)
	}
	v.Set(out)
	return nil
}

// collectFields maps the yaml names of t's fields to their index paths,
// flattening ",inline" embedded structs.
func collectFields(t reflect.Type, prefix []int, fields map[string][]int, names *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		parts := strings.Split(f.Tag.Get("yaml"), ",")
		index := append(append([]int(nil), prefix...), i)
		if len(parts) > 1 && parts[1] == "inline" {
			collectFields(f.Type, index, fields, names)
			continue
		}
		if parts[0] != "" && parts[0] != "-" {
			fields[parts[0]] = index
			*names = append(*names, parts[0])
		}
	}
}
