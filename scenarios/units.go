package scenarios

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"epsim/sim"
)

// maxUnitInput bounds the length of a unit string; longer inputs are rejected before parsing.
const maxUnitInput = 64

// ParseDuration parses a non-negative Go duration: "30s", "2h", "1m30s", "500ms", "0".
// Negative durations are rejected: nothing in a scenario runs backwards.
func ParseDuration(s string) (time.Duration, error) {
	if len(s) > maxUnitInput {
		return 0, fmt.Errorf("duration %.20q… too long", s)
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		if durationSyntax.MatchString(strings.TrimSpace(s)) {
			// Well formed, but past what a duration holds (about 292 years).
			return 0, fmt.Errorf("duration %q is too large (at most %s)", s, time.Duration(math.MaxInt64))
		}
		return 0, fmt.Errorf("invalid duration %q (a duration like 30s, 1m30s, 500ms, 2h)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("negative duration %q (must be >= 0)", s)
	}
	return d, nil
}

// durationSyntax is what time.ParseDuration accepts, whatever the magnitude.
var durationSyntax = regexp.MustCompile(`^[-+]?([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+$`)

// byteUnits maps a size suffix to its multiplier: SI prefixes are powers of 1000, IEC
// prefixes (Ki, Mi, …) powers of 1024; the trailing "B" is optional.
var byteUnits = map[string]int64{
	"": 1, "B": 1,
	"k": 1e3, "K": 1e3, "kB": 1e3, "KB": 1e3,
	"M": 1e6, "MB": 1e6,
	"G": 1e9, "GB": 1e9,
	"T": 1e12, "TB": 1e12,
	"P": 1e15, "PB": 1e15,
	"E": 1e18, "EB": 1e18,
	"Ki": 1 << 10, "KiB": 1 << 10,
	"Mi": 1 << 20, "MiB": 1 << 20,
	"Gi": 1 << 30, "GiB": 1 << 30,
	"Ti": 1 << 40, "TiB": 1 << 40,
	"Pi": 1 << 50, "PiB": 1 << 50,
	"Ei": 1 << 60, "EiB": 1 << 60,
}

// splitNumber splits "1.5MiB" into "1.5" and "MiB". The number is plain decimal: digits
// with at most one point, no sign, no exponent (so "inf", "1e9" and "-1" never parse).
func splitNumber(s string) (num, unit string, ok bool) {
	i, dots, digits := 0, 0, 0
	for ; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			dots++
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		digits++
	}
	if digits == 0 || dots > 1 {
		return "", "", false
	}
	return s[:i], strings.TrimSpace(s[i:]), true
}

// ParseBytes parses a byte size: a plain integer ("1572864"), or a decimal number with an SI
// ("10KB" = 10,000, "2TB") or IEC ("1.5MiB" = 1,572,864, "4Ki") unit. The result must be a
// whole number of bytes that fits in an int64.
func ParseBytes(s string) (int64, error) {
	if len(s) > maxUnitInput {
		return 0, fmt.Errorf("byte size %.20q… too long", s)
	}
	num, unit, ok := splitNumber(strings.TrimSpace(s))
	if !ok {
		return 0, fmt.Errorf("invalid byte size %q (a number with an optional unit: 1572864, 10KB, 1.5MiB, 2TB)", s)
	}
	mult, ok := byteUnits[unit]
	if !ok {
		return 0, fmt.Errorf("invalid byte size %q: unknown unit %q (B, KB, MB, GB, TB, PB, EB, KiB, MiB, GiB, TiB, PiB, EiB)", s, unit)
	}
	// Exact arithmetic: mantissa × mult / 10^decimals must be a whole number.
	intPart, frac, _ := strings.Cut(num, ".")
	mant, ok := new(big.Int).SetString(intPart+frac, 10)
	if !ok {
		return 0, fmt.Errorf("invalid byte size %q", s)
	}
	mant.Mul(mant, big.NewInt(mult))
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
	q, r := new(big.Int).QuoRem(mant, den, new(big.Int))
	if r.Sign() != 0 {
		return 0, fmt.Errorf("byte size %q is not a whole number of bytes", s)
	}
	if !q.IsInt64() {
		return 0, fmt.Errorf("byte size %q too large (at most %d bytes)", s, int64(math.MaxInt64))
	}
	return q.Int64(), nil
}

// bandwidthPrefixes maps a rate prefix to its multiplier (SI powers of 1000, IEC of 1024).
var bandwidthPrefixes = map[string]float64{
	"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
	"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40,
}

// maxBitsPerSec bounds a bandwidth at 1 Pbit/s, far above any NIC.
const maxBitsPerSec = 1e15

