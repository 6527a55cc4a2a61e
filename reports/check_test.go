package reports

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"epsim/sim"
)

func fptr(v float64) *float64 { return &v }

// Reference: README "summary.json": every figure is addressed by its field path.
func TestSummaryFigures(t *testing.T) {
	s := NewSummary(fixtureResults(), nil)
	figs := SummaryFigures(s)
	// 4 blocks (3 phases and the total) × (2 modes × 21 figures + 7 ratios).
	if len(figs) != 4*(2*modeFigureCount+10) {
		t.Fatalf("%d figures", len(figs))
	}
	byName := map[string]Figure{}
	for _, f := range figs {
		if _, dup := byName[f.Name]; dup {
			t.Errorf("duplicate %s", f.Name)
		}
		byName[f.Name] = f
	}
	for _, tc := range []struct {
		name  string
		kind  FigureKind
		value float64
	}{
		{"create.endpoints.writes.update", KindCount, 37},
		{"rollout.endpointslices.writes.total", KindCount, 100 + 19_870 + 100},
		{"rollout.endpoints.fanoutBytes", KindBytes, 7_107_000_000_000},
		{"total.endpointslices.propagation.p99Seconds", KindSeconds, 1.5},
		{"total.endpoints.failedWrites", KindCount, 3},
		{"one-endpoint-not-ready.ratio.fanoutBytes", KindRatio, 76.962}, // 5.903e9 / 76.7e6 rounded
	} {
		f, ok := byName[tc.name]
		if !ok || f.Kind != tc.kind || f.Value != tc.value {
			t.Errorf("%s = %+v (present %v), want %v %v", tc.name, f, ok, tc.kind, tc.value)
		}
		if k, ok := FigureKindOf(tc.name); !ok || k != tc.kind {
			t.Errorf("FigureKindOf(%s) = %v %v", tc.name, k, ok)
		}
	}
	// A ratio whose EndpointSlices figure is 0 is absent, as in summary.json.
	if _, ok := byName["total.ratio.fanoutBytes"]; !ok {
		t.Error("total ratio missing")
	}
	res := fixtureResults()
	res.Phases[0].EndpointSlices.FanoutBytes = 0
	for _, f := range SummaryFigures(NewSummary(res, nil)) {
		if f.Name == "create.ratio.fanoutBytes" {
			t.Error("ratio over zero present")
		}
	}
}

func TestCheckBudgets(t *testing.T) {
	s := NewSummary(fixtureResults(), nil)
	rows := CheckBudgets(s, []BudgetSpec{
		{Figure: "rollout.endpointslices.fanoutBytes", Max: fptr(2e12), MaxText: "2TB"},
		{Figure: "rollout.endpointslices.fanoutBytes", Max: fptr(1e12), MaxText: "1TB", Where: "x.yaml:9:3"},
		{Figure: "one-endpoint-not-ready.ratio.fanoutBytes", Min: fptr(100)},
		{Figure: "total.endpoints.failedWrites", Max: fptr(0)},
		{Figure: "total.endpointslices.propagation.p99Seconds", Min: fptr(0.5), Max: fptr(2)},
	})
	want := []struct {
		verdict Verdict
		msg     string
		change  float64
	}{
		{VerdictOK, "rollout.endpointslices.fanoutBytes = 1.5 TB, within ≤ 2.0 TB", 0},
		{VerdictBroken, "rollout.endpointslices.fanoutBytes = 1.5 TB, above max 1TB (budget at x.yaml:9:3)", 52.5},
		{VerdictBroken, "one-endpoint-not-ready.ratio.fanoutBytes = 76.962×, below min 100×", -23.038},
		{VerdictBroken, "total.endpoints.failedWrites = 3, above max 0", 0},
		{VerdictOK, "total.endpointslices.propagation.p99Seconds = 1.5s, within 500ms .. 2s", 0},
	}
	for i, w := range want {
		r := rows[i]
		if r.Verdict != w.verdict || r.Message != w.msg || r.Failed != (w.verdict != VerdictOK) {
			t.Errorf("row %d: %s %v %q, want %s %q", i, r.Verdict, r.Failed, r.Message, w.verdict, w.msg)
		}
		if w.change != 0 && (r.ChangePercent == nil || fmt.Sprintf("%.3f", *r.ChangePercent) != fmt.Sprintf("%.3f", w.change)) {
			t.Errorf("row %d: change %v, want %v", i, r.ChangePercent, w.change)
		}
	}
	// Broken from 0: the change is undefined.
	if rows[3].ChangePercent != nil {
		t.Errorf("change from a max of 0: %v", *rows[3].ChangePercent)
	}

	// Budgets on a mode that did not run are missing, and fail.
	only := NewSummary(fixtureResults(), []sim.Mode{sim.ModeEndpointSlices})
	rows = CheckBudgets(only, []BudgetSpec{{Figure: "total.ratio.writes", Min: fptr(1)}, {Figure: "total.endpoints.syncs", Max: fptr(1)}})
	for _, r := range rows {
		if r.Verdict != VerdictMissing || !r.Failed {
			t.Errorf("%+v", r)
		}
	}
	if !strings.Contains(rows[0].Message, "needs both modes") || !strings.Contains(rows[1].Message, "mode endpoints did not run") {
		t.Errorf("messages %q / %q", rows[0].Message, rows[1].Message)
	}
}

