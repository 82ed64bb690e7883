package scenario

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// decodeStrict decodes a YAML node into v (a pointer) like yaml.v3 does,
// but rejects unknown and repeated fields and names the path of every
// problem ("pods[2] (api).requests.cpu"), so that an error says which
// object and which field is wrong.
func decodeStrict(n *yaml.Node, v any) error { return (&decoder{}).decode(n, v) }

// decoder holds what a decoding reports besides errors: warn, when set,
// is called with the path of every non-empty field whose type is
// unmodelled.
type decoder struct {
	warn  func(path string)
	types map[reflect.Type]*structFields // a cache, shared by the decoders of one load
	// exp counts the values aliases repeat and shares what they may
	// share; nil for trees without aliases (JSON).
	exp     *expansion
	aliased int // > 0 while decoding what an alias names
}

// decode decodes a document or a value node into v (a pointer).
func (d *decoder) decode(n *yaml.Node, v any) error {
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	return d.value(n, reflect.ValueOf(v).Elem(), "")
}

// skipped is the type of a field the reader accepts and ignores: it has no
// meaning for scheduling (a container's image, an object's status).
type skipped struct{}

// unmodelled is the type of a field that has a meaning for scheduling the
// simulator does not model (a pod's volumes, a container's host ports):
// it is accepted and, when not empty, reported as a warning.
type unmodelled struct{}

// openFields, embedded in a struct, makes the decoder skip the fields the
// struct does not name instead of rejecting them (an object's status,
// which the server writes and the simulator mostly ignores).
type openFields struct{}

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
	return &decodeError{Path: orTop(path), Line: n.Line, Err: fmt.Errorf(format, args...)}
}

// failErr is fail with a cause as it is.
func failErr(n *yaml.Node, path string, err error) error {
	return &decodeError{Path: orTop(path), Line: n.Line, Err: err}
}

func orTop(path string) string {
	if path == "" {
		return "top level"
	}
	return path
}

var (
	yamlNodeType   = reflect.TypeFor[yaml.Node]()
	skippedType    = reflect.TypeFor[skipped]()
	unmodelledType = reflect.TypeFor[unmodelled]()
	openFieldsType = reflect.TypeFor[openFields]()
)

// decodeValue decodes n into v strictly, naming path in errors.
func decodeValue(n *yaml.Node, v reflect.Value, path string) error {
	return (&decoder{}).value(n, v, path)
}

func (d *decoder) value(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind == yaml.AliasNode {
		return d.alias(n, v, path)
	}
	if d.aliased > 0 {
		if err := d.exp.charge(1); err != nil {
			return failErr(n, path, err)
		}
	}
	switch v.Type() {
	case yamlNodeType:
		if err := d.chargeKept(n); err != nil {
			return failErr(n, path, err)
		}
		v.Set(reflect.ValueOf(*n))
		return nil
	case skippedType:
		return nil
	case unmodelledType:
		if d.warn != nil && !isEmptyNode(n) {
			d.warn(path)
		}
		return nil
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil // absent: leave the zero value
	}
	switch v.Kind() {
	case reflect.Pointer:
		elem := reflect.New(v.Type().Elem())
		if err := d.value(n, elem.Elem(), path); err != nil {
			return err
		}
		v.Set(elem)
		return nil
	case reflect.Struct:
		return d.structure(n, v, path)
	case reflect.Slice:
		if err := d.slice(n, v, path); err != nil {
			return err
		}
		d.remember(n, v)
		return nil
	case reflect.Map:
		if err := d.mapping(n, v, path); err != nil {
			return err
		}
		d.remember(n, v)
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return fail(n, path, "expected a single value, got %s", kindName(n))
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n.Tag == "!!float" {
			// yaml.v3 would take 1.5 as 1
			return fail(n, path, "%q is not a whole number written in digits", n.Value)
		}
	}
	if err := n.Decode(v.Addr().Interface()); err != nil {
		return fail(n, path, "%q is not a valid %s", n.Value, v.Kind())
	}
	return nil
}

// alias decodes the value an alias names. Every alias counts against the
// file's limit, and so does every value decoded through it; a label map
// or a list of strings decoded once is shared by every alias to it.
func (d *decoder) alias(n *yaml.Node, v reflect.Value, path string) error {
	target := n.Alias
	if target == nil {
		return fail(n, path, "alias *%s names no anchor", n.Value)
	}
	if d.exp == nil {
		return d.value(target, v, path)
	}
	if err := d.exp.charge(1); err != nil {
		return failErr(n, path, err)
	}
	if shareable(v.Type()) {
		if sv, ok := d.exp.shared[sharedKey{target, v.Type()}]; ok {
			v.Set(sv)
			return nil
		}
	}
	d.aliased++
	err := d.value(target, v, path)
	d.aliased--
	var de *decodeError
	var le *aliasLimitError
	if errors.As(err, &de) && errors.As(de.Err, &le) && !le.placed {
		le.placed = true // said at the innermost alias that led there
		return &decodeError{Path: orTop(path), Line: n.Line, Err: fmt.Errorf("alias *%s: %w", n.Value, le)}
	}
	return err
}

