package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"slices"
	"strings"

	"epsim/internal/jsonkind"
)

// BaselineVersion is the version of the baseline file format WriteBaselineJSON writes.
const BaselineVersion = 1

// Baseline is a file of figures from an earlier run that `sim check` compares a new run
// with. It holds every endpoints and endpointslices figure of every phase and the total, by
// the names SummaryFigures gives them. Ratios are left out: they follow from the two modes'
// figures, which are already compared; bound them with budgets instead.
type Baseline struct {
	Version  int    `json:"version"`
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	// Gates, when set, names the figures the baseline gates: glob patterns over figure
	// names (as path.Match: * matches within and across dots), or figure kinds (count,
	// bytes, seconds). A figure no gate matches is still compared and shown, but never fails
	// the check. Empty gates every figure. --update-baseline keeps a baseline's gates.
	Gates []string `json:"gates,omitempty"`
	// Figures maps a figure name to its value (bytes and counts are exact integers).
	Figures map[string]float64 `json:"figures"`
	// Settings are the inputs the figures came from: each setting of the run's effective
	// scenario (every field, defaults and overrides applied), by its path as --set takes it.
	// A check whose scenario has other settings says which (ScenarioCheck.Inputs). Baselines
	// written before sim kept them have none.
	Settings map[string]string `json:"settings,omitempty"`
}

// NewBaseline returns the baseline of s.
func NewBaseline(s *Summary) *Baseline {
	b := &Baseline{Version: BaselineVersion, Scenario: s.Scenario, Seed: s.Seed, Figures: map[string]float64{}}
	for _, f := range SummaryFigures(s) {
		if f.Kind != KindRatio {
			b.Figures[f.Name] = f.Value
		}
	}
	return b
}

// WriteBaselineJSON writes b as indented JSON, figures sorted by name, with a trailing
// newline: the same baseline always gives the same bytes.
func WriteBaselineJSON(w io.Writer, b *Baseline) error {
	return writeIndentedJSON(w, b, "baseline")
}

// ReadBaselineJSON decodes and validates a baseline. Errors say where the JSON is broken
// (line:column), or which field or figure name is wrong, with the closest valid names.
func ReadBaselineJSON(r io.Reader) (*Baseline, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var b Baseline
	if err := dec.Decode(&b); err != nil {
		return nil, jsonError(data, err)
	}
	if dec.More() {
		return nil, errors.New("not a baseline: data after the JSON object")
	}
	var errs []error
	switch {
	case b.Version == 0:
		errs = append(errs, fmt.Errorf(`no "version" (want %d)`, BaselineVersion))
	case b.Version != BaselineVersion:
		errs = append(errs, fmt.Errorf("version %d: want %d", b.Version, BaselineVersion))
	}
	if b.Scenario == "" {
		errs = append(errs, errors.New(`no "scenario"`))
	}
	switch {
	case b.Figures == nil:
		errs = append(errs, errors.New(`no "figures"`))
	case len(b.Figures) == 0:
		errs = append(errs, errors.New(`"figures" is empty: a baseline has a figure or more`))
	}
	for _, g := range b.Gates {
		if err := CheckFigurePattern(g); err != nil {
			errs = append(errs, fmt.Errorf("gates: %w", err))
		}
	}
	names := make([]string, 0, len(b.Figures))
	for name := range b.Figures {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := CheckFigureName(name); err != nil {
			errs = append(errs, err)
			continue
		}
		if kind, _ := FigureKindOf(name); kind == KindRatio {
			errs = append(errs, fmt.Errorf("figure %q: ratios are not baselined (they follow from the two modes' figures); bound them with an expect: budget", name))
		}
		if v := b.Figures[name]; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			errs = append(errs, fmt.Errorf("figure %q: %v is not a non-negative number", name, v))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &b, nil
}

// jsonError turns a baseline's decoding error into one that says where the JSON went
// wrong; the summary.json of a run given as a baseline is named as such.
func jsonError(data []byte, err error) error {
	if strings.HasPrefix(err.Error(), "json: unknown field ") && hasKeys(data, "modes", "phases") {
		return errors.New("the summary.json of a run, not a baseline: write a baseline with 'sim check SCENARIO --baseline FILE --update-baseline'")
	}
	return describeJSONError(data, err, "a baseline")
}

// describeJSONError turns a decoding error of data into one that says where the JSON went
// wrong and, for a value of the wrong JSON kind, what the file (what: "a baseline") has
// there instead, in the words of JSON rather than Go's types.
func describeJSONError(data []byte, err error, what string) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		off = se.Offset - 1 // Offset counts the offending byte
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.ErrUnexpectedEOF):
		off = int64(len(data))
	}
	if off < 0 {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("not %s: empty file", what)
		}
		return fmt.Errorf("not %s: %w", what, err)
	}
	line, col := 1, 1
	for _, c := range data[:max(0, min(int(off), len(data)))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	if te != nil {
		// Say what the JSON has and what the file wants there, not Go's types.
		where := "the file"
		if te.Field != "" {
			where = fmt.Sprintf("field %q", te.Field)
		}
		return fmt.Errorf("%d:%d: not %s: %s is a JSON %s, where %s has %s", line, col, what, where, te.Value, what, jsonkind.Of(te.Type))
	}
	if se != nil {
		// "invalid character 'x' looking for beginning of value": the character is what
		// the reader can act on; the decoder's state is not.
		msg := se.Error()
		if i := strings.Index(msg, "' "); strings.HasPrefix(msg, "invalid character ") && i > 0 {
			msg = msg[:i+1] + " (not JSON)"
		}
		return fmt.Errorf("%d:%d: not %s: %s", line, col, what, msg)
	}
	return fmt.Errorf("%d:%d: not %s: %w", line, col, what, err)
}

