package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"epsim/reports"
	"epsim/scenarios"
	"epsim/sim"
)

// checkEnv is a testEnv whose scenarios carry the given budgets (in summary.json names).
func checkEnv(budgets ...reports.BudgetSpec) *testEnv {
	te := newTestEnv()
	te.loadCheck = func(nameOrPath string, sets []string) (*checkScenario, error) {
		s, err := te.load(nameOrPath, sets)
		if err != nil {
			return nil, err
		}
		cfg := s.Config
		cfg.RunEndpoints, cfg.RunEndpointSlices = true, true
		return &checkScenario{loadedScenario: loadedScenario{File: s.File, Config: cfg}, Budgets: budgets}, nil
	}
	return te
}

func ptr(v float64) *float64 { return &v }

// writeFakeBaseline writes the baseline of the unmutated fake run into dir/x.json.
func writeFakeBaseline(t *testing.T, dir string) string {
	t.Helper()
	te := checkEnv()
	if code := te.main([]string{"check", "x.yaml", "--baseline-dir", dir, "--update-baseline"}); code != exitOK {
		t.Fatalf("update: exit %d\n%s", code, te.stderr.String())
	}
	return filepath.Join(dir, "x.json")
}

// Reference: issue 6 "Exit codes: 0 all within bounds, 1 any regression or broken budget".
func TestCheckBudgetBroken(t *testing.T) {
	te := checkEnv(
		reports.BudgetSpec{Figure: "flip.endpoints.fanoutBytes", Max: ptr(100e6), MaxText: "100MB", Where: "x.yaml:40:3"},
		reports.BudgetSpec{Figure: "flip.ratio.fanoutBytes", Min: ptr(50), Where: "x.yaml:41:3"},
	)
	code := te.main([]string{"check", "x.yaml", "--verbose"})
	if code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s%s", code, te.stdout.String(), te.stderr.String())
	}
	out := te.stdout.String()
	lines := strings.Split(out, "\n")
	// The broken budget comes first, in capitals, with the figure and where the budget is.
	if !strings.Contains(lines[2], "BROKEN") || !strings.Contains(lines[2], "flip.endpoints.fanoutBytes") || !strings.Contains(lines[2], "x.yaml:40:3") {
		t.Errorf("first row %q\n%s", lines[2], out)
	}
	// 200 MB fanned out against a 100 MB max: +100%.
	if !strings.Contains(lines[2], "+100.00%") || !strings.Contains(lines[2], "≤ 100.0 MB") || !strings.Contains(lines[2], "200.0 MB") {
		t.Errorf("first row %q", lines[2])
	}
	// The ratio 200 MB / 3 MB = 66.667 is within min 50.
	if !strings.Contains(out, "ok       flip.ratio.fanoutBytes") {
		t.Errorf("ratio row missing:\n%s", out)
	}
	if !strings.Contains(te.stderr.String(), "sim: check failed: 1 of 2 figures out of bounds (1 broken budget)") {
		t.Errorf("stderr %q", te.stderr.String())
	}
}

// --update-baseline writes the baseline as asked but still checks the budgets: a broken one
// fails (exit 1), and stdout and stderr both say that the baseline was written all the same,
// so that neither the exit status nor the written file is misread.
// Reference: 'sim help check', "Exit status".
func TestCheckUpdateBaselineWithBrokenBudget(t *testing.T) {
	dir := t.TempDir()
	te := checkEnv(reports.BudgetSpec{Figure: "flip.endpoints.fanoutBytes", Max: ptr(100e6), MaxText: "100MB", Where: "x.yaml:40:3"})
	code := te.main([]string{"check", "x.yaml", "--baseline-dir", dir, "--update-baseline"})
	if code != exitFailed {
		t.Fatalf("exit %d, want %d (a broken budget)\n%s%s", code, exitFailed, te.stdout.String(), te.stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "x.json")); err != nil {
		t.Errorf("the baseline was not written: %v", err)
	}
	if out := te.stdout.String(); !strings.Contains(out, "BROKEN") || !strings.Contains(out, "The baseline now holds this run's figures, as asked") {
		t.Errorf("stdout does not say the baseline was written despite the failure:\n%s", out)
	}
	if msg := lastErrorLine(te.stderr.String()); !strings.Contains(te.stderr.String(), "sim: check failed: 1 of 1 figures out of bounds (1 broken budget); the baselines now hold this run's figures, as asked") {
		t.Errorf("stderr %q (first sim: line %q)", te.stderr.String(), msg)
	}
	if help := strings.Join(strings.Fields(cmdCheck.long), " "); !strings.Contains(help, "a broken budget (with --update-baseline too") {
		t.Errorf("check's help does not say that --update-baseline still fails on a broken budget")
	}
}

func TestCheckBudgetMissingMode(t *testing.T) {
	te := checkEnv(reports.BudgetSpec{Figure: "total.ratio.writes", Max: ptr(2)})
	te.mutate = func(r *sim.Results) { r.Total.EndpointSlices.Writes = sim.WriteCounts{} }
	if code := te.main([]string{"check", "x.yaml"}); code != exitFailed || !strings.Contains(te.stdout.String(), "MISSING") {
		t.Fatalf("exit %d\n%s", code, te.stdout.String())
	}
}