func TestCompareBaseline(t *testing.T) {
	s := NewSummary(fixtureResults(), nil)
	base := NewBaseline(s)
	if len(base.Figures) != 4*2*modeFigureCount {
		t.Fatalf("%d baseline figures", len(base.Figures))
	}
	// The run against its own baseline: all ok, 0% change.
	for _, r := range CompareBaseline(s, base, CheckOptions{}) {
		if r.Verdict != VerdictOK || *r.ChangePercent != 0 {
			t.Fatalf("%+v", r)
		}
	}
	base.Figures["rollout.endpoints.fanoutBytes"] *= 0.9      // the run grew 11.1%
	base.Figures["rollout.endpointslices.fanoutBytes"] *= 1.5 // the run shrank 33%
	base.Figures["create.endpoints.syncs"] = 39               // +2.56%, within 3%
	base.Figures["total.endpoints.failedWrites"] = 0          // from 0
	delete(base.Figures, "total.endpointslices.objects")      // new
	base.Figures["gone.endpoints.syncs"] = 1                  // missing
	for _, strict := range []bool{false, true} {
		rows := CompareBaseline(s, base, CheckOptions{Tolerance: 0.03, Strict: strict})
		SortCheckRows(rows)
		var got []string
		for _, r := range rows[:6] {
			got = append(got, fmt.Sprintf("%s %s %v", r.Verdict, r.Figure, r.Failed))
		}
		want := []string{
			"regression rollout.endpoints.fanoutBytes true",
			"regression total.endpoints.failedWrites true",
			"missing gone.endpoints.syncs true",
			"improvement rollout.endpointslices.fanoutBytes false",
			"new total.endpointslices.objects false",
			"ok create.endpoints.writes.create false",
		}
		if strict {
			want[3] = "improvement rollout.endpointslices.fanoutBytes true"
			want[4] = "new total.endpointslices.objects true"
		}
		if !slices.Equal(got, want) {
			t.Errorf("strict=%v:\n got %q\nwant %q", strict, got, want)
		}
		for _, r := range rows {
			switch r.Figure {
			case "create.endpoints.syncs":
				if r.Verdict != VerdictOK || !strings.Contains(r.Message, "+2.56%, tolerance 3%") {
					t.Errorf("%+v", r)
				}
			case "total.endpoints.failedWrites":
				if r.ChangePercent != nil || !strings.Contains(r.Message, "from 0") {
					t.Errorf("%+v", r)
				}
			}
		}
	}
}

