package reports

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"epsim/sim"
)

// DenseSeries returns the series with every bucket from second 0 to its last bucket, in
// order, zero buckets filling the gaps and buckets of one interval added together. The engine
// may leave quiet seconds out; charts and CSV want every interval. Buckets are as wide as the
// widest in series (1 s unless the run was long, see sim.MaxSeriesBuckets), and wider still
// when needed to keep at most sim.MaxSeriesBuckets of them: the memory this takes never grows
// with the span of time the series names (a timeseries.csv row for second 99,999,999,999
// costs no more than one for second 9). Latencies are to the millisecond, as
// timeseries.csv keeps them.
func DenseSeries(series []sim.Bucket) []sim.Bucket { return DenseSeriesTo(series, 0) }

// DenseSeriesTo is DenseSeries with buckets up to endSeconds of virtual time, the run's end
// (summary.json's total.endSeconds), too: the seconds after the last write, where nothing
// left the API servers, have their zero rows (zone-outage's recovery phase).
func DenseSeriesTo(series []sim.Bucket, endSeconds float64) []sim.Bucket {
	if len(series) == 0 && !(endSeconds > 0) {
		return nil
	}
	last, width := int64(0), int64(1)
	if endSeconds > 0 {
		// The last second that starts before the end; bounded, as the buckets' seconds are.
		last = int64(math.Ceil(min(endSeconds, 1<<62))) - 1
	}
	for i := range series {
		b := &series[i]
		if b.Second < 0 {
			continue
		}
		last = max(last, b.Second)
		width = max(width, min(b.Seconds(), 1<<40))
	}
	for last/width >= sim.MaxSeriesBuckets {
		width *= 2
	}
	dense := make([]sim.Bucket, last/width+1)
	for i := range dense {
		dense[i].Second = int64(i) * width
		if width > 1 {
			dense[i].Width = width
		}
	}
	for _, b := range series {
		if b.Second < 0 {
			continue
		}
		d := &dense[b.Second/width]
		addBucketMode(&d.Endpoints, b.Endpoints)
		addBucketMode(&d.EndpointSlices, b.EndpointSlices)
	}
	for i := range dense {
		d := &dense[i]
		d.Endpoints.MaxLatencySeconds = csvSeconds(d.Endpoints.MaxLatencySeconds)
		d.EndpointSlices.MaxLatencySeconds = csvSeconds(d.EndpointSlices.MaxLatencySeconds)
	}
	return dense
}

// csvSeconds is x as timeseries.csv keeps it, to the millisecond: the charts sim run draws
// from the dense series are then those sim plot draws from the file, byte for byte.
func csvSeconds(x float64) float64 {
	v, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 3, 64), 64)
	if err != nil {
		return x // ±Inf and NaN format as themselves and read back
	}
	return v
}

func addBucketMode(dst *sim.BucketMode, b sim.BucketMode) {
	dst.Writes = satAdd(dst.Writes, b.Writes)
	dst.FanoutBytes = satAdd(dst.FanoutBytes, b.FanoutBytes)
	dst.ResentBytes = satAdd(dst.ResentBytes, b.ResentBytes)
	dst.EtcdBytes = satAdd(dst.EtcdBytes, b.EtcdBytes)
	dst.MaxLatencySeconds = max(dst.MaxLatencySeconds, b.MaxLatencySeconds)
}

// satAdd adds non-negative figures read from a file, saturating instead of wrapping.
func satAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// timeseriesHeader is the first line of timeseries.csv. The columns after the first nine
// were added later; ReadTimeseriesCSV also reads files with only the first nine.
var timeseriesHeader = []string{
	"second",
	"endpoints_writes", "endpoints_fanoutBytes", "endpoints_etcdBytes",
	"endpointslices_writes", "endpointslices_fanoutBytes", "endpointslices_etcdBytes",
	"endpoints_maxLatencySeconds", "endpointslices_maxLatencySeconds",
	"endpoints_resentBytes", "endpointslices_resentBytes", "seconds",
}

