package cluster

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strings"
)

// ErrQuantity is wrapped by every error ParseQuantity returns.
var ErrQuantity = errors.New("cluster: invalid quantity")

// maxQuantityLength bounds the text parsed, so that exact rational
// arithmetic on absurd inputs (a million digits) cannot stall a load; no
// int64 quantity needs more.
const maxQuantityLength = 64

// maxExponent bounds decimal exponents ("1e300") so that parsing stays cheap
// and values that can never fit an int64 are refused early.
const maxExponent = 30

// ParseQuantity parses a Kubernetes quantity ("500m", "1.5", "2Gi", "1e3",
// "100Ki") and returns it as an integer count of 1/scale units, rounded up
// as Kubernetes rounds: scale 1000 gives millicores ("0.0001" -> 1m), scale 1
// gives bytes or plain counts ("0.5" -> 1).
//
// Negative, malformed and out-of-range (beyond int64) input is an error that
// quotes the text and wraps ErrQuantity.
func ParseQuantity(text string, scale int64) (int64, error) {
	return parseQuantity(text, scale, false)
}

// parseQuantity is ParseQuantity; saturate takes a value too large for an
// int64 (and an exponent up to 999) as math.MaxInt64 instead of an error.
func parseQuantity(text string, scale int64, saturate bool) (int64, error) {
	fail := func(why string) (int64, error) {
		return 0, fieldError(ErrQuantity, "", "", "%q is not a valid quantity: %s", text, why)
	}
	s := strings.TrimSpace(text)
	if s == "" {
		return fail("empty")
	}
	if len(s) > maxQuantityLength {
		return fail(fmt.Sprintf("longer than %d characters", maxQuantityLength))
	}
	if scale <= 0 {
		return fail("scale must be positive")
	}
	switch s[0] {
	case '-':
		return fail("negative quantities are not allowed")
	case '+':
		s = s[1:]
	}
	num, suffix := splitNumber(s)
	if v, ok := wholeQuantity(num, suffix, scale); ok {
		return v, nil
	}
	if num == "" || num == "." || strings.Count(num, ".") > 1 {
		return fail("no number")
	}
	value, ok := new(big.Rat).SetString(num)
	if !ok {
		return fail("malformed number")
	}
	maxExp := maxExponent
	if saturate {
		maxExp = maxSaturatedExponent
	}
	mult, err := suffixMultiplier(suffix, maxExp)
	if err != nil {
		return fail(err.Error())
	}
	value.Mul(value, mult)
	value.Mul(value, new(big.Rat).SetInt64(scale))
	if saturate {
		if q := ceilInt(value); !q.IsInt64() {
			return math.MaxInt64, nil
		}
	}
	return ceilToInt64(value, fail)
}

// maxSaturatedExponent bounds the exponents of saturated quantities: three
// digits, as parseExponent reads them.
const maxSaturatedExponent = 999

// wholeQuantity computes, without rationals, the usual quantity: a whole
// number of at most 18 digits with a unit suffix or none ("4", "500m",
// "64Gi"). It reports false for anything else, or a result that does not
// fit, which the exact rational path then decides (and words).
func wholeQuantity(num, suffix string, scale int64) (int64, bool) {
	if num == "" || len(num) > 18 {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(num); i++ {
		if num[i] < '0' || num[i] > '9' {
			return 0, false
		}
		n = n*10 + uint64(num[i]-'0')
	}
	mult, div := uint64(1), uint64(1)
	if shift, ok := binarySuffixes[suffix]; ok {
		mult = 1 << shift
	} else if exp, ok := decimalSuffixes[suffix]; ok {
		for ; exp > 0; exp-- {
			mult *= 10
		}
		for ; exp < 0; exp++ {
			div *= 10
		}
	} else {
		return 0, false
	}
	hi, v := bits.Mul64(n, mult)
	if hi != 0 {
		return 0, false
	}
	if hi, v = bits.Mul64(v, uint64(scale)); hi != 0 {
		return 0, false
	}
	q := v / div
	if v%div != 0 {
		q++ // rounded up, as the rational path rounds
	}
	if q > math.MaxInt64 {
		return 0, false
	}
	return int64(q), true
}

// splitNumber splits "1.5Gi" into "1.5" and "Gi".
func splitNumber(s string) (num, suffix string) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	return s[:i], s[i:]
}

var binarySuffixes = map[string]uint{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
var decimalSuffixes = map[string]int{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}

// suffixMultiplier returns the exact factor a suffix stands for.
func suffixMultiplier(suffix string, maxExp int) (*big.Rat, error) {
	if shift, ok := binarySuffixes[suffix]; ok {
		return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), shift)), nil
	}
	if exp, ok := decimalSuffixes[suffix]; ok {
		return pow10(exp), nil
	}
	if len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
		exp, err := parseExponent(suffix[1:], maxExp)
		if err != nil {
			return nil, err
		}
		return pow10(exp), nil
	}
	return nil, fmt.Errorf("unknown suffix %q", suffix)
}

func parseExponent(s string, maxExp int) (int, error) {
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	if s == "" || len(s) > 3 {
		return 0, fmt.Errorf("malformed exponent %q", s)
	}
	exp := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("malformed exponent %q", s)
		}
		exp = exp*10 + int(c-'0')
	}
	if exp > maxExp {
		return 0, fmt.Errorf("exponent %d out of range", exp)
	}
	if neg {
		exp = -exp
	}
	return exp, nil
}

func pow10(exp int) *big.Rat {
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil)
	if exp < 0 {
		return new(big.Rat).SetFrac(big.NewInt(1), p)
	}
	return new(big.Rat).SetInt(p)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// ceilInt rounds v up to an integer.
func ceilInt(v *big.Rat) *big.Int {
	q, r := new(big.Int).QuoRem(v.Num(), v.Denom(), new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

func ceilToInt64(v *big.Rat, fail func(string) (int64, error)) (int64, error) {
	q := ceilInt(v)
	if !q.IsInt64() {
		return fail("too large")
	}
	return q.Int64(), nil
}

// FormatQuantity renders an integer amount of a resource in Kubernetes
// notation, the inverse of ParseResourceQuantity for exact values: cpu in
// millicores ("500m", "2"), memory with the largest exact binary suffix
// ("1Gi", "1536Mi"), everything else as a plain count.
func FormatQuantity(name ResourceName, v int64) string {
	if name == ResourceCPU {
		if v%1000 == 0 {
			return fmt.Sprintf("%d", v/1000)
		}
		return fmt.Sprintf("%dm", v)
	}
	if name == ResourceMemory && v != 0 {
		for _, s := range []struct {
			suffix string
			shift  uint
		}{{"Ei", 60}, {"Pi", 50}, {"Ti", 40}, {"Gi", 30}, {"Mi", 20}, {"Ki", 10}} {
			if v%(1<<s.shift) == 0 {
				return fmt.Sprintf("%d%s", v>>s.shift, s.suffix)
			}
		}
	}
	return fmt.Sprintf("%d", v)
}

// ParseResourceQuantity parses the quantity of the named resource in its
// internal unit: millicores for cpu, whole units (bytes, pods, devices) for
// everything else.
func ParseResourceQuantity(name ResourceName, text string) (int64, error) {
	if name == ResourceCPU {
		return ParseQuantity(text, 1000)
	}
	return ParseQuantity(text, 1)
}
