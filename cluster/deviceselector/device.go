package deviceselector

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"cel.dev/cel-go/interpreter"

	"github.com/gangsim/gangsim/cluster"
)

// The `device` variable's type and fields, named as Kubernetes names them.
const (
	deviceTypeName = "kubernetes.DRADevice"
	deviceVar      = "device"
	driverField    = "driver"
	attributesVar  = "attributes"
	capacityVar    = "capacity"
	multiAllocVar  = "allowMultipleAllocations"
)

var (
	deviceType = cel.ObjectType(deviceTypeName)
	// attributeMapType is map(domain, map(id, value)): the value's type is
	// known at run time only (int, bool, string or semver).
	attributeMapType = cel.MapType(cel.StringType, cel.MapType(cel.StringType, cel.DynType))
	capacityMapType  = cel.MapType(cel.StringType, cel.MapType(cel.StringType, quantityType))
)

// deviceFields are the fields of kubernetes.DRADevice for the type
// checker, each with its getter on a *deviceVal.
var deviceFields = map[string]*types.FieldType{
	driverField: field(cel.StringType, func(d *deviceVal) any { return types.String(d.driver) }),
	attributesVar: field(attributeMapType, func(d *deviceVal) any {
		return &d.attributes
	}),
	capacityVar: field(capacityMapType, func(d *deviceVal) any {
		return &d.capacity
	}),
	multiAllocVar: field(cel.BoolType, func(d *deviceVal) any {
		return types.Bool(d.device.AllowMultipleAllocations)
	}),
}

var deviceFieldNames = []string{multiAllocVar, attributesVar, capacityVar, driverField}

func field(t *cel.Type, get func(*deviceVal) any) *types.FieldType {
	return &types.FieldType{
		Type:  t,
		IsSet: func(any) bool { return true },
		GetFrom: func(obj any) (any, error) {
			d, ok := obj.(*deviceVal)
			if !ok {
				return nil, fmt.Errorf("no such field on %T", obj)
			}
			return get(d), nil
		},
	}
}

// provider is cel-go's type registry, which also knows kubernetes.DRADevice.
type provider struct {
	*types.Registry
}

func (p provider) FindStructType(name string) (*types.Type, bool) {
	if name == deviceTypeName {
		return types.NewTypeTypeWithParam(deviceType), true
	}
	return p.Registry.FindStructType(name)
}

func (p provider) FindStructFieldNames(name string) ([]string, bool) {
	if name == deviceTypeName {
		return slices.Clone(deviceFieldNames), true
	}
	return p.Registry.FindStructFieldNames(name)
}

func (p provider) FindStructFieldType(name, fieldName string) (*types.FieldType, bool) {
	if name == deviceTypeName {
		f, ok := deviceFields[fieldName]
		return f, ok
	}
	return p.Registry.FindStructFieldType(name, fieldName)
}

// deviceVal is the `device` variable of one evaluation, and the
// activation that binds it: a view over the cluster.Device that builds no
// map. Looking up device.attributes[domain][id] looks the qualified name
// up in the device's own map. It lives for one Matches call.
type deviceVal struct {
	driver     string
	device     *cluster.Device
	attributes domainsVal
	capacity   domainsVal
	// views holds the per-domain maps handed out in this evaluation, so
	// that the usual lookups allocate none.
	views [4]domainVal
	used  int
}

func newDeviceVal(driver string, d *cluster.Device) *deviceVal {
	v := &deviceVal{driver: driver, device: d}
	v.attributes = domainsVal{dev: v}
	v.capacity = domainsVal{dev: v, capacity: true}
	return v
}

// ResolveName implements interpreter.Activation.
func (d *deviceVal) ResolveName(name string) (any, bool) {
	if name == deviceVar {
		return d, true
	}
	return nil, false
}

// Parent implements interpreter.Activation.
func (d *deviceVal) Parent() interpreter.Activation { return nil }

// ConvertToNative implements ref.Val.
func (d *deviceVal) ConvertToNative(typeDesc reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion error from '%s' to '%v'", deviceTypeName, typeDesc)
}

// ConvertToType implements ref.Val.
func (d *deviceVal) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case deviceType:
		return d
	case types.TypeType:
		return deviceType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", deviceTypeName, typeVal)
}

// Equal implements ref.Val.
func (d *deviceVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(*deviceVal)
	return types.Bool(ok && o == d)
}

// Type implements ref.Val.
func (d *deviceVal) Type() ref.Type { return deviceType }

// Value implements ref.Val: the field getters take the view itself.
func (d *deviceVal) Value() any { return d }

// Get implements traits.Indexer, for field access the planner does not
// resolve through the provider.
func (d *deviceVal) Get(index ref.Val) ref.Val {
	name, ok := index.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(index)
	}
	f, ok := deviceFields[string(name)]
	if !ok {
		return types.NewErr("no such key: %v", name)
	}
	v, _ := f.GetFrom(d)
	return v.(ref.Val)
}

