package deviceselector

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"

	"github.com/gangsim/gangsim/cluster"
)

// quantityType is the CEL type of a quantity, named as Kubernetes names it.
var quantityType = cel.ObjectType("kubernetes.Quantity")

// The parse errors of Kubernetes' resource.ParseQuantity, word for word.
var (
	errQuantityFormat  = errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	errQuantityNumeric = errors.New("unable to parse numeric part of quantity")
	errQuantitySuffix  = errors.New("unable to parse quantity's suffix")
	// errQuantityRange is this package's own: an exponent beyond ±1000
	// (Kubernetes keeps such a number as a decimal of that scale).
	errQuantityRange = errors.New("quantity exponent out of range")
)

// maxQuantityExponent bounds a quantity's decimal exponent (see
// errQuantityRange): exact arithmetic on 10^1000000000 would not end.
const maxQuantityExponent = 1000

// quantity is a CEL quantity value. Every capacity and almost every
// literal is a whole number of thousandths, kept in milli without
// allocation; any other value (finer than a thousandth, or beyond int64
// thousandths) is kept exactly in exact. A value is always in the first
// form when it can be (normalize), so two equal quantities are equal in
// form too.
type quantity struct {
	milli int64
	exact *big.Rat // nil: the value is milli/1000
}

func quantityOf(q cluster.Quantity) quantity { return quantity{milli: int64(q)} }

// normalize makes r a quantity, in thousandths when it fits.
func normalize(r *big.Rat) quantity {
	if r.IsInt() || new(big.Int).Rem(big.NewInt(1000), r.Denom()).Sign() == 0 {
		m := new(big.Int).Mul(r.Num(), big.NewInt(1000))
		m.Quo(m, r.Denom())
		if m.IsInt64() {
			return quantity{milli: m.Int64()}
		}
	}
	return quantity{exact: r}
}

func (q quantity) rat() *big.Rat {
	if q.exact != nil {
		return q.exact
	}
	return big.NewRat(q.milli, 1000)
}

func (q quantity) compare(o quantity) int {
	if q.exact == nil && o.exact == nil {
		return cmp.Compare(q.milli, o.milli)
	}
	return q.rat().Cmp(o.rat())
}

func (q quantity) sign() int {
	if q.exact != nil {
		return q.exact.Sign()
	}
	return cmp.Compare(q.milli, 0)
}

func (q quantity) add(o quantity) quantity {
	if q.exact == nil && o.exact == nil {
		if s, ok := addInt64(q.milli, o.milli); ok {
			return quantity{milli: s}
		}
	}
	return normalize(new(big.Rat).Add(q.rat(), o.rat()))
}

func (q quantity) neg() quantity {
	if q.exact == nil && q.milli != math.MinInt64 {
		return quantity{milli: -q.milli}
	}
	return normalize(new(big.Rat).Neg(q.rat()))
}

func intQuantity(i int64) quantity {
	if m, ok := mulInt64(i, 1000); ok {
		return quantity{milli: m}
	}
	return quantity{exact: new(big.Rat).SetInt64(i)}
}

// asInt64 is the value as a whole number, if it is one that fits.
func (q quantity) asInt64() (int64, bool) {
	if q.exact == nil {
		return q.milli / 1000, q.milli%1000 == 0
	}
	if q.exact.IsInt() && q.exact.Num().IsInt64() {
		return q.exact.Num().Int64(), true
	}
	return 0, false
}

func (q quantity) float() float64 {
	if q.exact == nil {
		return float64(q.milli) / 1000
	}
	f, _ := q.exact.Float64()
	return f
}

// String renders the value in plain decimal, as exactly as it is kept.
func (q quantity) String() string {
	if q.exact == nil {
		return cluster.Quantity(q.milli).String()
	}
	if q.exact.IsInt() {
		return q.exact.Num().String()
	}
	return q.exact.FloatString(9)
}

// ConvertToNative implements ref.Val.
func (q quantity) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(q).AssignableTo(typeDesc) {
		return q, nil
	}
	return nil, fmt.Errorf("type conversion error from 'kubernetes.Quantity' to '%v'", typeDesc)
}

// ConvertToType implements ref.Val.
func (q quantity) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case quantityType:
		return q
	case types.TypeType:
		return quantityType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", quantityType, typeVal)
}

// Equal implements ref.Val: equal in value ("200M" == "0.2G").
func (q quantity) Equal(other ref.Val) ref.Val {
	o, ok := other.(quantity)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(q.compare(o) == 0)
}

// Type implements ref.Val.
func (q quantity) Type() ref.Type { return quantityType }

// Value implements ref.Val.
func (q quantity) Value() any { return q }

