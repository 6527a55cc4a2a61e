package reports

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Diff verdicts: how a figure moved from run A to run B.
const (
	// DiffSame: the figure is equal in both runs.
	DiffSame = "same"
	// DiffChanged: the figure moved, by no more than the threshold (when one is set).
	DiffChanged = "changed"
	// DiffOver: the figure moved by more than the threshold.
	DiffOver = "over"
	// DiffNew: only run B has the figure.
	DiffNew = "new"
	// DiffGone: only run A has the figure.
	DiffGone = "gone"
)

// DiffOptions tune a comparison of two runs.
type DiffOptions struct {
	// FailOn is the relative change (a fraction, 0.05 = 5%) past which a figure fails the
	// diff; 0 means no figure fails. A figure that moves from 0 fails too when FailOn is
	// set, and so does a figure only one run has (a mode or phase the other did not run):
	// it could not be compared, so the gate cannot pass it. Such figures are counted apart
	// from the changes (DiffCounts.New and Gone).
	FailOn float64
	// Floor is an absolute change at or below which a figure never fails, so that a count
	// going from 2 to 3 is not a +50% failure.
	Floor float64
	// Services adds every Service's figures (ServiceFigures) to the comparison.
	Services bool
}

// DiffRow is one figure of two runs.
type DiffRow struct {
	Figure string     `json:"figure"`
	Kind   FigureKind `json:"kind"`
	// A and B are the figure in each run; nil when that run lacks it.
	A *float64 `json:"a,omitempty"`
	B *float64 `json:"b,omitempty"`
	// ChangePercent is (B − A) / A × 100; nil when undefined (A is 0 or missing).
	ChangePercent *float64 `json:"changePercent,omitempty"`
	Verdict       string   `json:"verdict"`
	// Failed says whether the row is past DiffOptions.FailOn.
	Failed bool `json:"failed"`
}

// DiffReport compares two runs figure by figure.
type DiffReport struct {
	// A and B name the two runs (their paths) and scenarios.
	A         string `json:"a"`
	B         string `json:"b"`
	ScenarioA string `json:"scenarioA"`
	ScenarioB string `json:"scenarioB"`
	SeedA     uint64 `json:"seedA"`
	SeedB     uint64 `json:"seedB"`
	// NodesA and NodesB are the runs' cluster sizes: runs of one scenario with --set
	// overrides may differ in it, which no compared figure shows.
	NodesA int `json:"nodesA"`
	NodesB int `json:"nodesB"`
	// FailOnPercent is the threshold in percent (0: none).
	FailOnPercent float64 `json:"failOnPercent,omitempty"`
	// Floor is the absolute change under which nothing fails.
	Floor float64 `json:"floor,omitempty"`
	// Inputs says which settings of their scenarios the runs differ in, when the caller
	// compared them (nil: not asked).
	Inputs *DiffInputs `json:"inputs,omitempty"`
	// Rows are every figure, largest relative change first.
	Rows []DiffRow `json:"figures"`
}

// DiffInputs is what two runs' inputs differ in: the settings of the effective scenario
// each run wrote (every field, defaults and overrides applied), so that a figure's change
// can be told from the change of input that made it, and a change of input no one meant
// (another seed, an edited file) is seen.
type DiffInputs struct {
	// File is the name of the effective scenario in each run's directory.
	File string `json:"file"`
	// NotCompared says why the inputs were not compared (a run without the file); empty
	// when they were.
	NotCompared string `json:"notCompared,omitempty"`
	// Replay is the name of a replay's report (replay.json) when a run compared is a
	// replay: what it replayed was compared too, as the settings named replay.*.
	Replay string `json:"replay,omitempty"`
	// Changes are the settings that differ, in the order of A's file, then those only B
	// has; empty when the inputs agree.
	Changes []InputChange `json:"changes"`
}

// InputChange is one setting of two runs' scenarios: its path (as --set takes it) and its
// value in each, nil where that run's scenario does not have it.
type InputChange struct {
	Setting string  `json:"setting"`
	A       *string `json:"a"`
	B       *string `json:"b"`
}