func TestBaselineRoundTrip(t *testing.T) {
	base := NewBaseline(NewSummary(fixtureResults(), nil))
	var a, b bytes.Buffer
	if err := WriteBaselineJSON(&a, base); err != nil {
		t.Fatal(err)
	}
	got, err := ReadBaselineJSON(bytes.NewReader(a.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	WriteBaselineJSON(&b, got)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("baseline does not round-trip byte for byte")
	}
	// Bytes stay exact integers in the file.
	if !strings.Contains(a.String(), `"rollout.endpoints.fanoutBytes": 7107000000000,`) {
		t.Errorf("fanoutBytes not an exact integer:\n%s", a.String()[:400])
	}
}

func TestReadBaselineErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{\n  \"version\": 1,\n  \"seed\": x\n}", "3:11: not a baseline: invalid character 'x'"},
		{`{"version": "1"}`, `not a baseline: field "version" is a JSON string, where a baseline has an integer`},
		{`[1]`, "not a baseline: the file is a JSON array, where a baseline has an object"},
		{`{"version": 1, "scenario": "s", "figures": {}} {}`, "data after the JSON object"},
		{`{"version": 1, "scenario": "s"}`, `no "figures"`},
		{`{"version": 1, "scenario": "s", "figures": {}}`, `"figures" is empty`},
		{`{"scenario": "s", "figures": {"total.endpoints.fanoutBytes": 1}}`, `no "version" (want 1)`},
		{`{"version": 7, "scenario": "s", "figures": {"total.endpoints.fanoutBytes": 1}}`, `version 7: want 1`},
		{`{"version": 1, "scenario": "s", "figures": {"total.endpoints.fanoutBytes": -1}}`, "-1 is not a non-negative number"},
		{`{"version": 1, "scenario": "s", "figures": {"total.endpoints.writes.updat": 1}}`, `did you mean "total.endpoints.writes.update"?`},
		{`{"version": 1, "scenario": "s", "figures": {"fanoutBytes": 1}}`, `want <phase|total>.<endpoints|endpointslices|ratio>.<figure>`},
	} {
		_, err := ReadBaselineJSON(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadBaselineJSON(%s) = %v, want …%s", tc.in, err, tc.want)
		}
	}
}

