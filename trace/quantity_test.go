package trace

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

// checkQuantity decodes raw (a JSON value) with upstream's Quantity and with quantity: both
// must refuse it or both take it, with the same MilliValue.
func checkQuantity(t *testing.T, raw string) {
	t.Helper()
	var want resource.Quantity
	wantErr := json.Unmarshal([]byte(raw), &want)
	var got quantity
	gotErr := json.Unmarshal([]byte(raw), &got)
	switch {
	case (wantErr == nil) != (gotErr == nil):
		t.Fatalf("%s: upstream error %v, ours %v", raw, wantErr, gotErr)
	case wantErr != nil:
		if wantErr.Error() != gotErr.Error() {
			t.Fatalf("%s: upstream error %q, ours %q", raw, wantErr, gotErr)
		}
	case got.milli != want.MilliValue():
		t.Fatalf("%s: MilliValue %d, upstream %d", raw, got.milli, want.MilliValue())
	}
}

func TestQuantityMatchesUpstream(t *testing.T) {
	for _, s := range []string{
		// What nodes report.
		`"3920m"`, `"4"`, `"7910m"`, `"96"`, `"15890m"`, `"1.5"`, `"0.5"`, `"2k"`, `"1e3"`, `"1E3"`,
		// Rounding up, at the nanounit and at the milliunit.
		`"1n"`, `"1u"`, `"0.0001"`, `"1.0001"`, `"999999n"`, `"1000001n"`, `"-1.0001"`, `"-1n"`, `"-0.5m"`,
		// Binary suffixes, fractions of them, and the cap at the largest int64.
		`"1Ki"`, `"1.5Ki"`, `"0.5Mi"`, `"8Ei"`, `"16Ei"`, `"9223372036854775807Ki"`, `".Ki"`, `"1.Ki"`,
		// Many digits (the arbitrary-precision path) and overflow.
		`"123456789012345678901234567890"`, `"12345678901234567.8901"`, `"9223372036854775807"`, `"9223372036854775807000m"`,
		`"-9223372036854775808"`, `"1e20"`, `"1e-20"`, `"1e-3"`, `"1e-4"`, `"5e-10"`, `"0.000000000000000000001"`,
		// Odd but accepted forms, and refused ones.
		`"0"`, `"00"`, `"+1"`, `"-0"`, `"."`, `"1."`, `".5"`, `" 4 "`, `4`, `4.5`, `-2`, `null`, `"1.5.5"`, `""`, `"abc"`, `"1x"`,
		`"1Zi"`, `"1e"`, `"1e+"`, `"1e-"`, `"1E+3"`, `"1ee3"`, `"1mm"`, `"1e3.5"`, `"1 m"`, `true`, `"\u0034"`, `"+"`, `"-"`, `"1e99999999999"`,
	} {
		checkQuantity(t, s)
	}
}

func FuzzQuantity(f *testing.F) {
	for _, s := range []string{"3920m", "1.5Ki", "1e-4", ".Ki", "123456789012345678901234567890", "-1n", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "eE") && len(s) > 12 {
			return // huge exponents take both parsers unbounded time
		}
		b, err := json.Marshal(s)
		if err != nil {
			return
		}
		checkQuantity(t, string(b))
	})
}
