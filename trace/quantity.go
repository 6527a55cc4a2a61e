package trace

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// A Node's allocatable CPU is a resource.Quantity ("3920m", "4", "1.5", "2k"). The functions
// here decode one as upstream's Quantity.UnmarshalJSON does and take its MilliValue, so that
// a node's CPU, which topology hints weigh zones by, is what the real types give, including
// their rounding (up, to the nanounit and then to the milliunit) and the strings they
// refuse. Upstream: k8s.io/apimachinery pkg/api/resource quantity.go (ParseQuantity,
// parseQuantityString, UnmarshalJSON, ScaledValue), amount.go, math.go, suffix.go; the
// large-value path follows gopkg.in/inf.v0 (Dec.SetString, Round with RoundUp).

// Errors of ParseQuantity, with upstream's texts.
var (
	errQuantityFormat  = errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	errQuantityNumeric = errors.New("unable to parse numeric part of quantity")
	errQuantitySuffix  = errors.New("unable to parse quantity's suffix")
)

// quantity is a decoded resource.Quantity, reduced to its MilliValue.
type quantity struct {
	milli int64
}

// UnmarshalJSON decodes a quantity as upstream does: null is zero; the quotes of a string
// are stripped without unescaping it, and so are none of a bare number's.
func (q *quantity) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*q = quantity{}
		return nil
	}
	if l := len(b); l >= 2 && b[0] == '"' && b[l-1] == '"' {
		b = b[1 : l-1]
	}
	milli, err := parseMilliValue(strings.TrimSpace(string(b)))
	if err != nil {
		return err
	}
	q.milli = milli
	return nil
}

// quantityFormat is how a quantity's suffix reads: decimal SI (k, M, m, …), binary SI (Ki,
// Mi, …) or a decimal exponent (e3).
type quantityFormat uint8

const (
	decimalSI quantityFormat = iota
	binarySI
	decimalExponent
)

// parseMilliValue parses s as resource.ParseQuantity and returns the quantity's
// MilliValue.
func parseMilliValue(s string) (int64, error) {
	if s == "" {
		return 0, errQuantityFormat
	}
	if s == "0" {
		return 0, nil
	}
	positive, value, num, denom, suffix, err := splitQuantity(s)
	if err != nil {
		return 0, err
	}
	base, exponent, format, ok := quantitySuffix(suffix)
	if !ok {
		return 0, errQuantitySuffix
	}

	// The int64 path: the value as an integer times 10^scale, when it fits.
	precision, scale, mantissa := int32(0), int32(0), int64(1)
	switch format {
	case decimalExponent, decimalSI:
		scale = exponent
		precision = 18 - int32(len(num)+len(denom))
	case binarySI:
		if exponent >= 0 && len(denom) == 0 {
			mantissa <<= uint64(exponent)
			precision = 15 - int32(len(num)) - int32(float32(exponent)*3/10) - 1
		} else {
			precision = -1
		}
	}
	if precision >= 0 {
		scale -= int32(len(denom))
		if scale >= -9 {
			v, err := strconv.ParseInt(num+denom, 10, 64)
			if err != nil {
				return 0, errQuantityNumeric
			}
			if result, ok := multiplyInt64(v, mantissa); ok {
				if !positive {
					result = -result
				}
				return scaledMilli(result, scale), nil
			}
		}
	}

	// The arbitrary-precision path.
	unscaled, decScale, ok := parseDecimal(value)
	if !ok {
		return 0, errQuantityNumeric
	}
	if base == 10 {
		decScale -= int64(exponent)
	} else {
		unscaled.Lsh(unscaled, uint(exponent))
	}
	negative := unscaled.Sign() < 0
	unscaled.Abs(unscaled)
	// Non-zero values round up to the nanounit.
	if unscaled.Sign() != 0 {
		unscaled, decScale = roundUpToScale(unscaled, decScale, 9), 9
	}
	// Binary quantities are capped at the largest int64.
	if format == binarySI && compareDecimal(unscaled, decScale, big.NewInt(math.MaxInt64), 0) > 0 {
		unscaled, decScale = big.NewInt(math.MaxInt64), 0
	}
	if negative {
		unscaled.Neg(unscaled)
	}
	return scaledBigMilli(unscaled, decScale), nil
}