// DiffSummaries compares every figure of a (the earlier run) with b: each phase and the
// total, per mode and ratio. Phases are matched by name. Rows are sorted by the size of the
// relative change, largest first: figures that appeared, disappeared or moved from 0 come
// first, unchanged ones last; ties keep the summary order (phase by phase, in summary.json
// field order).
func DiffSummaries(a, b *Summary, nameA, nameB string, opt DiffOptions) *DiffReport {
	r := &DiffReport{A: nameA, B: nameB, ScenarioA: a.Scenario, ScenarioB: b.Scenario, SeedA: a.Seed, SeedB: b.Seed, NodesA: a.Nodes, NodesB: b.Nodes,
		FailOnPercent: opt.FailOn * 100, Floor: opt.Floor}
	figA, figB := SummaryFigures(a), SummaryFigures(b)
	if opt.Services {
		figA, figB = append(figA, ServiceFigures(a)...), append(figB, ServiceFigures(b)...)
	}
	inB := map[string]Figure{}
	for _, f := range figB {
		inB[f.Name] = f
	}
	seen := map[string]bool{}
	for _, f := range figA {
		seen[f.Name] = true
		va := f.Value
		row := DiffRow{Figure: f.Name, Kind: f.Kind, A: &va}
		if g, ok := inB[f.Name]; ok {
			vb := g.Value
			row.B = &vb
		}
		r.Rows = append(r.Rows, row)
	}
	for _, f := range figB {
		if !seen[f.Name] {
			vb := f.Value
			r.Rows = append(r.Rows, DiffRow{Figure: f.Name, Kind: f.Kind, B: &vb})
		}
	}
	for i := range r.Rows {
		r.Rows[i].judge(opt)
	}
	slices.SortStableFunc(r.Rows, func(x, y DiffRow) int {
		kx, ky := x.sortKey(), y.sortKey()
		switch {
		case kx > ky:
			return -1
		case kx < ky:
			return 1
		}
		return 0
	})
	return r
}

// ServiceFigures flattens the per-Service figures of s: "service.NAMESPACE/NAME.MODE.FIGURE"
// with FIGURE one of writes, failedWrites, fanoutBytes, maxObjectBytes and
// propagationP99Seconds, Services in summary order.
func ServiceFigures(s *Summary) []Figure {
	var out []Figure
	for i := range s.Services {
		sv := &s.Services[i]
		for _, m := range AllModes {
			ms := sv.Mode(m)
			if ms == nil {
				continue
			}
			prefix := "service." + sv.Namespace + "/" + sv.Name + "." + string(m) + "."
			out = append(out,
				Figure{Name: prefix + "writes", Kind: KindCount, Value: float64(ms.Writes)},
				Figure{Name: prefix + "failedWrites", Kind: KindCount, Value: float64(ms.FailedWrites)},
				Figure{Name: prefix + "fanoutBytes", Kind: KindBytes, Value: float64(ms.FanoutBytes)},
				Figure{Name: prefix + "maxObjectBytes", Kind: KindBytes, Value: float64(ms.MaxObjectBytes)},
				Figure{Name: prefix + "propagationP99Seconds", Kind: KindSeconds, Value: ms.PropagationP99Seconds})
		}
	}
	return out
}

// judge sets the row's change, verdict and failure.
func (d *DiffRow) judge(opt DiffOptions) {
	switch {
	case d.A == nil:
		d.Verdict, d.Failed = DiffNew, opt.FailOn > 0
		return
	case d.B == nil:
		d.Verdict, d.Failed = DiffGone, opt.FailOn > 0
		return
	}
	a, b := *d.A, *d.B
	d.ChangePercent = changePercent(a, b)
	if a == b {
		d.Verdict = DiffSame
		return
	}
	d.Verdict = DiffChanged
	if opt.FailOn <= 0 || math.Abs(b-a) <= opt.Floor {
		return
	}
	if d.ChangePercent == nil || math.Abs(*d.ChangePercent) > opt.FailOn*100*(1+1e-9) {
		d.Verdict, d.Failed = DiffOver, true
	}
}

// sortKey orders rows: larger is printed earlier. Figures present in one run only and
// figures that moved from 0 rank above every finite change.
func (d *DiffRow) sortKey() float64 {
	switch {
	case d.A == nil || d.B == nil:
		return math.Inf(1)
	case d.ChangePercent == nil:
		return math.MaxFloat64
	}
	return math.Abs(*d.ChangePercent)
}

// DiffCounts counts the rows of a diff by verdict.
type DiffCounts struct {
	// Figures is every row; Compared those both runs have (Figures − New − Gone), the only
	// ones that can change. Failed counts the rows that fail the diff: Over, the compared
	// figures past the threshold, and with DiffOptions.FailOn set those only in one run.
	Figures  int `json:"figures"`
	Compared int `json:"compared"`
	Changed  int `json:"changed"`
	Over     int `json:"over"`
	Failed   int `json:"failed"`
	New      int `json:"new"`
	Gone     int `json:"gone"`
	Same     int `json:"same"`
}

