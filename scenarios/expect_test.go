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

// TestExpectSetDotted: --set takes a budget in the dotted form, the bound after the key's
// dots (expect.total.endpointslices.fanoutBytes.max=1KB), which used to fail with "key must
// be phase.mode.figure" naming no form that works; the bracketed and mapping forms give the
// same budget, and the ambiguous or malformed ones say how to write them.
func TestExpectSetDotted(t *testing.T) {
	for _, tc := range []struct {
		set      string
		key      string
		max, min string
	}{
		{"expect.total.endpointslices.fanoutBytes.max=1KB", "total.endpointslices.fanoutBytes", "1KB", ""},
		{`expect["total.endpointslices.fanoutBytes"].max=1KB`, "total.endpointslices.fanoutBytes", "1KB", ""},
		{"expect.total.endpointslices.fanoutBytes={max: 1KB}", "total.endpointslices.fanoutBytes", "1KB", ""},
		{"expect={total.endpointslices.fanoutBytes: {max: 1KB}}", "total.endpointslices.fanoutBytes", "1KB", ""},
		{"expect.rolling-update.endpoints.writes.update.min=3", "rolling-update.endpoints.writes.update", "", "3"},
		{"expect.total.endpoints.propagation.max.max=30s", "total.endpoints.propagation.max", "30s", ""},
		{"expect.total.endpoints.propagation.max={max: 30s}", "total.endpoints.propagation.max", "30s", ""},
	} {
		sc, _, err := Load("quick", []string{tc.set})
		if err != nil {
			t.Errorf("--set %s: %v", tc.set, err)
			continue
		}
		if len(sc.Expect) != 1 {
			t.Errorf("--set %s: %d budgets, want 1", tc.set, len(sc.Expect))
			continue
		}
		b := sc.Expect[0]
		text := func(q *Quantity) string {
			if q == nil {
				return ""
			}
			return q.Text
		}
		if b.Key != tc.key || text(b.Max) != tc.max || text(b.Min) != tc.min {
			t.Errorf("--set %s: budget %s max %q min %q, want %s max %q min %q", tc.set, b.Key, text(b.Max), text(b.Min), tc.key, tc.max, tc.min)
		}
	}
	// Both bounds, from two flags, make one budget.
	sc, _, err := Load("quick", []string{"expect.total.endpoints.writes.max=100", "expect.total.endpoints.writes.min=1"})
	if err != nil || len(sc.Expect) != 1 || sc.Expect[0].Max == nil || sc.Expect[0].Min == nil {
		t.Errorf("max and min from two flags: %v, %+v", err, sc)
	}
	for _, tc := range []struct{ set, want string }{
		// propagation.max is itself a figure (an alias): not read as the figure "propagation".
		{"expect.total.endpoints.propagation.max=1s", "propagation.max is the figure propagation.maxSeconds: bound it as expect.total.endpoints.propagation.max.max=VALUE"},
		{"expect.total=1", "with --set, bound one as expect.PHASE.MODE.FIGURE.max=VALUE"},
	} {
		_, _, err := Load("quick", []string{tc.set})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--set %s: %v\nwant it to contain %q", tc.set, err, tc.want)
		}
	}
}
