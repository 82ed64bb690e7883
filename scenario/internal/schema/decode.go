package schema

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Decoder decodes a YAML node tree into a Go value (a pointer) like
// yaml.v3 does, but rejects unknown and repeated fields and names the path
// of every problem ("pods[2] (api).requests.cpu"), so that an error says
// which object and which field is wrong. Its zero value is ready; one
// Decoder used for many trees works out each struct type's fields once.
type Decoder struct {
	// Warn, when set, is called with the path of every non-empty field of
	// type Unmodelled.
	Warn func(path string)
	// Aliases counts the values aliases repeat and shares what they may
	// share; nil for trees without aliases (JSON).
	Aliases *Expansion
	// Prune, in a tree without aliases, drops from each mapping what
	// decoding ignores once it is decoded (fields of types Skipped and
	// Unmodelled, unknown fields of open structs): what is left serves the
	// lines of errors about the fields decoded, for a tree kept for that.
	Prune   bool
	types   map[reflect.Type]*structFields // a cache of struct types' fields
	aliased int                            // > 0 while decoding what an alias names
	path    []pathStep                     // where the decoder is, spelled out only for an error or a warning
}

// pathStep is a step of the decoder's path: a field or a key, or a list
// element. Spelling every path as it was entered cost a third of what
// decoding a large dump allocates; errors and warnings are rare.
type pathStep struct {
	field string     // a field or a key; the whole path at the top of DecodeField
	item  *yaml.Node // a list element, named by its index and its name field
	index int
}

// enter steps into a field or an element; leave steps back out.
func (d *Decoder) enter(s pathStep) { d.path = append(d.path, s) }
func (d *Decoder) leave()           { d.path = d.path[:len(d.path)-1] }

// where spells the decoder's path: "pods[2] (api).requests.cpu", "" at
// the top.
func (d *Decoder) where() string {
	path := ""
	for _, s := range d.path {
		if s.item != nil {
			path = elementPath(path, s.index, s.item)
		} else {
			path = join(path, s.field)
		}
	}
	return path
}

// Decode decodes a document or a value node into v (a pointer).
func (d *Decoder) Decode(n *yaml.Node, v any) error {
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	d.path = d.path[:0] // an earlier tree's error may have left steps
	return d.value(n, reflect.ValueOf(v).Elem())
}

// Skipped is the type of a field the reader accepts and ignores: it has no
// meaning for scheduling (a container's image, an object's status).
type Skipped struct{}

// Unmodelled is the type of a field that has a meaning for scheduling the
// simulator does not model (a pod's volumes, a container's host ports):
// it is accepted and, when not empty, reported as a warning.
type Unmodelled struct{}

// OpenFields, embedded in a struct, makes the decoder skip the fields the
// struct does not name instead of rejecting them (an object's status,
// which the server writes and the simulator mostly ignores).
type OpenFields struct{}

// NotModelled is the detail of most warnings: what the simulator does
// with a field of type Unmodelled.
const NotModelled = "not modelled, ignored"

var listIndex = regexp.MustCompile(`\[[0-9]+\]( \([^)]*\))?`)

// FieldOf turns a decoder's path into a field: "spec.volumes[2]
// (data).csi" reads "spec.volumes[].csi".
func FieldOf(path string) string { return listIndex.ReplaceAllString(path, "[]") }

// DecodeError is a decoding problem at a path and line.
type DecodeError struct {
	Path string
	Line int
	Err  error
}

// Error renders "line N: PATH: what is wrong".
func (e *DecodeError) Error() string {
	where := e.Path
	if where == "" {
		where = "top level"
	}
	return fmt.Sprintf("line %d: %s: %v", e.Line, where, e.Err)
}

// fail is a problem with n at the decoder's path.
func (d *Decoder) fail(n *yaml.Node, format string, args ...any) error {
	return d.failErr(n, fmt.Errorf(format, args...))
}

// failErr is fail with a cause as it is.
func (d *Decoder) failErr(n *yaml.Node, err error) error {
	return &DecodeError{Path: orTop(d.where()), Line: n.Line, Err: err}
}

func orTop(path string) string {
	if path == "" {
		return "top level"
	}
	return path
}

var (
	yamlNodeType   = reflect.TypeFor[yaml.Node]()
	skippedType    = reflect.TypeFor[Skipped]()
	unmodelledType = reflect.TypeFor[Unmodelled]()
	openFieldsType = reflect.TypeFor[OpenFields]()
)

