package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// FormatFigure formats a figure's value for people: counts with thousands separators, bytes
// in SI units, seconds as a duration (3 significant digits below a second, to the millisecond
// from a second up), ratios with up to 3 decimals and ×.
func FormatFigure(kind FigureKind, v float64) string {
	switch kind {
	case KindBytes:
		return FormatBytes(int64(math.Round(v)))
	case KindSeconds:
		return formatFigureSeconds(v)
	case KindRatio:
		return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64) + "×"
	case KindCount:
		if v == math.Trunc(v) && math.Abs(v) < 1e18 {
			return formatCount(int64(v))
		}
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// formatFigureOf formats the value of the figure named name: FormatFigure, with "/s" after
// the bytes of a rate (peakEgressBytesPerSec), which read "1.2 GB" as if a total.
func formatFigureOf(name string, kind FigureKind, v float64) string {
	s := FormatFigure(kind, v)
	if kind == KindBytes && strings.HasSuffix(name, "PerSec") {
		s += "/s"
	}
	return s
}

// formatFigureSeconds formats seconds as a Go duration: to the millisecond from a second up,
// as FormatSeconds does, and with 3 significant digits below ("107µs", "9.47ms", "400ns"):
// CPU time and latencies of a fraction of a millisecond are common figures, and rounded to
// the millisecond a change of +94% read "0s → 0s".
func formatFigureSeconds(s float64) string {
	d := secondsDuration(s)
	abs := d
	if abs < 0 {
		abs = -abs // not MinInt64: that is far above a second
	}
	if abs >= time.Second || abs < 0 {
		return d.Round(time.Millisecond).String()
	}
	unit := time.Duration(1)
	for unit*1000 <= abs {
		unit *= 10
	}
	return d.Round(unit).String()
}

// figurePair formats two values of the figure named name side by side: as formatFigureOf,
// or, when they differ but would print alike ("10ms 10ms +0.05%"), each in full
// (preciseFigure), so that a row flagged as changed shows its change. A nil value is "-".
func figurePair(name string, kind FigureKind, a, b *float64) (string, string) {
	text := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return formatFigureOf(name, kind, *v)
	}
	ta, tb := text(a), text(b)
	if a != nil && b != nil && *a != *b && ta == tb {
		ta, tb = preciseFigure(name, kind, *a), preciseFigure(name, kind, *b)
	}
	return ta, tb
}

// preciseFigure formats a figure's value in full: bytes to the byte ("1,250,000,123 B"),
// seconds to the nanosecond, ratios and other numbers with every digit they have.
func preciseFigure(name string, kind FigureKind, v float64) string {
	var s string
	switch kind {
	case KindBytes:
		s = formatCount(int64(math.Round(v))) + " B"
		if strings.HasSuffix(name, "PerSec") {
			s += "/s"
		}
	case KindSeconds:
		s = secondsDuration(v).String()
	case KindRatio:
		s = strconv.FormatFloat(v, 'f', -1, 64) + "×"
	default:
		s = strconv.FormatFloat(v, 'f', -1, 64)
	}
	return s
}

// budgetText formats a budget's bounds: "≤ 2.0 TB", "≥ 50×", "4.0 GB .. 10.0 GB".
func budgetText(name string, kind FigureKind, lo, hi *float64) string {
	switch {
	case lo != nil && hi != nil:
		return formatFigureOf(name, kind, *lo) + " .. " + formatFigureOf(name, kind, *hi)
	case hi != nil:
		return "≤ " + formatFigureOf(name, kind, *hi)
	case lo != nil:
		return "≥ " + formatFigureOf(name, kind, *lo)
	}
	return "-"
}

// formatPercent formats a percentage with up to 2 decimals ("2%", "0.5%").
func formatPercent(p float64) string {
	return strconv.FormatFloat(math.Round(p*100)/100, 'f', -1, 64) + "%"
}

// expectedText is the EXPECTED column of a row.
func (r *CheckRow) expectedText() string {
	if r.Source == SourceBudget {
		return budgetText(r.Figure, r.Kind, r.Min, r.Max)
	}
	expected, _ := figurePair(r.Figure, r.Kind, r.Expected, r.Actual)
	return expected
}