// view hands out the map of one domain.
func (d *deviceVal) view(capacity bool, domain string) *domainVal {
	var v *domainVal
	if d.used < len(d.views) {
		v = &d.views[d.used]
		d.used++
	} else {
		v = new(domainVal)
	}
	*v = domainVal{dev: d, capacity: capacity, domain: domain}
	return v
}

// names are the device's attribute or capacity names.
func (d *deviceVal) names(capacity bool) []cluster.QualifiedName {
	var out []cluster.QualifiedName
	if capacity {
		for n := range d.device.Capacity {
			out = append(out, n)
		}
	} else {
		for n := range d.device.Attributes {
			out = append(out, n)
		}
	}
	return out
}

// splitName splits a qualified name at its first '/'; a name without one
// is in the driver's domain.
func splitName(name cluster.QualifiedName, driver string) (domain, id string) {
	if i := strings.IndexByte(string(name), '/'); i >= 0 {
		return string(name[:i]), string(name[i+1:])
	}
	return driver, string(name)
}

// lookup finds the value of id in domain. A name written with its domain
// ("gpu.example.com/model") is preferred to one without, when a device
// has both.
func (d *deviceVal) lookup(capacity bool, domain, id string) (ref.Val, bool) {
	if !strings.Contains(domain, "/") {
		if v, ok := d.value(capacity, cluster.QualifiedName(domain+"/"+id)); ok {
			return v, true
		}
	}
	if domain == d.driver && !strings.Contains(id, "/") {
		return d.value(capacity, cluster.QualifiedName(id))
	}
	return nil, false
}

func (d *deviceVal) value(capacity bool, name cluster.QualifiedName) (ref.Val, bool) {
	if capacity {
		c, ok := d.device.Capacity[name]
		if !ok {
			return nil, false
		}
		return quantityOf(c.Value), true
	}
	a, ok := d.device.Attributes[name]
	if !ok {
		return nil, false
	}
	return attributeValue(a), true
}

// attributeValue is an attribute as a CEL value; checkAttributes has
// made sure it has one, and a valid version.
func attributeValue(a cluster.DeviceAttribute) ref.Val {
	switch {
	case a.IntValue != nil:
		return types.Int(*a.IntValue)
	case a.BoolValue != nil:
		return types.Bool(*a.BoolValue)
	case a.StringValue != nil:
		return types.String(*a.StringValue)
	case a.VersionValue != nil:
		v, err := parseSemver(*a.VersionValue)
		if err != nil {
			return types.WrapErr(err)
		}
		return v
	}
	return types.NewErr("unsupported attribute value")
}

// checkAttributes refuses a device with an attribute Kubernetes could not
// give to CEL, with Kubernetes' error: "attribute <name>: unsupported
// attribute value", "attribute <name>: parse semantic version: ...". It
// reports the first such attribute in name order.
func checkAttributes(d *cluster.Device) error {
	bad := false
	for _, a := range d.Attributes {
		if attributeError(a) != nil {
			bad = true
			break
		}
	}
	if !bad {
		return nil
	}
	names := make([]string, 0, len(d.Attributes))
	for n := range d.Attributes {
		names = append(names, string(n))
	}
	slices.Sort(names)
	for _, n := range names {
		if err := attributeError(d.Attributes[cluster.QualifiedName(n)]); err != nil {
			return fmt.Errorf("attribute %s: %w", n, err)
		}
	}
	return nil
}

func attributeError(a cluster.DeviceAttribute) error {
	switch {
	case a.IntValue != nil, a.BoolValue != nil, a.StringValue != nil:
		return nil
	case a.VersionValue != nil:
		if _, err := parseSemver(*a.VersionValue); err != nil {
			return fmt.Errorf("parse semantic version: %w", err)
		}
		return nil
	}
	return fmt.Errorf("unsupported attribute value")
}

// domainsVal is device.attributes or device.capacity: a map from domain
// to a map from id to value. Looking up an unknown domain gives an empty
// map, as in Kubernetes; `in` and has() tell whether the device has the
// domain.
type domainsVal struct {
	dev      *deviceVal
	capacity bool
}

// domains lists the device's domains, sorted.
func (m *domainsVal) domains() []string {
	var out []string
	for _, n := range m.dev.names(m.capacity) {
		dom, _ := splitName(n, m.dev.driver)
		out = append(out, dom)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (m *domainsVal) has(domain string) bool {
	check := func(n cluster.QualifiedName) bool {
		dom, _ := splitName(n, m.dev.driver)
		return dom == domain
	}
	if m.capacity {
		for n := range m.dev.device.Capacity {
			if check(n) {
				return true
			}
		}
		return false
	}
	for n := range m.dev.device.Attributes {
		if check(n) {
			return true
		}
	}
	return false
}

// Find implements traits.Mapper: every domain is found.
func (m *domainsVal) Find(key ref.Val) (ref.Val, bool) {
	s, ok := key.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(key), false
	}
	return m.dev.view(m.capacity, string(s)), true
}

// Get implements traits.Indexer.
func (m *domainsVal) Get(key ref.Val) ref.Val {
	v, _ := m.Find(key)
	return v
}

// Contains implements traits.Container.
func (m *domainsVal) Contains(key ref.Val) ref.Val {
	s, ok := key.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(key)
	}
	return types.Bool(m.has(string(s)))
}