// splitQuantity splits s into its sign, numeric part (value, with the sign), the integer
// digits without leading zeros (num), the fraction digits (denom) and the suffix, as
// upstream's parseQuantityString.
func splitQuantity(s string) (positive bool, value, num, denom, suffix string, err error) {
	positive = true
	pos, end := 0, len(s)
	if pos < end {
		switch s[0] {
		case '-':
			positive = false
			pos++
		case '+':
			pos++
		}
	}
	for ; ; pos++ { // leading zeros
		if pos >= end {
			return positive, "0", "0", "", "", nil
		}
		if s[pos] != '0' {
			break
		}
	}
	i := pos
	for ; i < end && isDigit(s[i]); i++ {
	}
	if i >= end {
		return positive, s, s[pos:], "", "", nil
	}
	num, pos = s[pos:i], i
	if num == "" {
		num = "0"
	}
	if pos < end && s[pos] == '.' {
		pos++
		i = pos
		for ; i < end && isDigit(s[i]); i++ {
		}
		if i >= end {
			return positive, s, num, s[pos:], "", nil
		}
		denom, pos = s[pos:i], i
	}
	value = s[:pos]

	start := pos
	for i = pos; ; i++ {
		if i >= end {
			return positive, value, num, denom, s[start:], nil
		}
		if !strings.ContainsAny(s[i:i+1], "eEinumkKMGTP") {
			pos = i
			break
		}
	}
	if s[pos] == '-' || s[pos] == '+' {
		pos++
	}
	for i = pos; ; i++ {
		if i >= end {
			return positive, value, num, denom, s[start:], nil
		}
		if !isDigit(s[i]) {
			// A character that is neither a suffix letter nor an exponent's digit.
			return positive, value, num, denom, "", errQuantityFormat
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// quantitySuffix interprets a suffix: its base, exponent and format.
func quantitySuffix(s string) (base, exponent int32, format quantityFormat, ok bool) {
	switch s {
	case "":
		return 10, 0, decimalSI, true
	case "n":
		return 10, -9, decimalSI, true
	case "u":
		return 10, -6, decimalSI, true
	case "m":
		return 10, -3, decimalSI, true
	case "k":
		return 10, 3, decimalSI, true
	case "M":
		return 10, 6, decimalSI, true
	case "G":
		return 10, 9, decimalSI, true
	case "T":
		return 10, 12, decimalSI, true
	case "P":
		return 10, 15, decimalSI, true
	case "E":
		return 10, 18, decimalSI, true
	case "Ki":
		return 2, 10, binarySI, true
	case "Mi":
		return 2, 20, binarySI, true
	case "Gi":
		return 2, 30, binarySI, true
	case "Ti":
		return 2, 40, binarySI, true
	case "Pi":
		return 2, 50, binarySI, true
	case "Ei":
		return 2, 60, binarySI, true
	}
	if len(s) > 1 && (s[0] == 'E' || s[0] == 'e') {
		e, err := strconv.ParseInt(s[1:], 10, 64)
		if err != nil {
			return 0, 0, decimalExponent, false
		}
		return 10, int32(e), decimalExponent, true
	}
	return 0, 0, decimalExponent, false
}

// multiplyInt64 is a*b and whether it did not overflow (upstream int64Multiply).
func multiplyInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 || a == 1 || b == 1 {
		return a * b, true
	}
	if a == math.MinInt64 || b == math.MinInt64 {
		return 0, false
	}
	c := a * b
	return c, c/b == a
}

// scaledMilli is the MilliValue of value × 10^scale (upstream int64Amount.AsScaledInt64):
// rounded away from zero when that drops digits; where it overflows, the wrapped product
// when upstream multiplies once (by 10, 100, 1000, 10^6 or 10^9) and 0 when it multiplies
// by 10 step by step.
func scaledMilli(value int64, scale int32) int64 {
	if scale < -3 {
		v, fraction := value, false
		for range -3 - scale {
			if v%10 != 0 {
				fraction = true
			}
			v /= 10
			if v == 0 {
				break
			}
		}
		switch {
		case v == 0 && !fraction:
			return 0
		case v == 0 && value > 0:
			return 1
		case v == 0:
			return -1
		case fraction && value > 0:
			return v + 1
		case fraction:
			return v - 1
		}
		return v
	}
	if value == 0 {
		return 0 // upstream multiplies 0 by 10 scale+3 times
	}
	switch k := scale + 3; k {
	case 0:
		return value
	case 1, 2, 3, 6, 9:
		// One multiplication, whose product upstream returns even when it overflowed (but
		// for the smallest int64, which it refuses).
		if value == math.MinInt64 {
			return 0
		}
		return value * pow10Int64[k]
	default:
		v := value
		for range k {
			var ok bool
			if v, ok = multiplyInt64(v, 10); !ok {
				return 0
			}
		}
		return v
	}
}

// pow10Int64 are the powers of ten scaledMilli multiplies by at once.
var pow10Int64 = [10]int64{1, 10, 100, 1000, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

// parseDecimal parses a decimal number (an optional sign, digits and at most one point) as
// an unscaled integer and a scale, value = unscaled × 10^-scale (inf.Dec.SetString).
func parseDecimal(s string) (*big.Int, int64, bool) {
	digits := make([]byte, 0, len(s))
	point, sawDigit := -1, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '+' || c == '-':
			if len(digits) > 0 || point >= 0 {
				return nil, 0, false
			}
		case c == '.':
			if point >= 0 {
				return nil, 0, false
			}
			point = len(digits)
			continue
		case isDigit(c):
			sawDigit = true
		default:
			return nil, 0, false
		}
		digits = append(digits, c)
	}
	if !sawDigit {
		return nil, 0, false
	}
	var scale int64
	if point >= 0 {
		scale = int64(len(digits) - point)
	}
	v, ok := new(big.Int).SetString(string(digits), 10)
	return v, scale, ok
}

// pow10 is 10^n as a big.Int.
func pow10(n int64) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(n), nil) }