// Counts counts the rows of r.
func (r *DiffReport) Counts() DiffCounts {
	var c DiffCounts
	for _, row := range r.Rows {
		c.Figures++
		if row.Failed {
			c.Failed++
		}
		switch row.Verdict {
		case DiffOver:
			c.Changed++
			c.Over++
		case DiffChanged:
			c.Changed++
		case DiffNew:
			c.New++
		case DiffGone:
			c.Gone++
		case DiffSame:
			c.Same++
		}
	}
	c.Compared = c.Figures - c.New - c.Gone
	return c
}

// String says what the counts amount to: "12 changed (3 past the threshold), 40 unchanged",
// then, apart, the figures only one run has, which were not compared: "; 245 only in A
// (not compared)", adding ", which fails the diff" when they fail it.
func (c DiffCounts) String() string {
	changed := formatCount(int64(c.Changed)) + " changed"
	if c.Over > 0 {
		changed += fmt.Sprintf(" (%s past the threshold)", formatCount(int64(c.Over)))
	}
	out := changed + ", " + formatCount(int64(c.Same)) + " unchanged"
	var apart []string
	if c.Gone > 0 {
		apart = append(apart, formatCount(int64(c.Gone))+" only in A")
	}
	if c.New > 0 {
		apart = append(apart, formatCount(int64(c.New))+" only in B")
	}
	if len(apart) > 0 {
		out += "; " + strings.Join(apart, ", ") + " (not compared"
		if c.Failed > c.Over {
			out += ", which fails the diff"
		}
		out += ")"
	}
	return out
}

// changeText is the CHANGE column of a row.
func (d *DiffRow) changeText() string {
	switch {
	case d.A == nil || d.B == nil:
		return "-"
	case d.ChangePercent != nil && *d.ChangePercent == 0:
		return "0%"
	case d.ChangePercent != nil:
		return formatChangePercent(*d.ChangePercent)
	}
	return "from 0"
}

// formatChangePercent formats a relative change that is not zero with two decimals and its
// sign; one too small to show in two decimals is "+<0.01%" or "-<0.01%", not "-0.00%", which
// read as no change on a row that says the figure changed. From +99,900% (a thousand times the
// old value) it is the factor instead, "982,744×" rather than "+98274300.00%".
func formatChangePercent(p float64) string {
	switch {
	case p > 0 && p < 0.005:
		return "+<0.01%"
	case p < 0 && p > -0.005:
		return "-<0.01%"
	case p >= factorChangePercent:
		// "+98274300.00%" against a tiny budget is hard to read: say how many times the
		// old value it is, as the ratio columns do ("1.7×"), grouped by thousands.
		f := 1 + p/100
		if f < 1e15 {
			return formatCount(int64(math.Round(f))) + "×"
		}
		return strconv.FormatFloat(f, 'g', 3, 64) + "×"
	}
	return fmt.Sprintf("%+.2f%%", p)
}

// factorChangePercent is the change from which formatChangePercent gives a factor instead
// of a percentage: +99,900%, a thousand times the old value (TestDiffTinyChangeShown keeps
// +9900.00% a percentage).
const factorChangePercent = 99900

// WriteDiffTable writes r for people, in the style of 'sim check': a headline naming the
// two runs, a table of the figures that changed (verdict, figure, A, B, change), largest
// relative change first, with those past the threshold in capitals; unchanged figures only
// when all is set; then one line with the outcome.
func WriteDiffTable(w io.Writer, r *DiffReport, all bool) error {
	ew := &errWriter{w: w}
	c := r.Counts()
	fmt.Fprintf(ew, "diff A %s (%s, seed %d, %s) → B %s (%s, seed %d, %s)", r.A, r.ScenarioA, r.SeedA, plural(r.NodesA, "node"),
		r.B, r.ScenarioB, r.SeedB, plural(r.NodesB, "node"))
	if r.FailOnPercent > 0 {
		fmt.Fprintf(ew, "; fail on %s", formatPercent(r.FailOnPercent))
		if r.Floor > 0 {
			fmt.Fprintf(ew, " past an absolute change of %s", FormatFigure(KindCount, r.Floor))
		}
	}
	fmt.Fprintln(ew)
	writeInputs(ew, r.Inputs)
	cells := [][]string{{"VERDICT", "FIGURE", "A", "B", "CHANGE"}}
	for i := range r.Rows {
		row := &r.Rows[i]
		if row.Verdict == DiffSame && !all {
			continue
		}
		verdict := row.Verdict
		if row.Failed {
			verdict = strings.ToUpper(verdict)
		}
		a, b := figurePair(row.Figure, row.Kind, row.A, row.B)
		cells = append(cells, []string{verdict, row.Figure, a, b, row.changeText()})
	}
	if len(cells) > 1 {
		if r.Inputs != nil {
			fmt.Fprintln(ew) // the figures' table apart from the inputs' lines
		}
		writeColumns(ew, cells, []bool{false, false, true, true, true})
	}
	outcome := "ok"
	if c.Failed > 0 {
		outcome = "FAIL"
	}
	fmt.Fprintf(ew, "\n%s: %s compared: %s\n", outcome, plural(c.Compared, "figure"), c)
	return ew.err
}

