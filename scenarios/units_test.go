package scenarios

import (
	"math"
	"strings"
	"testing"
	"time"

	"epsim/sim"
)

// Reference: DESIGN.md "Scenarios" (units); etcd docs for 1.5 MiB = 1572864 bytes.
func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  string
	}{
		{"0", 0, ""},
		{"1572864", 1572864, ""},
		{"1.5MiB", 1572864, ""},
		{"1.5Mi", 1572864, ""},
		{"10KB", 10_000, ""},
		{"10kB", 10_000, ""},
		{"10K", 10_000, ""},
		{"4KiB", 4096, ""},
		{"2TB", 2_000_000_000_000, ""},
		{"2TiB", 2 << 40, ""},
		{"5GB", 5e9, ""},
		{"1.5 MB", 1_500_000, ""},
		{"7EiB", 7 << 60, ""},
		{"12B", 12, ""},
		{"0.5KB", 500, ""},
		{"8EiB", 0, "too large"},
		{"1.5B", 0, "not a whole number"},
		{"1.0001KB", 0, "not a whole number"},
		{"-1", 0, "invalid byte size"},
		{"1e9", 0, "unknown unit"},
		{"", 0, "invalid byte size"},
		{".", 0, "invalid byte size"},
		{"1..5MB", 0, "invalid byte size"},
		{"10mb", 0, "unknown unit"},
		{"inf", 0, "invalid byte size"},
		{"10 XB", 0, "unknown unit"},
	} {
		got, err := ParseBytes(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseBytes(%q) = %d, %v; want error containing %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestParseBandwidth(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64 // bits per second
		err  bool
	}{
		{"10Gbit", 10e9, false},
		{"10Gbit/s", 10e9, false},
		{"1Gbps", 1e9, false},
		{"500Mbps", 500e6, false},
		{"1.5Gbit", 1.5e9, false},
		{"100MB/s", 800e6, false},
		{"1MiB/s", 8 * (1 << 20), false},
		{"1Kibit", 1024, false},
		{"64kbit", 64e3, false},
		{"0", 0, false},
		{"unlimited", 0, false},
		{"10", 0, true},
		{"10G", 0, true},
		{"10GB", 0, true},
		{"10Xbit", 0, true},
		{"-1Gbit", 0, true},
		{"2Pbit", 0, true},
		{"", 0, true},
	} {
		got, err := ParseBandwidth(tc.in)
		if (err != nil) != tc.err || (!tc.err && got != tc.want) {
			t.Errorf("ParseBandwidth(%q) = %g, %v; want %g (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"30s", 30 * time.Second, false},
		{"2h", 2 * time.Hour, false},
		{"1m30s", 90 * time.Second, false},
		{"500ms", 500 * time.Millisecond, false},
		{"0", 0, false},
		{"-1s", 0, true},
		{"30", 0, true},
		{"1d", 0, true},
		{"", 0, true},
	} {
		got, err := ParseDuration(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestParsePercent(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		err  bool
	}{
		{"25%", 25, false},
		{"0%", 0, false},
		{"100%", 100, false},
		{"12.5%", 12.5, false},
		{"101%", 0, true},
		{"25", 0, true},
		{"-5%", 0, true},
		{"%", 0, true},
		{"a%", 0, true},
	} {
		got, err := ParsePercent(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParsePercent(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// Reference: apimachinery util/intstr: percentages are whole numbers; IntOrString is int32.
func TestParseIntOrPercent(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want sim.IntOrPercent
		err  bool
	}{
		{"25%", sim.IntOrPercent{Value: 25, IsPercent: true}, false},
		{"3", sim.IntOrPercent{Value: 3}, false},
		{"0", sim.IntOrPercent{}, false},
		{"150%", sim.IntOrPercent{Value: 150, IsPercent: true}, false}, // maxSurge may exceed 100%
		{"2147483647", sim.IntOrPercent{Value: math.MaxInt32}, false},
		{"2147483648", sim.IntOrPercent{}, true},
		{"2.5%", sim.IntOrPercent{}, true},
		{"-1", sim.IntOrPercent{}, true},
		{"%", sim.IntOrPercent{}, true},
		{"x", sim.IntOrPercent{}, true},
	} {
		got, err := ParseIntOrPercent(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseIntOrPercent(%q) = %+v, %v; want %+v (error %v)", tc.in, got, err, tc.want, tc.err)
		}
		if err == nil && FormatIntOrPercent(got) != strings.TrimSpace(tc.in) {
			t.Errorf("FormatIntOrPercent(%+v) = %q, want %q", got, FormatIntOrPercent(got), tc.in)
		}
	}
}

func TestParseDistribution(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want sim.Distribution
		err  string
	}{
		{"5s", sim.Fixed(5 * time.Second), ""},
		{"fixed: 5s", sim.Fixed(5 * time.Second), ""},
		{"uniform: {min: 1s, max: 3s}", sim.Distribution{Kind: sim.DistUniform, Min: time.Second, Max: 3 * time.Second}, ""},
		{"lognormal: {median: 8s, p99: 40s}", sim.Distribution{Kind: sim.DistLognormal, Median: 8 * time.Second, P99: 40 * time.Second}, ""},
		{"exponential: {mean: 2s}", sim.Distribution{Kind: sim.DistExponential, Mean: 2 * time.Second}, ""},
		{"uniform: {min: 3s, max: 1s}", sim.Distribution{}, "need min <= max"},
		{"lognormal: {median: 8s, p99: 4s}", sim.Distribution{}, "need p99 >= median"},
		{"lognormal: {median: 0s, p99: 4s}", sim.Distribution{}, "median must be > 0"},
		{"lognormal: {median: 8s}", sim.Distribution{}, "p99: required field is missing"[5:]},
		{"exponential: {mean: 0s}", sim.Distribution{}, "mean must be > 0"},
		{"normal: {mean: 2s}", sim.Distribution{}, `unknown field "normal"`},
		{"{fixed: 1s, uniform: {min: 1s, max: 2s}}", sim.Distribution{}, "exactly one of"},
		{"5", sim.Distribution{}, "expected a duration with a unit"},
		{"[1s]", sim.Distribution{}, "expected a duration or a mapping"},
		{"", sim.Distribution{}, "empty"},
	} {
		got, err := ParseDistribution(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseDistribution(%q) = %+v, %v; want error containing %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseDistribution(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		if back, err := ParseDistribution(FormatDistribution(got)); err != nil || back != got {
			t.Errorf("round trip of %q via %q = %+v, %v", tc.in, FormatDistribution(got), back, err)
		}
	}
}

// The fuzz targets check the parsers' contract: never panic; an error, or a valid value.

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"1.5MiB", "10KB", "2TB", "1572864", "0.5K", "9EiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseBytes(s)
		if err == nil && v < 0 {
			t.Fatalf("ParseBytes(%q) = %d", s, v)
		}
	})
}

func FuzzParseBandwidth(f *testing.F) {
	for _, s := range []string{"10Gbit", "1Gbps", "100MB/s", "unlimited", "1.5Kibit/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseBandwidth(s)
		if err == nil && (v < 0 || v > maxBitsPerSec || math.IsNaN(v)) {
			t.Fatalf("ParseBandwidth(%q) = %g", s, v)
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"30s", "2h", "1m30s", "500ms", "-1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseDuration(s)
		if err == nil && v < 0 {
			t.Fatalf("ParseDuration(%q) = %v", s, v)
		}
	})
}

func FuzzParsePercent(f *testing.F) {
	for _, s := range []string{"25%", "12.5%", "100%", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParsePercent(s)
		if err == nil && (v < 0 || v > 100 || math.IsNaN(v)) {
			t.Fatalf("ParsePercent(%q) = %v", s, v)
		}
	})
}

func FuzzParseIntOrPercent(f *testing.F) {
	for _, s := range []string{"25%", "3", "0", "2147483648"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseIntOrPercent(s)
		if err == nil && (v.Value < 0 || v.Value > math.MaxInt32) {
			t.Fatalf("ParseIntOrPercent(%q) = %+v", s, v)
		}
	})
}

func FuzzParseDistribution(f *testing.F) {
	for _, s := range []string{"5s", "fixed: 5s", "uniform: {min: 1s, max: 3s}", "lognormal: {median: 8s, p99: 40s}", "exponential: {mean: 2s}", "&a [*a]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseDistribution(s)
		if err != nil {
			return
		}
		ok := false
		switch v.Kind {
		case sim.DistFixed:
			ok = v.Value >= 0
		case sim.DistUniform:
			ok = v.Min >= 0 && v.Min <= v.Max
		case sim.DistLognormal:
			ok = v.Median > 0 && v.P99 >= v.Median
		case sim.DistExponential:
			ok = v.Mean > 0
		}
		if !ok {
			t.Fatalf("ParseDistribution(%q) = %+v: not a valid distribution", s, v)
		}
	})
}
