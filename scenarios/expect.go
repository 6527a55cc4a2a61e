package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Expect is a scenario's `expect:` budgets, in file order. `sim check` compares them with a
// run's results; the loader only checks their shape: each key is "phase.mode.figure", the
// phase is a timeline action's name or "total", the mode and figure are known, and the
// quantities have the figure's kind.
type Expect []Budget

// Budget bounds one figure of one phase and mode. At least one of Max and Min is set.
type Budget struct {
	// Key is the key as written, "phase.mode.figure".
	Key    string
	Phase  string
	Mode   string
	Figure string
	Max    *Quantity
	Min    *Quantity
	// Line and Column locate the key in the scenario file (0 when it came from --set).
	Line, Column int
}

// QuantityKind says what a quantity measures.
type QuantityKind string

// Quantity kinds: plain numbers (counts, ratios), byte sizes and durations.
const (
	KindNumber   QuantityKind = "number"
	KindBytes    QuantityKind = "bytes"
	KindDuration QuantityKind = "duration"
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
	case KindBytes:
		return float64(q.Bytes)
	case KindDuration:
		return q.Duration.Seconds()
	}
	return q.Number
}

// ExpectModes are the modes a budget may name; "ratio" is endpoints ÷ endpointslices.
var ExpectModes = []string{"endpoints", "endpointslices", "ratio"}

// ExpectFigures maps each figure a budget may name to its kind. The names follow the
// summary.json contract (DESIGN.md "Results contract"); propagation percentiles are
// durations.
var ExpectFigures = map[string]QuantityKind{
	"writes":                KindNumber,
	"creates":               KindNumber,
	"updates":               KindNumber,
	"deletes":               KindNumber,
	"noopWrites":            KindNumber,
	"failedWrites":          KindNumber,
	"syncs":                 KindNumber,
	"objects":               KindNumber,
	"watchEvents":           KindNumber,
	"truncatedObjects":      KindNumber,
	"etcdBytes":             KindBytes,
	"requestBytes":          KindBytes,
	"fanoutBytes":           KindBytes,
	"perNodeBytes":          KindBytes,
	"maxObjectBytes":        KindBytes,
	"peakEgressBytesPerSec": KindBytes,
	"propagationP50":        KindDuration,
	"propagationP90":        KindDuration,
	"propagationP99":        KindDuration,
	"propagationMax":        KindDuration,
}

// figureNames returns the figure names, sorted.
func figureNames() []string {
	names := make([]string, 0, len(ExpectFigures))
	for k := range ExpectFigures {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
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
		parts := strings.Split(k.Value, ".")
		if len(parts) != 3 {
			d.errorf(k, p, `key must be "phase.mode.figure" (like rolling-update.endpointslices.fanoutBytes)`)
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
		kind, known := ExpectFigures[b.Figure]
		if !known {
			d.errorf(k, p, "%s", notOneOf("figure", b.Figure, figureNames()))
			ok = false
		}
		if b.Mode == "ratio" {
			kind = KindNumber
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
	if s := suggest(got, allowed); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return msg + "; allowed: " + strings.Join(allowed, ", ")
}

// quantity reads a bound of the given kind. Byte figures take sizes ("5GB", 5000000000);
// durations take "30s"; numbers take any non-negative number.
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
	case KindDuration:
		v, ok := d.duration(s, path)
		q.Duration = v
		return q, ok
	}
	v, ok := d.number(s, path, 0, 1e18)
	q.Number = v
	return q, ok
}