// hasKeys says whether data is a JSON object with every one of keys at its top level.
func hasKeys(data []byte, keys ...string) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return false
	}
	for _, k := range keys {
		if _, ok := top[k]; !ok {
			return false
		}
	}
	return true
}

// Verdict is the outcome of checking one figure.
type Verdict string

// Verdicts. Regression, Broken and Missing always fail; Improvement and New fail only when
// CheckOptions.Strict is set.
const (
	// VerdictOK: within the budget, or within the tolerance of the baseline.
	VerdictOK Verdict = "ok"
	// VerdictRegression: grew past the tolerance of the baseline.
	VerdictRegression Verdict = "regression"
	// VerdictBroken: outside a budget's max or min.
	VerdictBroken Verdict = "broken"
	// VerdictMissing: expected (by a budget or the baseline) but absent from the run.
	VerdictMissing Verdict = "missing"
	// VerdictImprovement: shrank past the tolerance of the baseline.
	VerdictImprovement Verdict = "improvement"
	// VerdictNew: in the run but not in the baseline.
	VerdictNew Verdict = "new"
	// VerdictUngated: moved past the tolerance, but the baseline does not gate the figure.
	VerdictUngated Verdict = "ungated"
)

// Check sources: where an expectation came from.
const (
	SourceBudget   = "budget"
	SourceBaseline = "baseline"
)

// CheckOptions tune the comparison with a baseline.
type CheckOptions struct {
	// Tolerance is the relative change allowed against the baseline, as a fraction
	// (0.02 = 2%). Budgets are hard bounds and ignore it.
	Tolerance float64
	// Tolerances override Tolerance for the figures they match (the last match wins).
	Tolerances []FigureRule
	// Floor is an absolute change (in the figure's unit) at or below which a figure is
	// within bounds whatever its relative change, so a count going from 2 to 3 is not a
	// +50% regression. 0: none.
	Floor float64
	// Floors override Floor for the figures they match (the last match wins).
	Floors []FigureRule
	// Strict fails improvements and figures new to the baseline too, so that the baseline
	// must be regenerated whenever figures move.
	Strict bool
}

// FigureRule is a value for the figures a pattern matches.
type FigureRule struct {
	// Pattern is a figure kind (count, bytes, seconds) or a glob over figure names, matched
	// against the whole name (total.endpoints.writes.update), the name without its phase
	// (endpoints.writes.update) and the figure alone (writes.update): writes.* and
	// *.endpointslices.fanoutBytes both work.
	Pattern string
	Value   float64
}

// MatchFigure reports whether pattern (a kind or a glob, see FigureRule) matches the figure
// name of kind kind.
func MatchFigure(pattern, name string, kind FigureKind) bool {
	if pattern == string(kind) {
		return true
	}
	_, mode, figure, ok := splitFigureName(name)
	if !ok {
		return false
	}
	for _, s := range []string{name, mode + "." + figure, figure} {
		if m, _ := path.Match(pattern, s); m {
			return true
		}
	}
	return false
}