// parseQuantity parses a quantity as Kubernetes' resource.ParseQuantity
// does: the same strings are accepted and refused (with its errors), and
// the value is the same, rounded up (away from zero) to a billionth, and
// a binary-suffixed value capped at 2^63-1.
func parseQuantity(str string) (quantity, error) {
	if str == "" {
		return quantity{}, errQuantityFormat
	}
	if str == "0" {
		return quantity{}, nil
	}
	positive, num, denom, suffix, err := splitQuantity(str)
	if err != nil {
		return quantity{}, err
	}
	base, exponent, ok := interpretSuffix(suffix)
	if !ok {
		return quantity{}, errQuantitySuffix
	}
	if exponent > maxQuantityExponent || exponent < -maxQuantityExponent {
		return quantity{}, errQuantityRange
	}
	// The value is digits * 10^exp10 * 2^exp2.
	digits := num + denom
	exp10, exp2 := -len(denom), 0
	if base == 10 {
		exp10 += int(exponent)
	} else {
		exp2 = int(exponent)
	}
	if q, ok := smallQuantity(positive, digits, exp10, exp2); ok {
		return q, nil
	}
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return quantity{}, errQuantityNumeric
	}
	r := new(big.Rat).SetInt(n)
	if exp10 != 0 {
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp10))), nil)
		if exp10 > 0 {
			r.Mul(r, new(big.Rat).SetInt(p))
		} else {
			r.Quo(r, new(big.Rat).SetInt(p))
		}
	}
	if exp2 != 0 {
		r.Mul(r, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(exp2))))
	}
	// Round up to a whole number of billionths, as Kubernetes does.
	nano := new(big.Rat).Mul(r, big.NewRat(1_000_000_000, 1))
	if !nano.IsInt() {
		up := new(big.Int).Quo(nano.Num(), nano.Denom())
		up.Add(up, big.NewInt(1))
		r.SetFrac(up, big.NewInt(1_000_000_000))
	}
	if base == 2 && r.Cmp(new(big.Rat).SetInt64(math.MaxInt64)) > 0 {
		r.SetInt64(math.MaxInt64)
	}
	if !positive {
		r.Neg(r)
	}
	return normalize(r), nil
}

// smallQuantity computes the usual quantity in int64 thousandths.
func smallQuantity(positive bool, digits string, exp10, exp2 int) (quantity, bool) {
	if len(digits) > 18 || exp2 < 0 || exp2 > 62 {
		return quantity{}, false
	}
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return quantity{}, false
	}
	exp10 += 3 // thousandths
	for ; exp10 > 0; exp10-- {
		if v, err = mulChecked(v, 10); err != nil {
			return quantity{}, false
		}
	}
	for ; exp10 < 0; exp10++ {
		if v%10 != 0 {
			return quantity{}, false
		}
		v /= 10
	}
	v, ok := mulInt64(v, int64(1)<<exp2)
	if !ok {
		return quantity{}, false
	}
	if !positive {
		v = -v
	}
	return quantity{milli: v}, true
}

var errOverflow = errors.New("overflow")

func mulChecked(a, b int64) (int64, error) {
	if v, ok := mulInt64(a, b); ok {
		return v, nil
	}
	return 0, errOverflow
}

func mulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if c/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return c, true
}