func TestCheckBaselineTolerance(t *testing.T) {
	for _, tc := range []struct {
		name    string
		factor  float64 // applied to the total Endpoints fanoutBytes
		flags   []string
		want    int
		verdict string
	}{
		{"unchanged", 1, nil, exitOK, "ok"},
		{"within 2%", 1.015, nil, exitOK, "ok"},
		{"regression past 2%", 1.03, nil, exitFailed, "REGRESSION"},
		{"within a wider tolerance", 1.03, []string{"--tolerance", "5%"}, exitOK, "ok"},
		{"improvement", 0.9, nil, exitOK, "improvement"},
		{"improvement --strict", 0.9, []string{"--strict"}, exitFailed, "IMPROVEMENT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFakeBaseline(t, dir)
			te := checkEnv()
			te.mutate = func(r *sim.Results) {
				r.Total.Endpoints.FanoutBytes = int64(float64(r.Total.Endpoints.FanoutBytes) * tc.factor)
			}
			code := te.main(append([]string{"check", "x.yaml", "--baseline-dir", dir, "--verbose"}, tc.flags...))
			if code != tc.want {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.want, te.stdout.String(), te.stderr.String())
			}
			row := ""
			for _, l := range strings.Split(te.stdout.String(), "\n") {
				if strings.Contains(l, " total.endpoints.fanoutBytes ") {
					row = l
				}
			}
			if !strings.HasPrefix(strings.TrimSpace(row), tc.verdict+" ") {
				t.Errorf("row %q, want verdict %s", row, tc.verdict)
			}
			if tc.verdict != "ok" && tc.verdict != "improvement" {
				// Failures are listed first.
				if first := strings.Split(te.stdout.String(), "\n")[2]; first != row {
					t.Errorf("first row %q, want %q", first, row)
				}
			}
		})
	}
}

// Reference: issue 6 "--update-baseline writes it atomically"; a baseline round-trips and a
// second update with the same results leaves the file untouched.
func TestCheckBaselineRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := writeFakeBaseline(t, dir)
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	base, err := reports.ReadBaselineJSON(bytes.NewReader(first))
	if err != nil {
		t.Fatal(err)
	}
	want := reports.NewBaseline(reports.NewSummary(fakeResults(sim.Config{Name: "fake", Seed: 1}), nil))
	if base.Scenario != "fake" || base.Seed != 1 || len(base.Figures) != len(want.Figures) || base.Figures["total.endpoints.fanoutBytes"] != 200_000_000 {
		t.Errorf("baseline %+v", base)
	}
	for name, v := range want.Figures {
		if base.Figures[name] != v {
			t.Errorf("%s = %v, want %v", name, base.Figures[name], v)
		}
	}
	// No temporary files are left behind.
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("dir holds %v", entries)
	}
	te := checkEnv()
	if code := te.main([]string{"check", "x.yaml", "--baseline-dir", dir, "--update-baseline"}); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(te.stderr.String(), "unchanged") {
		t.Errorf("second update: %q", te.stderr.String())
	}
	if second, _ := os.ReadFile(path); !bytes.Equal(first, second) {
		t.Error("second update changed the baseline")
	}
}

