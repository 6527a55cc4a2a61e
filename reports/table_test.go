package reports

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"epsim/sim"
)

func TestFormatBytes(t *testing.T) {
	// Reference: SI prefixes, 1 KB = 1000 B (the table header says so).
	for _, tc := range []struct {
		in   int64
		want string
	}{
		{0, "0 B"}, {999, "999 B"}, {1000, "1.0 KB"}, {1_572_864, "1.6 MB"}, {76_700_000, "76.7 MB"},
		{999_960, "1.0 MB"}, {5_903_000_000, "5.9 GB"}, {22_500_000_000_000, "22.5 TB"}, {-2048, "-2.0 KB"},
	} {
		if got := FormatBytes(tc.in); got != tc.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFormatRatio(t *testing.T) {
	for _, tc := range []struct {
		r    float64
		ok   bool
		want string
	}{{76.96, true, "77×"}, {7.7, true, "7.7×"}, {0.0617, true, "0.06×"}, {1, true, "1.0×"}, {1, false, "-"},
		{0.006, true, "0.01×"}, {0.00064, true, "<0.01×"}, {0, true, "0×"}} {
		if got := FormatRatio(tc.r, tc.ok); got != tc.want {
			t.Errorf("FormatRatio(%v, %v) = %q, want %q", tc.r, tc.ok, got, tc.want)
		}
	}
}

func TestFormatCount(t *testing.T) {
	for in, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 100_370_070: "100,370,070", -1234: "-1,234"} {
		if got := formatCount(in); got != want {
			t.Errorf("formatCount(%d) = %q, want %q", in, got, want)
		}
	}
}

func TestTableGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		modes  []sim.Mode
	}{
		{"table.golden", nil},
		{"table-endpointslices.golden", []sim.Mode{sim.ModeEndpointSlices}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteTable(&buf, NewSummary(fixtureResults(), tc.modes)); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.golden, buf.Bytes())
			for i, line := range strings.Split(buf.String(), "\n") {
				if n := utf8.RuneCountInString(line); n > 100 {
					t.Errorf("line %d is %d columns wide (limit 100): %q", i+1, n, line)
				}
			}
		})
	}
}

func TestHeadline(t *testing.T) {
	s := NewSummary(fixtureResults(), nil)
	// 5,903,000,000 / 76,700,000 = 76.96 → "77×".
	want := "Endpoints fan out 5.9 GB, EndpointSlices 76.7 MB (77×)"
	if got := Headline(&s.Phases[1]); got != want {
		t.Errorf("Headline = %q, want %q", got, want)
	}
	if got := Headline(&s.Phases[2]); !strings.HasSuffix(got, "; 3 Endpoints writes failed") {
		t.Errorf("Headline of a phase with failed writes = %q, want the failures called out", got)
	}
}

func TestTableEmptyResults(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTable(&buf, NewSummary(&sim.Results{Scenario: "empty"}, nil)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "total (0s → 0s)") {
		t.Errorf("empty results table lacks the total block:\n%s", buf.String())
	}
}

func ExampleWriteTable() {
	res := &sim.Results{
		Scenario: "tiny", Seed: 1, Nodes: 3, Watchers: 3,
		Phases: []sim.PhaseResult{{
			Name: "flip", End: sim.Time(10e9),
			Endpoints: sim.ModeResult{Writes: sim.WriteCounts{Update: 1}, EtcdBytes: 300_000,
				WatchEvents: 3, FanoutBytes: 900_000, PerNodeBytes: 300_000, MaxObjectBytes: 300_000,
				PeakEgressBytesPerSec: 900_000},
			EndpointSlices: sim.ModeResult{Writes: sim.WriteCounts{Update: 1}, EtcdBytes: 15_000,
				WatchEvents: 3, FanoutBytes: 45_000, PerNodeBytes: 15_000, MaxObjectBytes: 15_000,
				PeakEgressBytesPerSec: 45_000},
		}},
	}
	res.Total = res.Phases[0]
	res.EndTime = sim.Time(10e9)
	WriteTable(os.Stdout, NewSummary(res, nil))
	// Output:
	// scenario tiny, seed 1: 3 nodes, 3 watchers per mode, 1 phase
	// virtual time: last API write at 0s, everything delivered by 10s
	// bytes in SI units (1 KB = 1000 B); ratio = Endpoints / EndpointSlices
	//
	// phase 1/1: flip (0s → 10s)
	//   Endpoints fan out 900.0 KB, EndpointSlices 45.0 KB (20×)
	//                               Endpoints   EndpointSlices   ratio
	//   API writes                          1                1    1.0×
	//     create/update/delete          0/1/0            0/1/0
	//   failed writes                       0                0
	//   etcd bytes                   300.0 KB          15.0 KB     20×
	//   watch events                        3                3    1.0×
	//   bytes fanned out             900.0 KB          45.0 KB     20×
	//   bytes per node               300.0 KB          15.0 KB     20×
	//   largest object               300.0 KB          15.0 KB     20×
	//   peak apiserver egress      900.0 KB/s        45.0 KB/s     20×
	//
	// total (0s → 10s)
	//   Endpoints fan out 900.0 KB, EndpointSlices 45.0 KB (20×)
	//                               Endpoints   EndpointSlices   ratio
	//   API writes                          1                1    1.0×
	//     create/update/delete          0/1/0            0/1/0
	//   failed writes                       0                0
	//   etcd bytes                   300.0 KB          15.0 KB     20×
	//   watch events                        3                3    1.0×
	//   bytes fanned out             900.0 KB          45.0 KB     20×
	//   bytes per node               300.0 KB          15.0 KB     20×
	//   largest object               300.0 KB          15.0 KB     20×
	//   peak apiserver egress      900.0 KB/s        45.0 KB/s     20×
}