func TestCheckFigureName(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"total.endpoints.fanoutBytes", ""},
		{"roll.ratio.peakEgressBytesPerSec", ""},
		{"total.endpoints.propagation.p99", `did you mean "total.endpoints.propagation.p99Seconds"?`},
		{"total.ratio.syncs", "ratios exist for writes, etcdBytes"},
		{"total.endpoint.syncs", `did you mean "total.endpoints.syncs"?`},
		{"total.endpoints.zzzzzzzz", `unknown figure "total.endpoints.zzzzzzzz"`},
	} {
		err := CheckFigureName(tc.name)
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckFigureName(%s) = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestWriteCheckTable(t *testing.T) {
	s := NewSummary(fixtureResults(), nil)
	base := NewBaseline(s)
	base.Figures["rollout.endpoints.fanoutBytes"] = 7e12
	r := &CheckReport{TolerancePercent: 1, Scenarios: []ScenarioCheck{{Scenario: "5000-nodes", File: "x.yaml", Seed: 42, Baseline: "b.json"}}}
	rows := append(CheckBudgets(s, []BudgetSpec{{Figure: "total.ratio.fanoutBytes", Min: fptr(50), Where: "x.yaml:3:3"}}),
		CompareBaseline(s, base, CheckOptions{Tolerance: 0.01})...)
	SortCheckRows(rows)
	r.Scenarios[0].Rows = rows[:3]
	var buf bytes.Buffer
	if err := WriteCheckTable(&buf, r, true); err != nil {
		t.Fatal(err)
	}
	want := `check 5000-nodes (x.yaml, seed 42; baseline b.json, tolerance 1%): 3 figures, 1 regression, 1 broken budget
  VERDICT     FIGURE                          EXPECTED  ACTUAL   CHANGE  SOURCE
  REGRESSION  rollout.endpoints.fanoutBytes     7.0 TB  7.1 TB   +1.53%  baseline
  BROKEN      total.ratio.fanoutBytes            ≥ 50×  4.678×  -90.64%  budget x.yaml:3:3
  ok          create.endpoints.writes.create         1       1       0%  baseline

FAIL: 3 figures checked in 1 scenario: 1 regression, 1 broken budget
`
	if buf.String() != want {
		t.Errorf("table\n%s\nwant\n%s", buf.String(), want)
	}
}

// Example of checking a run against a budget and a baseline of itself.
func ExampleCheckBudgets() {
	s := NewSummary(fixtureResults(), nil)
	rows := CheckBudgets(s, []BudgetSpec{
		{Figure: "one-endpoint-not-ready.endpoints.fanoutBytes", Min: fptr(4e9), Max: fptr(10e9), MinText: "4GB", MaxText: "10GB"},
		{Figure: "total.endpoints.failedWrites", Max: fptr(0)},
	})
	rows = append(rows, CompareBaseline(s, NewBaseline(s), CheckOptions{Tolerance: 0.02})[:1]...)
	SortCheckRows(rows)
	for _, r := range rows {
		fmt.Println(r.Verdict, r.Message)
	}
	// Output:
	// broken total.endpoints.failedWrites = 3, above max 0
	// ok one-endpoint-not-ready.endpoints.fanoutBytes = 5.9 GB, within 4.0 GB .. 10.0 GB
	// ok create.endpoints.writes.create = 1, baseline 1 (unchanged, tolerance 2%)
}

func BenchmarkCheck(b *testing.B) {
	s := NewSummary(fixtureResults(), nil)
	base := NewBaseline(s)
	budgets := []BudgetSpec{{Figure: "total.ratio.fanoutBytes", Min: fptr(50)}, {Figure: "rollout.endpoints.fanoutBytes", Max: fptr(1e13)}}
	b.ReportAllocs()
	for b.Loop() {
		rows := append(CheckBudgets(s, budgets), CompareBaseline(s, base, CheckOptions{Tolerance: 0.02})...)
		SortCheckRows(rows)
	}
}

func BenchmarkWriteCheckJUnit(b *testing.B) {
	s := NewSummary(fixtureResults(), nil)
	r := &CheckReport{TolerancePercent: 2, Scenarios: []ScenarioCheck{{Scenario: "x", Rows: CompareBaseline(s, NewBaseline(s), CheckOptions{Tolerance: 0.02})}}}
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteCheckJUnit(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}

// modeFigureCount is the number of figures per mode (len(ModeFigures())).
var modeFigureCount = len(ModeFigures())

func TestMatchFigure(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		kind          FigureKind
		want          bool
	}{
		{"writes.*", "total.endpoints.writes.update", KindCount, true},
		{"writes.*", "total.endpoints.watchEvents", KindCount, false},
		{"*.endpointslices.fanoutBytes", "rollout.endpointslices.fanoutBytes", KindBytes, true},
		{"*.endpointslices.fanoutBytes", "rollout.endpoints.fanoutBytes", KindBytes, false},
		{"endpoints.*", "create.endpoints.etcdBytes", KindBytes, true},
		{"total.*", "total.endpoints.writes.total", KindCount, true},
		{"total.*", "create.endpoints.writes.total", KindCount, false},
		{"bytes", "create.endpoints.etcdBytes", KindBytes, true},
		{"bytes", "create.endpoints.syncs", KindCount, false},
		{"propagation.p99Seconds", "x.endpoints.propagation.p99Seconds", KindSeconds, true},
	} {
		if got := MatchFigure(tc.pattern, tc.name, tc.kind); got != tc.want {
			t.Errorf("MatchFigure(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
	for _, p := range []string{"writes.*", "count", "seconds", "total.endpoints.fanoutBytes", "rollout.*.fanoutBytes", "*"} {
		if err := CheckFigurePattern(p); err != nil {
			t.Errorf("CheckFigurePattern(%q): %v", p, err)
		}
	}
	for _, p := range []string{"ratio", "nosuch", "writes.[", "total.endpoints.nosuch"} {
		if err := CheckFigurePattern(p); err == nil {
			t.Errorf("CheckFigurePattern(%q) accepted", p)
		}
	}
}

// Without verbose, a check with failures lists only them.
func TestWriteCheckTableFailuresOnly(t *testing.T) {
	s := NewSummary(fixtureResults(), nil)
	base := NewBaseline(s)
	base.Figures["rollout.endpoints.fanoutBytes"] = 7e12
	r := &CheckReport{TolerancePercent: 1, Rules: []string{"writes.*=10%"}, Scenarios: []ScenarioCheck{
		{Scenario: "5000-nodes", File: "x.yaml", Seed: 42, Baseline: "b.json", Rows: CompareBaseline(s, base, CheckOptions{Tolerance: 0.01})},
		{Scenario: "quick", File: "q.yaml", Seed: 1, Baseline: "q.json", Rows: CompareBaseline(s, NewBaseline(s), CheckOptions{Tolerance: 0.01})},
	}}
	SortCheckRows(r.Scenarios[0].Rows)
	var buf bytes.Buffer
	if err := WriteCheckTable(&buf, r, false); err != nil {
		t.Fatal(err)
	}
	n := len(r.Scenarios[0].Rows) + len(r.Scenarios[1].Rows)
	want := `check 5000-nodes (x.yaml, seed 42; baseline b.json, tolerance 1%, writes.*=10%): ` + strconv.Itoa(len(r.Scenarios[0].Rows)) + ` figures, 1 regression
  VERDICT     FIGURE                         EXPECTED  ACTUAL  CHANGE  SOURCE
  REGRESSION  rollout.endpoints.fanoutBytes    7.0 TB  7.1 TB  +1.53%  baseline

FAIL: ` + strconv.Itoa(n) + ` figures checked in 2 scenarios: 1 regression (--verbose lists every figure)
`
	if buf.String() != want {
		t.Errorf("table\n%s\nwant\n%s", buf.String(), want)
	}
}

// TestCheckTableSmallSeconds checks a regression of a sub-millisecond figure shows both
// values: rounded to the millisecond, kubeProxyDecodeCPUSeconds 0.000107 → 0.000208 (+94%)
// read "0s 0s". Reference: `sim check quick --set controlPlane.maxEndpointsPerSlice=500`.
func TestCheckTableSmallSeconds(t *testing.T) {
	s := NewSummary(fixtureResults(), nil)
	const name = "create.endpointslices.kubeProxyDecodeCPUSeconds"
	base := NewBaseline(s)
	base.Figures[name] = 0.000107
	s.Phases[0].EndpointSlices.KubeProxyDecodeCPUSeconds = 0.000208
	var row *CheckRow
	rows := CompareBaseline(s, base, CheckOptions{Tolerance: 0.01})
	for i := range rows {
		if rows[i].Figure == name {
			row = &rows[i]
		}
	}
	if row == nil {
		t.Fatalf("no row for %s", name)
	}
	r := &CheckReport{TolerancePercent: 1, Scenarios: []ScenarioCheck{{Scenario: "quick", File: "x.yaml", Seed: 1, Baseline: "b.json", Rows: []CheckRow{*row}}}}
	var buf bytes.Buffer
	if err := WriteCheckTable(&buf, r, true); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`REGRESSION +` + regexp.QuoteMeta(name) + ` +107µs +208µs +\+94\.39%`).MatchString(buf.String()) {
		t.Errorf("table\n%s\nwant a row %s 107µs 208µs +94.39%%", buf.String(), name)
	}
}

// TestFormatFigureSeconds checks seconds keep 3 significant digits below a second and the
// millisecond from a second up (values picked by hand around each unit's edge).
func TestFormatFigureSeconds(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0s"},
		{4e-7, "400ns"},
		{1.234e-6, "1.23µs"},
		{0.000107, "107µs"},
		{-0.000208, "-208µs"},
		{0.0094712, "9.47ms"},
		{0.4981, "498ms"},
		{0.9996, "1s"},
		{1.2964, "1.296s"},
		{125.5, "2m5.5s"},
	} {
		if got := FormatFigure(KindSeconds, tc.v); got != tc.want {
			t.Errorf("FormatFigure(KindSeconds, %g) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// peakEgressBytesPerSec is a rate: check's EXPECTED and ACTUAL columns and messages, and
// diff's A and B, show it in bytes per second as the run table does ("1.2 GB/s"), not as
// "1.2 GB", which read as a total next to fanoutBytes and etcdBytes.
func TestRateFiguresShowPerSecond(t *testing.T) {
	budget, actual := 1e9, 1_247_638_839.0
	row := CheckRow{Figure: "rollout.endpointslices.peakEgressBytesPerSec", Kind: KindBytes, Source: SourceBudget, Max: &budget, Actual: &actual}
	if got, want := row.expectedText(), "≤ 1.0 GB/s"; got != want {
		t.Errorf("expected %q, want %q", got, want)
	}
	if got, want := actualText(&row), "1.2 GB/s"; got != want {
		t.Errorf("actual %q, want %q", got, want)
	}
	if got, want := optFigure(row.Figure, KindBytes, &actual), "1.2 GB/s"; got != want {
		t.Errorf("diff %q, want %q", got, want)
	}
	// Totals stay bytes.
	if got, want := optFigure("rollout.endpointslices.fanoutBytes", KindBytes, &actual), "1.2 GB"; got != want {
		t.Errorf("fanoutBytes %q, want %q", got, want)
	}
}

// TestFigurePairShowsTheChange: two values that differ but print alike ("10ms 10ms
// +0.05%", found in a user's diff) are shown in full, each; values that print apart, and
// equal ones, print as ever.
func TestFigurePairShowsTheChange(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name   string
		kind   FigureKind
		a, b   *float64
		ta, tb string
	}{
		{"rollout.endpoints.programming.p50Seconds", KindSeconds, f(0.010), f(0.010005), "10ms", "10.005ms"},
		{"rollout.endpointslices.peakEgressBytesPerSec", KindBytes, f(1.2e9), f(1.2e9 + 5e5), "1,200,000,000 B/s", "1,200,500,000 B/s"},
		{"rollout.endpoints.fanoutBytes", KindBytes, f(1.2e9), f(2.4e9), "1.2 GB", "2.4 GB"},
		{"rollout.endpoints.fanoutBytes", KindBytes, f(1.2e9), f(1.2e9), "1.2 GB", "1.2 GB"},
		{"total.ratio", KindRatio, f(2.0001), f(2.0002), "2.0001×", "2.0002×"},
		{"rollout.endpoints.writes", KindCount, nil, f(3), "-", "3"},
	} {
		if ta, tb := figurePair(tc.name, tc.kind, tc.a, tc.b); ta != tc.ta || tb != tc.tb {
			t.Errorf("%s: %q %q, want %q %q", tc.name, ta, tb, tc.ta, tc.tb)
		}
	}
}

// TestChangeTextHuge: a change against a tiny budget or baseline reads as a factor of it
// ("982,744×"), not as "+98274300.00%"; smaller changes keep their percentage.
func TestChangeTextHuge(t *testing.T) {
	for _, tc := range []struct {
		percent float64
		want    string
	}{
		{98274300, "982,744×"},
		{99900, "1,000×"},
		{99899.99, "+99899.99%"},
		{94.39, "+94.39%"},
		{-99.5, "-99.50%"},
		{0.001, "+<0.01%"},
		{1e20, "1e+18×"},
	} {
		p := tc.percent
		row := CheckRow{ChangePercent: &p}
		if got := row.changeText(); got != tc.want {
			t.Errorf("change %g%%: CHANGE %q, want %q", tc.percent, got, tc.want)
		}
	}
}

// The summary.json of a run given as a baseline (both are JSON files sim writes) is named
// as such, with the command that writes a baseline, rather than refused for its first
// unknown field.
func TestReadBaselineRefusesSummaryJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSummaryJSON(&buf, NewSummary(fixtureResults(), nil)); err != nil {
		t.Fatal(err)
	}
	_, err := ReadBaselineJSON(&buf)
	want := "the summary.json of a run, not a baseline: write a baseline with 'sim check SCENARIO --baseline FILE --update-baseline'"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v; want it to say %q", err, want)
	}
}

// A check that only wrote baselines (--update-baseline, no budget) says so in its outcome
// line: it read "ok: 0 figures checked in 1 scenario: all within bounds", as if nothing had
// been done, or the scenario held no figures.
func TestCheckTableBaselinesOnly(t *testing.T) {
	for _, tc := range []struct {
		scenarios []ScenarioCheck
		want      string
	}{
		{[]ScenarioCheck{{Scenario: "quick", File: "q.yaml", BaselineWritten: true}}, "ok: the baseline holds this run's figures; no budget to check\n"},
		{[]ScenarioCheck{{Scenario: "a", File: "a.yaml", BaselineWritten: true}, {Scenario: "b", File: "b.yaml", BaselineWritten: true}}, "ok: 2 baselines hold this run's figures; no budget to check\n"},
	} {
		var buf bytes.Buffer
		if err := WriteCheckTable(&buf, &CheckReport{Scenarios: tc.scenarios}, false); err != nil {
			t.Fatal(err)
		}
		if buf.String() != tc.want {
			t.Errorf("table %q, want %q", buf.String(), tc.want)
		}
	}
}
