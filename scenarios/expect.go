package scenarios

import (
	"epsim/internal/suggest"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Expect is a scenario's `expect:` budgets, in file order. `sim check` compares them with a
// run's results; the loader only checks their shape: each key is "phase.mode.figure", the
// phase is a timeline action's name or "total", the mode is known, the figure is one that
// mode has in summary.json (nested ones written with dots, like writes.update or
// propagation.p99Seconds), and the quantities have the figure's kind.
type Expect []Budget

// Budget bounds one figure of one phase and mode. At least one of Max and Min is set.
type Budget struct {
	// Key is the key as written, "phase.mode.figure".
	Key   string
	Phase string
	Mode  string
	// Figure is the figure's summary.json name (an alias as written is resolved: "creates"
	// becomes "writes.create").
	Figure string
	Max    *Quantity
	Min    *Quantity
	// Line and Column locate the key in the scenario file (0 when it came from --set).
	Line, Column int
}

// Name returns the budget's figure as summary.json addresses it: "phase.mode.figure" with
// the figure's canonical name.
func (b Budget) Name() string { return b.Phase + "." + b.Mode + "." + b.Figure }

// QuantityKind says what a quantity measures.
type QuantityKind string

// Quantity kinds: plain numbers (counts, ratios), byte sizes, byte rates and durations.
const (
	KindNumber   QuantityKind = "number"
	KindBytes    QuantityKind = "bytes"
	KindDuration QuantityKind = "duration"
	// KindRate is bytes per second: a rate ("10Gbit", "1.25GB/s", as the scenario's
	// bandwidths), or a byte size or integer read as bytes per second ("1GB").
	KindRate QuantityKind = "rate"
)

// Quantity is one bound. Bytes hold a byte size ("5GB" → 5e9), Duration a duration, Number
// anything else; Value is the quantity as a float64 in base units (bytes, seconds, count).
type Quantity struct {
	Kind     QuantityKind
	Number   float64
	Bytes    int64
	Duration time.Duration
	// Text is the value as written.
	Text string
}

// Value returns the quantity in base units: a count, bytes, or seconds.
func (q Quantity) Value() float64 {
	switch q.Kind {
	case KindBytes, KindRate:
		return float64(q.Bytes)
	case KindDuration:
		return q.Duration.Seconds()
	}
	return q.Number
}

// ExpectModes are the modes a budget may name; "ratio" is endpoints ÷ endpointslices.
var ExpectModes = []string{"endpoints", "endpointslices", "ratio"}

// ExpectFigures maps each figure of the endpoints and endpointslices modes to its kind. The
// names are the summary.json field paths of a mode (DESIGN.md "Results contract"; README
// "summary.json"), nested fields joined with dots. Propagation quantiles are durations (the
// figure is in seconds). reports.ModeFigures lists the same names; a test keeps them equal.
var ExpectFigures = map[string]QuantityKind{
	"writes.create":             KindNumber,
	"writes.update":             KindNumber,
	"writes.delete":             KindNumber,
	"writes.total":              KindNumber,
	"noopWrites":                KindNumber,
	"failedWrites":              KindNumber,
	"conflicts":                 KindNumber,
	"syncs":                     KindNumber,
	"staleSyncs":                KindNumber,
	"objects":                   KindNumber,
	"etcdBytes":                 KindBytes,
	"requestBytes":              KindBytes,
	"watchEvents":               KindNumber,
	"fanoutBytes":               KindBytes,
	"perNodeBytes":              KindBytes,
	"maxObjectBytes":            KindBytes,
	"peakEgressBytesPerSec":     KindRate,
	"truncatedObjects":          KindNumber,
	"hiddenAddresses":           KindNumber,
	"propagation.count":         KindNumber,
	"propagation.p50Seconds":    KindDuration,
	"propagation.p90Seconds":    KindDuration,
	"propagation.p99Seconds":    KindDuration,
	"propagation.maxSeconds":    KindDuration,
	"watcherTerminations":       KindNumber,
	"relists":                   KindNumber,
	"resentBytes":               KindBytes,
	"programming.count":         KindNumber,
	"programming.p50Seconds":    KindDuration,
	"programming.p90Seconds":    KindDuration,
	"programming.p99Seconds":    KindDuration,
	"programming.maxSeconds":    KindDuration,
	"kubeProxyCPUSeconds":       KindDuration,
	"kubeProxyDecodeCPUSeconds": KindDuration,
	"kubeProxySyncs":            KindNumber,
	"kubeProxyFullSyncs":        KindNumber,
	"peakSyncSeconds":           KindDuration,
	"kubeProxyBusyFraction":     KindNumber,
	"apiserverCPUSeconds":       KindDuration,
}

// ExpectRatioFigures are the figures of the ratio mode (summary.json "ratio"), in
// summary.json order. Ratios are plain numbers.
var ExpectRatioFigures = []string{"writes", "etcdBytes", "watchEvents", "fanoutBytes", "perNodeBytes", "maxObjectBytes", "peakEgressBytesPerSec", "kubeProxyCPUSeconds", "kubeProxyDecodeCPUSeconds", "apiserverCPUSeconds"}

// figureAliases are other names a budget may use for a mode figure: the short names of the
// first loader and summary.json's duration-string quantiles. They resolve to ExpectFigures
// names.
var figureAliases = map[string]string{
	"writes":          "writes.total",
	"creates":         "writes.create",
	"updates":         "writes.update",
	"deletes":         "writes.delete",
	"propagationP50":  "propagation.p50Seconds",
	"propagationP90":  "propagation.p90Seconds",
	"propagationP99":  "propagation.p99Seconds",
	"propagationMax":  "propagation.maxSeconds",
	"propagation.p50": "propagation.p50Seconds",
	"propagation.p90": "propagation.p90Seconds",
	"propagation.p99": "propagation.p99Seconds",
	"propagation.max": "propagation.maxSeconds",
	"programmingP50":  "programming.p50Seconds",
	"programmingP90":  "programming.p90Seconds",
	"programmingP99":  "programming.p99Seconds",
	"programmingMax":  "programming.maxSeconds",
	"programming.p50": "programming.p50Seconds",
	"programming.p90": "programming.p90Seconds",
	"programming.p99": "programming.p99Seconds",
	"programming.max": "programming.maxSeconds",
}

// CanonicalFigure resolves figure, a figure name of mode as a budget may write it, to its
// summary.json name and kind. ok is false for an unknown mode or figure.
func CanonicalFigure(mode, figure string) (name string, kind QuantityKind, ok bool) {
	switch mode {
	case "ratio":
		if slices.Contains(ExpectRatioFigures, figure) {
			return figure, KindNumber, true
		}
		return "", "", false
	case "endpoints", "endpointslices":
		if a, has := figureAliases[figure]; has {
			figure = a
		}
		kind, ok = ExpectFigures[figure]
		if !ok {
			return "", "", false
		}
		return figure, kind, true
	}
	return "", "", false
}

// FigureNames returns the summary.json names of mode's figures, sorted ("ratio" has its
// own); nil for an unknown mode.
func FigureNames(mode string) []string {
	switch mode {
	case "ratio":
		names := slices.Clone(ExpectRatioFigures)
		slices.Sort(names)
		return names
	case "endpoints", "endpointslices":
		names := make([]string, 0, len(ExpectFigures))
		for k := range ExpectFigures {
			names = append(names, k)
		}
		slices.Sort(names)
		return names
	}
	return nil
}

// ClosestNames returns up to n of allowed closest to got by edit distance (case-insensitive),
// the nearest ones only (ties in allowed's order); names too far from got to be a typo are
// left out.
func ClosestNames(got string, allowed []string, n int) []string {
	return suggest.Closest(got, allowed, n, max(2, len(got)/3))
}

// expect decodes the expect: mapping. phases are the timeline's action names.
func (d *decoder) expect(n *yaml.Node, path string, phases []string) Expect {
	n = d.resolve(n, path)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, `expected a mapping of "phase.mode.figure": {max: …, min: …}, got %s`, describe(n))
		return nil
	}
	var out Expect
	seen := map[string]int{}
	allowedPhases := append(slices.Clone(phases), "total")
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := d.resolve(n.Content[i], path)
		if k == nil {
			return out
		}
		if k.Kind != yaml.ScalarNode || isNull(k) {
			d.errorf(k, path, `keys must be "phase.mode.figure" strings, got %s`, describe(k))
			continue
		}
		p := fmt.Sprintf("%s[%q]", path, k.Value)
		if line, dup := seen[k.Value]; dup {
			d.errorf(k, p, "duplicate budget (first at line %d)", line)
			continue
		}
		seen[k.Value] = k.Line
		// Phase names have no dots (timeline.go), so the first two dots end the phase and
		// the mode; the rest is the figure, which may be nested (writes.update).
		parts := strings.SplitN(k.Value, ".", 3)
		if len(parts) != 3 || parts[2] == "" {
			msg := `key must be "phase.mode.figure" (like rolling-update.endpointslices.fanoutBytes)`
			if _, fromSet := d.setOf[k]; fromSet {
				msg += "; with --set, bound one as expect.PHASE.MODE.FIGURE.max=VALUE (or .min), like expect.total.endpointslices.fanoutBytes.max=2TB"
			}
			d.errorf(k, p, "%s", msg)
			continue
		}
		b := Budget{Key: k.Value, Phase: parts[0], Mode: parts[1], Figure: parts[2]}
		if _, ok := d.setOf[k]; !ok {
			b.Line, b.Column = k.Line, k.Column
		}
		ok := true
		if !slices.Contains(allowedPhases, b.Phase) {
			d.errorf(k, p, "%s", notOneOf("phase", b.Phase, allowedPhases))
			ok = false
		}
		if !slices.Contains(ExpectModes, b.Mode) {
			d.errorf(k, p, "%s", notOneOf("mode", b.Mode, ExpectModes))
			ok = false
		}
		// With an unknown mode, the figure is still checked (as a mode figure, or failing
		// that a ratio one) so that every problem of the key is reported at once.
		figureMode := b.Mode
		if !slices.Contains(ExpectModes, b.Mode) {
			figureMode = "endpoints"
			if _, _, isMode := CanonicalFigure("endpoints", b.Figure); !isMode {
				if _, _, isRatio := CanonicalFigure("ratio", b.Figure); isRatio {
					figureMode = "ratio"
				}
			}
		}
		name, kind, known := CanonicalFigure(figureMode, b.Figure)
		if !known {
			what := "figure"
			if figureMode == "ratio" {
				what = "ratio figure"
			}
			d.errorf(k, p, "%s", notOneOf(what, b.Figure, FigureNames(figureMode)))
			kind = KindNumber
			ok = false
		} else {
			b.Figure = name
		}
		f, fok := d.fields(n.Content[i+1], p, []string{"max", "min"})
		if !fok {
			continue
		}
		if len(f) == 0 {
			d.errorf(k, p, "a budget needs max, min or both")
			continue
		}
		if e, has := f["max"]; has {
			q, qok := d.quantity(e.val, join(p, "max"), kind)
			ok = ok && qok
			b.Max = &q
		}
		if e, has := f["min"]; has {
			q, qok := d.quantity(e.val, join(p, "min"), kind)
			ok = ok && qok
			b.Min = &q
		}
		if ok && b.Max != nil && b.Min != nil && b.Min.Value() > b.Max.Value() {
			d.errorf(f["min"].val, join(p, "min"), "min %s is above max %s", b.Min.Text, b.Max.Text)
			ok = false
		}
		if ok {
			out = append(out, b)
		}
	}
	return out
}