// roundUpToScale is the unscaled value of x × 10^-scale (x ≥ 0) at scale to, rounded up.
func roundUpToScale(x *big.Int, scale, to int64) *big.Int {
	if to >= scale {
		return new(big.Int).Mul(x, pow10(to-scale))
	}
	q, r := new(big.Int).QuoRem(x, pow10(scale-to), new(big.Int))
	if r.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// compareDecimal compares a × 10^-as with b × 10^-bs.
func compareDecimal(a *big.Int, as int64, b *big.Int, bs int64) int {
	if as < bs {
		a = new(big.Int).Mul(a, pow10(bs-as))
	} else if bs < as {
		b = new(big.Int).Mul(b, pow10(as-bs))
	}
	return a.Cmp(b)
}

// scaledBigMilli is the MilliValue of unscaled × 10^-scale, as upstream's scaledValue:
// rounded up when it drops digits (one above the truncated quotient, whatever the sign),
// and wrapping where the result does not fit an int64.
func scaledBigMilli(unscaled *big.Int, scale int64) int64 {
	dif := scale - 3
	switch {
	case dif == 0:
		return unscaled.Int64()
	case dif < 0:
		return unscaled.Int64() * int64(math.Pow10(int(-dif)))
	}
	if unscaled.Cmp(big.NewInt(math.MaxInt64)) < 0 && dif < 19 {
		divide := int64(math.Pow10(int(dif)))
		v := unscaled.Int64()
		if v%divide != 0 {
			return v/divide + 1
		}
		return v / divide
	}
	q, r := new(big.Int).DivMod(unscaled, pow10(dif), new(big.Int))
	if r.Sign() != 0 {
		return q.Int64() + 1
	}
	return q.Int64()
}
