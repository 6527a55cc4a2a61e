package reports

import (
	"epsim/internal/suggest"
	"fmt"
	"slices"
	"strings"
)

// FigureKind says what a figure measures, for formatting.
type FigureKind string

// Figure kinds.
const (
	KindCount   FigureKind = "count"
	KindBytes   FigureKind = "bytes"
	KindSeconds FigureKind = "seconds"
	KindRatio   FigureKind = "ratio"
)

// Figure is one named number of a summary: Name is "<phase|total>.<mode>.<figure>" with the
// figure's summary.json field path (nested fields joined with dots, like writes.update).
type Figure struct {
	Name  string
	Kind  FigureKind
	Value float64
}

// modeFigure reads one figure of a ModeSummary.
type modeFigure struct {
	name string
	kind FigureKind
	get  func(m *ModeSummary) float64
}

// modeFigures are the figures of one mode, in summary.json order.
var modeFigures = []modeFigure{
	{"writes.create", KindCount, func(m *ModeSummary) float64 { return float64(m.Writes.Create) }},
	{"writes.update", KindCount, func(m *ModeSummary) float64 { return float64(m.Writes.Update) }},
	{"writes.delete", KindCount, func(m *ModeSummary) float64 { return float64(m.Writes.Delete) }},
	{"writes.total", KindCount, func(m *ModeSummary) float64 { return float64(m.Writes.Total) }},
	{"noopWrites", KindCount, func(m *ModeSummary) float64 { return float64(m.NoopWrites) }},
	{"failedWrites", KindCount, func(m *ModeSummary) float64 { return float64(m.FailedWrites) }},
	{"conflicts", KindCount, func(m *ModeSummary) float64 { return float64(m.Conflicts) }},
	{"syncs", KindCount, func(m *ModeSummary) float64 { return float64(m.Syncs) }},
	{"staleSyncs", KindCount, func(m *ModeSummary) float64 { return float64(m.StaleSyncs) }},
	{"objects", KindCount, func(m *ModeSummary) float64 { return float64(m.Objects) }},
	{"etcdBytes", KindBytes, func(m *ModeSummary) float64 { return float64(m.EtcdBytes) }},
	{"requestBytes", KindBytes, func(m *ModeSummary) float64 { return float64(m.RequestBytes) }},
	{"watchEvents", KindCount, func(m *ModeSummary) float64 { return float64(m.WatchEvents) }},
	{"fanoutBytes", KindBytes, func(m *ModeSummary) float64 { return float64(m.FanoutBytes) }},
	{"perNodeBytes", KindBytes, func(m *ModeSummary) float64 { return float64(m.PerNodeBytes) }},
	{"maxObjectBytes", KindBytes, func(m *ModeSummary) float64 { return float64(m.MaxObjectBytes) }},
	{"peakEgressBytesPerSec", KindBytes, func(m *ModeSummary) float64 { return float64(m.PeakEgressBytesPerSec) }},
	{"truncatedObjects", KindCount, func(m *ModeSummary) float64 { return float64(m.TruncatedObjects) }},
	{"hiddenAddresses", KindCount, func(m *ModeSummary) float64 { return float64(m.HiddenAddresses) }},
	{"propagation.count", KindCount, func(m *ModeSummary) float64 { return float64(m.Propagation.Count) }},
	{"propagation.p50Seconds", KindSeconds, func(m *ModeSummary) float64 { return m.Propagation.P50Seconds }},
	{"propagation.p90Seconds", KindSeconds, func(m *ModeSummary) float64 { return m.Propagation.P90Seconds }},
	{"propagation.p99Seconds", KindSeconds, func(m *ModeSummary) float64 { return m.Propagation.P99Seconds }},
	{"propagation.maxSeconds", KindSeconds, func(m *ModeSummary) float64 { return m.Propagation.MaxSeconds }},
	{"watcherTerminations", KindCount, func(m *ModeSummary) float64 { return float64(m.WatcherTerminations) }},
	{"relists", KindCount, func(m *ModeSummary) float64 { return float64(m.Relists) }},
	{"resentBytes", KindBytes, func(m *ModeSummary) float64 { return float64(m.ResentBytes) }},
	{"programming.count", KindCount, func(m *ModeSummary) float64 { return float64(m.Programming.Count) }},
	{"programming.p50Seconds", KindSeconds, func(m *ModeSummary) float64 { return m.Programming.P50Seconds }},
	{"programming.p90Seconds", KindSeconds, func(m *ModeSummary) float64 { return m.Programming.P90Seconds }},
	{"programming.p99Seconds", KindSeconds, func(m *ModeSummary) float64 { return m.Programming.P99Seconds }},
	{"programming.maxSeconds", KindSeconds, func(m *ModeSummary) float64 { return m.Programming.MaxSeconds }},
	{"kubeProxyCPUSeconds", KindSeconds, func(m *ModeSummary) float64 { return m.KubeProxyCPUSeconds }},
	{"kubeProxyDecodeCPUSeconds", KindSeconds, func(m *ModeSummary) float64 { return m.KubeProxyDecodeCPUSeconds }},
	{"kubeProxySyncs", KindCount, func(m *ModeSummary) float64 { return float64(m.KubeProxySyncs) }},
	{"kubeProxyFullSyncs", KindCount, func(m *ModeSummary) float64 { return float64(m.KubeProxyFullSyncs) }},
	{"peakSyncSeconds", KindSeconds, func(m *ModeSummary) float64 { return m.PeakSyncSeconds }},
	{"kubeProxyBusyFraction", KindCount, func(m *ModeSummary) float64 { return m.KubeProxyBusyFraction }},
	{"apiserverCPUSeconds", KindSeconds, func(m *ModeSummary) float64 { return m.APIServerCPUSeconds }},
}

