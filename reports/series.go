package reports

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"epsim/sim"
)

// DenseSeries returns one bucket per second from 0 to the last second in series, in order,
// with zero buckets filling the gaps and buckets of the same second added together. The
// engine may leave quiet seconds out; charts and CSV want every second.
func DenseSeries(series []sim.Bucket) []sim.Bucket {
	if len(series) == 0 {
		return nil
	}
	last := int64(0)
	for _, b := range series {
		if b.Second < 0 {
			continue
		}
		last = max(last, b.Second)
	}
	dense := make([]sim.Bucket, last+1)
	for i := range dense {
		dense[i].Second = int64(i)
	}
	for _, b := range series {
		if b.Second < 0 {
			continue
		}
		d := &dense[b.Second]
		addBucketMode(&d.Endpoints, b.Endpoints)
		addBucketMode(&d.EndpointSlices, b.EndpointSlices)
	}
	return dense
}

func addBucketMode(dst *sim.BucketMode, b sim.BucketMode) {
	dst.Writes += b.Writes
	dst.FanoutBytes += b.FanoutBytes
	dst.EtcdBytes += b.EtcdBytes
	dst.MaxLatencySeconds = max(dst.MaxLatencySeconds, b.MaxLatencySeconds)
}

// timeseriesHeader is the first line of timeseries.csv.
var timeseriesHeader = []string{
	"second",
	"endpoints_writes", "endpoints_fanoutBytes", "endpoints_etcdBytes",
	"endpointslices_writes", "endpointslices_fanoutBytes", "endpointslices_etcdBytes",
	"endpoints_maxLatencySeconds", "endpointslices_maxLatencySeconds",
}

// WriteTimeseriesCSV writes timeseries.csv: a header, then one row per second of virtual time
// (gaps filled with zeros) with each mode's API writes, bytes leaving the API servers and etcd
// bytes in that second, and the largest propagation latency of a write committed in it. Both modes always have columns; a mode that did not run is all zeros.
func WriteTimeseriesCSV(w io.Writer, series []sim.Bucket) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(timeseriesHeader); err != nil {
		return err
	}
	row := make([]string, len(timeseriesHeader))
	for _, b := range DenseSeries(series) {
		row[0] = strconv.FormatInt(b.Second, 10)
		row[1] = strconv.FormatInt(b.Endpoints.Writes, 10)
		row[2] = strconv.FormatInt(b.Endpoints.FanoutBytes, 10)
		row[3] = strconv.FormatInt(b.Endpoints.EtcdBytes, 10)
		row[4] = strconv.FormatInt(b.EndpointSlices.Writes, 10)
		row[5] = strconv.FormatInt(b.EndpointSlices.FanoutBytes, 10)
		row[6] = strconv.FormatInt(b.EndpointSlices.EtcdBytes, 10)
		row[7] = strconv.FormatFloat(b.Endpoints.MaxLatencySeconds, 'f', 3, 64)
		row[8] = strconv.FormatFloat(b.EndpointSlices.MaxLatencySeconds, 'f', 3, 64)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadTimeseriesCSV parses a timeseries.csv written by WriteTimeseriesCSV.
func ReadTimeseriesCSV(r io.Reader) ([]sim.Bucket, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = len(timeseriesHeader)
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("reports: timeseries.csv: %w", err)
	}
	if !slices.Equal(header, timeseriesHeader) {
		return nil, fmt.Errorf("reports: timeseries.csv: unexpected header %q", header)
	}
	var out []sim.Bucket
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reports: timeseries.csv: %w", err)
		}
		var v [7]int64
		var lat [2]float64
		for i, f := range rec {
			if i < len(v) {
				v[i], err = strconv.ParseInt(f, 10, 64)
			} else {
				lat[i-len(v)], err = strconv.ParseFloat(f, 64)
				if err == nil && (math.IsNaN(lat[i-len(v)]) || lat[i-len(v)] < 0) {
					err = fmt.Errorf("not a latency: %q", f)
				}
			}
			if err != nil {
				return nil, fmt.Errorf("reports: timeseries.csv:%d: column %s: %w", line, timeseriesHeader[i], err)
			}
		}
		out = append(out, sim.Bucket{
			Second:         v[0],
			Endpoints:      sim.BucketMode{Writes: v[1], FanoutBytes: v[2], EtcdBytes: v[3], MaxLatencySeconds: lat[0]},
			EndpointSlices: sim.BucketMode{Writes: v[4], FanoutBytes: v[5], EtcdBytes: v[6], MaxLatencySeconds: lat[1]},
		})
	}
}

// writeLine is one line of writes.jsonl; the field order is the JSON order.
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
	Latency        string   `json:"latency"`
	LatencySeconds float64  `json:"latencySeconds"`
}

// WriteWritesJSONL writes writes.jsonl: one JSON object per API write, in the order given,
// with its virtual time as a Go duration ("time") and in seconds ("timeSeconds").
func WriteWritesJSONL(w io.Writer, writes []sim.WriteRecord) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range writes {
		r := &writes[i]
		if err := enc.Encode(writeLine{
			Time:           r.At.String(),
			TimeSeconds:    r.At.Seconds(),
			Mode:           r.Mode,
			Phase:          r.Phase,
			Verb:           r.Verb,
			Kind:           r.Kind,
			Namespace:      r.Namespace,
			Name:           r.Name,
			Outcome:        r.Outcome,
			Endpoints:      r.Endpoints,
			ObjectBytes:    r.ObjectBytes,
			EventBytes:     r.EventBytes,
			Watchers:       r.Watchers,
			Latency:        r.Latency.String(),
			LatencySeconds: r.Latency.Seconds(),
		}); err != nil {
			return fmt.Errorf("reports: writes.jsonl line %d: %w", i+1, err)
		}
	}
	return bw.Flush()
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

// ReadLayoutCSV parses a layout.csv written by WriteLayoutCSV.
func ReadLayoutCSV(r io.Reader) ([]sim.LayoutSample, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = len(layoutHeader)
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("reports: layout.csv: %w", err)
	}
	if !slices.Equal(header, layoutHeader) {
		return nil, fmt.Errorf("reports: layout.csv: unexpected header %q", header)
	}
	var out []sim.LayoutSample
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reports: layout.csv: %w", err)
		}
		secs, err := strconv.ParseFloat(rec[0], 64)
		if err != nil || secs < 0 || secs > 1e9 {
			return nil, fmt.Errorf("reports: layout.csv:%d: bad time %q", line, rec[0])
		}
		var v [5]int
		for i := range v {
			if v[i], err = strconv.Atoi(rec[i+1]); err != nil {
				return nil, fmt.Errorf("reports: layout.csv:%d: column %s: %w", line, layoutHeader[i+1], err)
			}
		}
		out = append(out, sim.LayoutSample{At: sim.Time(math.Round(secs * 1e9)), Slices: v[0], Endpoints: v[1], Min: v[2], Median: v[3], Max: v[4]})
	}
}