func TestTopServicesByBytes(t *testing.T) {
	s := NewSummary(fixtureResults(), nil)
	top := TopServicesByBytes(s, TopServices)
	if len(top) != TopServices {
		t.Fatalf("%d Services, want %d", len(top), TopServices)
	}
	for i := 1; i < len(top); i++ {
		a, b := serviceBytes(top[i-1]), serviceBytes(top[i])
		if a < b || a == b && top[i-1].Name > top[i].Name {
			t.Errorf("%s (%d) before %s (%d)", top[i-1].Name, a, top[i].Name, b)
		}
	}
	if top[0].Name != "big" {
		t.Errorf("first %s, want big", top[0].Name)
	}
	// One Service: no per-Service block (it would repeat the total).
	s.Services = s.Services[:1]
	var buf bytes.Buffer
	if err := WriteTable(&buf, s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "by bytes fanned out") {
		t.Errorf("table lists Services for a single one:\n%s", buf.String())
	}
}

// TestLatencyWithoutSamples: a mode with no latency samples in a phase (its writes all
// failed: quick.yaml with apiServer.objectSizeLimit=20000) shows "-" in the latency rows of
// the table and the report, as the SLO rows do, not 0s, which would read as no delay.
func TestLatencyWithoutSamples(t *testing.T) {
	res := fixtureResults()
	p := &res.Phases[1]
	p.Endpoints.Propagation = sim.Latency{}
	p.Endpoints.Programming = sim.Latency{}
	p.EndpointSlices.Programming = sim.Latency{Count: 3, P50Seconds: 1, P90Seconds: 1, P99Seconds: 1.5, MaxSeconds: 1.5}
	p.EndpointSlices.KubeProxySyncs, p.EndpointSlices.PeakSyncSeconds = 1, 1.5
	p.Endpoints.KubeProxySyncs, p.Endpoints.PeakSyncSeconds = 0, 0
	s := NewSummary(res, nil)
	var buf bytes.Buffer
	if err := WriteTable(&buf, s); err != nil {
		t.Fatal(err)
	}
	block := buf.String()
	block = block[strings.Index(block, "phase 2/"):]
	block = block[:strings.Index(block, "phase 3/")]
	for _, row := range []string{"propagation p99", "propagation max", "programming p99", "longest sync"} {
		i := strings.Index(block, row)
		if i < 0 {
			t.Errorf("phase 2 has no %s row:\n%s", row, block)
			continue
		}
		line := block[i:]
		line = line[:strings.Index(line, "\n")]
		if f := strings.Fields(strings.TrimPrefix(line, row)); len(f) < 2 || f[0] != "-" {
			t.Errorf("%q: the Endpoints cell is not -", line)
		}
	}
	r := &RunReport{File: "x.yaml", Summary: s, Config: fixtureConfig()}
	buf.Reset()
	if err := WriteRunMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	i := strings.Index(md, "| `"+p.Name+"` |")
	row := md[i : i+strings.Index(md[i:], "\n")]
	if !strings.HasSuffix(row, "| - / "+FormatSeconds(p.EndpointSlices.Propagation.P99Seconds)+" |") {
		t.Errorf("report row %q: the Endpoints propagation p99 is not -", row)
	}
}