// notOneOf is the message for a name that is not among allowed.
func notOneOf(what, got string, allowed []string) string {
	msg := fmt.Sprintf("unknown %s %q", what, got)
	if s := suggestName(got, allowed); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return msg + "; allowed: " + strings.Join(allowed, ", ")
}

// quantity reads a bound of the given kind. Byte figures take sizes ("5GB", 5000000000);
// rates those or bandwidths ("10Gbit", "1.25GB/s"); durations take "30s" or a number of
// seconds; numbers take any non-negative number.
func (d *decoder) quantity(n *yaml.Node, path string, kind QuantityKind) (Quantity, bool) {
	s, ok := d.scalar(n, path, "a number")
	if !ok {
		return Quantity{}, false
	}
	q := Quantity{Kind: kind, Text: s.Value}
	switch kind {
	case KindBytes:
		v, ok := d.byteSize(s, path, 0, 1<<62)
		q.Bytes = v
		return q, ok
	case KindRate:
		if s.ShortTag() == "!!str" {
			if _, err := ParseBytes(s.Value); err != nil {
				bits, err := ParseBandwidth(s.Value)
				if err != nil || strings.TrimSpace(s.Value) == "unlimited" {
					d.errorf(s, path, "invalid rate %q (bytes per second: a rate like 10Gbit, 1Gbps, 1.25GB/s, or a byte size like 1GB)", s.Value)
					return q, false
				}
				q.Bytes = int64(math.Round(bits / 8))
				return q, true
			}
		}
		v, ok := d.byteSize(s, path, 0, 1<<62)
		q.Bytes = v
		return q, ok
	case KindDuration:
		if tag := s.ShortTag(); tag == "!!int" || tag == "!!float" {
			// A bare number is seconds, as the figure's name (p99Seconds) says.
			v, ok := d.number(s, path, 0, maxLongDuration.Seconds())
			q.Duration = time.Duration(math.Round(v * 1e9))
			return q, ok
		}
		v, ok := d.duration(s, path)
		q.Duration = v
		return q, ok
	}
	v, ok := d.number(s, path, 0, 1e18)
	q.Number = v
	return q, ok
}