// DecodeField decodes n, the value of the field at path, into v (a
// pointer) strictly, naming path in errors: a node a file's entry kept as
// it was (a selector, plugin arguments), decoded once its type is known.
func DecodeField(n *yaml.Node, v any, path string) error {
	d := &Decoder{path: []pathStep{{field: path}}}
	return d.value(n, reflect.ValueOf(v).Elem())
}

func (d *Decoder) value(n *yaml.Node, v reflect.Value) error {
	if n.Kind == yaml.AliasNode {
		return d.alias(n, v)
	}
	if d.aliased > 0 {
		if err := d.Aliases.charge(1); err != nil {
			return d.failErr(n, err)
		}
	}
	switch v.Type() {
	case yamlNodeType:
		if err := d.chargeKept(n); err != nil {
			return d.failErr(n, err)
		}
		v.Set(reflect.ValueOf(*CloneTree(n))) // its own: the tree may be a List item's, whose nodes are taken again (ParseJSONListItems)
		return nil
	case skippedType:
		return nil
	case unmodelledType:
		if d.Warn != nil && !isEmptyNode(n) {
			d.Warn(d.where())
		}
		return nil
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil // absent: leave the zero value
	}
	switch v.Kind() {
	case reflect.Pointer:
		elem := reflect.New(v.Type().Elem())
		if err := d.value(n, elem.Elem()); err != nil {
			return err
		}
		v.Set(elem)
		return nil
	case reflect.Struct:
		return d.structure(n, v)
	case reflect.Slice:
		if err := d.slice(n, v); err != nil {
			return err
		}
		d.remember(n, v)
		return nil
	case reflect.Map:
		if err := d.mapping(n, v); err != nil {
			return err
		}
		d.remember(n, v)
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return d.fail(n, "expected a single value, got %s", KindName(n))
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n.Tag == "!!float" {
			// yaml.v3 would take 1.5 as 1
			return d.fail(n, "%q is not a whole number written in digits", n.Value)
		}
	}
	if plainScalar(n, v) {
		return nil
	}
	if err := n.Decode(v.Addr().Interface()); err != nil {
		if v.Type() == durationType {
			return d.fail(n, "%q is not a valid duration (such as 10s)", n.Value)
		}
		return d.fail(n, "%q is not a valid %s", n.Value, v.Kind())
	}
	return nil
}

var durationType = reflect.TypeFor[time.Duration]()

