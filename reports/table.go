package reports

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"epsim/sim"
)

// WriteTable writes the side-by-side text table of s: a header naming the scenario and seed,
// times rounded to the millisecond,
// then one block per phase and one for the total, each with a one-line headline and a row per
// figure (Endpoints, EndpointSlices and their ratio). The text is deterministic and fits an
// 80-column terminal.
func WriteTable(w io.Writer, s *Summary) error {
	tw := &errWriter{w: w}
	fmt.Fprintf(tw, "scenario %s, seed %d: %s, %s, %s\n",
		s.Scenario, s.Seed, plural(s.Nodes, "node"), watchersText(s, &s.Total), plural(len(s.Phases), "phase"))
	fmt.Fprintf(tw, "virtual time: last API write at %s, everything delivered by %s\n",
		FormatSeconds(s.LastWriteSeconds), FormatSeconds(max(s.Total.EndSeconds, s.EndTimeSeconds)))
	fmt.Fprintf(tw, "bytes in SI units (1 KB = 1000 B)")
	if len(s.Modes) == 2 {
		fmt.Fprintf(tw, "; ratio = Endpoints / EndpointSlices")
	}
	fmt.Fprintln(tw)
	for i := range s.Phases {
		p := &s.Phases[i]
		fmt.Fprintf(tw, "\nphase %d/%d: %s (%s → %s)", i+1, len(s.Phases), p.Name,
			FormatSeconds(p.StartSeconds), FormatSeconds(p.EndSeconds))
		if w := phaseWatchers(p, &s.Total); w != "" {
			fmt.Fprintf(tw, ", %s", w)
		}
		fmt.Fprintln(tw)
		writePhaseBlock(tw, p, s.Modes)
	}
	fmt.Fprintf(tw, "\ntotal (%s → %s)\n", FormatSeconds(s.Total.StartSeconds), FormatSeconds(s.Total.EndSeconds))
	writePhaseBlock(tw, &s.Total, s.Modes)
	if len(s.Services) > 1 {
		writeTopServices(tw, s, TopServices)
	}
	return tw.err
}

// watchersText says how many watchers the writes went to: the most per mode over the run,
// and the count at the end when it differs (nodes failed or drained).
func watchersText(s *Summary, total *PhaseSummary) string {
	e, es := modeWatchers(total)
	var text string
	switch {
	case max(e, es) <= 0:
		return counted(int64(s.Watchers), "watcher", "watchers") + " per mode"
	case e < 0 || es < 0 || e == es:
		text = counted(max(e, es), "watcher", "watchers") + " per write at most"
	default:
		text = fmt.Sprintf("watchers per write at most %s (Endpoints), %s (EndpointSlices)", formatCount(e), formatCount(es))
	}
	if int64(s.Watchers) != max(e, es) && max(e, es) > 0 {
		text += fmt.Sprintf(", %s at the end", formatCount(int64(s.Watchers)))
	}
	return text
}

// modeWatchers returns each mode's most watchers per write in p (-1: mode did not run).
func modeWatchers(p *PhaseSummary) (e, es int64) {
	e, es = -1, -1
	if p.Endpoints != nil {
		e = p.Endpoints.Watchers
	}
	if p.EndpointSlices != nil {
		es = p.EndpointSlices.Watchers
	}
	return e, es
}

// phaseWatchers names a phase's watchers when they differ from the run's most ("" if not).
func phaseWatchers(p, total *PhaseSummary) string {
	e, es := modeWatchers(p)
	te, tes := modeWatchers(total)
	if (e <= 0 || e == te) && (es <= 0 || es == tes) {
		return ""
	}
	if e < 0 || es <= 0 || e == es || e == 0 {
		return counted(max(e, es), "watcher", "watchers") + " per write"
	}
	return fmt.Sprintf("watchers per write %s/%s", formatCount(e), formatCount(es))
}

// TopServices is how many Services the table lists.
const TopServices = 10

