package scenarios

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// Reference: README "summary.json": budgets address figures by their summary.json names,
// nested fields joined with dots; the first loader's short names stay accepted.
func TestExpectFigureNames(t *testing.T) {
	doc := minimal + `expect:
  roll.endpoints.writes.update: {max: 40}
  roll.endpointslices.propagation.p99Seconds: {max: 0.5}
  total.endpoints.creates: {min: 1}
  total.endpointslices.propagation.p90: {max: 2s}
  roll.ratio.writes: {min: 0.5}
  total.endpointslices.failedWrites: {max: 0}
`
	sc, err := Parse("x.yaml", []byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range sc.Expect {
		names = append(names, b.Name())
	}
	want := []string{
		"roll.endpoints.writes.update",
		"roll.endpointslices.propagation.p99Seconds",
		"total.endpoints.writes.create",
		"total.endpointslices.propagation.p90Seconds",
		"roll.ratio.writes",
		"total.endpointslices.failedWrites",
	}
	if !slices.Equal(names, want) {
		t.Errorf("names\n got %q\nwant %q", names, want)
	}
	if q := sc.Expect[1].Max; q.Kind != KindDuration || q.Duration != 500*time.Millisecond || q.Value() != 0.5 {
		t.Errorf("bare seconds: %+v", q)
	}
	if q := sc.Expect[3].Max; q.Kind != KindDuration || q.Value() != 2 {
		t.Errorf("duration: %+v", q)
	}
	if k := sc.Expect[0].Key; k != "roll.endpoints.writes.update" {
		t.Errorf("key %q", k)
	}
}

func TestExpectFigureErrors(t *testing.T) {
	for _, tc := range []struct {
		name, key, want string
	}{
		{"typo", "roll.endpoints.fanoutByte", `unknown figure "fanoutByte" (did you mean "fanoutBytes"?)`},
		{"nested typo", "roll.endpoints.writes.updates", `unknown figure "writes.updates" (did you mean "writes.update"?)`},
		{"ratio of a figure without one", "roll.ratio.syncs", `unknown ratio figure "syncs"`},
		{"empty figure", "roll.endpoints.", `key must be "phase.mode.figure"`},
		{"unknown phase", "rol.endpoints.syncs", `unknown phase "rol" (did you mean "roll"?)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(minimal+"expect:\n  "+tc.key+": {max: 1}\n"), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "x.yaml:13:3: ") {
				t.Errorf("error %v, want x.yaml:13:3: …%s", err, tc.want)
			}
		})
	}
}

func TestClosestNames(t *testing.T) {
	all := FigureNames("endpoints")
	if got := ClosestNames("propagation.p99seconds", all, 3); len(got) == 0 || got[0] != "propagation.p99Seconds" {
		t.Errorf("ClosestNames = %q", got)
	}
	if got := ClosestNames("propagation.p9Seconds", all, 3); !slices.Equal(got, []string{"propagation.p90Seconds", "propagation.p99Seconds"}) {
		t.Errorf("ClosestNames = %q", got)
	}
	if got := ClosestNames("zzzzzzzz", all, 3); len(got) != 0 {
		t.Errorf("ClosestNames far = %q", got)
	}
}

func TestCanonicalFigureKinds(t *testing.T) {
	for name, kind := range ExpectFigures {
		if got, k, ok := CanonicalFigure("endpointslices", name); !ok || got != name || k != kind {
			t.Errorf("CanonicalFigure(%q) = %q %q %v", name, got, k, ok)
		}
	}
	for alias, name := range figureAliases {
		if _, ok := ExpectFigures[name]; !ok {
			t.Errorf("alias %q → %q, not a figure", alias, name)
		}
	}
	if _, _, ok := CanonicalFigure("ratio", "syncs"); ok {
		t.Error("ratio.syncs accepted")
	}
}

// peakEgressBytesPerSec is a rate: its budget takes a rate as the scenario's bandwidths and
// a plan's peakEgress budget do ("10Gbit", "1.25GB/s"), as well as a byte size read per
// second ("1GB") and an integer. "10Gbit" was refused as an unknown byte-size unit.
func TestExpectPeakEgressTakesRates(t *testing.T) {
	for _, tc := range []struct {
		bound string
		want  float64
	}{
		{"10Gbit", 1.25e9},
		{"8Gbps", 1e9},
		{"1.25GB/s", 1.25e9},
		{"1GB", 1e9},
		{"1000000", 1e6},
	} {
		doc := minimal + "expect:\n  roll.endpointslices.peakEgressBytesPerSec: {max: " + tc.bound + "}\n"
		sc, err := Parse("x.yaml", []byte(doc), nil)
		if err != nil {
			t.Errorf("%s: %v", tc.bound, err)
			continue
		}
		if got := sc.Expect[0].Max.Value(); got != tc.want {
			t.Errorf("%s: %v bytes/s, want %v", tc.bound, got, tc.want)
		}
	}
	for _, bad := range []string{"unlimited", "10Gbit/m", "fast"} {
		doc := minimal + "expect:\n  roll.endpointslices.peakEgressBytesPerSec: {max: " + bad + "}\n"
		if _, err := Parse("x.yaml", []byte(doc), nil); err == nil || !strings.Contains(err.Error(), "invalid rate") {
			t.Errorf("%s: error %v, want an invalid rate", bad, err)
		}
	}
	// Other byte figures stay sizes: a rate is no total.
	doc := minimal + "expect:\n  roll.endpointslices.fanoutBytes: {max: 10Gbit}\n"
	if _, err := Parse("x.yaml", []byte(doc), nil); err == nil {
		t.Error("fanoutBytes took a rate")
	}
}