// ratioFigures are the figures of RatioSummary, in summary.json order; nil when undefined.
var ratioFigures = []struct {
	name string
	get  func(r *RatioSummary) *float64
}{
	{"writes", func(r *RatioSummary) *float64 { return r.Writes }},
	{"etcdBytes", func(r *RatioSummary) *float64 { return r.EtcdBytes }},
	{"watchEvents", func(r *RatioSummary) *float64 { return r.WatchEvents }},
	{"fanoutBytes", func(r *RatioSummary) *float64 { return r.FanoutBytes }},
	{"perNodeBytes", func(r *RatioSummary) *float64 { return r.PerNodeBytes }},
	{"maxObjectBytes", func(r *RatioSummary) *float64 { return r.MaxObjectBytes }},
	{"peakEgressBytesPerSec", func(r *RatioSummary) *float64 { return r.PeakEgressBytesPerSec }},
	{"kubeProxyCPUSeconds", func(r *RatioSummary) *float64 { return r.KubeProxyCPUSeconds }},
	{"kubeProxyDecodeCPUSeconds", func(r *RatioSummary) *float64 { return r.KubeProxyDecodeCPUSeconds }},
	{"apiserverCPUSeconds", func(r *RatioSummary) *float64 { return r.APIServerCPUSeconds }},
}

// ModeFigures returns the figure names of the endpoints and endpointslices modes, in
// summary.json order.
func ModeFigures() []string {
	names := make([]string, len(modeFigures))
	for i, f := range modeFigures {
		names[i] = f.name
	}
	return names
}

// RatioFigures returns the figure names of the ratio mode, in summary.json order.
func RatioFigures() []string {
	names := make([]string, len(ratioFigures))
	for i, f := range ratioFigures {
		names[i] = f.name
	}
	return names
}

// figureModes are the middle part of a figure name.
var figureModes = []string{"endpoints", "endpointslices", "ratio"}

// SummaryFigures flattens s into its figures: each phase in timeline order, then the total;
// within one, endpoints, endpointslices and ratio (when present), each in summary.json order.
// A ratio that summary.json leaves out (EndpointSlices figure zero) is left out here too.
func SummaryFigures(s *Summary) []Figure {
	var out []Figure
	for i := range s.Phases {
		out = appendPhaseFigures(out, s.Phases[i].Name, &s.Phases[i])
	}
	return appendPhaseFigures(out, "total", &s.Total)
}

func appendPhaseFigures(out []Figure, prefix string, p *PhaseSummary) []Figure {
	for _, m := range []struct {
		name string
		ms   *ModeSummary
	}{{"endpoints", p.Endpoints}, {"endpointslices", p.EndpointSlices}} {
		if m.ms == nil {
			continue
		}
		for _, f := range modeFigures {
			out = append(out, Figure{Name: prefix + "." + m.name + "." + f.name, Kind: f.kind, Value: f.get(m.ms)})
		}
	}
	if p.Ratio != nil {
		for _, f := range ratioFigures {
			if v := f.get(p.Ratio); v != nil {
				out = append(out, Figure{Name: prefix + ".ratio." + f.name, Kind: KindRatio, Value: *v})
			}
		}
	}
	return out
}

// FigureKindOf returns the kind of a figure name's mode and figure parts, and whether the
// mode and figure are known (the phase is not checked: it depends on the scenario).
func FigureKindOf(name string) (FigureKind, bool) {
	_, mode, figure, ok := splitFigureName(name)
	if !ok {
		return "", false
	}
	switch mode {
	case "ratio":
		for _, f := range ratioFigures {
			if f.name == figure {
				return KindRatio, true
			}
		}
	case "endpoints", "endpointslices":
		for _, f := range modeFigures {
			if f.name == figure {
				return f.kind, true
			}
		}
	}
	return "", false
}

// splitFigureName splits "phase.mode.figure"; phase names have no dots, so the figure is
// everything after the second dot.
func splitFigureName(name string) (phase, mode, figure string, ok bool) {
	parts := strings.SplitN(name, ".", 3)
	if len(parts) != 3 || parts[0] == "" || parts[2] == "" {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

// CheckFigureName returns nil when name is a well-formed figure name with a known mode and
// figure, and otherwise an error naming the closest valid names.
func CheckFigureName(name string) error {
	if _, ok := FigureKindOf(name); ok {
		return nil
	}
	phase, mode, _, ok := splitFigureName(name)
	if !ok {
		return fmt.Errorf("figure %q: want <phase|total>.<endpoints|endpointslices|ratio>.<figure>, like total.endpointslices.fanoutBytes", name)
	}
	var valid []string
	for _, m := range figureModes {
		names := ModeFigures()
		if m == "ratio" {
			names = RatioFigures()
		}
		for _, f := range names {
			valid = append(valid, phase+"."+m+"."+f)
		}
	}
	msg := fmt.Sprintf("unknown figure %q", name)
	if !slices.Contains(figureModes, mode) {
		msg = fmt.Sprintf("unknown figure %q (mode %q: want endpoints, endpointslices or ratio)", name, mode)
	} else if mode == "ratio" {
		msg = fmt.Sprintf("unknown figure %q (ratios exist for %s)", name, strings.Join(RatioFigures(), ", "))
	}
	if close := suggest.Closest(name, valid, 3, max(2, len(name)/4)); len(close) > 0 {
		msg += "; did you mean " + quoteJoin(close) + "?"
	}
	return fmt.Errorf("%s", msg)
}

func quoteJoin(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, " or ")
}
