package deviceselector

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// semverType is the CEL type of a semantic version, named as Kubernetes
// names it.
var semverType = cel.ObjectType("kubernetes.Semver")

// semver is a semantic version (semver.org 2.0.0) as Kubernetes' semver
// library (github.com/blang/semver/v4) parses it. The pre-release part
// is kept as written and compared identifier by identifier; build
// metadata takes no part in comparisons.
type semver struct {
	major, minor, patch uint64
	pre                 string // "" for none: "alpha.1"
	build               string
}

const (
	numbers  = "0123456789"
	alphanum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-" + numbers
)

func containsOnly(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return true
}

func hasLeadingZeroes(s string) bool { return len(s) > 1 && s[0] == '0' }

// parseSemver parses a version with the rules and the error texts of
// blang/semver's Parse, without allocating on success.
func parseSemver(s string) (semver, error) {
	if len(s) == 0 {
		return semver{}, errors.New("Version string empty")
	}
	majorStr, rest, ok1 := strings.Cut(s, ".")
	minorStr, patchStr, ok2 := strings.Cut(rest, ".")
	if !ok1 || !ok2 {
		return semver{}, errors.New("No Major.Minor.Patch elements found")
	}
	var v semver
	var err error
	if v.major, err = versionNumber(majorStr, "major", "Major"); err != nil {
		return semver{}, err
	}
	if v.minor, err = versionNumber(minorStr, "minor", "Minor"); err != nil {
		return semver{}, err
	}
	build, hasBuild := "", false
	if i := strings.IndexByte(patchStr, '+'); i >= 0 {
		build, hasBuild = patchStr[i+1:], true
		patchStr = patchStr[:i]
	}
	pre, hasPre := "", false
	if i := strings.IndexByte(patchStr, '-'); i >= 0 {
		pre, hasPre = patchStr[i+1:], true
		patchStr = patchStr[:i]
	}
	if v.patch, err = versionNumber(patchStr, "patch", "Patch"); err != nil {
		return semver{}, err
	}
	if hasPre {
		for p := range strings.SplitSeq(pre, ".") {
			if err := checkPrerelease(p); err != nil {
				return semver{}, err
			}
		}
		v.pre = pre
	}
	if hasBuild {
		for b := range strings.SplitSeq(build, ".") {
			if b == "" {
				return semver{}, errors.New("Build meta data is empty")
			}
			if !containsOnly(b, alphanum) {
				return semver{}, fmt.Errorf("Invalid character(s) found in build meta data %q", b)
			}
		}
		v.build = build
	}
	return v, nil
}

func versionNumber(s, lower, upper string) (uint64, error) {
	if !containsOnly(s, numbers) {
		return 0, fmt.Errorf("Invalid character(s) found in %s number %q", lower, s)
	}
	if hasLeadingZeroes(s) {
		return 0, fmt.Errorf("%s number must not contain leading zeroes %q", upper, s)
	}
	return strconv.ParseUint(s, 10, 64)
}

func checkPrerelease(s string) error {
	switch {
	case s == "":
		return errors.New("Prerelease is empty")
	case containsOnly(s, numbers):
		if hasLeadingZeroes(s) {
			return fmt.Errorf("Numeric PreRelease version must not contain leading zeroes %q", s)
		}
		_, err := strconv.ParseUint(s, 10, 64)
		return err
	case containsOnly(s, alphanum):
		return nil
	}
	return fmt.Errorf("Invalid character(s) found in prerelease %q", s)
}

// normalizeSemver is Kubernetes' normalizeAndParse for semver(s, true):
// it drops a leading "v", leading zeros of the numbers, and fills in a
// missing minor or patch number.
func normalizeSemver(s string) (semver, error) {
	s = strings.TrimPrefix(s, "v")
	parts := strings.SplitN(s, ".", 3)
	for i, p := range parts {
		if len(p) > 1 {
			p = strings.TrimLeft(p, "0")
			if len(p) == 0 || !strings.ContainsAny(p[0:1], numbers) {
				p = "0" + p
			}
			parts[i] = p
		}
	}
	if len(parts) < 3 {
		if strings.ContainsAny(parts[len(parts)-1], "+-") {
			return semver{}, errors.New("short version cannot contain PreRelease/Build meta data")
		}
		for len(parts) < 3 {
			parts = append(parts, "0")
		}
	}
	return parseSemver(strings.Join(parts, "."))
}

// compare orders versions as semver.org and blang/semver do.
func (v semver) compare(o semver) int {
	if c := cmp.Compare(v.major, o.major); c != 0 {
		return c
	}
	if c := cmp.Compare(v.minor, o.minor); c != 0 {
		return c
	}
	if c := cmp.Compare(v.patch, o.patch); c != 0 {
		return c
	}
	switch {
	case v.pre == "" && o.pre == "":
		return 0
	case v.pre == "":
		return 1
	case o.pre == "":
		return -1
	}
	a, b := v.pre, o.pre
	for a != "" && b != "" {
		var x, y string
		x, a, _ = strings.Cut(a, ".")
		y, b, _ = strings.Cut(b, ".")
		if c := comparePrerelease(x, y); c != 0 {
			return c
		}
	}
	switch {
	case a == "" && b == "":
		return 0
	case a == "":
		return -1
	}
	return 1
}