// timeseriesColumns1 is the number of columns of the first timeseries.csv format.
const timeseriesColumns1 = 9

// WriteTimeseriesCSV writes timeseries.csv: a header, then one row per bucket of virtual time
// from 0 to endSeconds, the run's end, or the last bucket of series if later (gaps filled
// with zeros), with, per mode:
//
//   - second: where the bucket starts (seconds of virtual time)
//   - <mode>_writes: API writes committed in the bucket
//   - <mode>_fanoutBytes: bytes of watch events leaving the API servers in the bucket; the
//     column sums to summary.json's fanoutBytes
//   - <mode>_etcdBytes: bytes of the objects committed in the bucket
//   - <mode>_maxLatencySeconds: the largest propagation latency of a write committed in it
//   - <mode>_resentBytes: bytes sent beyond the live events (relists, the events a
//     node back from a failure missed), leaving in the bucket; the column sums to resentBytes. Egress
//     is fanout + resent.
//   - seconds: the bucket's length, 1 unless the run spans more than sim.MaxSeriesBuckets
//     seconds (then 2, 4, … so that the file stays bounded)
//
// Both modes always have columns; a mode that did not run is all zeros.
func WriteTimeseriesCSV(w io.Writer, series []sim.Bucket, endSeconds float64) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(timeseriesHeader); err != nil {
		return err
	}
	row := make([]string, len(timeseriesHeader))
	for _, b := range DenseSeriesTo(series, endSeconds) {
		row[0] = strconv.FormatInt(b.Second, 10)
		row[1] = strconv.FormatInt(b.Endpoints.Writes, 10)
		row[2] = strconv.FormatInt(b.Endpoints.FanoutBytes, 10)
		row[3] = strconv.FormatInt(b.Endpoints.EtcdBytes, 10)
		row[4] = strconv.FormatInt(b.EndpointSlices.Writes, 10)
		row[5] = strconv.FormatInt(b.EndpointSlices.FanoutBytes, 10)
		row[6] = strconv.FormatInt(b.EndpointSlices.EtcdBytes, 10)
		row[7] = strconv.FormatFloat(b.Endpoints.MaxLatencySeconds, 'f', 3, 64)
		row[8] = strconv.FormatFloat(b.EndpointSlices.MaxLatencySeconds, 'f', 3, 64)
		row[9] = strconv.FormatInt(b.Endpoints.ResentBytes, 10)
		row[10] = strconv.FormatInt(b.EndpointSlices.ResentBytes, 10)
		row[11] = strconv.FormatInt(b.Seconds(), 10)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadTimeseriesCSV parses a timeseries.csv written by WriteTimeseriesCSV (or by an earlier
// sim, without the re-sent bytes and width columns). Figures must not be negative. Its
// errors describe the content ("line 3: column …"): the caller names the file.
func ReadTimeseriesCSV(r io.Reader) ([]sim.Bucket, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, readError(err)
	}
	if !slices.Equal(header, timeseriesHeader) && !slices.Equal(header, timeseriesHeader[:timeseriesColumns1]) {
		return nil, fmt.Errorf("unexpected header %q", truncateForError(strings.Join(header, ",")))
	}
	cr.FieldsPerRecord = len(header)
	var out []sim.Bucket
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if pe := (*csv.ParseError)(nil); errors.As(err, &pe) && errors.Is(err, csv.ErrFieldCount) {
			return nil, fmt.Errorf("line %d: %d fields, want %d (the file cut off, or edited?)", pe.Line, len(rec), len(header))
		}
		if err != nil {
			return nil, err
		}
		var v [7]int64
		var lat [2]float64
		var extra [3]int64
		for i, f := range rec {
			switch {
			case i < len(v):
				v[i], err = strconv.ParseInt(f, 10, 64)
			case i < timeseriesColumns1:
				lat[i-len(v)], err = strconv.ParseFloat(f, 64)
				if err == nil && (math.IsNaN(lat[i-len(v)]) || math.IsInf(lat[i-len(v)], 0) || lat[i-len(v)] < 0) {
					err = fmt.Errorf("not a latency: %q", truncateForError(f))
				}
			default:
				extra[i-timeseriesColumns1], err = strconv.ParseInt(f, 10, 64)
			}
			if err == nil && (i < len(v) && v[i] < 0 || i >= timeseriesColumns1 && extra[i-timeseriesColumns1] < 0) {
				err = fmt.Errorf("negative: %s", f)
			}
			if err != nil {
				return nil, fmt.Errorf("line %d: column %s: %w", line, timeseriesHeader[i], err)
			}
		}
		if extra[2] == 1 {
			extra[2] = 0 // the canonical 1 s width
		}
		out = append(out, sim.Bucket{
			Second:         v[0],
			Width:          extra[2],
			Endpoints:      sim.BucketMode{Writes: v[1], FanoutBytes: v[2], ResentBytes: extra[0], EtcdBytes: v[3], MaxLatencySeconds: lat[0]},
			EndpointSlices: sim.BucketMode{Writes: v[4], FanoutBytes: v[5], ResentBytes: extra[1], EtcdBytes: v[6], MaxLatencySeconds: lat[1]},
		})
	}
}

