package reports

import (
	"strconv"

	"epsim/sim"
)

// The write log formats two times a line, as a duration string and in seconds: a day of a
// 5,000-node cluster writes millions of lines, and time.Duration.String allocated the string
// it returns (two a line), and the shortest-float search of strconv for the seconds was a
// fifth of the line's cost. The helpers below append the same bytes without either.

// appendDuration appends t as time.Duration(t).String() writes it: "0s"; below a second in
// the largest of ns, µs and ms that keeps the integer part non-zero, with up to 3 or 6
// fraction digits; from a second on as [hours "h"][minutes "m"]seconds "s", hours and minutes
// shown from an hour and a minute on (with a 0 minute between: "1h0m5s"), seconds with up to 9
// fraction digits. Trailing fraction zeros and a bare point are left out.
func appendDuration(b []byte, t sim.Time) []byte {
	u := uint64(t)
	if t < 0 {
		b = append(b, '-')
		u = -u // two's complement: right for the most negative value too
	}
	switch {
	case u == 0:
		return append(b, "0s"...)
	case u < 1e3:
		return append(strconv.AppendUint(b, u, 10), "ns"...)
	case u < 1e6:
		return append(appendFixed(b, u, 3), "µs"...)
	case u < 1e9:
		return append(appendFixed(b, u, 6), "ms"...)
	}
	secs, frac := u/1e9, u%1e9
	if h := secs / 3600; h > 0 {
		b = append(strconv.AppendUint(b, h, 10), 'h')
	}
	if secs >= 60 {
		b = append(strconv.AppendUint(b, secs/60%60, 10), 'm')
	}
	return append(appendFixed(b, secs%60*1e9+frac, 9), 's')
}

// appendFixed appends v / 10^digits in decimal: the integer part, then a point and the
// fraction's digits without its trailing zeros, when it has any (digits ≤ 9).
func appendFixed(b []byte, v uint64, digits int) []byte {
	scale := uint64(1)
	for range digits {
		scale *= 10
	}
	b = strconv.AppendUint(b, v/scale, 10)
	frac := v % scale
	if frac == 0 {
		return b
	}
	for frac%10 == 0 {
		frac /= 10
		digits--
	}
	b = append(b, '.')
	var buf [9]byte
	for i := digits - 1; i >= 0; i-- {
		buf[i] = byte('0' + frac%10)
		frac /= 10
	}
	return append(b, buf[:digits]...)
}

// secondsFastMin and secondsFastMax bound the times (in ns, by absolute value) whose
// seconds appendJSONSeconds writes from the integer: from 1 µs (below it encoding/json
// switches to an exponent) to under 10^15 ns (11.6 days), where the decimal of t / 10^9 has
// at most 15 significant digits.
const (
	secondsFastMin = 1e3
	secondsFastMax = 1e15
)

// appendJSONSeconds appends t.Seconds() as appendJSONFloat does (encoding/json's float64).
// In [secondsFastMin, secondsFastMax) it writes the exact decimal of t / 10^9 instead of
// searching for the shortest one, which is the same string: the float64 division rounds
// that decimal correctly, and two decimals of at most 15 significant digits are farther
// apart than a float64's precision, so no shorter decimal rounds to the same float. Other
// times go through appendJSONFloat.
func appendJSONSeconds(b []byte, t sim.Time) []byte {
	u := uint64(t)
	if t < 0 {
		u = -u
	}
	if u < secondsFastMin || u >= secondsFastMax {
		return appendJSONFloat(b, t.Seconds())
	}
	if t < 0 {
		b = append(b, '-')
	}
	return appendFixed(b, u, 9)
}