// comparePrerelease orders two identifiers: numbers by value, before
// alphanumerics, which go in ASCII order.
func comparePrerelease(x, y string) int {
	xn, yn := containsOnly(x, numbers), containsOnly(y, numbers)
	switch {
	case xn && yn:
		a, _ := strconv.ParseUint(x, 10, 64)
		b, _ := strconv.ParseUint(y, 10, 64)
		return cmp.Compare(a, b)
	case xn:
		return -1
	case yn:
		return 1
	}
	return strings.Compare(x, y)
}

// String renders the version.
func (v semver) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.major, v.minor, v.patch)
	if v.pre != "" {
		s += "-" + v.pre
	}
	if v.build != "" {
		s += "+" + v.build
	}
	return s
}

// ConvertToNative implements ref.Val.
func (v semver) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(v).AssignableTo(typeDesc) {
		return v, nil
	}
	return nil, fmt.Errorf("type conversion error from 'kubernetes.Semver' to '%v'", typeDesc)
}

// ConvertToType implements ref.Val.
func (v semver) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case semverType:
		return v
	case types.TypeType:
		return semverType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", semverType, typeVal)
}

// Equal implements ref.Val: versions that compare equal (build metadata
// aside) are equal.
func (v semver) Equal(other ref.Val) ref.Val {
	o, ok := other.(semver)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(v.compare(o) == 0)
}

// Type implements ref.Val.
func (v semver) Type() ref.Type { return semverType }

// Value implements ref.Val.
func (v semver) Value() any { return v }

// semverLibrary is Kubernetes' semver library at version 1
// (library.SemverLib(library.SemverVersion(1))).
type semverLibrary struct{}

func (semverLibrary) LibraryName() string { return "kubernetes.Semver" }

func (semverLibrary) ProgramOptions() []cel.ProgramOption { return nil }

func (semverLibrary) CompileOptions() []cel.EnvOption {
	s := semverType
	parse := func(arg, normalize ref.Val) ref.Val {
		str, ok := arg.(types.String)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		n, ok := normalize.(types.Bool)
		if !ok {
			return types.MaybeNoSuchOverloadErr(normalize)
		}
		var v semver
		var err error
		if n {
			v, err = normalizeSemver(string(str))
		} else {
			v, err = parseSemver(string(str))
		}
		if err != nil {
			return types.WrapErr(err)
		}
		return v
	}
	is := func(arg, normalize ref.Val) ref.Val {
		if v := parse(arg, normalize); types.IsError(v) {
			if _, ok := arg.(types.String); ok {
				return types.False
			}
			return v
		}
		return types.True
	}
	return []cel.EnvOption{
		cel.Function("semver",
			cel.Overload("string_to_semver", []*cel.Type{cel.StringType}, s,
				cel.UnaryBinding(func(arg ref.Val) ref.Val { return parse(arg, types.False) })),
			cel.Overload("string_bool_to_semver", []*cel.Type{cel.StringType, cel.BoolType}, s,
				cel.BinaryBinding(parse))),
		cel.Function("isSemver",
			cel.Overload("is_semver_string", []*cel.Type{cel.StringType}, cel.BoolType,
				cel.UnaryBinding(func(arg ref.Val) ref.Val { return is(arg, types.False) })),
			cel.Overload("is_semver_string_bool", []*cel.Type{cel.StringType, cel.BoolType}, cel.BoolType,
				cel.BinaryBinding(is))),
		cel.Function("isGreaterThan", cel.MemberOverload("semver_is_greater_than", []*cel.Type{s, s}, cel.BoolType,
			semverBinary(func(a, b semver) ref.Val { return types.Bool(a.compare(b) > 0) }))),
		cel.Function("isLessThan", cel.MemberOverload("semver_is_less_than", []*cel.Type{s, s}, cel.BoolType,
			semverBinary(func(a, b semver) ref.Val { return types.Bool(a.compare(b) < 0) }))),
		cel.Function("compareTo", cel.MemberOverload("semver_compare_to", []*cel.Type{s, s}, cel.IntType,
			semverBinary(func(a, b semver) ref.Val { return types.Int(a.compare(b)) }))),
		cel.Function("major", cel.MemberOverload("semver_major", []*cel.Type{s}, cel.IntType,
			semverUnary(func(a semver) ref.Val { return types.Int(a.major) }))),
		cel.Function("minor", cel.MemberOverload("semver_minor", []*cel.Type{s}, cel.IntType,
			semverUnary(func(a semver) ref.Val { return types.Int(a.minor) }))),
		cel.Function("patch", cel.MemberOverload("semver_patch", []*cel.Type{s}, cel.IntType,
			semverUnary(func(a semver) ref.Val { return types.Int(a.patch) }))),
	}
}

func semverUnary(f func(semver) ref.Val) cel.OverloadOpt {
	return cel.UnaryBinding(func(arg ref.Val) ref.Val {
		a, ok := arg.(semver)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return f(a)
	})
}

func semverBinary(f func(a, b semver) ref.Val) cel.OverloadOpt {
	return cel.BinaryBinding(func(lhs, rhs ref.Val) ref.Val {
		a, ok := lhs.(semver)
		if !ok {
			return types.MaybeNoSuchOverloadErr(lhs)
		}
		b, ok := rhs.(semver)
		if !ok {
			return types.MaybeNoSuchOverloadErr(rhs)
		}
		return f(a, b)
	})
}