// changeText is the CHANGE column of a row.
func (r *CheckRow) changeText() string {
	switch {
	case r.ChangePercent != nil && *r.ChangePercent == 0:
		return "0%"
	case r.ChangePercent != nil:
		return formatChangePercent(*r.ChangePercent)
	case r.Actual != nil && r.Expected != nil:
		return "from 0"
	}
	return "-"
}

// WriteCheckTable writes r for people. With verbose, per scenario a headline and a table of
// every checked figure (verdict, figure, expected, actual, change, source), failures first;
// without, only the scenarios with failures, each with a table of its failures. Then one
// line with the outcome.
func WriteCheckTable(w io.Writer, r *CheckReport, verbose bool) error {
	ew := &errWriter{w: w}
	printed := 0
	for i := range r.Scenarios {
		sc := &r.Scenarios[i]
		var c CheckCounts
		c.add(sc.Rows)
		if !verbose && c.Failed == 0 {
			continue
		}
		against := "budgets only"
		switch {
		case sc.BaselineWritten:
			against = "wrote baseline " + sc.Baseline
		case sc.Baseline != "":
			against = fmt.Sprintf("baseline %s, tolerance %s", sc.Baseline, formatPercent(r.TolerancePercent))
			for _, rule := range r.Rules {
				against += ", " + rule
			}
		}
		if printed > 0 {
			fmt.Fprintln(ew)
		}
		printed++
		fmt.Fprintf(ew, "check %s (%s, seed %d; %s): %s, %s\n", sc.Scenario, sc.File, sc.Seed, against,
			plural(c.Figures, "figure"), c)
		if len(sc.Inputs) > 0 {
			writeInputChanges(ew, fmt.Sprintf("inputs: %s from the baseline's (baseline → this run):", differ(len(sc.Inputs))), sc.Inputs)
		}
		cells := [][]string{{"VERDICT", "FIGURE", "EXPECTED", "ACTUAL", "CHANGE", "SOURCE"}}
		for j := range sc.Rows {
			row := &sc.Rows[j]
			if !verbose && !row.Failed {
				continue
			}
			verdict := string(row.Verdict)
			if row.Failed {
				verdict = strings.ToUpper(verdict)
			}
			actual := actualText(row)
			source := row.Source
			if row.Where != "" {
				source += " " + row.Where
			}
			cells = append(cells, []string{verdict, row.Figure, row.expectedText(), actual, row.changeText(), source})
		}
		if len(cells) > 1 {
			writeColumns(ew, cells, []bool{false, false, true, true, true, false})
		}
	}
	c := r.Counts()
	outcome := "ok"
	if c.Failed > 0 {
		outcome = "FAIL"
	}
	if printed > 0 {
		fmt.Fprintln(ew)
	}
	if n := r.baselinesWritten(); c.Figures == 0 && n > 0 {
		// --update-baseline and no budget: nothing was checked, and that is no news.
		subject := "the baseline holds"
		if n > 1 {
			subject = strconv.Itoa(n) + " baselines hold"
		}
		fmt.Fprintf(ew, "%s: %s this run's figures; no budget to check\n", outcome, subject)
		return ew.err
	}
	fmt.Fprintf(ew, "%s: %s checked in %s: %s", outcome, plural(c.Figures, "figure"), plural(len(r.Scenarios), "scenario"), c)
	if !verbose && c.Figures > c.Failed {
		fmt.Fprint(ew, " (--verbose lists every figure)")
	}
	if n := r.baselinesWritten(); c.Failed > 0 && n > 0 {
		// --update-baseline did what it was asked, yet the check fails: say both, so that a
		// user who only meant to refresh the baseline does not take the exit status for a
		// failed write, nor the written baseline for a pass.
		subject := "The baseline now holds"
		if n > 1 {
			subject = "The baselines now hold"
		}
		fmt.Fprintf(ew, "\n%s this run's figures, as asked; budgets are hard bounds, checked with --update-baseline too, so the check fails.", subject)
	}
	fmt.Fprintln(ew)
	return ew.err
}

// baselinesWritten counts the scenarios whose baseline this check (re)wrote.
func (r *CheckReport) baselinesWritten() int {
	n := 0
	for i := range r.Scenarios {
		if r.Scenarios[i].BaselineWritten {
			n++
		}
	}
	return n
}