// truncateForError shortens a value quoted in an error message.
func truncateForError(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// WriteWritesJSONL writes writes.jsonl: one JSON object per API write, in the order given,
// with its virtual time as a Go duration ("time") and in seconds ("timeSeconds").
func WriteWritesJSONL(w io.Writer, writes []sim.WriteRecord) error {
	j := NewWritesJSONL(w)
	for i := range writes {
		if err := j.Add(&writes[i]); err != nil {
			return err
		}
	}
	return j.Flush()
}

// WritesJSONL writes writes.jsonl one record at a time, as a run makes them (it is a
// sim.WriteLogger's other half): the same lines as WriteWritesJSONL, without the log held
// in memory. The first error is kept: Add does nothing after it, Flush returns it.
type WritesJSONL struct {
	bw   *bufio.Writer
	line []byte
	n    int
	err  error
}

// NewWritesJSONL returns a writer of writes.jsonl to w (buffered, unless w is a
// *bufio.Writer already).
func NewWritesJSONL(w io.Writer) *WritesJSONL {
	bw, ok := w.(*bufio.Writer)
	if !ok {
		bw = bufio.NewWriter(w)
	}
	return &WritesJSONL{bw: bw}
}

// Add writes the line of r: its fields in the order of the README's table, as
// encoding/json would write them (without HTML escaping), then a newline; latency and
// latencySeconds only for a committed write (outcome ok), the only kind delivered. The line is
// built by hand: encoding/json's reflection took a tenth of a day-long run's CPU. It
// returns the first error of any Add (a write fails once the buffer goes out).
func (j *WritesJSONL) Add(r *sim.WriteRecord) error {
	if j.err != nil {
		return j.err
	}
	j.n++
	b := append(j.line[:0], `{"time":`...)
	b = append(appendDuration(append(b, '"'), r.At), '"') // a duration never needs escaping
	b = append(b, `,"timeSeconds":`...)
	b = appendJSONSeconds(b, r.At)
	b = append(b, `,"mode":`...)
	b = appendJSONString(b, string(r.Mode))
	b = append(b, `,"phase":`...)
	b = appendJSONString(b, r.Phase)
	b = append(b, `,"verb":`...)
	b = appendJSONString(b, r.Verb)
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, r.Kind)
	b = append(b, `,"namespace":`...)
	b = appendJSONString(b, r.Namespace)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, r.Name)
	b = append(b, `,"outcome":`...)
	b = appendJSONString(b, r.Outcome)
	b = append(b, `,"endpoints":`...)
	b = strconv.AppendInt(b, int64(r.Endpoints), 10)
	b = append(b, `,"objectBytes":`...)
	b = strconv.AppendInt(b, r.ObjectBytes, 10)
	b = append(b, `,"eventBytes":`...)
	b = strconv.AppendInt(b, r.EventBytes, 10)
	b = append(b, `,"watchers":`...)
	b = strconv.AppendInt(b, r.Watchers, 10)
	if r.Outcome == "ok" {
		// Only a committed write was delivered: a no-op or failed one has no latency, and a
		// 0 would skew percentiles taken over the log.
		b = append(b, `,"latency":`...)
		b = append(appendDuration(append(b, '"'), r.Latency), '"')
		b = append(b, `,"latencySeconds":`...)
		b = appendJSONSeconds(b, r.Latency)
	}
	b = append(b, "}\n"...)
	j.line = b
	if _, err := j.bw.Write(b); err != nil {
		j.err = fmt.Errorf("reports: writes.jsonl line %d: %w", j.n, err)
	}
	return j.err
}