// remember keeps the value decoded from an anchored node for the aliases
// to it, when it may be shared.
func (d *decoder) remember(n *yaml.Node, v reflect.Value) {
	if d.exp != nil && n.Anchor != "" && shareable(v.Type()) && !v.IsNil() {
		d.exp.shared[sharedKey{n, v.Type()}] = reflect.ValueOf(v.Interface())
	}
}

// chargeKept counts the values a node kept as it is (decoded later, into
// a type known then) stands for through its aliases: all of it when an
// alias led here, else what the aliases inside it repeat.
func (d *decoder) chargeKept(n *yaml.Node) error {
	switch {
	case d.exp == nil:
		return nil
	case d.aliased > 0:
		size, err := d.exp.size(n)
		if err != nil {
			return err
		}
		return d.exp.charge(size - 1) // n itself is counted
	}
	return d.exp.chargeTree(n)
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

// isEmptyNode reports whether n says nothing: null, an empty string,
// false, zero, or an empty list or mapping.
func isEmptyNode(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode:
		return len(n.Content) == 0
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null", "!!bool", "!!int", "!!float":
			return n.Tag == "!!null" || n.Value == "false" || n.Value == "0"
		}
		return n.Value == ""
	}
	return false
}

func (d *decoder) structure(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode {
		return fail(n, path, "expected a mapping, got %s", kindName(n))
	}
	si := d.structInfo(v.Type())
	if si.line != nil {
		v.FieldByIndex(si.line).SetInt(int64(n.Line))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := keyNode(n.Content[i]), n.Content[i+1]
		idx, ok := si.fields[key.Value]
		switch {
		case !ok && si.open:
			continue
		case !ok:
			return fail(key, join(path, key.Value), "unknown field (known: %s)", strings.Join(si.names, ", "))
		case givenBefore(n, i):
			return fail(key, join(path, key.Value), "field given twice")
		}
		if err := d.value(val, v.FieldByIndex(idx), join(path, key.Value)); err != nil {
			return err
		}
	}
	return nil
}

// givenBefore reports whether the key at i of a mapping came before.
func givenBefore(n *yaml.Node, i int) bool {
	for j := 0; j < i; j += 2 {
		if keyNode(n.Content[j]).Value == keyNode(n.Content[i]).Value {
			return true
		}
	}
	return false
}

// keyNode is a mapping key, the value it names when it is an alias.
func keyNode(k *yaml.Node) *yaml.Node {
	if k.Kind == yaml.AliasNode && k.Alias != nil {
		return k.Alias
	}
	return k
}

// structFields is what the decoder knows of a struct type: its fields by
// name, their names in order, whether it takes unknown fields, and its Line
// field.
type structFields struct {
	fields map[string][]int
	names  []string
	open   bool
	line   []int
}

// structInfo returns t's fields, worked out once per type and decoder.
func (d *decoder) structInfo(t reflect.Type) *structFields {
	if si := d.types[t]; si != nil {
		return si
	}
	si := &structFields{fields: map[string][]int{}}
	si.open = collectFields(t, nil, si.fields, &si.names)
	if f, ok := t.FieldByName("Line"); ok && f.Type.Kind() == reflect.Int {
		si.line = f.Index
	}
	if d.types == nil {
		d.types = map[reflect.Type]*structFields{}
	}
	d.types[t] = si
	return si
}

func (d *decoder) slice(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.SequenceNode {
		return fail(n, path, "expected a list, got %s", kindName(n))
	}
	out := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		if err := d.value(item, out.Index(i), elementPath(path, i, item)); err != nil {
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

func (d *decoder) mapping(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode {
		return fail(n, path, "expected a mapping, got %s", kindName(n))
	}
	out := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		kp := join(path, key.Value)
		k := reflect.New(v.Type().Key()).Elem()
		if err := d.value(key, k, kp); err != nil {
			return err
		}
		if out.MapIndex(k).IsValid() {
			return fail(key, kp, "key given twice")
		}
		e := reflect.New(v.Type().Elem()).Elem()
		if err := d.value(val, e, kp); err != nil {
			return err
		}
		out.SetMapIndex(k, e)
	}
	v.Set(out)
	return nil
}

// collectFields maps the yaml names of t's fields to their index paths,
// flattening ",inline" embedded structs, and reports whether t embeds
// openFields.
func collectFields(t reflect.Type, prefix []int, fields map[string][]int, names *[]string) (open bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		parts := strings.Split(f.Tag.Get("yaml"), ",")
		index := append(append([]int(nil), prefix...), i)
		if f.Type == openFieldsType {
			open = true
			continue
		}
		if len(parts) > 1 && parts[1] == "inline" {
			open = collectFields(f.Type, index, fields, names) || open
			continue
		}
		if parts[0] != "" && parts[0] != "-" {
			fields[parts[0]] = index
			*names = append(*names, parts[0])
		}
	}
	return open
}