// writeColumns writes cells as aligned columns two spaces apart, indented by two; right[i]
// right-aligns column i. Widths count runes, so "≤" and "×" take one column.
func writeColumns(w io.Writer, cells [][]string, right []bool) {
	widths := make([]int, len(cells[0]))
	for _, row := range cells {
		for i, c := range row {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, row := range cells {
		var b strings.Builder
		b.WriteString("  ")
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i > 0 {
				b.WriteString("  ")
			}
			if right[i] {
				b.WriteString(pad + c)
			} else if i < len(row)-1 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(c)
			}
		}
		fmt.Fprintln(w, b.String())
	}
}

// checkJSON is the JSON form of a CheckReport, with its counts and outcome.
type checkJSON struct {
	Passed bool        `json:"passed"`
	Counts CheckCounts `json:"counts"`
	*CheckReport
}

// WriteCheckJSON writes r as indented JSON: passed, counts, tolerancePercent, strict and
// scenarios, each with its figures in table order.
func WriteCheckJSON(w io.Writer, r *CheckReport) error {
	c := r.Counts()
	return writeIndentedJSON(w, checkJSON{Passed: c.Failed == 0, Counts: c, CheckReport: r}, "check JSON")
}

// JUnit XML, the subset CI systems read (the Ant/Surefire schema): one testsuite per
// scenario, one testcase per checked figure, a failure element for each failing one.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Time     string      `xml:"time,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		ClassName string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitFailure `xml:"failure,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// WriteCheckJUnit writes r as JUnit XML: a testsuite per scenario and a testcase per
// checked figure, named after the figure, with classname "<scenario>.budget" or
// "<scenario>.baseline". A failing figure carries a failure whose type is its verdict and
// whose message says what broke; every other figure has its message as system-out. Times
// are 0: the output carries no wall-clock time.
func WriteCheckJUnit(w io.Writer, r *CheckReport) error {
	all := junitSuites{Name: "sim check"}
	for _, sc := range r.Scenarios {
		suite := junitSuite{Name: sc.Scenario, Time: "0"}
		inputs := junitInputs(sc.Inputs)
		for _, row := range sc.Rows {
			tc := junitCase{Name: row.Figure, ClassName: sc.Scenario + "." + row.Source, Time: "0"}
			if row.Failed {
				tc.Failure = &junitFailure{Message: row.Message, Type: string(row.Verdict),
					Text: fmt.Sprintf("%s\nexpected: %s\nactual: %s\nchange: %s\n", row.Message, row.expectedText(), actualText(&row), row.changeText())}
				if row.Source == SourceBaseline {
					tc.Failure.Text += inputs
				}
				suite.Failures++
			} else {
				tc.SystemOut = string(row.Verdict) + ": " + row.Message
			}
			suite.Cases = append(suite.Cases, tc)
			suite.Tests++
		}
		all.Tests += suite.Tests
		all.Failures += suite.Failures
		all.Suites = append(all.Suites, suite)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return fmt.Errorf("reports: JUnit XML: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitInputs is what a failing baseline figure's JUnit text adds when the scenario's inputs
// differ from the baseline's: the first few changed settings (a CI page shows a failure's
// text, rarely the table), or "".
func junitInputs(changes []InputChange) string {
	if len(changes) == 0 {
		return ""
	}
	const shown = 3
	parts := make([]string, 0, shown)
	for _, c := range changes[:min(len(changes), shown)] {
		parts = append(parts, fmt.Sprintf("%s %s → %s", c.Setting, inputValue(c.A), inputValue(c.B)))
	}
	more := ""
	if n := len(changes) - shown; n > 0 {
		more = fmt.Sprintf(", and %d more", n)
	}
	return fmt.Sprintf("inputs: %s from the baseline's: %s%s\n", differ(len(changes)), strings.Join(parts, "; "), more)
}

func actualText(r *CheckRow) string {
	if r.Source == SourceBudget {
		_, actual := figurePair(r.Figure, r.Kind, nil, r.Actual)
		return actual
	}
	_, actual := figurePair(r.Figure, r.Kind, r.Expected, r.Actual)
	return actual
}
