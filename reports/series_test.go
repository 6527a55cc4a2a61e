package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"epsim/sim"
)

func TestTimeseriesCSVGolden(t *testing.T) {
	res := fixtureResults()
	var buf bytes.Buffer
	if err := WriteTimeseriesCSV(&buf, res.Series[:4], 0); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "timeseries.golden", buf.Bytes())
}

func TestTimeseriesCSVRoundTrip(t *testing.T) {
	res := fixtureResults()
	var buf bytes.Buffer
	if err := WriteTimeseriesCSV(&buf, res.Series, 0); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTimeseriesCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if want := DenseSeries(res.Series); !reflect.DeepEqual(got, want) {
		t.Errorf("timeseries.csv does not round-trip: got %d buckets, want %d", len(got), len(want))
	}
}

func TestReadTimeseriesCSVErrors(t *testing.T) {
	for name, in := range map[string]string{
		"empty":      "",
		"bad header": "a,b,c,d,e,f,g\n",
		"bad number": strings.Join(timeseriesHeader, ",") + "\n0,1,2,x,4,5,6\n",
		"short row":  strings.Join(timeseriesHeader, ",") + "\n0,1\n",
	} {
		if _, err := ReadTimeseriesCSV(strings.NewReader(in)); err == nil {
			t.Errorf("%s: ReadTimeseriesCSV accepted %q", name, in)
		}
	}
	// A row with too few or too many fields says which line, how many it has and wants,
	// and the likely cause, not encoding/csv's "record on line 3: wrong number of fields".
	header := strings.Join(timeseriesHeader, ",") + "\n"
	row := "0,1,2,3,4,5,6,0.5,0.5,0,0,1\n"
	for name, tc := range map[string]struct{ in, want string }{
		"cut off":  {header + row + row[:9], "line 3: 5 fields, want 12 (the file cut off, or edited?)"},
		"too many": {header + row + "0," + row, "line 3: 13 fields, want 12 (the file cut off, or edited?)"},
	} {
		_, err := ReadTimeseriesCSV(strings.NewReader(tc.in))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
}

func TestDenseSeries(t *testing.T) {
	got := DenseSeries([]sim.Bucket{
		{Second: 2, Endpoints: sim.BucketMode{Writes: 1}},
		{Second: 0, EndpointSlices: sim.BucketMode{FanoutBytes: 5}},
		{Second: 2, Endpoints: sim.BucketMode{Writes: 2}},
	})
	want := []sim.Bucket{
		{Second: 0, EndpointSlices: sim.BucketMode{FanoutBytes: 5}},
		{Second: 1},
		{Second: 2, Endpoints: sim.BucketMode{Writes: 3}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DenseSeries = %+v, want %+v", got, want)
	}
	if DenseSeries(nil) != nil {
		t.Error("DenseSeries(nil) != nil")
	}
}

func TestWritesJSONLGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteWritesJSONL(&buf, fixtureResults().Writes); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "writes.golden", buf.Bytes())
	if n := strings.Count(buf.String(), "\n"); n != 3 {
		t.Errorf("writes.jsonl has %d lines, want 3", n)
	}
}

func TestLayoutCSVRoundTrip(t *testing.T) {
	want := fixtureResults().Layout
	var buf bytes.Buffer
	if err := WriteLayoutCSV(&buf, want); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "layout.golden", buf.Bytes())
	got, err := ReadLayoutCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("layout.csv does not round-trip:\ngot  %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{"", "x\n", strings.Join(layoutHeader, ",") + "\n-1,1,1,1,1,1\n", strings.Join(layoutHeader, ",") + "\n1,a,1,1,1,1\n"} {
		if _, err := ReadLayoutCSV(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadLayoutCSV accepted %q", bad)
		}
	}
}

