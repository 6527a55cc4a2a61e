package reports

import (
	"fmt"
	"math"
	"time"
)

// Byte units are SI (decimal): 1 KB = 1000 B, 1 MB = 1000 KB, and so on. Decimal units match
// how network bandwidth is quoted and how the published Endpoints figures ("1.5MB × 5,000
// nodes = 7.5GB") were computed.
var siByteUnits = []string{"B", "KB", "MB", "GB", "TB", "PB", "EB"}

// FormatBytes formats n bytes in SI units with one decimal place ("512 B", "76.0 MB",
// "5.8 GB"). Negative values keep their sign.
func FormatBytes(n int64) string {
	if n < 0 {
		return "-" + FormatBytes(-n)
	}
	if n < 1000 {
		return fmt.Sprintf("%d B", n)
	}
	v := float64(n)
	unit := 0
	for v >= 999.95 && unit < len(siByteUnits)-1 {
		v /= 1000
		unit++
	}
	return fmt.Sprintf("%.1f %s", v, siByteUnits[unit])
}

// FormatRate formats a byte rate in SI units per second ("1.2 GB/s").
func FormatRate(bytesPerSec int64) string { return FormatBytes(bytesPerSec) + "/s" }

// FormatRatio formats a ratio with fixed precision: whole numbers from 10 up ("77×"), one
// decimal place from 1 ("7.7×"), two below 1 ("0.06×"), and "<0.01×" below that, which two
// decimals would show as nothing ("0.00×"); nothing at all is "0×". ok=false (no
// denominator) gives "-".
func FormatRatio(r float64, ok bool) string {
	if !ok || math.IsNaN(r) || math.IsInf(r, 0) {
		return "-"
	}
	switch {
	case r == 0:
		return "0×"
	case r < 0.005:
		return "<0.01×"
	case r >= 10:
		return fmt.Sprintf("%.0f×", r)
	case r >= 1:
		return fmt.Sprintf("%.1f×", r)
	}
	return fmt.Sprintf("%.2f×", r)
}

// FormatSeconds formats seconds as a Go duration rounded to the millisecond ("1.234s").
func FormatSeconds(s float64) string { return secondsDuration(s).Round(time.Millisecond).String() }

// secondsDuration converts seconds to a time.Duration, saturating instead of overflowing.
func secondsDuration(s float64) time.Duration {
	ns := math.Round(s * 1e9)
	switch {
	case math.IsNaN(ns):
		return 0
	case ns >= math.MaxInt64:
		return math.MaxInt64
	case ns <= math.MinInt64:
		return math.MinInt64
	}
	return time.Duration(ns)
}

// ratio returns num/den and whether it is defined (den != 0).
func ratio(num, den int64) (float64, bool) {
	if den == 0 {
		return 0, false
	}
	return float64(num) / float64(den), true
}