// ParseBandwidth parses a network rate and returns it in bits per second. Bit rates end in
// "bit", "bit/s" or "bps" ("10Gbit", "1Gbps", "500Mbit/s"); byte rates end in "B/s" and are
// multiplied by 8 ("100MB/s" = 800,000,000 bit/s, "1MiB/s" = 8,388,608 bit/s). Prefixes are
// SI (k, M, G, T) or IEC (Ki, Mi, Gi, Ti). "0" and "unlimited" mean no limit and return 0.
func ParseBandwidth(s string) (bitsPerSec float64, err error) {
	if len(s) > maxUnitInput {
		return 0, fmt.Errorf("bandwidth %.20q… too long", s)
	}
	t := strings.TrimSpace(s)
	if t == "unlimited" || t == "0" {
		return 0, nil
	}
	bad := fmt.Errorf("invalid bandwidth %q (a rate like 10Gbit, 1Gbps, 500Mbit/s, 100MB/s; or 0 / unlimited)", s)
	num, unit, ok := splitNumber(t)
	if !ok || unit == "" {
		return 0, bad
	}
	var perUnit float64
	var prefix string
	switch {
	case strings.HasSuffix(unit, "bit/s"):
		prefix, perUnit = strings.TrimSuffix(unit, "bit/s"), 1
	case strings.HasSuffix(unit, "bit"):
		prefix, perUnit = strings.TrimSuffix(unit, "bit"), 1
	case strings.HasSuffix(unit, "bps"):
		prefix, perUnit = strings.TrimSuffix(unit, "bps"), 1
	case strings.HasSuffix(unit, "B/s"):
		prefix, perUnit = strings.TrimSuffix(unit, "B/s"), 8
	default:
		return 0, bad
	}
	mult, ok := bandwidthPrefixes[prefix]
	if !ok {
		return 0, bad
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, bad
	}
	bits := v * mult * perUnit
	if bits > maxBitsPerSec || math.IsNaN(bits) {
		return 0, fmt.Errorf("bandwidth %q too large (at most 1Pbit/s)", s)
	}
	return bits, nil
}

// ParsePercent parses a percentage such as "25%" or "12.5%" and returns the number before
// the sign (25 for "25%"). It must lie in 0..100.
func ParsePercent(s string) (float64, error) {
	if len(s) > maxUnitInput {
		return 0, fmt.Errorf("percentage %.20q… too long", s)
	}
	t := strings.TrimSpace(s)
	num, ok := strings.CutSuffix(t, "%")
	if !ok {
		return 0, fmt.Errorf("invalid percentage %q (a number followed by %%, like 25%%)", s)
	}
	n, unit, ok := splitNumber(num)
	if !ok || unit != "" {
		return 0, fmt.Errorf("invalid percentage %q (a number followed by %%, like 25%%)", s)
	}
	v, err := strconv.ParseFloat(n, 64)
	if err != nil || v > 100 {
		return 0, fmt.Errorf("percentage %q out of range (0%%..100%%)", s)
	}
	return v, nil
}

// maxIntOrPercent is the largest absolute value an IntOrString holds (an int32 upstream).
const maxIntOrPercent = math.MaxInt32

// ParseIntOrPercent parses a Deployment maxSurge/maxUnavailable value: a non-negative integer
// ("3") or an integer percentage ("25%"). As upstream, a percentage must be a whole number
// (upstream: apimachinery util/intstr GetScaledValueFromIntOrPercent parses it with Atoi).
func ParseIntOrPercent(s string) (sim.IntOrPercent, error) {
	if len(s) > maxUnitInput {
		return sim.IntOrPercent{}, fmt.Errorf("value %.20q… too long", s)
	}
	t := strings.TrimSpace(s)
	num, isPct := strings.CutSuffix(t, "%")
	if num == "" || strings.TrimLeft(num, "0123456789") != "" {
		return sim.IntOrPercent{}, fmt.Errorf("invalid value %q (a non-negative integer like 3, or an integer percentage like 25%%)", s)
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v > maxIntOrPercent {
		return sim.IntOrPercent{}, fmt.Errorf("value %q too large (at most %d)", s, maxIntOrPercent)
	}
	return sim.IntOrPercent{Value: int(v), IsPercent: isPct}, nil
}

// FormatIntOrPercent prints v the way ParseIntOrPercent reads it.
func FormatIntOrPercent(v sim.IntOrPercent) string {
	if v.IsPercent {
		return strconv.Itoa(v.Value) + "%"
	}
	return strconv.Itoa(v.Value)
}

// ParseDistribution parses a delay distribution written as YAML, the same syntax a scenario
// file uses: a bare duration ("5s", a fixed delay), "fixed: 5s",
// "uniform: {min: 1s, max: 3s}", "lognormal: {median: 8s, p99: 40s}" or
// "exponential: {mean: 2s}".
func ParseDistribution(s string) (sim.Distribution, error) {
	if len(s) > 4*maxUnitInput {
		return sim.Distribution{}, errors.New("distribution too long")
	}
	root, err := parseYAML([]byte(s))
	if err != nil {
		return sim.Distribution{}, fmt.Errorf("invalid distribution %q: %v", s, err)
	}
	if root == nil {
		return sim.Distribution{}, fmt.Errorf("invalid distribution %q: empty", s)
	}
	d := newDecoder("")
	dist, ok := d.distribution(root, "distribution")
	if !ok || len(d.errs) > 0 {
		msgs := make([]string, len(d.errs))
		for i, e := range d.errs {
			msgs[i] = e.Msg
		}
		return sim.Distribution{}, fmt.Errorf("invalid distribution %q: %s", s, strings.Join(msgs, "; "))
	}
	return dist, nil
}

// FormatDistribution prints d in the syntax ParseDistribution reads.
func FormatDistribution(d sim.Distribution) string {
	switch d.Kind {
	case sim.DistUniform:
		return fmt.Sprintf("uniform: {min: %s, max: %s}", d.Min, d.Max)
	case sim.DistLognormal:
		return fmt.Sprintf("lognormal: {median: %s, p99: %s}", d.Median, d.P99)
	case sim.DistExponential:
		return fmt.Sprintf("exponential: {mean: %s}", d.Mean)
	default:
		return fmt.Sprintf("fixed: %s", d.Value)
	}
}