// plainScalar sets v from the scalar n as yaml.v3 would, for the scalars
// files are made of (a string, true or false, a whole number in decimal
// that fits), and reports whether it did; yaml.v3 decodes the rest.
// yaml.v3 builds a decoder for each value it decodes, which costs more
// than the value: a dump holds hundreds of thousands.
func plainScalar(n *yaml.Node, v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		if n.Tag == "!!str" {
			v.SetString(n.Value)
			return true
		}
	case reflect.Bool:
		if n.Tag == "!!bool" && (n.Value == "true" || n.Value == "false") {
			v.SetBool(n.Value == "true")
			return true
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if x, err := strconv.ParseInt(n.Value, 10, 64); n.Tag == "!!int" && err == nil && !v.OverflowInt(x) {
			v.SetInt(x)
			return true
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if x, err := strconv.ParseUint(n.Value, 10, 64); n.Tag == "!!int" && err == nil && !v.OverflowUint(x) {
			v.SetUint(x)
			return true
		}
	}
	return false
}

// alias decodes the value an alias names. Every alias counts against the
// file's limit, and so does every value decoded through it; a label map
// or a list of strings decoded once is shared by every alias to it.
func (d *Decoder) alias(n *yaml.Node, v reflect.Value) error {
	target := n.Alias
	if target == nil {
		return d.fail(n, "alias *%s names no anchor", n.Value)
	}
	if d.Aliases == nil {
		return d.value(target, v)
	}
	if err := d.Aliases.charge(1); err != nil {
		return d.failErr(n, err)
	}
	if shareable(v.Type()) {
		if sv, ok := d.Aliases.shared[sharedKey{target, v.Type()}]; ok {
			v.Set(sv)
			return nil
		}
	}
	depth := len(d.path)
	d.aliased++
	err := d.value(target, v)
	d.aliased--
	var de *DecodeError
	var le *aliasLimitError
	if errors.As(err, &de) && errors.As(de.Err, &le) && !le.placed {
		le.placed = true        // said at the innermost alias that led there
		d.path = d.path[:depth] // the error left the steps it failed in
		return d.failErr(n, fmt.Errorf("alias *%s: %w", n.Value, le))
	}
	return err
}

// remember keeps the value decoded from an anchored node for the aliases
// to it, when it may be shared.
func (d *Decoder) remember(n *yaml.Node, v reflect.Value) {
	if d.Aliases != nil && n.Anchor != "" && shareable(v.Type()) && !v.IsNil() {
		d.Aliases.shared[sharedKey{n, v.Type()}] = reflect.ValueOf(v.Interface())
	}
}

// chargeKept counts the values a node kept as it is (decoded later, into
// a type known then) stands for through its aliases: all of it when an
// alias led here, else what the aliases inside it repeat.
func (d *Decoder) chargeKept(n *yaml.Node) error {
	switch {
	case d.Aliases == nil:
		return nil
	case d.aliased > 0:
		size, err := d.Aliases.size(n)
		if err != nil {
			return err
		}
		return d.Aliases.charge(size - 1) // n itself is counted
	}
	return d.Aliases.chargeTree(n)
}

// KindName says what a node is: "a mapping", "a list" or "a value".
func KindName(n *yaml.Node) string {
	if n == nil {
		return "nothing"
	}
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

func (d *Decoder) structure(n *yaml.Node, v reflect.Value) error {
	if n.Kind != yaml.MappingNode {
		return d.fail(n, "expected a mapping, got %s", KindName(n))
	}
	si := d.structInfo(v.Type())
	if si.line != nil {
		v.FieldByIndex(si.line).SetInt(int64(n.Line))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := keyNode(n.Content[i]), n.Content[i+1]
		idx, ok := si.fields[key.Value]
		if !ok && si.open {
			continue
		}
		d.enter(pathStep{field: key.Value})
		switch {
		case !ok:
			return d.fail(key, "unknown field (known: %s)", strings.Join(si.names, ", "))
		case givenBefore(n, i):
			return d.fail(key, "field given twice")
		}
		if err := d.value(val, v.FieldByIndex(idx)); err != nil {
			return err
		}
		d.leave()
	}
	if d.Prune && d.Aliases == nil && d.aliased == 0 {
		n.Content = pruned(n.Content, si, v)
	}
	return nil
}

// pruned keeps the pairs of a decoded mapping whose field is decoded.
func pruned(content []*yaml.Node, si *structFields, v reflect.Value) []*yaml.Node {
	kept := content[:0]
	for i := 0; i+1 < len(content); i += 2 {
		idx, ok := si.fields[content[i].Value]
		if !ok {
			continue
		}
		if t := v.Type().FieldByIndex(idx).Type; t == skippedType || t == unmodelledType {
			continue
		}
		kept = append(kept, content[i], content[i+1])
	}
	clear(content[len(kept):])
	return kept
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
func (d *Decoder) structInfo(t reflect.Type) *structFields {
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

func (d *Decoder) slice(n *yaml.Node, v reflect.Value) error {
	if n.Kind != yaml.SequenceNode {
		return d.fail(n, "expected a list, got %s", KindName(n))
	}
	out := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.enter(pathStep{item: item, index: i})
		if err := d.value(item, out.Index(i)); err != nil {
			return err
		}
		d.leave()
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

func (d *Decoder) mapping(n *yaml.Node, v reflect.Value) error {
	if n.Kind != yaml.MappingNode {
		return d.fail(n, "expected a mapping, got %s", KindName(n))
	}
	out := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		d.enter(pathStep{field: key.Value})
		k := reflect.New(v.Type().Key()).Elem()
		if err := d.value(key, k); err != nil {
			return err
		}
		if out.MapIndex(k).IsValid() {
			return d.fail(key, "key given twice")
		}
		e := reflect.New(v.Type().Elem()).Elem()
		if err := d.value(val, e); err != nil {
			return err
		}
		d.leave()
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

// CloneTree is a deep copy of a node tree (an alias's target is shared,
// not copied: JSON has none, and YAML's stay within their document).
func CloneTree(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	if len(n.Content) > 0 {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, k := range n.Content {
			c.Content[i] = CloneTree(k)
		}
	}
	return &c
}
