package reports

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"epsim/sim"
)

// Reference: DESIGN.md "Results contract".
func TestSummaryJSONGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSummaryJSON(&buf, NewSummary(fixtureResults(), nil)); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "summary.golden", buf.Bytes())
	if !bytes.HasSuffix(buf.Bytes(), []byte("}\n")) {
		t.Error("summary.json lacks its trailing newline")
	}
}

func TestSummaryJSONRoundTrip(t *testing.T) {
	want := NewSummary(fixtureResults(), nil)
	var buf bytes.Buffer
	if err := WriteSummaryJSON(&buf, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSummaryJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summary.json does not round-trip:\ngot  %+v\nwant %+v", got, want)
	}
}

// The contract's field names: lowerCamelCase, durations as strings and seconds.
func TestSummaryJSONFields(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSummaryJSON(&buf, NewSummary(fixtureResults(), nil)); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"scenario", "seed", "nodes", "watchers", "phases", "total"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("summary.json lacks top-level %q", k)
		}
	}
	phase := doc["phases"].([]any)[1].(map[string]any)
	if phase["start"] != "40s" || phase["startSeconds"] != 40.0 || phase["end"] != "1m15s" || phase["endSeconds"] != 75.0 {
		t.Errorf("phase times = %v %v %v %v, want 40s 40 1m15s 75", phase["start"], phase["startSeconds"], phase["end"], phase["endSeconds"])
	}
	ep := phase["endpoints"].(map[string]any)
	for _, k := range []string{"writes", "failedWrites", "etcdBytes", "watchEvents", "fanoutBytes", "perNodeBytes",
		"maxObjectBytes", "peakEgressBytesPerSec", "truncatedObjects", "propagation"} {
		if _, ok := ep[k]; !ok {
			t.Errorf("phase endpoints lacks %q", k)
		}
	}
	prop := ep["propagation"].(map[string]any)
	if prop["p99"] != "750ms" || prop["p99Seconds"] != 0.75 {
		t.Errorf("propagation p99 = %v / %v, want 750ms / 0.75", prop["p99"], prop["p99Seconds"])
	}
	ratio := phase["ratio"].(map[string]any)
	// 5,903,000,000 / 76,700,000 = 76.962… → 76.962.
	if ratio["fanoutBytes"] != 76.962 {
		t.Errorf("ratio.fanoutBytes = %v, want 76.962", ratio["fanoutBytes"])
	}
}