func addInt64(a, b int64) (int64, bool) {
	c := a + b
	if (c > a) != (b > 0) {
		return 0, false
	}
	return c, true
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// splitQuantity splits a quantity into sign, whole digits (leading
// zeros dropped, "0" for none), fraction digits and suffix, accepting
// what Kubernetes' parseQuantityString accepts ("1.", ".5", "+", "1.G").
func splitQuantity(str string) (positive bool, num, denom, suffix string, err error) {
	positive = true
	pos, end := 0, len(str)
	switch str[0] {
	case '-':
		positive = false
		pos++
	case '+':
		pos++
	}
	for pos < end && str[pos] == '0' {
		pos++
	}
	if pos >= end {
		return positive, "0", "", "", nil
	}
	start := pos
	for pos < end && isDigit(str[pos]) {
		pos++
	}
	num = str[start:pos]
	if num == "" {
		num = "0"
	}
	if pos < end && str[pos] == '.' {
		pos++
		start = pos
		for pos < end && isDigit(str[pos]) {
			pos++
		}
		denom = str[start:pos]
	}
	suffixStart := pos
	for pos < end && strings.IndexByte("eEinumkKMGTP", str[pos]) >= 0 {
		pos++
	}
	if pos < end && (str[pos] == '-' || str[pos] == '+') {
		pos++
	}
	for pos < end && isDigit(str[pos]) {
		pos++
	}
	if pos < end {
		return false, "", "", "", errQuantityFormat
	}
	return positive, num, denom, str[suffixStart:], nil
}

var binarySuffixes = map[string]int32{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}

var decimalSuffixes = map[string]int32{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}

// interpretSuffix reads a suffix as Kubernetes' quantity suffixer does:
// a binary or decimal SI suffix, or a decimal exponent ("e3", "E-2").
func interpretSuffix(s string) (base int, exponent int32, ok bool) {
	if e, ok := binarySuffixes[s]; ok {
		return 2, e, true
	}
	if e, ok := decimalSuffixes[s]; ok {
		return 10, e, true
	}
	if len(s) > 1 && (s[0] == 'e' || s[0] == 'E') {
		parsed, err := strconv.ParseInt(s[1:], 10, 64)
		if err != nil {
			return 0, 0, false
		}
		if parsed > maxQuantityExponent || parsed < -maxQuantityExponent {
			return 10, maxQuantityExponent + 1, true
		}
		return 10, int32(parsed), true
	}
	return 0, 0, false
}

// quantityLibrary is Kubernetes' quantity library (library.Quantity) as
// the device selector environment has it.
type quantityLibrary struct{}

func (quantityLibrary) LibraryName() string { return "kubernetes.quantity" }

func (quantityLibrary) ProgramOptions() []cel.ProgramOption { return nil }

func (quantityLibrary) CompileOptions() []cel.EnvOption {
	q := quantityType
	return []cel.EnvOption{
		cel.Function("quantity", cel.Overload("string_to_quantity", []*cel.Type{cel.StringType}, q,
			cel.UnaryBinding(func(arg ref.Val) ref.Val {
				s, ok := arg.(types.String)
				if !ok {
					return types.MaybeNoSuchOverloadErr(arg)
				}
				v, err := parseQuantity(string(s))
				if err != nil {
					return types.WrapErr(err)
				}
				return v
			}))),
		cel.Function("isQuantity", cel.Overload("is_quantity_string", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(arg ref.Val) ref.Val {
				s, ok := arg.(types.String)
				if !ok {
					return types.MaybeNoSuchOverloadErr(arg)
				}
				_, err := parseQuantity(string(s))
				return types.Bool(err == nil)
			}))),
		// Kubernetes declares sign as a global function: sign(q), not q.sign().
		cel.Function("sign", cel.Overload("quantity_sign", []*cel.Type{q}, cel.IntType,
			quantityUnary(func(a quantity) ref.Val { return types.Int(a.sign()) }))),
		cel.Function("isGreaterThan", cel.MemberOverload("quantity_is_greater_than", []*cel.Type{q, q}, cel.BoolType,
			quantityBinary(func(a, b quantity) ref.Val { return types.Bool(a.compare(b) > 0) }))),
		cel.Function("isLessThan", cel.MemberOverload("quantity_is_less_than", []*cel.Type{q, q}, cel.BoolType,
			quantityBinary(func(a, b quantity) ref.Val { return types.Bool(a.compare(b) < 0) }))),
		cel.Function("compareTo", cel.MemberOverload("quantity_compare_to", []*cel.Type{q, q}, cel.IntType,
			quantityBinary(func(a, b quantity) ref.Val { return types.Int(a.compare(b)) }))),
		cel.Function("asApproximateFloat", cel.MemberOverload("quantity_get_float", []*cel.Type{q}, cel.DoubleType,
			quantityUnary(func(a quantity) ref.Val { return types.Double(a.float()) }))),
		cel.Function("asInteger", cel.MemberOverload("quantity_get_int", []*cel.Type{q}, cel.IntType,
			quantityUnary(func(a quantity) ref.Val {
				v, ok := a.asInt64()
				if !ok {
					return types.WrapErr(errors.New("cannot convert value to integer"))
				}
				return types.Int(v)
			}))),
		cel.Function("isInteger", cel.MemberOverload("quantity_is_integer", []*cel.Type{q}, cel.BoolType,
			quantityUnary(func(a quantity) ref.Val {
				_, ok := a.asInt64()
				return types.Bool(ok)
			}))),
		cel.Function("add",
			cel.MemberOverload("quantity_add", []*cel.Type{q, q}, q,
				quantityBinary(func(a, b quantity) ref.Val { return a.add(b) })),
			cel.MemberOverload("quantity_add_int", []*cel.Type{q, cel.IntType}, q,
				quantityInt(func(a quantity, i int64) ref.Val { return a.add(intQuantity(i)) }))),
		cel.Function("sub",
			cel.MemberOverload("quantity_sub", []*cel.Type{q, q}, q,
				quantityBinary(func(a, b quantity) ref.Val { return a.add(b.neg()) })),
			cel.MemberOverload("quantity_sub_int", []*cel.Type{q, cel.IntType}, q,
				quantityInt(func(a quantity, i int64) ref.Val { return a.add(intQuantity(i).neg()) }))),
	}
}

func quantityUnary(f func(quantity) ref.Val) cel.OverloadOpt {
	return cel.UnaryBinding(func(arg ref.Val) ref.Val {
		a, ok := arg.(quantity)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return f(a)
	})
}

func quantityBinary(f func(a, b quantity) ref.Val) cel.OverloadOpt {
	return cel.BinaryBinding(func(lhs, rhs ref.Val) ref.Val {
		a, ok := lhs.(quantity)
		if !ok {
			return types.MaybeNoSuchOverloadErr(lhs)
		}
		b, ok := rhs.(quantity)
		if !ok {
			return types.MaybeNoSuchOverloadErr(rhs)
		}
		return f(a, b)
	})
}

func quantityInt(f func(quantity, int64) ref.Val) cel.OverloadOpt {
	return cel.BinaryBinding(func(lhs, rhs ref.Val) ref.Val {
		a, ok := lhs.(quantity)
		if !ok {
			return types.MaybeNoSuchOverloadErr(lhs)
		}
		i, ok := rhs.(types.Int)
		if !ok {
			return types.MaybeNoSuchOverloadErr(rhs)
		}
		return f(a, int64(i))
	})
}