// CheckFigurePattern returns nil when pattern is a figure kind or a glob that matches some
// figure of some phase, and otherwise an error that says why.
func CheckFigurePattern(pattern string) error {
	switch FigureKind(pattern) {
	case KindCount, KindBytes, KindSeconds:
		return nil
	case KindRatio:
		return fmt.Errorf("pattern %q: ratios are not baselined", pattern)
	}
	if _, err := path.Match(pattern, ""); err != nil {
		return fmt.Errorf("pattern %q: %w", pattern, err)
	}
	for _, m := range []string{"endpoints", "endpointslices"} {
		for _, f := range modeFigures {
			if MatchFigure(pattern, "phase."+m+"."+f.name, f.kind) {
				return nil
			}
		}
	}
	// A pattern naming a phase cannot be checked against the phases here: accept any with
	// three or more parts whose last part names a figure.
	if parts := strings.SplitN(pattern, ".", 3); len(parts) == 3 {
		for _, m := range []string{"endpoints", "endpointslices"} {
			for _, f := range modeFigures {
				if ok, _ := path.Match(strings.Join(parts[1:], "."), m+"."+f.name); ok {
					return nil
				}
			}
		}
	}
	return fmt.Errorf("pattern %q matches no figure (figures are named <phase|total>.<endpoints|endpointslices>.<figure>, like total.endpoints.writes.update; kinds are count, bytes and seconds)", pattern)
}

// ruleFor returns the value of the last rule matching the figure, or def.
func ruleFor(rules []FigureRule, name string, kind FigureKind, def float64) float64 {
	v := def
	for _, r := range rules {
		if MatchFigure(r.Pattern, name, kind) {
			v = r.Value
		}
	}
	return v
}

// gated reports whether base gates the figure.
func (b *Baseline) gated(name string, kind FigureKind) bool {
	if len(b.Gates) == 0 {
		return true
	}
	for _, g := range b.Gates {
		if MatchFigure(g, name, kind) {
			return true
		}
	}
	return false
}

// BudgetSpec is one budget to check: bounds on one figure, in base units (bytes, seconds,
// counts).
type BudgetSpec struct {
	// Figure is the figure's name as SummaryFigures gives it.
	Figure   string
	Min, Max *float64
	// MinText and MaxText are the bounds as written ("2TB"), for messages; may be empty.
	MinText, MaxText string
	// Where locates the budget, like "scenarios/quick.yaml:40:3".
	Where string
}

// CheckRow is the outcome of checking one figure against one expectation.
type CheckRow struct {
	Figure string     `json:"figure"`
	Kind   FigureKind `json:"kind"`
	// Source is "budget" or "baseline".
	Source string `json:"source"`
	// Where locates a budget in its scenario file.
	Where string `json:"where,omitempty"`
	// Expected is the baseline's value; Min and Max a budget's bounds.
	Expected *float64 `json:"expected,omitempty"`
	Min      *float64 `json:"min,omitempty"`
	Max      *float64 `json:"max,omitempty"`
	// Actual is the run's value; nil when the run has no such figure.
	Actual *float64 `json:"actual,omitempty"`
	// ChangePercent is (actual − expected) / expected × 100 against the baseline, or how far
	// past the broken bound a budget's figure is; nil when undefined (expected 0).
	ChangePercent *float64 `json:"changePercent,omitempty"`
	Verdict       Verdict  `json:"verdict"`
	// Failed says whether this row fails the check (exit status 1).
	Failed  bool   `json:"failed"`
	Message string `json:"message"`
}

// figureIndex maps the figures of s by name.
func figureIndex(s *Summary) map[string]Figure {
	byName := map[string]Figure{}
	for _, f := range SummaryFigures(s) {
		byName[f.Name] = f
	}
	return byName
}

// absentReason says why a well-formed figure name has no value in s.
func absentReason(s *Summary, name string) string {
	phase, mode, figure, _ := splitFigureName(name)
	var p *PhaseSummary
	if phase == "total" {
		p = &s.Total
	}
	for i := range s.Phases {
		if s.Phases[i].Name == phase {
			p = &s.Phases[i]
		}
	}
	switch {
	case p == nil:
		return fmt.Sprintf("the run has no phase %q", phase)
	case mode == "endpoints" && p.Endpoints == nil, mode == "endpointslices" && p.EndpointSlices == nil:
		return fmt.Sprintf("mode %s did not run", mode)
	case mode == "ratio" && p.Ratio == nil:
		return "the ratio needs both modes to run"
	case mode == "ratio":
		return fmt.Sprintf("the ratio is undefined: the EndpointSlices %s is 0", figure)
	}
	return "the run has no such figure"
}

