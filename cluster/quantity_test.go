package cluster

import (
	"math"
	"math/big"
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseResourceQuantity(t *testing.T) {
	tests := []struct {
		name ResourceName
		text string
		want int64
	}{
		{ResourceCPU, "500m", 500},
		{ResourceCPU, "1.5", 1500},
		{ResourceCPU, "1", 1000},
		{ResourceCPU, "0", 0},
		{ResourceCPU, "+1", 1000},
		{ResourceCPU, ".5", 500},
		{ResourceCPU, "5.", 5000},
		{ResourceCPU, "0.0001", 1}, // rounds up to 1m
		{ResourceCPU, "0.0011", 2}, // 1.1m rounds up
		{ResourceCPU, "100n", 1},   // 0.0001m rounds up
		{ResourceCPU, "250000u", 250},
		{ResourceCPU, "1k", 1_000_000},
		{ResourceCPU, "1e3", 1_000_000},
		{ResourceCPU, "1E3", 1_000_000},
		{ResourceCPU, "1e-3", 1},
		{ResourceCPU, "1E+2", 100_000},
		{ResourceCPU, "1Ki", 1_024_000},
		{ResourceCPU, " 2 ", 2000}, // surrounding space is trimmed
		{ResourceMemory, "2Gi", 2 * gi},
		{ResourceMemory, "512Mi", 512 * mi},
		{ResourceMemory, "100Ki", 100 * ki},
		{ResourceMemory, "1.5Gi", 3 * gi / 2},
		{ResourceMemory, "1Ti", 1 << 40},
		{ResourceMemory, "1Pi", 1 << 50},
		{ResourceMemory, "1Ei", 1 << 60},
		{ResourceMemory, "7Ei", 7 << 60},
		{ResourceMemory, "1G", 1_000_000_000},
		{ResourceMemory, "1M", 1_000_000},
		{ResourceMemory, "1T", 1_000_000_000_000},
		{ResourceMemory, "1P", 1_000_000_000_000_000},
		{ResourceMemory, "1E", 1_000_000_000_000_000_000}, // exa, not an exponent
		{ResourceMemory, "1e3", 1000},
		{ResourceMemory, "0.5", 1},   // rounds up to one byte
		{ResourceMemory, "1m", 1},    // a thousandth of a byte rounds up
		{ResourceMemory, "1500m", 2}, // 1.5 bytes
		{ResourceMemory, "9223372036854775807", math.MaxInt64},
		{ResourceMemory, "0.000000000000000000000000000001e30", 1},
		{ResourcePods, "110", 110},
		{gpuName, "2", 2},
		{gpuName, "1k", 1000},
	}
	for _, tt := range tests {
		t.Run(string(tt.name)+"/"+tt.text, func(t *testing.T) {
			got, err := ParseResourceQuantity(tt.name, tt.text)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseResourceQuantityErrors(t *testing.T) {
	tests := []struct {
		name ResourceName
		text string
		why  string // part of the reason
	}{
		{ResourceCPU, "", "empty"},
		{ResourceCPU, "   ", "empty"},
		{ResourceCPU, "\t\n", "empty"},
		{ResourceCPU, "-1", "negative"},
		{ResourceCPU, "-0.5", "negative"},
		{ResourceCPU, "abc", "no number"},
		{ResourceCPU, "Mi", "no number"},
		{ResourceCPU, "+", "no number"},
		{ResourceCPU, "++1", "no number"},
		{ResourceCPU, "+-1", "no number"},
		{ResourceCPU, ".", "no number"},
		{ResourceCPU, "1..2", "no number"},
		{ResourceCPU, "1.2.3", "no number"},
		{ResourceCPU, "1x", "suffix"},
		{ResourceCPU, "1K", "suffix"}, // Kubernetes spells kilo "k"
		{ResourceCPU, "1ki", "suffix"},
		{ResourceCPU, "1e", "suffix"},
		{ResourceCPU, "1 Gi", "suffix"},
		{ResourceCPU, "1Gi5", "suffix"},
		{ResourceCPU, "1e999", "out of range"},
		{ResourceCPU, "1e-999", "out of range"},
		{ResourceCPU, "1e31", "out of range"},
		{ResourceCPU, "1e1000", "exponent"},
		{ResourceCPU, "1e1.5", "exponent"},
		{ResourceCPU, "1ee3", "exponent"},
		{ResourceCPU, "1e-", "exponent"},
		{ResourceCPU, "1e+", "exponent"},
		{ResourceCPU, "10Ei", "too large"}, // fits bytes, not millicores
		{ResourceCPU, "9223372036854775807", "too large"},
		{ResourceMemory, "8Ei", "too large"}, // 2^63
		{ResourceMemory, "9223372036854775808", "too large"},
		{ResourceMemory, "1e30", "too large"},
	}
	for _, tt := range tests {
		t.Run(string(tt.name)+"/"+tt.text, func(t *testing.T) {
			got, err := ParseResourceQuantity(tt.name, tt.text)
			require.ErrorIs(t, err, ErrQuantity)
			assert.Zero(t, got)
			assert.Contains(t, err.Error(), strconv.Quote(tt.text), "the error quotes the text")
			assert.Contains(t, err.Error(), tt.why)
		})
	}
}

func TestParseQuantityScale(t *testing.T) {
	got, err := ParseQuantity("1.5", 10)
	require.NoError(t, err)
	assert.Equal(t, int64(15), got)
	for _, scale := range []int64{0, -1000} {
		_, err := ParseQuantity("1", scale)
		require.ErrorIs(t, err, ErrQuantity)
		assert.Contains(t, err.Error(), "scale")
	}
}

func TestFormatQuantity(t *testing.T) {
	tests := []struct {
		name ResourceName
		v    int64
		want string
	}{
		{ResourceCPU, 500, "500m"},
		{ResourceCPU, 1500, "1500m"},
		{ResourceCPU, 2000, "2"},
		{ResourceCPU, 0, "0"},
		{ResourceMemory, gi, "1Gi"},
		{ResourceMemory, 1536 * mi, "1536Mi"},
		{ResourceMemory, 100 * ki, "100Ki"},
		{ResourceMemory, 3 << 60, "3Ei"},
		{ResourceMemory, 1 << 50, "1Pi"},
		{ResourceMemory, 1 << 40, "1Ti"},
		{ResourceMemory, 1000, "1000"},
		{ResourceMemory, 1, "1"},
		{ResourceMemory, 0, "0"},
		{ResourcePods, 110, "110"},
		{gpuName, 2, "2"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, FormatQuantity(tt.name, tt.v))
		})
	}
}

func TestFormatQuantityRoundTrips(t *testing.T) {
	values := []int64{0, 1, 7, 999, 1000, 1001, 1023, 1024, 1536 * mi, 5 * gi, 1 << 62, 7 << 60, math.MaxInt64}
	for _, name := range []ResourceName{ResourceCPU, ResourceMemory, ResourcePods, gpuName} {
		for _, v := range values {
			text := FormatQuantity(name, v)
			got, err := ParseResourceQuantity(name, text)
			require.NoError(t, err, "%s %d formatted as %q", name, v, text)
			assert.Equal(t, v, got, "%s formatted as %q", name, text)
		}
	}
}

func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{"500m", "1.5", "2Gi", "1e3", "1E", "0.0001", "+.5", "1..2", "-1", "10Ei", "1e-30", "99999999999999999999n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		bytes, errBytes := ParseQuantity(text, 1)
		milli, errMilli := ParseQuantity(text, 1000)
		for _, err := range []error{errBytes, errMilli} {
			if err != nil {
				require.ErrorIs(t, err, ErrQuantity)
				require.Contains(t, err.Error(), strconv.Quote(text))
			}
		}
		if errBytes == nil {
			require.GreaterOrEqual(t, bytes, int64(0))
			text := FormatQuantity(ResourceMemory, bytes)
			back, err := ParseResourceQuantity(ResourceMemory, text)
			require.NoError(t, err, "reparse %q", text)
			require.Equal(t, bytes, back, "reparse %q", text)
		}
		if errMilli == nil {
			require.GreaterOrEqual(t, milli, int64(0))
			text := FormatQuantity(ResourceCPU, milli)
			back, err := ParseResourceQuantity(ResourceCPU, text)
			require.NoError(t, err, "reparse %q", text)
			require.Equal(t, milli, back, "reparse %q", text)
		}
		if errBytes == nil && errMilli == nil {
			// ceil(1000x) lies in (1000*(ceil(x)-1), 1000*ceil(x)], so
			// ceil(x) == ceil(ceil(1000x)/1000).
			want := milli / 1000
			if milli%1000 != 0 {
				want++
			}
			require.Equal(t, want, bytes)
		}
		if errMilli == nil {
			// Whatever fits in millicores fits in whole units.
			require.NoError(t, errBytes)
		}
		if plainInteger.MatchString(text) && len(text) <= maxQuantityLength {
			// an oracle of its own: digits alone are the integer they spell
			want, err := strconv.ParseInt(text, 10, 64)
			if err == nil {
				require.NoError(t, errBytes)
				require.Equal(t, want, bytes)
			} else {
				require.Error(t, errBytes, "%q is beyond int64", text)
			}
		}
	})
}

var plainInteger = regexp.MustCompile(`^[0-9]+$`)

// The whole-number path agrees with exact rational arithmetic on random
// whole numbers of up to 20 digits with every suffix, including those that
// overflow.
func TestWholeQuantityAgreesWithRationals(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	suffixes := []string{"", "m", "n", "u", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
	for range 200_000 {
		digits := make([]byte, 1+rng.IntN(20))
		for i := range digits {
			digits[i] = byte('0' + rng.IntN(10))
		}
		num, suffix := string(digits), suffixes[rng.IntN(len(suffixes))]
		scale := []int64{1, 1000, 1 << 20}[rng.IntN(3)]
		want, ok := new(big.Rat).SetString(num)
		require.True(t, ok)
		mult, err := suffixMultiplier(suffix, maxExponent)
		require.NoError(t, err)
		want.Mul(want, mult).Mul(want, new(big.Rat).SetInt64(scale))
		q, r := new(big.Int).QuoRem(want.Num(), want.Denom(), new(big.Int))
		if r.Sign() > 0 {
			q.Add(q, big.NewInt(1))
		}
		got, err := ParseQuantity(num+suffix, scale)
		if !q.IsInt64() {
			require.Error(t, err, "%s%s scale %d", num, suffix, scale)
			continue
		}
		require.NoError(t, err, "%s%s scale %d", num, suffix, scale)
		require.Equal(t, q.Int64(), got, "%s%s scale %d", num, suffix, scale)
		if fast, ok := wholeQuantity(num, suffix, scale); ok {
			require.Equal(t, q.Int64(), fast)
		}
	}
}