// Flush writes out what Add buffered and returns the first error.
func (j *WritesJSONL) Flush() error {
	if j.err != nil {
		return j.err
	}
	return j.bw.Flush()
}

// appendJSONString appends s as encoding/json quotes it without HTML escaping: printable
// ASCII but '"' and '\\' as it is, anything else through encoding/json itself (names and
// durations never need it; a phase name may).
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.Encode(s) // a string always encodes
			return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONFloat appends the finite f as encoding/json writes a float64: the shortest
// decimal, in exponent form below 1e-6 or from 1e21 on, with the exponent unpadded.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1] // e-07 → e-7
		b = b[:n-1]
	}
	return b
}

// layoutHeader is the first line of layout.csv.
var layoutHeader = []string{"timeSeconds", "slices", "endpoints", "minPerSlice", "medianPerSlice", "maxPerSlice"}

// WriteLayoutCSV writes layout.csv: the EndpointSlice layout samples (all services), one row
// per sample, with the virtual time in seconds.
func WriteLayoutCSV(w io.Writer, layout []sim.LayoutSample) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(layoutHeader); err != nil {
		return err
	}
	for _, l := range layout {
		if err := cw.Write([]string{
			strconv.FormatFloat(l.At.Seconds(), 'f', -1, 64), strconv.Itoa(l.Slices), strconv.Itoa(l.Endpoints),
			strconv.Itoa(l.Min), strconv.Itoa(l.Median), strconv.Itoa(l.Max),
		}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadLayoutCSV parses a layout.csv written by WriteLayoutCSV. Its errors describe the
// content: the caller names the file.
func ReadLayoutCSV(r io.Reader) ([]sim.LayoutSample, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // the header is checked first, then each row's length
	header, err := cr.Read()
	if err != nil {
		return nil, readError(err)
	}
	if !slices.Equal(header, layoutHeader) {
		return nil, fmt.Errorf("unexpected header %q", truncateForError(strings.Join(header, ",")))
	}
	cr.FieldsPerRecord = len(layoutHeader)
	var out []sim.LayoutSample
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		secs, err := strconv.ParseFloat(rec[0], 64)
		if err != nil || secs < 0 || secs > 1e9 {
			return nil, fmt.Errorf("line %d: bad time %q", line, rec[0])
		}
		var v [5]int
		for i := range v {
			if v[i], err = strconv.Atoi(rec[i+1]); err != nil {
				return nil, fmt.Errorf("line %d: column %s: %w", line, layoutHeader[i+1], err)
			}
		}
		out = append(out, sim.LayoutSample{At: sim.Time(math.Round(secs * 1e9)), Slices: v[0], Endpoints: v[1], Min: v[2], Median: v[3], Max: v[4]})
	}
}