// CheckBudgets checks every budget against s, in the order given.
func CheckBudgets(s *Summary, budgets []BudgetSpec) []CheckRow {
	byName := figureIndex(s)
	rows := make([]CheckRow, 0, len(budgets))
	for _, b := range budgets {
		kind, _ := FigureKindOf(b.Figure)
		row := CheckRow{Figure: b.Figure, Kind: kind, Source: SourceBudget, Where: b.Where, Min: b.Min, Max: b.Max, Verdict: VerdictOK}
		f, ok := byName[b.Figure]
		if !ok {
			row.Verdict, row.Failed = VerdictMissing, true
			row.Message = fmt.Sprintf("%s: no value: %s", b.Figure, absentReason(s, b.Figure))
			rows = append(rows, row)
			continue
		}
		v := f.Value
		row.Actual = &v
		switch {
		case b.Max != nil && v > *b.Max:
			row.Verdict, row.Failed = VerdictBroken, true
			row.ChangePercent = changePercent(*b.Max, v)
			row.Message = fmt.Sprintf("%s = %s, above max %s", b.Figure, formatFigureOf(b.Figure, kind, v), boundText(b.Figure, kind, *b.Max, b.MaxText))
		case b.Min != nil && v < *b.Min:
			row.Verdict, row.Failed = VerdictBroken, true
			row.ChangePercent = changePercent(*b.Min, v)
			row.Message = fmt.Sprintf("%s = %s, below min %s", b.Figure, formatFigureOf(b.Figure, kind, v), boundText(b.Figure, kind, *b.Min, b.MinText))
		default:
			row.Message = fmt.Sprintf("%s = %s, within %s", b.Figure, formatFigureOf(b.Figure, kind, v), budgetText(b.Figure, kind, b.Min, b.Max))
		}
		if b.Where != "" {
			row.Message += " (budget at " + b.Where + ")"
		}
		rows = append(rows, row)
	}
	return rows
}

func boundText(name string, kind FigureKind, v float64, text string) string {
	if text != "" {
		return text
	}
	return formatFigureOf(name, kind, v)
}

// CompareBaseline compares every figure of s with base: the baseline's figures in
// SummaryFigures order, then those of the baseline the run lacks (sorted by name). Ratios
// are not compared (see Baseline).
func CompareBaseline(s *Summary, base *Baseline, opt CheckOptions) []CheckRow {
	var rows []CheckRow
	seen := map[string]bool{}
	for _, f := range SummaryFigures(s) {
		if f.Kind == KindRatio {
			continue
		}
		seen[f.Name] = true
		v := f.Value
		row := CheckRow{Figure: f.Name, Kind: f.Kind, Source: SourceBaseline, Actual: &v}
		want, ok := base.Figures[f.Name]
		if !ok {
			row.Verdict, row.Failed = VerdictNew, opt.Strict
			row.Message = fmt.Sprintf("%s = %s, not in the baseline", f.Name, formatFigureOf(f.Name, f.Kind, v))
			rows = append(rows, row)
			continue
		}
		row.Expected = &want
		row.ChangePercent = changePercent(want, v)
		change := "unchanged"
		if row.ChangePercent != nil && v != want {
			change = formatChangePercent(*row.ChangePercent)
		} else if v != want {
			change = "from 0"
		}
		tol := ruleFor(opt.Tolerances, f.Name, f.Kind, opt.Tolerance)
		floor := ruleFor(opt.Floors, f.Name, f.Kind, opt.Floor)
		slack := max(tol*math.Abs(want)+1e-9*math.Abs(want), floor)
		switch {
		case v > want+slack:
			row.Verdict, row.Failed = VerdictRegression, true
		case v < want-slack:
			row.Verdict, row.Failed = VerdictImprovement, opt.Strict
		default:
			row.Verdict = VerdictOK
		}
		limits := "tolerance " + formatPercent(tol*100)
		if floor > 0 {
			limits += ", floor " + formatFigureOf(f.Name, f.Kind, floor)
		}
		if row.Verdict != VerdictOK && !base.gated(f.Name, f.Kind) {
			row.Verdict, row.Failed = VerdictUngated, false
			limits += ", not gated by the baseline"
		}
		row.Message = fmt.Sprintf("%s = %s, baseline %s (%s, %s)", f.Name, formatFigureOf(f.Name, f.Kind, v),
			formatFigureOf(f.Name, f.Kind, want), change, limits)
		rows = append(rows, row)
	}
	var gone []string
	for name := range base.Figures {
		if !seen[name] {
			gone = append(gone, name)
		}
	}
	slices.Sort(gone)
	for _, name := range gone {
		want := base.Figures[name]
		kind, _ := FigureKindOf(name)
		rows = append(rows, CheckRow{Figure: name, Kind: kind, Source: SourceBaseline, Expected: &want,
			Verdict: VerdictMissing, Failed: base.gated(name, kind),
			Message: fmt.Sprintf("%s: in the baseline but not in this run (%s); regenerate the baseline if that is intended", name, absentReason(s, name))})
	}
	return rows
}