// serviceBytes is what a Service fanned out in every mode that ran.
func serviceBytes(sv *ServiceSummary) int64 {
	var n int64
	for _, m := range AllModes {
		if ms := sv.Mode(m); ms != nil {
			n += ms.FanoutBytes
		}
	}
	return n
}

// TopServicesByBytes returns the n Services of s that fanned out the most bytes (both modes
// together), largest first; ties by namespace and name.
func TopServicesByBytes(s *Summary, n int) []*ServiceSummary {
	all := make([]*ServiceSummary, len(s.Services))
	for i := range s.Services {
		all[i] = &s.Services[i]
	}
	slices.SortStableFunc(all, func(a, b *ServiceSummary) int {
		if c := cmp.Compare(serviceBytes(b), serviceBytes(a)); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return all[:min(n, len(all))]
}

// writeTopServices writes the Services that fanned out the most bytes: per mode the bytes,
// writes and propagation p99, and the ratio of bytes.
func writeTopServices(w io.Writer, s *Summary, n int) {
	top := TopServicesByBytes(s, n)
	if len(top) < len(s.Services) {
		fmt.Fprintf(w, "\ntop %d of %s by bytes fanned out (whole run)\n", len(top), plural(len(s.Services), "Service"))
	} else {
		fmt.Fprintf(w, "\n%s by bytes fanned out (whole run)\n", plural(len(s.Services), "Service"))
	}
	cells := [][]string{{"Service"}}
	for _, m := range s.Modes {
		cells[0] = append(cells[0], modeTitle(m))
	}
	both := len(s.Modes) == 2
	if both {
		cells[0] = append(cells[0], "ratio")
	}
	cells[0] = append(cells[0], "writes", "largest object", "p99")
	for _, sv := range top {
		row := []string{sv.Namespace + "/" + sv.Name}
		var writes, objects, p99 []string
		for _, m := range s.Modes {
			ms := sv.Mode(m)
			row = append(row, FormatBytes(ms.FanoutBytes))
			writes = append(writes, formatCount(ms.Writes))
			objects = append(objects, FormatBytes(ms.MaxObjectBytes))
			p99 = append(p99, FormatSeconds(ms.PropagationP99Seconds))
		}
		if both {
			r, ok := ratio(sv.Endpoints.FanoutBytes, sv.EndpointSlices.FanoutBytes)
			row = append(row, FormatRatio(r, ok))
		}
		row = append(row, strings.Join(writes, "/"), strings.Join(objects, "/"), strings.Join(p99, "/"))
		cells = append(cells, row)
	}
	right := make([]bool, len(cells[0]))
	for i := 1; i < len(right); i++ {
		right[i] = true
	}
	writeColumns(w, cells, right)
	if both {
		fmt.Fprintln(w, "  (writes, largest object and p99: Endpoints/EndpointSlices)")
	}
}

// tableRow is one figure of a phase block.
type tableRow struct {
	label string
	// value formats the figure of one mode.
	value func(m *ModeSummary) string
	// ratio picks the figure's ratio; nil for rows without one.
	ratio func(r *RatioSummary) *float64
	// show decides whether the row is printed at all (nil: always).
	show func(p *PhaseSummary) bool
}

var tableRows = []tableRow{
	{"API writes", func(m *ModeSummary) string { return formatCount(m.Writes.Total) },
		func(r *RatioSummary) *float64 { return r.Writes }, nil},
	{"  create/update/delete", func(m *ModeSummary) string {
		return fmt.Sprintf("%s/%s/%s", formatCount(m.Writes.Create), formatCount(m.Writes.Update), formatCount(m.Writes.Delete))
	}, nil, nil},
	{"failed writes", func(m *ModeSummary) string { return formatCount(m.FailedWrites) }, nil, nil},
	{"etcd bytes", func(m *ModeSummary) string { return FormatBytes(m.EtcdBytes) },
		func(r *RatioSummary) *float64 { return r.EtcdBytes }, nil},
	{"watch events", func(m *ModeSummary) string { return formatCount(m.WatchEvents) },
		func(r *RatioSummary) *float64 { return r.WatchEvents }, nil},
	{"bytes fanned out", func(m *ModeSummary) string { return FormatBytes(m.FanoutBytes) },
		func(r *RatioSummary) *float64 { return r.FanoutBytes }, nil},
	{"bytes per node", func(m *ModeSummary) string { return FormatBytes(m.PerNodeBytes) },
		func(r *RatioSummary) *float64 { return r.PerNodeBytes }, nil},
	{"largest object", func(m *ModeSummary) string { return FormatBytes(m.MaxObjectBytes) },
		func(r *RatioSummary) *float64 { return r.MaxObjectBytes }, nil},
	{"peak apiserver egress", func(m *ModeSummary) string { return FormatRate(m.PeakEgressBytesPerSec) },
		func(r *RatioSummary) *float64 { return r.PeakEgressBytesPerSec }, nil},
	{"truncated objects", func(m *ModeSummary) string { return formatCount(m.TruncatedObjects) }, nil,
		func(p *PhaseSummary) bool {
			return anyMode(p, func(m *ModeSummary) bool { return m.TruncatedObjects != 0 })
		}},
	{"  max addresses left out", func(m *ModeSummary) string { return formatCount(m.HiddenAddresses) }, nil,
		func(p *PhaseSummary) bool {
			return anyMode(p, func(m *ModeSummary) bool { return m.HiddenAddresses != 0 })
		}},
	{"propagation p99", func(m *ModeSummary) string { return formatLatency(m.Propagation, m.Propagation.P99Seconds) }, nil,
		func(p *PhaseSummary) bool {
			return anyMode(p, func(m *ModeSummary) bool { return m.Propagation.P99Seconds != 0 })
		}},
	{"propagation max", func(m *ModeSummary) string { return formatLatency(m.Propagation, m.Propagation.MaxSeconds) }, nil,
		func(p *PhaseSummary) bool {
			return anyMode(p, func(m *ModeSummary) bool { return m.Propagation.MaxSeconds != 0 })
		}},
	{"  meets latency SLO", func(m *ModeSummary) string {
		switch {
		case m.WithinSLO == nil:
			return "-"
		case *m.WithinSLO && m.MaxWithinSLO != nil && !*m.MaxWithinSLO:
			return "p99 yes, max NO"
		case *m.WithinSLO:
			return "yes"
		}
		return "NO"
	}, nil, func(p *PhaseSummary) bool {
		return anyMode(p, func(m *ModeSummary) bool { return m.WithinSLO != nil })
	}},
	{"apiserver CPU (watch)", func(m *ModeSummary) string { return formatCPUSeconds(m.APIServerCPUSeconds) },
		func(r *RatioSummary) *float64 { return r.APIServerCPUSeconds },
		func(p *PhaseSummary) bool {
			return anyMode(p, func(m *ModeSummary) bool { return m.APIServerCPUSeconds != 0 })
		}},
	{"programming p99", func(m *ModeSummary) string { return formatLatency(m.Programming, m.Programming.P99Seconds) }, nil,
		func(p *PhaseSummary) bool {
			return anyMode(p, func(m *ModeSummary) bool { return m.Programming.Count != 0 })
		}},
	{"  programmed in SLO", func(m *ModeSummary) string {
		switch {
		case m.ProgrammingWithinSLO == nil:
			return "-"
		case *m.ProgrammingWithinSLO:
			return "yes"
		}
		return "NO"
	}, nil, func(p *PhaseSummary) bool {
		return anyMode(p, func(m *ModeSummary) bool { return m.ProgrammingWithinSLO != nil })
	}},
	{"kube-proxy CPU/node", func(m *ModeSummary) string { return formatCPUSeconds(m.KubeProxyCPUSeconds) },
		func(r *RatioSummary) *float64 { return r.KubeProxyCPUSeconds },
		func(p *PhaseSummary) bool {
			return anyMode(p, func(m *ModeSummary) bool { return m.KubeProxyCPUSeconds != 0 })
		}},
	{"  decoding", func(m *ModeSummary) string { return formatCPUSeconds(m.KubeProxyDecodeCPUSeconds) },
		func(r *RatioSummary) *float64 { return r.KubeProxyDecodeCPUSeconds },
		func(p *PhaseSummary) bool {
			return anyMode(p, func(m *ModeSummary) bool { return m.KubeProxyDecodeCPUSeconds != 0 })
		}},
	{"  syncs (full)", func(m *ModeSummary) string {
		return fmt.Sprintf("%s (%s)", formatCount(m.KubeProxySyncs), formatCount(m.KubeProxyFullSyncs))
	}, nil, func(p *PhaseSummary) bool {
		return anyMode(p, func(m *ModeSummary) bool { return m.KubeProxySyncs != 0 })
	}},
	{"  longest sync", func(m *ModeSummary) string {
		if m.KubeProxySyncs == 0 {
			return "-" // no sync to be the longest
		}
		return FormatSeconds(m.PeakSyncSeconds)
	}, nil,
		func(p *PhaseSummary) bool {
			return anyMode(p, func(m *ModeSummary) bool { return m.PeakSyncSeconds != 0 })
		}},
	{"slow watchers closed", func(m *ModeSummary) string { return formatCount(m.WatcherTerminations) }, nil,
		func(p *PhaseSummary) bool {
			return anyMode(p, func(m *ModeSummary) bool { return m.WatcherTerminations != 0 })
		}},
	{"watchers relisted", func(m *ModeSummary) string { return formatCount(m.Relists) }, nil,
		func(p *PhaseSummary) bool {
			return anyMode(p, func(m *ModeSummary) bool { return m.Relists != 0 })
		}},
	{"bytes sent again", func(m *ModeSummary) string { return FormatBytes(m.ResentBytes) }, nil,
		func(p *PhaseSummary) bool {
			return anyMode(p, func(m *ModeSummary) bool { return m.ResentBytes != 0 })
		}},
}

// formatLatency prints seconds, a figure of the latency distribution l, or "-" when l has
// no samples: 0s would read as changes that took no time.
func formatLatency(l LatencySummary, seconds float64) string {
	if l.Count == 0 {
		return "-"
	}
	return FormatSeconds(seconds)
}

// formatCPUSeconds prints CPU time: to the millisecond from a second up, to the microsecond
// below (decoding one slice takes a fraction of a millisecond).
func formatCPUSeconds(s float64) string {
	d := secondsDuration(s)
	if d < time.Second {
		return d.Round(time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// anyMode reports whether f holds for any mode of p that ran.
func anyMode(p *PhaseSummary, f func(m *ModeSummary) bool) bool {
	return (p.Endpoints != nil && f(p.Endpoints)) || (p.EndpointSlices != nil && f(p.EndpointSlices))
}

// modeTitle is a mode's column heading.
func modeTitle(m sim.Mode) string {
	if m == sim.ModeEndpoints {
		return "Endpoints"
	}
	return "EndpointSlices"
}

func writePhaseBlock(w io.Writer, p *PhaseSummary, modes []sim.Mode) {
	if h := Headline(p); h != "" {
		fmt.Fprintf(w, "  %s\n", h)
	}
	if p.PendingPods > 0 {
		fmt.Fprintf(w, "  %s\n", PendingNote(p))
	}
	labelWidth := 0
	for _, r := range tableRows {
		labelWidth = max(labelWidth, len(r.label))
	}
	both := p.Ratio != nil
	// Right-aligned columns with the gap inside each cell (padding 0), so the left-aligned
	// label column gets no extra padding; trailing blanks are trimmed afterwards.
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 0, ' ', tabwriter.AlignRight)
	const gap = "   "
	fmt.Fprintf(tw, "  %-*s\t", labelWidth, "")
	for _, m := range modes {
		fmt.Fprintf(tw, "%s%s\t", gap, modeTitle(m))
	}
	if both {
		fmt.Fprintf(tw, "%sratio\t", gap)
	}
	fmt.Fprintln(tw)
	for _, r := range tableRows {
		if r.show != nil && !r.show(p) {
			continue
		}
		fmt.Fprintf(tw, "  %-*s\t", labelWidth, r.label)
		for _, m := range modes {
			fmt.Fprintf(tw, "%s%s\t", gap, r.value(p.Mode(m)))
		}
		if both {
			cell := ""
			if r.ratio != nil {
				rv := r.ratio(p.Ratio)
				cell = FormatRatio(deref(rv), rv != nil)
			}
			fmt.Fprintf(tw, "%s%s\t", gap, cell)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	for line := range strings.Lines(buf.String()) {
		fmt.Fprintln(w, strings.TrimRight(line, " \n"))
	}
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

// PendingNote says how many pods p ended with Pending for want of a node, and that the
// figures leave them out ("" when none did).
func PendingNote(p *PhaseSummary) string {
	if p.PendingPods == 0 {
		return ""
	}
	at := "at the phase's end"
	if p.Name == "total" {
		at = "at the run's end"
	}
	return fmt.Sprintf("%s Pending %s: %s", counted(p.PendingPods, "pod", "pods"), at, pendingWhy)
}

// pendingWhy is why pods are Pending at a phase's end, and what it means for the figures:
// the table's note and the plan's podsPending limit say it alike.
const pendingWhy = "no node was ready with room (cluster.maxPodsPerNode); the figures cover the pods that ran"

// Headline is a one-line summary of a phase's fan-out ("Endpoints fan out 5.8 GB,
// EndpointSlices 76.0 MB (77×)"), or "" when nothing was fanned out. Failed writes are
// called out because they mean the Endpoints object outgrew the size limit.
func Headline(p *PhaseSummary) string {
	var parts []string
	e, s := p.Endpoints, p.EndpointSlices
	switch {
	case e != nil && s != nil:
		if e.FanoutBytes == 0 && s.FanoutBytes == 0 {
			break
		}
		h := fmt.Sprintf("Endpoints fan out %s, EndpointSlices %s", FormatBytes(e.FanoutBytes), FormatBytes(s.FanoutBytes))
		if r, ok := ratio(e.FanoutBytes, s.FanoutBytes); ok {
			h += " (" + FormatRatio(r, true) + ")"
		}
		parts = append(parts, h)
	case e != nil && e.FanoutBytes != 0:
		parts = append(parts, "Endpoints fan out "+FormatBytes(e.FanoutBytes))
	case s != nil && s.FanoutBytes != 0:
		parts = append(parts, "EndpointSlices fan out "+FormatBytes(s.FanoutBytes))
	}
	for _, m := range AllModes {
		if ms := p.Mode(m); ms != nil && ms.FailedWrites != 0 {
			parts = append(parts, counted(ms.FailedWrites, modeTitle(m)+" write failed", modeTitle(m)+" writes failed"))
		}
	}
	return strings.Join(parts, "; ")
}

// plural formats n with noun, adding an s unless n is 1.
func plural(n int, noun string) string { return counted(int64(n), noun, noun+"s") }

// counted formats n, with thousands separators, followed by one when n is 1 and by many
// otherwise ("1 node", "5,000 nodes"): a scenario may well have one node, one watcher or one
// worker, and "1 nodes" reads as a bug.
func counted(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return formatCount(n) + " " + many
}

// formatCount formats n with thousands separators ("1,234,567").
func formatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// errWriter remembers the first write error so renderers can check once at the end.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