// writeInputs says what the runs' inputs differ in, one setting a line, or why they were
// not compared; nothing when in is nil.
func writeInputs(w io.Writer, in *DiffInputs) {
	switch {
	case in == nil:
		return
	case in.NotCompared != "":
		fmt.Fprintf(w, "inputs not compared: %s\n", in.NotCompared)
		return
	case len(in.Changes) == 0:
		fmt.Fprintf(w, "inputs: the same (every setting of %s)\n", in.files())
		return
	}
	writeInputChanges(w, fmt.Sprintf("inputs: %s (%s, A → B):", differ(len(in.Changes)), in.files()), in.Changes)
	if len(in.Changes) == 1 && in.Changes[0].Setting == "seed" {
		// The pods' timings, names and IPs are drawn from the seed: what moved is chance.
		fmt.Fprintln(w, "  (only the seed: the changes below are the spread of one scenario from seed to seed)")
	}
}

// files names the files whose settings were compared.
func (in *DiffInputs) files() string {
	if in.Replay != "" {
		return in.File + " and " + in.Replay
	}
	return in.File
}

// differ is "N settings differ", or "1 setting differs".
func differ(n int) string {
	if n == 1 {
		return "1 setting differs"
	}
	return plural(n, "setting") + " differ"
}

// maxInputLines is the most changed settings a table lists: runs of two different
// scenarios differ in a hundred and more (every Service's), which buried the figures.
const maxInputLines = 20

// writeInputChanges writes the line head, then each change on a line of its own: the
// setting, its value in A, an arrow, its value in B, in columns; past maxInputLines, a line
// saying how many more -o json lists.
func writeInputChanges(w io.Writer, head string, changes []InputChange) {
	fmt.Fprintln(w, head)
	shown := changes[:min(len(changes), maxInputLines)]
	cells := make([][]string, len(shown))
	for i, c := range shown {
		cells[i] = []string{c.Setting, inputValue(c.A), "→", inputValue(c.B)}
	}
	writeColumns(w, cells, []bool{false, false, false, false})
	if more := len(changes) - len(shown); more > 0 {
		fmt.Fprintf(w, "  … and %d more (-o json lists every one)\n", more)
	}
}

// inputValue is a setting's value as the table shows it: "(none)" for a run without it,
// quoted when empty or holding a control character (a newline would break the table, an
// escape sequence the terminal), and cut to maxInputWidth characters.
func inputValue(v *string) string {
	switch {
	case v == nil:
		return "(none)"
	case *v == "" || strings.ContainsFunc(*v, unicode.IsControl):
		return shortened(strconv.Quote(*v))
	}
	return shortened(*v)
}

// maxInputWidth is the most characters of a setting's value the tables show (-o json has
// it whole): a description of a line and a half pushed the arrow and the other value off
// the screen.
const maxInputWidth = 60

// shortened is v cut to maxInputWidth characters, an ellipsis last, when longer.
func shortened(v string) string {
	if r := []rune(v); len(r) > maxInputWidth {
		return string(r[:maxInputWidth-1]) + "…"
	}
	return v
}

func optFigure(name string, kind FigureKind, v *float64) string {
	if v == nil {
		return "-"
	}
	return formatFigureOf(name, kind, *v)
}

// diffJSON is the JSON form of a DiffReport, with its counts and outcome.
type diffJSON struct {
	Passed bool       `json:"passed"`
	Counts DiffCounts `json:"counts"`
	*DiffReport
}

// WriteDiffJSON writes r as indented JSON: passed, counts, the two runs and every figure in
// table order.
func WriteDiffJSON(w io.Writer, r *DiffReport) error {
	c := r.Counts()
	return writeIndentedJSON(w, diffJSON{Passed: c.Failed == 0, Counts: c, DiffReport: r}, "diff JSON")
}