// changePercent is (actual − expected) / expected × 100, or nil when expected is 0 and
// actual is not.
func changePercent(expected, actual float64) *float64 {
	var p float64
	switch {
	case expected == actual:
		p = 0
	case expected == 0:
		return nil
	default:
		p = (actual - expected) / math.Abs(expected) * 100
	}
	return &p
}

// verdictRank orders rows: failures first (regressions, broken budgets, missing figures,
// then strict-mode improvements and new figures), then improvements, new figures, and the
// figures within bounds.
func verdictRank(r *CheckRow) int {
	order := []Verdict{VerdictRegression, VerdictBroken, VerdictMissing, VerdictImprovement, VerdictNew, VerdictUngated, VerdictOK}
	rank := slices.Index(order, r.Verdict)
	if !r.Failed {
		rank += len(order)
	}
	return rank
}

// SortCheckRows orders rows worst first, keeping the given order within a verdict.
func SortCheckRows(rows []CheckRow) {
	slices.SortStableFunc(rows, func(a, b CheckRow) int { return verdictRank(&a) - verdictRank(&b) })
}

// ScenarioCheck is the check of one scenario.
type ScenarioCheck struct {
	Scenario string `json:"scenario"`
	File     string `json:"file"`
	Seed     uint64 `json:"seed"`
	// Baseline is the baseline file compared with; empty when none.
	Baseline string `json:"baseline,omitempty"`
	// BaselineWritten says the baseline was (re)written by this run instead of compared.
	BaselineWritten bool `json:"baselineWritten,omitempty"`
	// Inputs are the settings this run's scenario gives other values than the baseline's
	// (A the baseline's, B this run's), when the baseline kept its settings.
	Inputs []InputChange `json:"inputs,omitempty"`
	Rows   []CheckRow    `json:"figures"`
}

// CheckReport is the outcome of `sim check` over one or more scenarios.
type CheckReport struct {
	// TolerancePercent is the baseline tolerance in percent.
	TolerancePercent float64 `json:"tolerancePercent"`
	// Rules are the per-figure tolerances and floors in force, as given ("writes.*=10%",
	// "floor 5").
	Rules     []string        `json:"rules,omitempty"`
	Strict    bool            `json:"strict"`
	Scenarios []ScenarioCheck `json:"scenarios"`
}

// CheckCounts counts rows by verdict, and the failures.
type CheckCounts struct {
	Figures      int `json:"figures"`
	Failed       int `json:"failed"`
	Regressions  int `json:"regressions"`
	Broken       int `json:"broken"`
	Missing      int `json:"missing"`
	Improvements int `json:"improvements"`
	New          int `json:"new"`
	Ungated      int `json:"ungated,omitempty"`
}

// Counts counts the rows of every scenario.
func (r *CheckReport) Counts() CheckCounts {
	var c CheckCounts
	for i := range r.Scenarios {
		c.add(r.Scenarios[i].Rows)
	}
	return c
}

func (c *CheckCounts) add(rows []CheckRow) {
	for _, row := range rows {
		c.Figures++
		if row.Failed {
			c.Failed++
		}
		switch row.Verdict {
		case VerdictRegression:
			c.Regressions++
		case VerdictBroken:
			c.Broken++
		case VerdictMissing:
			c.Missing++
		case VerdictImprovement:
			c.Improvements++
		case VerdictNew:
			c.New++
		case VerdictUngated:
			c.Ungated++
		}
	}
}

// Failed reports whether any row failed.
func (r *CheckReport) Failed() bool { return r.Counts().Failed > 0 }

// String says what the counts amount to: "3 regressions, 1 broken budget, …".
func (c CheckCounts) String() string {
	var parts []string
	for _, p := range []struct {
		n    int
		noun string
	}{{c.Regressions, "regression"}, {c.Broken, "broken budget"}, {c.Missing, "missing figure"},
		{c.Improvements, "improvement"}, {c.New, "new figure"}, {c.Ungated, "ungated change"}} {
		if p.n > 0 {
			parts = append(parts, plural(p.n, p.noun))
		}
	}
	if len(parts) == 0 {
		return "all within bounds"
	}
	return strings.Join(parts, ", ")
}