func TestCheckJSONFormat(t *testing.T) {
	dir := t.TempDir()
	writeFakeBaseline(t, dir)
	te := checkEnv(reports.BudgetSpec{Figure: "total.endpointslices.failedWrites", Max: ptr(0)})
	if code := te.main([]string{"check", "x.yaml", "--baseline-dir", dir, "--format", "json"}); code != exitOK {
		t.Fatalf("exit %d\n%s", code, te.stderr.String())
	}
	var got struct {
		Passed    bool
		Counts    reports.CheckCounts
		Scenarios []reports.ScenarioCheck
	}
	if err := json.Unmarshal(te.stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if !got.Passed || got.Counts.Failed != 0 || len(got.Scenarios) != 1 || got.Counts.Figures != 1+2*modeFigureCount*2 {
		t.Errorf("report %+v", got)
	}
	if r := got.Scenarios[0].Rows[0]; r.Source != reports.SourceBudget || r.Figure != "total.endpointslices.failedWrites" || r.Verdict != reports.VerdictOK {
		t.Errorf("first row %+v", r)
	}
}

// Reference: issue 6 "JUnit output parses as XML and names each figure".
func TestCheckJUnit(t *testing.T) {
	dir := t.TempDir()
	writeFakeBaseline(t, dir)
	te := checkEnv(reports.BudgetSpec{Figure: "flip.endpoints.writes.total", Max: ptr(1)})
	junit := filepath.Join(dir, "out", "check.xml")
	os.MkdirAll(filepath.Dir(junit), 0o755)
	if code := te.main([]string{"check", "x.yaml", "--baseline-dir", dir, "--junit", junit}); code != exitFailed {
		t.Fatalf("exit %d\n%s", code, te.stderr.String())
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name      string `xml:"name,attr"`
				ClassName string `xml:"classname,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("JUnit does not parse: %v\n%s", err, data)
	}
	if doc.Tests != 1+2*modeFigureCount*2 || doc.Failures != 1 || len(doc.Suites) != 1 || doc.Suites[0].Name != "fake" {
		t.Fatalf("tests %d failures %d suites %d", doc.Tests, doc.Failures, len(doc.Suites))
	}
	var names []string
	for _, c := range doc.Suites[0].Cases {
		names = append(names, c.ClassName+"/"+c.Name)
	}
	for _, f := range reports.SummaryFigures(reports.NewSummary(fakeResults(sim.Config{Name: "fake"}), nil)) {
		if f.Kind != reports.KindRatio && !slices.Contains(names, "fake.baseline/"+f.Name) {
			t.Errorf("no testcase for %s", f.Name)
		}
	}
	c := doc.Suites[0].Cases[0]
	if c.Name != "flip.endpoints.writes.total" || c.ClassName != "fake.budget" || c.Failure == nil || c.Failure.Type != "broken" ||
		!strings.Contains(c.Failure.Message, "above max") {
		t.Errorf("first case %+v", c)
	}
}

// Reference: issue 6 "corrupt baseline → 2 with a clear message; unknown figure → 2 with
// suggestion".
func TestCheckBadBaseline(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		want          []string
	}{
		{"truncated", `{"version": 1, "scenario": "fake", "seed": 1, "figures": {"total.endpoints.syncs": 3`,
			[]string{"x.json: 1:", "not a baseline", "unexpected EOF"}},
		{"not JSON", "hello\n", []string{"x.json: 1:1: not a baseline"}},
		{"empty", "", []string{"x.json: not a baseline: empty file"}},
		{"unknown field", `{"version": 1, "scenario": "fake", "seed": 1, "figurez": {}}`, []string{`unknown field "figurez"`}},
		{"unknown figure", `{"version": 1, "scenario": "fake", "seed": 1, "figures": {"total.endpoints.fanoutByte": 3}}`,
			[]string{`unknown figure "total.endpoints.fanoutByte"; did you mean "total.endpoints.fanoutBytes"`}},
		{"nested typo", `{"version": 1, "scenario": "fake", "seed": 1, "figures": {"flip.endpointslices.propagation.p99seconds": 3}}`,
			[]string{`did you mean "flip.endpointslices.propagation.p99Seconds"`}},
		{"bad mode", `{"version": 1, "scenario": "fake", "seed": 1, "figures": {"flip.endpointslice.syncs": 3}}`,
			[]string{`mode "endpointslice"`, `did you mean "flip.endpointslices.syncs"`}},
		{"ratio", `{"version": 1, "scenario": "fake", "seed": 1, "figures": {"flip.ratio.writes": 3}}`,
			[]string{"ratios are not baselined"}},
		{"version", `{"version": 7, "scenario": "fake", "seed": 1, "figures": {"flip.endpoints.syncs": 3}}`, []string{"version 7: want 1"}},
		// encoding/json keeps the last of a key given twice, without a word.
		{"duplicate figure", `{"version": 1, "scenario": "fake", "seed": 1, "figures": {"flip.endpoints.syncs": 3,
 "flip.endpoints.syncs": 9}}`, []string{`x.json: 2:2: figures: key "flip.endpoints.syncs" given twice (first at 1:59)`}},
		{"duplicate field", `{"version": 1, "scenario": "fake", "seed": 1, "seed": 2, "figures": {"flip.endpoints.syncs": 3}}`,
			[]string{`x.json: 1:47: the top-level object: key "seed" given twice (first at 1:36)`}},
		{"figure out of range", `{"version": 1, "scenario": "fake", "seed": 1, "figures": {"flip.endpoints.syncs": 1e400}}`,
			[]string{`x.json: 1:83: figure "flip.endpoints.syncs": 1e400 is out of range (a figure is at most 1.7976931348623157e+308)`}},
		{"figure not a number", `{"version": 1, "scenario": "fake", "seed": 1, "figures": {"flip.endpoints.syncs": "zero",
 "flip.endpoints.writes": null, "flip.endpoints.etcdBytes": [1]}}`,
			[]string{
				"x.json: \n" + `  1:83: figure "flip.endpoints.syncs" is a JSON string "zero", where a baseline has a number`,
				"\n" + `  2:27: figure "flip.endpoints.writes" is null, where a baseline has a number`,
				"\n" + `  2:61: figure "flip.endpoints.etcdBytes" is a JSON array, where a baseline has a number`,
			}},
		{"other seed", `{"version": 1, "scenario": "fake", "seed": 9, "figures": {"flip.endpoints.syncs": 3}}`,
			[]string{`written for scenario "fake" seed 9, but x.yaml is scenario "fake" seed 1`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "x.json"), []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			te := checkEnv()
			code := te.main([]string{"check", "x.yaml", "--baseline-dir", dir})
			if code != exitBadInput {
				t.Fatalf("exit %d, want 2\n%s", code, te.stderr.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(te.stderr.String(), w) {
					t.Errorf("stderr %q lacks %q", te.stderr.String(), w)
				}
			}
			if len(te.ran) != 0 {
				t.Error("ran the scenario despite bad input")
			}
		})
	}
}

func TestCheckUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no scenario", []string{"check"}, "at least one scenario"},
		{"both baselines", []string{"check", "x.yaml", "--baseline", "a.json", "--baseline-dir", dir}, "exclude each other"},
		{"one baseline file, two scenarios", []string{"check", "x.yaml", "y.yaml", "--baseline", "a.json"}, "takes one scenario"},
		{"update without baseline", []string{"check", "x.yaml", "--update-baseline"}, "needs --baseline"},
		{"bad tolerance", []string{"check", "x.yaml", "--tolerance", "lots"}, "--tolerance"},
		{"negative jobs", []string{"check", "x.yaml", "--jobs", "-2"}, "--jobs -2: want 1 or more"},
		{"bad format", []string{"check", "x.yaml", "--format", "xml"}, "--format"},
		{"missing baseline", []string{"check", "x.yaml", "--baseline-dir", dir}, "create it with --update-baseline"},
		// The path once, not "baseline D: read D: is a directory".
		{"baseline a directory", []string{"check", "x.yaml", "--baseline", dir}, "sim: baseline " + dir + ": is a directory\n"},
		{"scenario errors", []string{"check", "bad", "x.yaml", "--baseline-dir", dir}, "bad.yaml:3:5: cluster.nodes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te := checkEnv()
			if code := te.main(tc.args); code != exitBadInput || !strings.Contains(te.stderr.String(), tc.want) {
				t.Errorf("exit %d, stderr %q, want 2 and %q", code, te.stderr.String(), tc.want)
			}
		})
	}
}

func TestParseTolerance(t *testing.T) {
	for in, want := range map[string]float64{"2%": 0.02, "0.5%": 0.005, "10": 0.1, "0%": 0} {
		if got, err := parseTolerance(in); err != nil || got != want {
			t.Errorf("parseTolerance(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "-1%", "x", "NaN", "5000%"} {
		if _, err := parseTolerance(in); err == nil {
			t.Errorf("parseTolerance(%q) accepted", in)
		}
	}
}

// The loader's figure names and the comparison's are the same list.
func TestCheckFigureNamesAgree(t *testing.T) {
	mode := reports.ModeFigures()
	slices.Sort(mode)
	if got := scenarios.FigureNames("endpoints"); !slices.Equal(got, mode) {
		t.Errorf("scenarios %q\nreports %q", got, mode)
	}
	for _, name := range mode {
		k, _ := reports.FigureKindOf("total.endpoints." + name)
		want := map[scenarios.QuantityKind]reports.FigureKind{scenarios.KindNumber: reports.KindCount,
			scenarios.KindBytes: reports.KindBytes, scenarios.KindRate: reports.KindBytes, scenarios.KindDuration: reports.KindSeconds}[scenarios.ExpectFigures[name]]
		if k != want {
			t.Errorf("%s: kind %s vs %s", name, k, scenarios.ExpectFigures[name])
		}
	}
	if !slices.Equal(reports.RatioFigures(), scenarios.ExpectRatioFigures) {
		t.Errorf("ratio figures %q vs %q", reports.RatioFigures(), scenarios.ExpectRatioFigures)
	}
}

// With the real loader and engine: a copy of the quick scenario with budgets, one of them
// broken, and a baseline that a second run reproduces exactly (determinism makes a re-run
// a no-op).
func TestCheckQuickScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the engine")
	}
	src, err := os.ReadFile("../../scenarios/quick.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	yaml := filepath.Join(dir, "my-quick.yaml")
	doc := string(src) + `
expect:
  rolling-update.endpointslices.fanoutBytes: {max: 1MB}
  total.endpoints.failedWrites: {max: 0}
`
	if err := os.WriteFile(yaml, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	line := strings.Count(string(src), "\n") + 3

	te := newTestEnv()
	te.env.runSim, te.env.loadCheck = sim.Run, loadCheckScenario
	if code := te.main([]string{"check", yaml, "--baseline-dir", dir, "--update-baseline"}); code != exitFailed {
		t.Fatalf("exit %d, want 1 (broken budget)\n%s%s", code, te.stdout.String(), te.stderr.String())
	}
	row := strings.Split(te.stdout.String(), "\n")[2]
	if !strings.Contains(row, "BROKEN") || !strings.Contains(row, "rolling-update.endpointslices.fanoutBytes") ||
		!strings.Contains(row, yaml+":"+strconv.Itoa(line)+":3") {
		t.Errorf("first row %q (budget at line %d)", row, line)
	}
	base, err := os.ReadFile(filepath.Join(dir, "my-quick.json"))
	if err != nil {
		t.Fatal(err)
	}

	te = newTestEnv()
	te.env.runSim, te.env.loadCheck = sim.Run, loadCheckScenario
	code := te.main([]string{"check", yaml, "--baseline-dir", dir, "--format", "json", "--tolerance", "0%",
		"--set", `expect["rolling-update.endpointslices.fanoutBytes"].max=1TB`})
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, te.stdout.String(), te.stderr.String())
	}
	var got struct {
		Scenarios []reports.ScenarioCheck
	}
	if err := json.Unmarshal(te.stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range got.Scenarios[0].Rows {
		if r.Source == reports.SourceBaseline {
			n++
			if r.Verdict != reports.VerdictOK || r.ChangePercent == nil || *r.ChangePercent != 0 {
				t.Errorf("re-run changed %s: %+v", r.Figure, r)
			}
		}
	}
	if n != 5*2*modeFigureCount {
		t.Errorf("%d baseline figures, want %d", n, 5*2*modeFigureCount)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "my-quick.json")); !bytes.Equal(base, after) {
		t.Error("check without --update-baseline changed the baseline")
	}

	// An unknown figure in a budget is bad input with file:line and a suggestion.
	os.WriteFile(yaml, []byte(string(src)+"\nexpect:\n  total.endpoints.fanoutbyte: {max: 1GB}\n"), 0o644)
	te = newTestEnv()
	te.env.runSim, te.env.loadCheck = sim.Run, loadCheckScenario
	if code := te.main([]string{"check", yaml}); code != exitBadInput ||
		!strings.Contains(te.stderr.String(), yaml+":"+strconv.Itoa(line)+":3:") || !strings.Contains(te.stderr.String(), `did you mean "fanoutBytes"?`) {
		t.Errorf("exit %d\n%s", code, te.stderr.String())
	}
}

// Reference: issue 6 "document them in sim check --help and the README".
func TestCheckFiguresDocumented(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append(reports.ModeFigures(), reports.RatioFigures()...) {
		if !strings.Contains(cmdCheck.long, " "+name) {
			t.Errorf("sim help check does not list %s", name)
		}
		if !strings.Contains(string(readme), "`"+name+"`") {
			t.Errorf("README does not list %s", name)
		}
	}
}

// modeFigureCount is the number of figures per mode.
var modeFigureCount = len(reports.ModeFigures())

// A passing check prints one line; a failing one the failures only, unless --verbose.
// Reference: issue 13, "sim check prints only failures and a one-line summary by default".
func TestCheckPrintsFailuresOnly(t *testing.T) {
	dir := t.TempDir()
	writeFakeBaseline(t, dir)
	te := checkEnv()
	if code := te.main([]string{"check", "x.yaml", "--baseline-dir", dir}); code != exitOK {
		t.Fatalf("exit %d: %s", code, te.stderr.String())
	}
	if out := te.stdout.String(); strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "ok: ") {
		t.Errorf("passing check printed\n%s", out)
	}
	te = checkEnv()
	te.mutate = func(r *sim.Results) { r.Total.Endpoints.FanoutBytes *= 2 }
	if code := te.main([]string{"check", "x.yaml", "--baseline-dir", dir}); code != exitFailed {
		t.Fatalf("exit %d", code)
	}
	out := te.stdout.String()
	if !strings.Contains(out, "REGRESSION  total.endpoints.fanoutBytes") || strings.Contains(out, "\n  ok ") ||
		!strings.HasPrefix(strings.Split(out, "\n")[0], "check fake") || !strings.Contains(out, "FAIL: ") {
		t.Errorf("failing check printed\n%s", out)
	}
	te = checkEnv()
	te.mutate = func(r *sim.Results) { r.Total.Endpoints.FanoutBytes *= 2 }
	te.main([]string{"check", "x.yaml", "--baseline-dir", dir, "--verbose"})
	if !strings.Contains(te.stdout.String(), "\n  ok ") {
		t.Errorf("--verbose left out the figures within bounds\n%s", te.stdout.String())
	}
}

// Per-figure and per-kind tolerances, and absolute floors: a count going from 2 to 3 is
// +50%, which a floor of 1 forgives.
func TestCheckToleranceRulesAndFloors(t *testing.T) {
	dir := t.TempDir()
	writeFakeBaseline(t, dir)
	mutate := func(r *sim.Results) {
		r.Total.Endpoints.Writes.Update = 3                                       // 2 → 3: +50%
		r.Total.Endpoints.FanoutBytes = r.Total.Endpoints.FanoutBytes * 103 / 100 // +3%
	}
	for _, tc := range []struct {
		flags []string
		want  int
		fail  []string // figures that must fail
	}{
		{nil, exitFailed, []string{"total.endpoints.writes.update", "total.endpoints.writes.total", "total.endpoints.fanoutBytes"}},
		{[]string{"--tolerance", "writes.*=60%"}, exitFailed, []string{"total.endpoints.fanoutBytes"}},
		{[]string{"--tolerance", "5%", "--tolerance", "writes.*=60%"}, exitOK, nil},
		{[]string{"--tolerance", "writes.*=60%", "--tolerance", "writes.update=1%"}, exitFailed, []string{"total.endpoints.writes.update", "total.endpoints.fanoutBytes"}},
		{[]string{"--floor", "1"}, exitFailed, []string{"total.endpoints.fanoutBytes"}},
		{[]string{"--floor", "count=1", "--tolerance", "bytes=5%"}, exitOK, nil},
		{[]string{"--floor", "total.endpoints.fanoutBytes=10MB", "--floor", "1"}, exitOK, nil},
	} {
		te := checkEnv()
		te.mutate = mutate
		code := te.main(append([]string{"check", "x.yaml", "--baseline-dir", dir, "-o", "json"}, tc.flags...))
		if code != tc.want {
			t.Errorf("%q: exit %d, want %d\n%s", tc.flags, code, tc.want, te.stderr.String())
			continue
		}
		var got struct {
			Scenarios []struct{ Figures []reports.CheckRow }
		}
		if err := json.Unmarshal(te.stdout.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		var failed []string
		for _, r := range got.Scenarios[0].Figures {
			if r.Failed {
				failed = append(failed, r.Figure)
			}
		}
		slices.Sort(failed)
		want := slices.Clone(tc.fail)
		slices.Sort(want)
		if !slices.Equal(failed, want) {
			t.Errorf("%q: failed %q, want %q", tc.flags, failed, want)
		}
	}
	for _, bad := range [][]string{{"--tolerance", "nosuch.*=5%"}, {"--tolerance", "writes.*=lots"}, {"--floor", "-3"}, {"--floor", "ratio=1"}} {
		te := checkEnv()
		if code := te.main(append([]string{"check", "x.yaml", "--baseline-dir", dir}, bad...)); code != exitBadInput {
			t.Errorf("%q: exit %d, want %d", bad, code, exitBadInput)
		}
	}
}

// A baseline that names gates fails only on those figures; --update-baseline keeps them.
func TestCheckBaselineGates(t *testing.T) {
	dir := t.TempDir()
	path := writeFakeBaseline(t, dir)
	data, _ := os.ReadFile(path)
	base, err := reports.ReadBaselineJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	base.Gates = []string{"*.endpointslices.*"}
	if _, err := writeBaseline(path, base); err != nil {
		t.Fatal(err)
	}
	te := checkEnv()
	te.mutate = func(r *sim.Results) { r.Total.Endpoints.FanoutBytes *= 2 }
	if code := te.main([]string{"check", "x.yaml", "--baseline-dir", dir, "--verbose"}); code != exitOK {
		t.Errorf("an ungated figure failed the check: exit %d\n%s", code, te.stdout.String())
	}
	if !strings.Contains(te.stdout.String(), "ungated  total.endpoints.fanoutBytes") {
		t.Errorf("the ungated change is not shown:\n%s", te.stdout.String())
	}
	te = checkEnv()
	te.mutate = func(r *sim.Results) { r.Total.EndpointSlices.FanoutBytes *= 2 }
	if code := te.main([]string{"check", "x.yaml", "--baseline-dir", dir}); code != exitFailed {
		t.Errorf("a gated figure did not fail the check: exit %d", code)
	}
	te = checkEnv()
	if code := te.main([]string{"check", "x.yaml", "--baseline-dir", dir, "--update-baseline"}); code != exitOK {
		t.Fatal(te.stderr.String())
	}
	data, _ = os.ReadFile(path)
	if !strings.Contains(string(data), `"*.endpointslices.*"`) {
		t.Errorf("--update-baseline dropped the gates:\n%s", data)
	}
	// A gate that matches no figure is a bad baseline.
	base.Gates = []string{"nosuch"}
	writeBaseline(path, base)
	te = checkEnv()
	if code := te.main([]string{"check", "x.yaml", "--baseline-dir", dir}); code != exitBadInput {
		t.Errorf("bad gate: exit %d", code)
	}
}

// TestCheckOutputPaths: a --junit or --update-baseline path that cannot be written is found
// before any run, as bad input naming the flag and the path (it was found after all the
// runs, as exit 1, "a regression", with an internal temporary's error), and a missing
// directory on either path is created. Two scenarios of one base name would overwrite each
// other's baseline: refused, naming both files.
func TestCheckOutputPaths(t *testing.T) {
	for _, tc := range []struct {
		name string
		args func(dir string) []string
		code int
		want string
		// made is a file that must exist afterwards ("" for none).
		made string
	}{
		{"junit is a directory", func(dir string) []string {
			return []string{"check", "x.yaml", "--baseline-dir", dir, "--junit", dir}
		}, exitBadInput, "--junit DIR: is a directory", ""},
		{"junit ends in a slash", func(dir string) []string {
			return []string{"check", "x.yaml", "--baseline-dir", dir, "--junit", dir + "/new/"}
		}, exitBadInput, "--junit DIR/new/: names a directory", ""},
		{"junit under a file", func(dir string) []string {
			return []string{"check", "x.yaml", "--baseline-dir", dir, "--junit", filepath.Join(dir, "x.json", "j.xml")}
		}, exitBadInput, "--junit DIR/x.json/j.xml: DIR/x.json is not a directory", ""},
		{"junit in a missing directory", func(dir string) []string {
			return []string{"check", "x.yaml", "--baseline-dir", dir, "--junit", filepath.Join(dir, "a", "b", "j.xml")}
		}, exitOK, "", "a/b/j.xml"},
		{"baseline-dir under a file", func(dir string) []string {
			return []string{"check", "x.yaml", "--baseline-dir", filepath.Join(dir, "x.json"), "--update-baseline"}
		}, exitBadInput, "baseline DIR/x.json/x.json: DIR/x.json is not a directory", ""},
		{"baseline is a directory", func(dir string) []string {
			os.Mkdir(filepath.Join(dir, "d.json"), 0o755)
			return []string{"check", "x.yaml", "--baseline", filepath.Join(dir, "d.json"), "--update-baseline"}
		}, exitBadInput, "baseline DIR/d.json: is a directory", ""},
		{"baseline in a missing directory", func(dir string) []string {
			return []string{"check", "x.yaml", "--baseline-dir", filepath.Join(dir, "new", "dir"), "--update-baseline"}
		}, exitOK, "", "new/dir/x.json"},
		{"two scenarios, one baseline", func(dir string) []string {
			return []string{"check", "a/x.yaml", "b/x.yaml", "--baseline-dir", dir, "--update-baseline"}
		}, exitBadInput, "a/x.yaml and b/x.yaml share the baseline DIR/x.json", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFakeBaseline(t, dir)
			te := checkEnv()
			code := te.main(tc.args(dir))
			stderr := strings.ReplaceAll(te.stderr.String(), dir, "DIR")
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q lacks %q", stderr, tc.want)
			}
			if code == exitBadInput && len(te.ran) != 0 {
				t.Error("ran the scenarios before finding the bad output path")
			}
			if tc.made != "" {
				if _, err := os.Stat(filepath.Join(dir, tc.made)); err != nil {
					t.Errorf("not written: %v", err)
				}
			}
		})
	}
}

// The write counts hold committed writes only: the README and sim help run must not call
// them every write the controller issued, since no-op and failed writes are counted apart.
func TestWriteCountsDocumentedAsCommitted(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "| `writes.create`") {
			row = line
		}
	}
	if !strings.Contains(row, "committed") || !strings.Contains(row, "`noopWrites`") || !strings.Contains(row, "`failedWrites`") {
		t.Errorf("README's writes row does not say that it counts committed writes, no-op and failed ones apart:\n%s", row)
	}
	if !strings.Contains(cmdRun.long, "committed API writes") {
		t.Error("sim help run does not say that the API writes are the committed ones")
	}
}

// A floor for peakEgressBytesPerSec can be written as the rate it is, as its budget can:
// "--floor peakEgressBytesPerSec=10MB/s" was refused ("want … bytes (1KB) or a duration").
func TestParseFloorRates(t *testing.T) {
	for in, want := range map[string]float64{"10MB/s": 1e7, "80Mbit": 1e7, "80Mbps": 1e7, "10MB": 1e7, "50ms": 0.05, "3": 3} {
		got, err := parseFloor(in)
		if err != nil || got != want {
			t.Errorf("parseFloor(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parseFloor("unlimited"); err == nil {
		t.Error(`parseFloor("unlimited") took it`)
	}
}

// A failed check says what to do next, by what failed: a change against the baseline that
// is meant is accepted with --update-baseline (or allowed with --tolerance or --floor); a
// broken budget is a bound written in the scenario. It said only how many figures failed.
func TestCheckFailureSaysWhatToDo(t *testing.T) {
	dir := t.TempDir()
	writeFakeBaseline(t, dir)
	for _, tc := range []struct {
		name    string
		budgets []reports.BudgetSpec
		args    []string
		want    []string
		not     []string
	}{
		{"regression", nil, []string{"check", "x.yaml", "--baseline-dir", dir},
			[]string{"if the change is meant, accept it with --update-baseline (the same command), or allow it with --tolerance or --floor"},
			[]string{"expect:"}},
		{"broken budget", []reports.BudgetSpec{{Figure: "flip.endpoints.fanoutBytes", Max: ptr(100e6), MaxText: "100MB", Where: "x.yaml:40:3"}},
			[]string{"check", "x.yaml"},
			[]string{"a budget is a bound in the scenario's expect: section or a --set expect.… (SOURCE says which): change it there if the new figure is meant"},
			[]string{"--update-baseline"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te := checkEnv(tc.budgets...)
			te.mutate = func(r *sim.Results) { r.Total.Endpoints.FanoutBytes *= 2 }
			if code := te.main(tc.args); code != exitFailed {
				t.Fatalf("exit %d, want %d\n%s", code, exitFailed, te.stderr.String())
			}
			msg := te.stderr.String()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr %q; want it to say %q", msg, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(msg, n) {
					t.Errorf("stderr %q says %q, which does not apply", msg, n)
				}
			}
		})
	}
}

// TestCheckOutputIsAScenario: --update-baseline with --baseline naming the scenario file,
// or a --junit that is one, is refused before the run, leaving the scenario as it was: 'sim
// check q.yaml --baseline q.yaml --update-baseline' replaced the scenario with a baseline.
// Reference: DESIGN.md "Quality bars" (bad input never leaves half-written output).
func TestCheckOutputIsAScenario(t *testing.T) {
	dir := t.TempDir()
	scenario := filepath.Join(dir, "x.yaml")
	const text = "# my scenario\n"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"baseline", []string{"check", scenario, "--baseline", scenario, "--update-baseline"}, "baseline " + scenario + ": is the scenario " + scenario},
		{"junit", []string{"check", scenario, "--junit", filepath.Join(dir, ".", "x.yaml")}, "--junit " + filepath.Join(dir, ".", "x.yaml") + ": is the scenario " + scenario},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(scenario, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			te := checkEnv(reports.BudgetSpec{Figure: "flip.endpoints.fanoutBytes", Max: ptr(1e15), Where: "x.yaml:1:1"})
			code := te.main(tc.args)
			if code != exitBadInput || !strings.Contains(te.stderr.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, te.stderr.String(), exitBadInput, tc.want)
			}
			if b, _ := os.ReadFile(scenario); string(b) != text {
				t.Errorf("the scenario was overwritten:\n%.200s", b)
			}
			if len(te.ran) != 0 {
				t.Errorf("ran %d scenarios before refusing", len(te.ran))
			}
		})
	}
}

// TestCheckJUnitIsABaseline: a --junit that is a scenario's baseline, read or about to be
// written, is refused before the run, leaving the baseline as it was: 'sim check x.yaml
// --baseline-dir b --junit b/x.json' replaced the baseline with the report it had just
// been compared for (and with --update-baseline, the baseline just written).
func TestCheckJUnitIsABaseline(t *testing.T) {
	dir := t.TempDir()
	baseline := writeFakeBaseline(t, dir)
	want, err := os.ReadFile(baseline)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"check", "x.yaml", "--baseline-dir", dir, "--junit", baseline},
		{"check", "x.yaml", "--baseline-dir", dir, "--update-baseline", "--junit", filepath.Join(dir, ".", "x.json")},
		{"check", "x.yaml", "--baseline", baseline, "--junit", baseline},
	} {
		te := checkEnv()
		code := te.main(args)
		if code != exitBadInput || !strings.Contains(te.stderr.String(), "is the baseline of x.yaml") {
			t.Errorf("%v: exit %d, stderr %q; want %d and \"is the baseline of x.yaml\"", args, code, te.stderr.String(), exitBadInput)
		}
		if b, _ := os.ReadFile(baseline); !bytes.Equal(b, want) {
			t.Errorf("%v: the baseline was overwritten:\n%.200s", args, b)
		}
		if len(te.ran) != 0 {
			t.Errorf("%v: ran %d scenarios before refusing", args, len(te.ran))
		}
	}
}

// A baseline keeps the settings of the scenario it was written with, and a check of other
// settings lists them above the figures (and in the JSON) and says so when it fails: the
// figures moved because the inputs did. A baseline without settings (written before sim
// kept them) is compared as before.
func TestCheckSaysWhichInputsDiffer(t *testing.T) {
	dir := t.TempDir()
	te := realEnv()
	if code := te.main([]string{"check", "quick", "--baseline-dir", dir, "--update-baseline", "--quiet"}); code != exitOK {
		t.Fatalf("--update-baseline: exit %d: %s", code, te.stderr.String())
	}
	path := filepath.Join(dir, "quick.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	base, err := reports.ReadBaselineJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if got := base.Settings["controlPlane.maxEndpointsPerSlice"]; got != "100" || len(base.Settings) < 100 {
		t.Fatalf("the baseline's settings: %d, maxEndpointsPerSlice %q", len(base.Settings), got)
	}

	te = realEnv()
	if code := te.main([]string{"check", "quick", "--baseline-dir", dir, "--quiet"}); code != exitOK || strings.Contains(te.stdout.String(), "inputs") {
		t.Fatalf("the same inputs: exit %d:\n%s%s", code, te.stdout.String(), te.stderr.String())
	}

	te = realEnv()
	code := te.main([]string{"check", "quick", "--baseline-dir", dir, "--quiet", "--set", "controlPlane.maxEndpointsPerSlice=20"})
	out, stderr := te.stdout.String(), te.stderr.String()
	if code != exitFailed {
		t.Fatalf("slices of 20 against a baseline of 100: exit %d:\n%s%s", code, out, stderr)
	}
	want := "inputs: 1 setting differs from the baseline's (baseline → this run):\n  controlPlane.maxEndpointsPerSlice  100  →  20\n"
	if _, rest, _ := strings.Cut(out, "\n"); !strings.HasPrefix(rest, want) {
		t.Errorf("check's output:\n%s\nwant under the headline:\n%s", out, want)
	}
	if !strings.Contains(stderr, "the inputs of quick (1 setting) differ from the baseline's") {
		t.Errorf("the error does not name the inputs: %s", stderr)
	}

	te = realEnv()
	te.main([]string{"check", "quick", "--baseline-dir", dir, "--quiet", "--set", "controlPlane.maxEndpointsPerSlice=20", "-o", "json"})
	var report struct {
		Scenarios []struct {
			Inputs []reports.InputChange `json:"inputs"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(te.stdout.Bytes(), &report); err != nil {
		t.Fatal(err)
	}
	if len(report.Scenarios) != 1 || len(report.Scenarios[0].Inputs) != 1 || *report.Scenarios[0].Inputs[0].B != "20" {
		t.Errorf("JSON inputs: %+v", report.Scenarios)
	}

	// A CI page shows a failure's text: each failing baseline figure's names the inputs.
	junit := filepath.Join(t.TempDir(), "check.xml")
	te = realEnv()
	te.main([]string{"check", "quick", "--baseline-dir", dir, "--quiet", "--set", "controlPlane.maxEndpointsPerSlice=20", "--junit", junit})
	xmlData, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []struct {
			ClassName string `xml:"classname,attr"`
			Failure   *struct {
				Text string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(xmlData, &doc); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, c := range doc.Cases {
		if c.Failure == nil {
			continue
		}
		failed++
		if !strings.HasSuffix(c.Failure.Text, "\ninputs: 1 setting differs from the baseline's: controlPlane.maxEndpointsPerSlice 100 → 20\n") {
			t.Errorf("failure text of %s:\n%s", c.ClassName, c.Failure.Text)
			break
		}
	}
	if failed == 0 {
		t.Error("no failing testcase in the JUnit report")
	}

	// Without settings: no inputs, the figures compared as before.
	base.Settings = nil
	var buf bytes.Buffer
	if err := reports.WriteBaselineJSON(&buf, base); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	te = realEnv()
	code = te.main([]string{"check", "quick", "--baseline-dir", dir, "--quiet", "--set", "controlPlane.maxEndpointsPerSlice=20"})
	if code != exitFailed || strings.Contains(te.stdout.String(), "inputs") || strings.Contains(te.stderr.String(), "inputs") {
		t.Errorf("a baseline without settings: exit %d:\n%s%s", code, te.stdout.String(), te.stderr.String())
	}
}