func TestSummaryRatioOmittedWhenDenominatorZero(t *testing.T) {
	res := &sim.Results{Scenario: "x", Phases: []sim.PhaseResult{{Name: "p",
		Endpoints: sim.ModeResult{EtcdBytes: 10, FanoutBytes: 30}, EndpointSlices: sim.ModeResult{EtcdBytes: 5}}}}
	var buf bytes.Buffer
	if err := WriteSummaryJSON(&buf, NewSummary(res, nil)); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Phases []struct {
			Ratio map[string]float64 `json:"ratio"`
		} `json:"phases"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.Phases[0].Ratio
	if !reflect.DeepEqual(got, map[string]float64{"etcdBytes": 2}) {
		t.Errorf("ratio = %v, want only etcdBytes: 2 (every other denominator is 0)", got)
	}
}

func TestSummaryOneMode(t *testing.T) {
	s := NewSummary(fixtureResults(), []sim.Mode{sim.ModeEndpoints})
	if s.Phases[0].EndpointSlices != nil || s.Phases[0].Ratio != nil || s.Total.Endpoints == nil {
		t.Errorf("one-mode summary: endpointslices=%v ratio=%v endpoints=%v; want only endpoints",
			s.Phases[0].EndpointSlices, s.Phases[0].Ratio, s.Total.Endpoints)
	}
	var buf bytes.Buffer
	if err := WriteSummaryJSON(&buf, s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `"endpointslices"`) || strings.Contains(buf.String(), `"ratio"`) {
		t.Error("one-mode summary.json mentions endpointslices or ratio")
	}
}

func TestSummaryJSONRejectsNaN(t *testing.T) {
	res := fixtureResults()
	res.Total.Endpoints.Propagation.P99Seconds = math.NaN()
	var buf bytes.Buffer
	if err := WriteSummaryJSON(&buf, NewSummary(res, nil)); err == nil {
		t.Fatal("WriteSummaryJSON accepted a NaN")
	}
	if buf.Len() != 0 {
		t.Errorf("WriteSummaryJSON wrote %d bytes before failing", buf.Len())
	}
}

// CI's fuzzer found summary.json files whose "modes" name a mode that a phase, the total or
// a Service has no figures for; the table dereferenced them and panicked. They are refused
// when read, naming what is missing; one-mode summaries of 'sim run' still read and render.
func TestReadSummaryJSONRefusesModesWithoutFigures(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"modes":["endpoints"],"phases":[{"name":"scale"}],"total":{"endpoints":{}}}`, `phase 1 (scale) has no endpoints figures`},
		{`{"modes":["endpoints"],"phases":[],"total":{}}`, `total has no endpoints figures`},
		{`{"modes":["endpoints","endpointslices"],"total":{"endpoints":{},"endpointslices":{}},` +
			`"services":[{"namespace":"ns","name":"a","endpoints":{}},{"namespace":"ns","name":"b","endpoints":{},"endpointslices":{}}]}`,
			`service ns/a has no endpointslices figures`},
		{`{"modes":["endpoints","endpoints"],"total":{"endpoints":{}}}`, `"endpoints" is listed twice`},
		{`{"modes":["endpointSlices"],"total":{"endpointslices":{}}}`, `unknown mode "endpointSlices"`},
		{`{"phases":[{}],"total":{"endpoints":{},"endpointslices":{}}}`, `modes: none listed`},
		{`{"modes":["endpoints"],"phases":[{"name":"up","endpoints":{},"endpointslices":{}}],"total":{"endpoints":{}}}`,
			`phase 1 (up) has endpointslices figures, though "endpointslices" is not in modes`},
	} {
		s, err := ReadSummaryJSON(strings.NewReader(tc.in))
		if err == nil {
			var out bytes.Buffer
			WriteTable(&out, s)
			t.Errorf("%s: read without error; want %q", tc.in, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q; want it to say %q", tc.in, err, tc.want)
		}
	}
	for _, modes := range [][]sim.Mode{{sim.ModeEndpoints}, {sim.ModeEndpointSlices}, nil} {
		var buf bytes.Buffer
		if err := WriteSummaryJSON(&buf, NewSummary(fixtureResults(), modes)); err != nil {
			t.Fatal(err)
		}
		s, err := ReadSummaryJSON(&buf)
		if err != nil {
			t.Fatalf("modes %v: %v", modes, err)
		}
		var out bytes.Buffer
		if err := WriteTable(&out, s); err != nil || !strings.Contains(out.String(), "bytes fanned out") {
			t.Errorf("modes %v: table %q, error %v", modes, out.String(), err)
		}
	}
}

// A file that is not a summary.json, or one whose fields have the wrong JSON types, is
// refused with the line and column, the field and the JSON kind it wants: 'sim diff' and
// 'sim plot' printed Go's decoder wording ("json: cannot unmarshal string into Go struct
// field Summary.phases of type []reports.PhaseSummary"). A baseline given where a summary
// belongs, or a summary given as a baseline, is named as such.
// Reference: DESIGN.md "Quality bars" (bad input).
func TestReadSummaryJSONErrorsNameFieldAndKind(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"wrong type", `{"scenario":"x","modes":["endpoints"],"phases":"oops"}`,
			[]string{`1:54: not a summary.json: field "phases" is a JSON string, where a summary.json has an array`}},
		{"nested wrong type", "{\"modes\":[\"endpoints\"],\n\"total\":{\"endpoints\":{\"fanoutBytes\":\"1GB\"}}}",
			[]string{`2:42: not a summary.json: field "total.endpoints.fanoutBytes" is a JSON string, where a summary.json has an integer`}},
		{"yaml", "# a scenario\nname: x\n", []string{"1:1: not a summary.json: invalid character '#' (not JSON)"}},
		{"array", `[1]`, []string{"not a summary.json: the file is a JSON array, where a summary.json has an object"}},
		{"baseline", `{"version": 1, "scenario": "s", "seed": 1, "figures": {"total.endpoints.writes.total": 1}}`,
			[]string{"a baseline of 'sim check', not a summary.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadSummaryJSON(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("read without error; want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q; want it to say %q", err, w)
				}
			}
			for _, bad := range []string{"Go struct", "Go value", "reports.", "json: cannot", "json: unknown", "looking for"} {
				if strings.Contains(err.Error(), bad) {
					t.Errorf("error %q has Go's wording %q", err, bad)
				}
			}
		})
	}
}