// The readers take files from disk (sim plot): bad input gives an error, never a panic.
func FuzzReadTimeseriesCSV(f *testing.F) {
	var buf bytes.Buffer
	WriteTimeseriesCSV(&buf, fixtureResults().Series[:3], 0)
	f.Add(buf.String())
	f.Add("")
	f.Add(strings.Join(timeseriesHeader, ",") + "\n1,2,3\n")
	f.Add(strings.Join(timeseriesHeader, ",") + "\n99999999999,1,1,1,1,1,1,0.000,0.000,0,0,1\n")
	f.Add(strings.Join(timeseriesHeader[:timeseriesColumns1], ",") + "\n9223372036854775807,1,1,1,1,1,1,0.000,0.000\n")
	f.Fuzz(func(t *testing.T, in string) {
		series, err := ReadTimeseriesCSV(strings.NewReader(in))
		if err != nil {
			return
		}
		// Whatever seconds the file names, the dense series (what sim plot draws) is bounded.
		if d := DenseSeries(series); len(d) > sim.MaxSeriesBuckets {
			t.Fatalf("DenseSeries made %d buckets", len(d))
		}
		// sim plot's charts of it (unrendered: drawing is slow).
		if _, err := Charts(NewSummary(fixtureResults(), nil), series, nil); err != nil {
			t.Logf("charts: %v", err)
		}
	})
}

// Issue 12: sim plot on a timeseries.csv with a row for second 99,999,999,999 tried to
// allocate 7 TB. DenseSeries coarsens instead, keeping every figure's sum.
func TestDenseSeriesIsBoundedBySpan(t *testing.T) {
	series := []sim.Bucket{
		{Second: 0, Endpoints: sim.BucketMode{Writes: 1, FanoutBytes: 10}},
		{Second: 99_999_999_999, Endpoints: sim.BucketMode{Writes: 2, FanoutBytes: 20, ResentBytes: 5, MaxLatencySeconds: 3}},
	}
	d := DenseSeries(series)
	if len(d) > sim.MaxSeriesBuckets {
		t.Fatalf("%d buckets", len(d))
	}
	var writes, fanout, resent int64
	for _, b := range d {
		writes += b.Endpoints.Writes
		fanout += b.Endpoints.FanoutBytes
		resent += b.Endpoints.ResentBytes
	}
	if writes != 3 || fanout != 30 || resent != 5 {
		t.Errorf("sums %d/%d/%d, want 3/30/5", writes, fanout, resent)
	}
	last := d[len(d)-1]
	if last.Second > 99_999_999_999 || last.Second+last.Seconds() <= 99_999_999_999 || last.Endpoints.MaxLatencySeconds != 3 {
		t.Errorf("last bucket %+v does not hold second 99,999,999,999", last)
	}
}

func FuzzReadLayoutCSV(f *testing.F) {
	var buf bytes.Buffer
	WriteLayoutCSV(&buf, fixtureResults().Layout)
	f.Add(buf.String())
	f.Add(strings.Join(layoutHeader, ",") + "\n1e308,1,1,1,1,1\n")
	summary := NewSummary(fixtureResults(), nil)
	f.Fuzz(func(t *testing.T, in string) {
		layout, err := ReadLayoutCSV(strings.NewReader(in))
		if err != nil {
			return
		}
		// sim plot's charts of it (unrendered: drawing is slow).
		Charts(summary, nil, layout)
	})
}