// Size implements traits.Sizer.
func (m *domainsVal) Size() ref.Val { return types.Int(len(m.domains())) }

// Iterator implements traits.Iterable, in domain order.
func (m *domainsVal) Iterator() traits.Iterator { return newKeyIterator(m.domains()) }

func (m *domainsVal) materialize() ref.Val {
	out := map[ref.Val]ref.Val{}
	for _, dom := range m.domains() {
		out[types.String(dom)] = m.dev.view(m.capacity, dom).materialize()
	}
	return types.NewRefValMap(types.DefaultTypeAdapter, out)
}

// ConvertToNative implements ref.Val.
func (m *domainsVal) ConvertToNative(typeDesc reflect.Type) (any, error) {
	return m.materialize().ConvertToNative(typeDesc)
}

// ConvertToType implements ref.Val.
func (m *domainsVal) ConvertToType(typeVal ref.Type) ref.Val {
	return m.materialize().ConvertToType(typeVal)
}

// Equal implements ref.Val.
func (m *domainsVal) Equal(other ref.Val) ref.Val { return m.materialize().Equal(other) }

// Type implements ref.Val.
func (m *domainsVal) Type() ref.Type { return types.MapType }

// Value implements ref.Val.
func (m *domainsVal) Value() any { return m }

// domainVal is the map of one domain's attributes or capacities.
type domainVal struct {
	dev      *deviceVal
	capacity bool
	domain   string
}

// ids lists the domain's ids, sorted.
func (m *domainVal) ids() []string {
	var out []string
	for _, n := range m.dev.names(m.capacity) {
		if dom, id := splitName(n, m.dev.driver); dom == m.domain {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Find implements traits.Mapper: a missing id is not found, which CEL
// reports as "no such key: <id>".
func (m *domainVal) Find(key ref.Val) (ref.Val, bool) {
	s, ok := key.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(key), false
	}
	return m.dev.lookup(m.capacity, m.domain, string(s))
}

// Get implements traits.Indexer.
func (m *domainVal) Get(key ref.Val) ref.Val {
	v, found := m.Find(key)
	if !found && v == nil {
		return types.NewErr("no such key: %v", key)
	}
	return v
}

// Contains implements traits.Container.
func (m *domainVal) Contains(key ref.Val) ref.Val {
	v, found := m.Find(key)
	if !found && v != nil {
		return v
	}
	return types.Bool(found)
}

// Size implements traits.Sizer.
func (m *domainVal) Size() ref.Val { return types.Int(len(m.ids())) }

// Iterator implements traits.Iterable, in id order.
func (m *domainVal) Iterator() traits.Iterator { return newKeyIterator(m.ids()) }

func (m *domainVal) materialize() ref.Val {
	out := map[ref.Val]ref.Val{}
	for _, id := range m.ids() {
		v, _ := m.dev.lookup(m.capacity, m.domain, id)
		out[types.String(id)] = v
	}
	return types.NewRefValMap(types.DefaultTypeAdapter, out)
}

// ConvertToNative implements ref.Val.
func (m *domainVal) ConvertToNative(typeDesc reflect.Type) (any, error) {
	return m.materialize().ConvertToNative(typeDesc)
}

// ConvertToType implements ref.Val.
func (m *domainVal) ConvertToType(typeVal ref.Type) ref.Val {
	return m.materialize().ConvertToType(typeVal)
}

// Equal implements ref.Val.
func (m *domainVal) Equal(other ref.Val) ref.Val { return m.materialize().Equal(other) }

// Type implements ref.Val.
func (m *domainVal) Type() ref.Type { return types.MapType }

// Value implements ref.Val.
func (m *domainVal) Value() any { return m }

// keyIterator walks map keys in a fixed (sorted) order, so that what a
// selector sees of a map does not vary from run to run.
type keyIterator struct {
	keys []string
	next int
}

func newKeyIterator(keys []string) *keyIterator { return &keyIterator{keys: keys} }

func (it *keyIterator) HasNext() ref.Val { return types.Bool(it.next < len(it.keys)) }

func (it *keyIterator) Next() ref.Val {
	if it.next >= len(it.keys) {
		return nil
	}
	it.next++
	return types.String(it.keys[it.next-1])
}

func (it *keyIterator) ConvertToNative(typeDesc reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion on iterators not supported")
}

func (it *keyIterator) ConvertToType(ref.Type) ref.Val {
	return types.NewErr("type conversion on iterators not supported")
}

func (it *keyIterator) Equal(ref.Val) ref.Val {
	return types.NewErr("equality on iterators not supported")
}

func (it *keyIterator) Type() ref.Type { return types.IteratorType }

func (it *keyIterator) Value() any { return nil }