// sim plot reads summary.json from disk: bad input gives an error, never a panic.
func FuzzReadSummaryJSON(f *testing.F) {
	var buf bytes.Buffer
	WriteSummaryJSON(&buf, NewSummary(fixtureResults(), nil))
	f.Add(buf.String())
	f.Add(`{"phases":[{"endpoints":{"writes":{"total":-1}}}],"total":{}}`)
	f.Add(`{"endTimeSeconds":1e308,"phases":null}`)
	f.Add(`{"modes":["endpoints","endpointslices"],"total":{"endpoints":{},"endpointslices":{}},"services":[{"name":"a"},{"name":"b"}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ReadSummaryJSON(strings.NewReader(in))
		if err != nil {
			return
		}
		var out bytes.Buffer
		WriteTable(&out, s)
		// What sim plot and sim diff build from it (charts unrendered: drawing is slow).
		if _, err := Charts(s, nil, nil); err != nil {
			return
		}
		ProgrammingChart(s)
		d := DiffSummaries(s, s, "a", "b", DiffOptions{FailOn: 0.05, Floor: 1, Services: true})
		WriteDiffTable(&out, d, true)
		WriteDiffJSON(&out, d)
	})
}

// Issue 12: a time axis over 99,999,999,999 seconds (sim plot of a hostile timeseries.csv)
// asked for a tick per day, 1.16 million of them, and never finished drawing.
func TestTimeTicksBoundedOverHugeSpans(t *testing.T) {
	for _, hi := range []float64{10, 3600, 30 * 86400, 99_999_999_999, math.MaxFloat64, math.Inf(1), math.NaN()} {
		if n := len(timeTicks{}.Ticks(0, hi)); n > 21 {
			t.Errorf("Ticks(0, %g): %d ticks", hi, n)
		}
	}
	if n := len(timeTicks{}.Ticks(0, 99_999_999_999)); n < 3 {
		t.Errorf("Ticks(0, 1e11): %d ticks, want a readable axis", n)
	}
}

// writeLine is the oracle of a writes.jsonl line: the struct encoding/json wrote each line
// from before WritesJSONL built them by hand; the field order is the JSON order.
type writeLine struct {
	Time           string   `json:"time"`
	TimeSeconds    float64  `json:"timeSeconds"`
	Mode           sim.Mode `json:"mode"`
	Phase          string   `json:"phase"`
	Verb           string   `json:"verb"`
	Kind           string   `json:"kind"`
	Namespace      string   `json:"namespace"`
	Name           string   `json:"name"`
	Outcome        string   `json:"outcome"`
	Endpoints      int      `json:"endpoints"`
	ObjectBytes    int64    `json:"objectBytes"`
	EventBytes     int64    `json:"eventBytes"`
	Watchers       int64    `json:"watchers"`
	Latency        *string  `json:"latency,omitempty"`
	LatencySeconds *float64 `json:"latencySeconds,omitempty"`
}

// checkWriteLine compares the line WritesJSONL writes for r with encoding/json's.
func checkWriteLine(t *testing.T, r sim.WriteRecord) {
	t.Helper()
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	line := writeLine{
		Time: r.At.String(), TimeSeconds: r.At.Seconds(), Mode: r.Mode, Phase: r.Phase, Verb: r.Verb,
		Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, Outcome: r.Outcome, Endpoints: r.Endpoints,
		ObjectBytes: r.ObjectBytes, EventBytes: r.EventBytes, Watchers: r.Watchers,
	}
	if r.Outcome == "ok" { // only a delivered write has a latency
		latency, seconds := r.Latency.String(), r.Latency.Seconds()
		line.Latency, line.LatencySeconds = &latency, &seconds
	}
	if err := enc.Encode(line); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := WriteWritesJSONL(&got, []sim.WriteRecord{r}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("line differs from encoding/json's:\n got %s\nwant %s", got.Bytes(), want.Bytes())
	}
}

// writes.jsonl lines are built by hand; they must be encoding/json's byte for byte, for
// every time (from a nanosecond to centuries, where seconds switch to exponent form) and
// every string a phase name may hold.
func TestWritesJSONLMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	strs := []string{"", "create", `a "quoted" \ phase`, `say "hi"`, `back\slash`, "tab\tnew\nline\r\b\f\x00\x1f\x7f", "zone-a/b<c>&d",
		"naïve ünïcode ☃", "\u2028\u2029", "bad \xff\xfe utf-8", "ns-" + strings.Repeat("x", 300)}
	times := []sim.Time{0, 1, 999, 1000, 1_000_000, 1_500_000_000, sim.Time(math.MaxInt64), -1, -1_000_000_000_000}
	for i := range 2000 {
		r := sim.WriteRecord{
			At: times[i%len(times)], Latency: sim.Time(rng.Int64N(1 << 50)), Mode: sim.ModeEndpointSlices,
			Phase: strs[rng.IntN(len(strs))], Verb: "update", Kind: "EndpointSlice",
			Namespace: strs[rng.IntN(len(strs))], Name: strs[rng.IntN(len(strs))], Outcome: []string{"ok", "noop", "failed"}[i%3],
			Endpoints: rng.IntN(1000), ObjectBytes: rng.Int64(), EventBytes: -rng.Int64N(10), Watchers: rng.Int64N(1e7),
		}
		if i%3 == 0 {
			r.At = sim.Time(rng.Int64N(1 << uint(rng.IntN(63))))
		}
		checkWriteLine(t, r)
	}
}

// FuzzWritesJSONLine compares WritesJSONL's hand-built lines with encoding/json's.
func FuzzWritesJSONLine(f *testing.F) {
	f.Add("rolling-update", "default", "web-abc12", int64(1_500_000_000), int64(3_000), int64(12_345))
	f.Add("tab\there \"q\" \u2028", "\xff", "ü", int64(-1), int64(math.MaxInt64), int64(0))
	f.Fuzz(func(t *testing.T, phase, namespace, name string, at, latency, bytes int64) {
		checkWriteLine(t, sim.WriteRecord{At: sim.Time(at), Latency: sim.Time(latency), Mode: sim.ModeEndpoints,
			Phase: phase, Verb: "create", Kind: "Endpoints", Namespace: namespace, Name: name, Outcome: "noop",
			ObjectBytes: bytes, EventBytes: bytes / 3, Watchers: bytes % 5000})
	})
}

// failingWriter takes n bytes, then fails.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errors.New("no space left on device")
	}
	w.n -= len(p)
	return len(p), nil
}

// A writes.jsonl that cannot be written fails the Add that finds out (when its buffer goes
// out), naming the line, and every Add and Flush after it: a run stops there.
func TestWritesJSONLReportsAFailedWrite(t *testing.T) {
	j := NewWritesJSONL(&failingWriter{n: 10_000})
	r := &fixtureResults().Writes[0]
	var err error
	n := 0
	for ; err == nil && n < 1000; n++ {
		err = j.Add(r)
	}
	if err == nil || !strings.Contains(err.Error(), "writes.jsonl line") || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("after %d lines into 10 KB: error %v", n, err)
	}
	if again := j.Add(r); again != err {
		t.Errorf("an Add after the failure returned %v, want the first error", again)
	}
	if ferr := j.Flush(); ferr != err {
		t.Errorf("Flush after the failure returned %v, want the first error", ferr)
	}
}

// A write that was not delivered (no-op, failed) has no latency in writes.jsonl: a 0 there
// would pull down any percentile taken over the log's latencySeconds.
func TestWritesJSONLLatencyOnlyWhenDelivered(t *testing.T) {
	for _, outcome := range []string{"ok", "noop", "failed"} {
		var buf bytes.Buffer
		r := sim.WriteRecord{At: sim.Time(time.Second), Mode: sim.ModeEndpoints, Verb: "update", Kind: "Endpoints", Outcome: outcome, Latency: sim.Time(2 * time.Second)}
		if outcome != "ok" {
			r.Latency = 0
		}
		if err := WriteWritesJSONL(&buf, []sim.WriteRecord{r}); err != nil {
			t.Fatal(err)
		}
		var line map[string]any
		if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		_, has := line["latencySeconds"]
		_, hasString := line["latency"]
		if want := outcome == "ok"; has != want || hasString != want {
			t.Errorf("%s: latency in the line %v, want %v: %s", outcome, has, want, buf.Bytes())
		}
	}
}

// timeseries.csv has a row for every second of the run, the quiet ones after the last write
// too: zone-outage's recovery phase (5729 s to 5849 s) writes nothing, and the file stopped
// at second 5728.
func TestTimeseriesCSVToTheEnd(t *testing.T) {
	series := []sim.Bucket{{Second: 0, Endpoints: sim.BucketMode{Writes: 1}}, {Second: 5728, EndpointSlices: sim.BucketMode{Writes: 2}}}
	for _, tc := range []struct {
		end  float64
		rows int
	}{{5849, 5849}, {5849.2, 5850}, {100, 5729}} {
		var buf bytes.Buffer
		if err := WriteTimeseriesCSV(&buf, series, tc.end); err != nil {
			t.Fatal(err)
		}
		got, err := ReadTimeseriesCSV(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tc.rows || got[len(got)-1].Second != int64(tc.rows-1) {
			t.Errorf("end %gs: %d rows, the last of second %d; want %d, the last of second %d", tc.end, len(got), got[len(got)-1].Second, tc.rows, tc.rows-1)
		}
		if got[5728].EndpointSlices.Writes != 2 {
			t.Errorf("end %gs: second 5728 lost its writes: %+v", tc.end, got[5728])
		}
	}
	if d := DenseSeriesTo(nil, 3); len(d) != 3 {
		t.Errorf("a run of 3 s without writes: %d buckets, want 3", len(d))
	}
}
