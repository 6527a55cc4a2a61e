package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"epsim/reports"
)

// runQuickOut runs the shipped quick scenario with sets into a fresh --out directory.
func runQuickOut(t *testing.T, sets ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	args := []string{"run", "quick", "--out", dir, "--quiet", "--charts=false"}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	te := realEnv()
	if code := te.main(args); code != exitOK {
		t.Fatalf("sim %s: exit %d: %s", strings.Join(args, " "), code, te.stderr.String())
	}
	return dir
}

// TestDiffRealRuns diffs quick at the default maxEndpointsPerSlice (100) with quick at
// 500: slices five times as large make every EndpointSlices update heavier, so the
// EndpointSlices bytes grow while the Endpoints figures stay put.
func TestDiffRealRuns(t *testing.T) {
	a := runQuickOut(t)
	b := runQuickOut(t, "controlPlane.maxEndpointsPerSlice=500")

	te := realEnv()
	if code := te.main([]string{"diff", a, b, "-o", "json"}); code != exitOK {
		t.Fatalf("diff without --fail-on: exit %d: %s", code, te.stderr.String())
	}
	var got struct {
		Passed bool
		Counts reports.DiffCounts
		Rows   []reports.DiffRow `json:"figures"`
	}
	if err := json.Unmarshal(te.stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if !got.Passed || got.Counts.Changed == 0 || got.Counts.Same == 0 {
		t.Fatalf("counts %+v passed %v: want some changed and some unchanged figures", got.Counts, got.Passed)
	}
	byName := map[string]reports.DiffRow{}
	for _, r := range got.Rows {
		byName[r.Figure] = r
	}
	if r := byName["total.endpointslices.fanoutBytes"]; r.ChangePercent == nil || *r.ChangePercent <= 0 {
		t.Errorf("total.endpointslices.fanoutBytes: %+v, want growth with slices of 500", r)
	}
	// The Endpoints controller has no slices: in the first phase, which both runs start at
	// 0, it writes the same. (The later phases start when both controllers are done with the
	// one before, and the slice controller's pace moves that.)
	if r := byName["create.endpoints.fanoutBytes"]; r.Verdict != reports.DiffSame {
		t.Errorf("create.endpoints.fanoutBytes: %+v, want unchanged (the Endpoints controller has no slices)", r)
	}
	// Largest relative change first.
	prev := -1.0
	for i := len(got.Rows) - 1; i >= 0; i-- {
		r := got.Rows[i]
		if r.ChangePercent == nil {
			break
		}
		c := *r.ChangePercent
		if c < 0 {
			c = -c
		}
		if c < prev {
			t.Fatalf("row %d %s (%v%%) sorted after a larger change", i, r.Figure, c)
		}
		prev = c
	}

	// The table: the same rows, unchanged ones left out, failures in capitals.
	te = realEnv()
	code := te.main([]string{"diff", a, filepath.Join(b, "summary.json"), "--fail-on", "5%"})
	if code != exitFailed {
		t.Fatalf("--fail-on 5%%: exit %d, want %d", code, exitFailed)
	}
	out := te.stdout.String()
	for _, want := range []string{"VERDICT  FIGURE", "OVER", "total.endpointslices.fanoutBytes", "FAIL: "} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "create.endpoints.fanoutBytes ") {
		t.Errorf("table lists an unchanged figure without --all:\n%s", out)
	}

	// Per Service: quick has one Service, web, whose slices grow too.
	te = realEnv()
	if code := te.main([]string{"diff", a, b, "--services"}); code != exitOK {
		t.Fatalf("--services: exit %d: %s", code, te.stderr.String())
	}
	if !strings.Contains(te.stdout.String(), "service.default/web.endpointslices.fanoutBytes") {
		t.Errorf("--services lacks web's bytes:\n%s", te.stdout.String())
	}

	// --floor takes what sim check's does: a plain number, or bytes or a duration with a
	// unit. A floor of a terabyte (more than any change here) passes, one byte does not.
	for _, tc := range []struct {
		floor string
		want  int
	}{
		{"1TB", exitOK},
		{"1000000000000", exitOK},
		{"1TiB", exitOK},
		{"1B", exitFailed},
		{"0", exitFailed},
	} {
		te = realEnv()
		if code := te.main([]string{"diff", a, b, "--fail-on", "5%", "--floor", tc.floor}); code != tc.want {
			t.Errorf("--floor %s: exit %d, want %d: %s", tc.floor, code, tc.want, te.stderr.String())
		}
	}

	// A run against itself has nothing past any threshold.
	te = realEnv()
	if code := te.main([]string{"diff", a, a, "--fail-on", "0.01%"}); code != exitOK {
		t.Errorf("a run diffed with itself: exit %d: %s", code, te.stdout.String())
	}
}

// TestDiffOneModeRun diffs quick (both modes) with quick run with --mode endpoints: the
// EndpointSlices and ratio figures are only in A. They are counted apart from the changes,
// and, not compared, fail --fail-on; the outcome line and the stderr line say so. It read
// "0 figures changed (245 past the threshold), 245 only in A" and "245 of 440 figures
// changed by more than 5%".
func TestDiffOneModeRun(t *testing.T) {
	a := runQuickOut(t)
	b := filepath.Join(t.TempDir(), "out")
	te := realEnv()
	if code := te.main([]string{"run", "quick", "--mode", "endpoints", "--out", b, "--quiet", "--charts=false"}); code != exitOK {
		t.Fatalf("run --mode endpoints: exit %d: %s", code, te.stderr.String())
	}
	te = realEnv()
	if code := te.main([]string{"diff", a, b}); code != exitOK {
		t.Fatalf("diff with B of one mode, no --fail-on: exit %d, want %d: %s\n%s", code, exitOK, te.stdout.String(), te.stderr.String())
	}
	if out := te.stdout.String(); !strings.Contains(out, " only in A (not compared)\n") || strings.Contains(out, "GONE") {
		t.Errorf("without --fail-on, want the figures only in A apart and not failed:\n%s", out)
	}
	te = realEnv()
	if code := te.main([]string{"diff", a, b, "--fail-on", "5%"}); code != exitFailed {
		t.Fatalf("diff with B of one mode, --fail-on 5%%: exit %d, want %d: %s\n%s", code, exitFailed, te.stdout.String(), te.stderr.String())
	}
	out := te.stdout.String()
	if strings.Contains(out, "past the threshold") || !strings.Contains(out, "GONE") ||
		!strings.Contains(out, "\nFAIL: 195 figures compared: 0 changed, 195 unchanged; 245 only in A (not compared, which fails the diff)\n") {
		t.Errorf("table counts figures only in A as changes, or not as failing:\n%s", out)
	}
	if want := "diff failed: 245 figures are only in one run (a mode or phase the other did not run), so not compared"; !strings.Contains(te.stderr.String(), want) ||
		strings.Contains(te.stderr.String(), "changed by more than") {
		t.Errorf("stderr %q, want %q alone", te.stderr.String(), want)
	}

	// B's Endpoints figures moved by 10%: those fail, and stdout and stderr count the
	// same figures.
	f, err := os.Open(filepath.Join(b, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := reports.ReadSummaryJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	s.Total.Endpoints.FanoutBytes += s.Total.Endpoints.FanoutBytes / 10
	var buf strings.Builder
	if err := reports.WriteSummaryJSON(&buf, s); err != nil {
		t.Fatal(err)
	}
	b2 := filepath.Join(t.TempDir(), "summary.json")
	if err := os.WriteFile(b2, []byte(buf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	te = realEnv()
	if code := te.main([]string{"diff", a, b2, "--fail-on", "5%", "-o", "json"}); code != exitFailed {
		t.Fatalf("diff with a 10%% change: exit %d, want %d", code, exitFailed)
	}
	var got struct{ Counts reports.DiffCounts }
	if err := json.Unmarshal(te.stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	c := got.Counts
	if c.Over != 1 || c.Gone == 0 || c.Failed != c.Over+c.Gone || c.Compared != c.Figures-c.Gone {
		t.Errorf("counts %+v: want 1 over (total.endpoints.fanoutBytes), the EndpointSlices figures gone, apart and failed", c)
	}
	if want := fmt.Sprintf("1 of %d figures changed by more than 5%%", c.Compared); !strings.Contains(te.stderr.String(), want) {
		t.Errorf("stderr %q, want %q", te.stderr.String(), want)
	}
}

func TestDiffBadInput(t *testing.T) {
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "x.json")
	os.WriteFile(notJSON, []byte("{"), 0o644)
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, []byte("{}"), 0o644)
	for _, args := range [][]string{
		{"diff", dir},
		{"diff", notJSON, notJSON},
		{"diff", empty, empty},
		{"diff", filepath.Join(dir, "nope"), notJSON},
		{"diff", empty, empty, "--fail-on", "lots"},
		{"diff", empty, empty, "--floor", "-1"},
		{"diff", empty, empty, "--floor", "1KBB"},
		{"diff", empty, empty, "--floor", "NaN"},
		{"diff", empty, empty, "-o", "yaml"},
	} {
		te := newTestEnv()
		if code := te.main(args); code != exitBadInput {
			t.Errorf("%q: exit %d, want %d (stderr %s)", args, code, exitBadInput, te.stderr.String())
		}
	}
}

// TestRunReportOfRealRun: 'sim run --out' of the shipped quick scenario writes a report
// whose headline states the run's own ratio, with every chart drawn embedded in the HTML
// page and linked from the Markdown, in the order the charts were drawn.
func TestRunReportOfRealRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	te := realEnv()
	if code := te.main([]string{"run", "quick", "--out", dir, "--quiet", "--set", "controlPlane.endpointsTruncation=true"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, te.stderr.String())
	}
	s, err := readSummaryArg(dir)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	headline := reports.RunHeadline(s)
	if !strings.Contains(string(md), headline) || !strings.Contains(headline, reports.FormatRatio(*s.Total.Ratio.FanoutBytes, true)) {
		t.Errorf("report.md lacks the headline %q with the total ratio", headline)
	}
	for _, want := range []string{"Endpoints truncation on", "At most 100 endpoints per EndpointSlice", "## What to change next", "| `rolling-update` |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	charts := 0
	for _, name := range listDir(t, dir) {
		if strings.HasSuffix(name, ".png") {
			charts++
			if !strings.Contains(string(md), "]("+name+")") {
				t.Errorf("report.md does not show %s", name)
			}
		}
	}
	if n := strings.Count(string(page), `src="data:image/png;base64,`); n != charts || charts == 0 {
		t.Errorf("report.html embeds %d PNGs, %d charts were drawn", n, charts)
	}
	for _, ref := range []string{"http:", "https:", "src=\"/", "src=\"./", "<link", "<script", "url("} {
		if strings.Contains(string(page), ref) {
			t.Errorf("report.html holds %q", ref)
		}
	}
}

// TestImportedClusterDiffAndReport is the proof path on the imported sample
// cluster (scenarios/testdata/import.golden.yaml, what 'sim import' makes of the kubectl
// testdata): run it, run it at slices of 500, diff the two, and read the report. Every
// Service, the selector-less one mirrored from its Endpoints included, is accounted: the
// per-Service figures add up to the totals.
func TestImportedClusterDiffAndReport(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs of the imported cluster")
	}
	scenario := filepath.Join("..", "..", "scenarios", "testdata", "import.golden.yaml")
	run := func(sets ...string) string {
		dir := filepath.Join(t.TempDir(), "out")
		args := []string{"run", scenario, "--out", dir, "--quiet"}
		for _, s := range sets {
			args = append(args, "--set", s)
		}
		te := realEnv()
		if code := te.main(args); code != exitOK {
			t.Fatalf("%q: exit %d: %s", args, code, te.stderr.String())
		}
		return dir
	}
	a, b := run(), run("controlPlane.maxEndpointsPerSlice=500")
	s, err := readSummaryArg(a)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Services) < 2 {
		t.Fatalf("%d Services in the imported cluster's summary", len(s.Services))
	}
	for _, m := range s.Modes {
		var writes, bytes int64
		for i := range s.Services {
			writes += s.Services[i].Mode(m).Writes
			bytes += s.Services[i].Mode(m).FanoutBytes
		}
		if tot := s.Total.Mode(m); writes != tot.Writes.Total || bytes != tot.FanoutBytes {
			t.Errorf("%s: Services add up to %d writes, %d bytes; totals %d, %d", m, writes, bytes, tot.Writes.Total, tot.FanoutBytes)
		}
	}
	te := realEnv()
	if code := te.main([]string{"diff", a, b, "--services", "-o", "json"}); code != exitOK {
		t.Fatalf("diff: exit %d: %s", code, te.stderr.String())
	}
	var d struct {
		Counts reports.DiffCounts
	}
	if err := json.Unmarshal(te.stdout.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	if d.Counts.Figures == 0 || d.Counts.New+d.Counts.Gone != 0 {
		t.Errorf("diff counts %+v: want the same figures in both runs", d.Counts)
	}
	md, err := os.ReadFile(filepath.Join(a, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{reports.RunHeadline(s), "## Services", "## Assumptions in force", "maxEndpointsPerSlice=500"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

// report.md's suggested commands carry the run's --set and --seed: "Guard the figures in
// CI" must baseline the run the report describes, not the scenario as filed.
func TestRunReportSuggestsTheRunsOverrides(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	te := realEnv()
	args := []string{"run", "quick", "--set", "cluster.nodes=20", "--seed", "3", "--charts=false", "--out", dir, "--quiet"}
	if code := te.main(args); code != exitOK {
		t.Fatalf("%q: exit %d: %s", args, code, te.stderr.String())
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "`sim check quick --set cluster.nodes=20 --seed 3 --baseline-dir baselines --update-baseline`"; !strings.Contains(string(md), want) {
		t.Errorf("report.md lacks %s", want)
	}
}

// plot and diff say what is wrong with a directory or file that is not a run's output:
// they printed "open DIR/summary.json: no such file or directory" and, for an empty
// summary.json, "reports: reading summary.json: EOF". Each names the file once: the
// readers' own "reports: timeseries.csv: …" came after the path.
func TestRunFileErrorsSayWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	blank := filepath.Join(dir, "blank")
	os.Mkdir(blank, 0o755)
	os.WriteFile(filepath.Join(blank, "summary.json"), nil, 0o644)
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("{}"), 0o644)
	// Runs' outputs whose layout.csv, and whose timeseries.csv, are not sim's.
	badLayout := filepath.Join(dir, "badlayout")
	te := realEnv()
	if code := te.main([]string{"run", "quick", "--set", "cluster.nodes=20", "--charts=false", "--out", badLayout, "--quiet"}); code != exitOK {
		t.Fatalf("run: exit %d: %s", code, te.stderr.String())
	}
	badSeries := filepath.Join(dir, "badseries")
	if err := os.CopyFS(badSeries, os.DirFS(badLayout)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(badLayout, "layout.csv"), []byte("garbage\n"), 0o644)
	os.WriteFile(filepath.Join(badSeries, "timeseries.csv"), []byte("garbage\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plot", empty}, empty + ": no summary.json in it (want the --out directory of a 'sim run')"},
		{[]string{"plot", blank}, filepath.Join(blank, "summary.json") + ": the file is empty"},
		{[]string{"plot", badSeries}, filepath.Join(badSeries, "timeseries.csv") + `: unexpected header "garbage"`},
		{[]string{"plot", badLayout}, filepath.Join(badLayout, "layout.csv") + `: unexpected header "garbage"`},
		{[]string{"plot", file}, file + ": not a directory"},
		{[]string{"plot", filepath.Join(dir, "nothere")}, filepath.Join(dir, "nothere") + ": no such file or directory"},
		{[]string{"diff", empty, blank}, empty + ": no summary.json in it"},
		{[]string{"diff", blank, blank}, "the file is empty"},
		{[]string{"diff", filepath.Join(dir, "nothere"), blank}, filepath.Join(dir, "nothere") + ": no such file or directory"},
	} {
		te := newTestEnv()
		if code := te.main(tc.args); code != exitBadInput {
			t.Errorf("%v: exit %d, want %d", tc.args, code, exitBadInput)
		}
		line := lastErrorLine(te.stderr.String())
		if !strings.Contains(line, tc.want) || strings.Contains(line, "EOF") || strings.Contains(line, "open ") || strings.Contains(line, "reports:") {
			t.Errorf("%v: %q, want it to contain %q", tc.args, line, tc.want)
		}
	}
}

// The diff of two runs says which of their inputs differ, from the effective scenario each
// run's --out holds, in the table and in the JSON; the file alone repeats its run exactly;
// a run without it (an older sim's) is said to be not compared, and a pair of
// such runs is diffed as before, without a word about inputs.
func TestDiffSaysWhichInputsDiffer(t *testing.T) {
	a := runQuickOut(t)
	b := runQuickOut(t, "controlPlane.maxEndpointsPerSlice=20", "services[0].replicas=50")

	te := realEnv()
	if code := te.main([]string{"diff", a, b}); code != exitOK {
		t.Fatalf("diff: exit %d: %s", code, te.stderr.String())
	}
	lines := strings.Split(te.stdout.String(), "\n")
	want := []string{
		"inputs: 2 settings differ (effective-scenario.yaml, A → B):",
		"  controlPlane.maxEndpointsPerSlice  100  →  20",
		"  services[0].replicas               200  →  50",
	}
	if len(lines) < 4 || strings.Join(lines[1:4], "\n") != strings.Join(want, "\n") {
		t.Errorf("diff's first lines:\n%s\nwant after the header:\n%s", strings.Join(lines[:min(4, len(lines))], "\n"), strings.Join(want, "\n"))
	}

	// The same in the JSON, summary.json files given instead of directories.
	te = realEnv()
	if code := te.main([]string{"diff", filepath.Join(a, "summary.json"), filepath.Join(b, "summary.json"), "-o", "json"}); code != exitOK {
		t.Fatalf("diff -o json: exit %d: %s", code, te.stderr.String())
	}
	var got struct {
		Inputs *reports.DiffInputs `json:"inputs"`
	}
	if err := json.Unmarshal(te.stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Inputs == nil || got.Inputs.NotCompared != "" || len(got.Inputs.Changes) != 2 ||
		got.Inputs.Changes[1].Setting != "services[0].replicas" || *got.Inputs.Changes[1].A != "200" || *got.Inputs.Changes[1].B != "50" {
		t.Errorf("JSON inputs %+v, want the two settings", got.Inputs)
	}

	// B's effective scenario, run on its own, is B's run: the same summary, no input differs.
	again := filepath.Join(t.TempDir(), "again")
	te = realEnv()
	if code := te.main([]string{"run", filepath.Join(b, "effective-scenario.yaml"), "--out", again, "--quiet", "--charts=false"}); code != exitOK {
		t.Fatalf("run of the effective scenario: exit %d: %s", code, te.stderr.String())
	}
	x, errX := os.ReadFile(filepath.Join(b, "summary.json"))
	y, errY := os.ReadFile(filepath.Join(again, "summary.json"))
	if errX != nil || errY != nil || string(x) != string(y) {
		t.Errorf("the effective scenario's run differs from the run that wrote it")
	}
	te = realEnv()
	if code := te.main([]string{"diff", b, again}); code != exitOK || !strings.Contains(te.stdout.String(), "\ninputs: the same (every setting of effective-scenario.yaml)\n") {
		t.Errorf("diff of a run and its repeat: exit %d:\n%s", code, te.stdout.String())
	}

	// A summary under another name may be apart from its run: its inputs are not read.
	renamed := filepath.Join(t.TempDir(), "a.json")
	if data, err := os.ReadFile(filepath.Join(a, "summary.json")); err != nil || os.WriteFile(renamed, data, 0o644) != nil {
		t.Fatal("cannot copy A's summary.json")
	}
	te = realEnv()
	te.main([]string{"diff", renamed, b})
	if !strings.Contains(te.stdout.String(), "\ninputs not compared: A "+renamed+" is a summary apart from its run's effective-scenario.yaml\n") {
		t.Errorf("a renamed summary:\n%s", te.stdout.String())
	}

	// Without the file in one run: said; in neither: nothing about inputs.
	if err := os.Remove(filepath.Join(a, "effective-scenario.yaml")); err != nil {
		t.Fatal(err)
	}
	te = realEnv()
	te.main([]string{"diff", a, b})
	if !strings.Contains(te.stdout.String(), "\ninputs not compared: A "+a+" has no effective-scenario.yaml") {
		t.Errorf("one run without the file:\n%s", te.stdout.String())
	}
	if err := os.Remove(filepath.Join(b, "effective-scenario.yaml")); err != nil {
		t.Fatal(err)
	}
	te = realEnv()
	te.main([]string{"diff", a, b})
	if strings.Contains(te.stdout.String(), "inputs") {
		t.Errorf("neither run with the file, yet:\n%s", te.stdout.String())
	}
	// A named pipe (or a directory) under the name is not read: a pipe would block diff.
	if err := syscall.Mkfifo(filepath.Join(a, "effective-scenario.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b, "effective-scenario.yaml"), []byte("seed: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	te = realEnv()
	if code := te.main([]string{"diff", a, b}); code != exitOK || !strings.Contains(te.stdout.String(), "effective-scenario.yaml: not a regular file") {
		t.Errorf("a named pipe as the effective scenario: exit %d:\n%s", code, te.stdout.String())
	}
	if err := os.Remove(filepath.Join(a, "effective-scenario.yaml")); err != nil {
		t.Fatal(err)
	}

	// A file that is not a scenario is said to be, and the figures are still compared.
	if err := os.WriteFile(filepath.Join(b, "effective-scenario.yaml"), []byte("- a list\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a, "effective-scenario.yaml"), []byte("seed: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	te = realEnv()
	if code := te.main([]string{"diff", a, b}); code != exitOK || !strings.Contains(te.stdout.String(), "effective-scenario.yaml: not a scenario file") ||
		!strings.Contains(te.stdout.String(), "figures compared") {
		t.Errorf("a malformed effective scenario: exit %d:\n%s", code, te.stdout.String())
	}
}

// Two replays are compared on what they replayed as well as on their settings: a replay's
// effective scenario holds its settings alone, so two recordings replayed alike were "the
// same". The recording (file, events), --start and a replay against a run are listed; a
// replay.json that is not a replay's stops the comparison of inputs, not of figures.
func TestDiffComparesWhatReplaysReplayed(t *testing.T) {
	short := filepath.Join(t.TempDir(), "short.jsonl")
	data, err := os.ReadFile(sample("replay-trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(short, []byte(strings.Join(lines[:100], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	replay := func(pods string, extra ...string) string {
		out := filepath.Join(t.TempDir(), "replay")
		te := realEnv()
		args := append([]string{"replay", "--pods", pods, "--services", sample("replay-services.json"),
			"--nodes", sample("replay-nodes.json"), "--quiet", "--charts=false", "--out", out}, extra...)
		if code := te.main(args); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, te.stderr.String())
		}
		return out
	}
	diff := func(a, b string) string {
		t.Helper()
		te := realEnv()
		if code := te.main([]string{"diff", a, b}); code != exitOK {
			t.Fatalf("diff %s %s: exit %d: %s", a, b, code, te.stderr.String())
		}
		out := te.stdout.String()
		_, inputs, _ := strings.Cut(out, "\n")
		inputs, _, _ = strings.Cut(inputs, "\n\n")
		return inputs
	}
	cold := replay(sample("replay-trace.jsonl"))
	if got, want := diff(cold, replay(sample("replay-trace.jsonl"))), "inputs: the same (every setting of effective-scenario.yaml and replay.json)"; got != want {
		t.Errorf("two replays of one recording:\n%s\nwant:\n%s", got, want)
	}
	want := "inputs: 1 setting differs (effective-scenario.yaml and replay.json, A → B):\n" +
		"  replay.start  cold  →  warm"
	if got := diff(cold, replay(sample("replay-trace.jsonl"), "--start", "warm")); got != want {
		t.Errorf("a cold and a warm replay:\n%s\nwant:\n%s", got, want)
	}
	want = "inputs: 2 settings differ (effective-scenario.yaml and replay.json, A → B):\n" +
		"  replay.pods              replay-trace.jsonl  →  short.jsonl\n" +
		"  replay.podStream.events  167                 →  100"
	shorter := replay(short)
	if got := diff(cold, shorter); got != want {
		t.Errorf("replays of two recordings:\n%s\nwant:\n%s", got, want)
	}
	te := realEnv()
	if code := te.main([]string{"diff", cold, shorter, "-o", "json"}); code != exitOK {
		t.Fatalf("diff -o json: exit %d: %s", code, te.stderr.String())
	}
	var got struct {
		Inputs *reports.DiffInputs `json:"inputs"`
	}
	if err := json.Unmarshal(te.stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if in := got.Inputs; in == nil || in.Replay != "replay.json" || len(in.Changes) != 2 || in.Changes[1].Setting != "replay.podStream.events" ||
		*in.Changes[1].A != "167" || *in.Changes[1].B != "100" {
		t.Errorf("JSON inputs %+v, want replay.json named and the two recordings' settings", got.Inputs)
	}
	if got := diff(cold, runQuickOut(t)); !strings.Contains(got, "\n  replay.pods ") || !strings.Contains(got, "  replay.start ") ||
		!strings.Contains(got, "\n  name ") {
		t.Errorf("a replay and a run: want the replay's recording against none, and the run's name:\n%s", got)
	}

	if err := os.WriteFile(filepath.Join(shorter, "replay.json"), []byte(`{"pods": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	te = realEnv()
	if code := te.main([]string{"diff", cold, shorter}); code != exitOK ||
		!strings.Contains(te.stdout.String(), "\ninputs not compared: "+filepath.Join(shorter, "replay.json")+": no podStream in it") ||
		!strings.Contains(te.stdout.String(), "figures compared") {
		t.Errorf("a replay.json that is not a replay's: exit %d:\n%s", code, te.stdout.String())
	}
	// One too large to be a replay's report is not read whole, and is named for what it is not.
	if err := os.Truncate(filepath.Join(shorter, "replay.json"), maxReplayReportBytes+1); err != nil {
		t.Fatal(err)
	}
	te = realEnv()
	if code := te.main([]string{"diff", cold, shorter}); code != exitOK ||
		!strings.Contains(te.stdout.String(), "replay.json: larger than 268435456 bytes, not a replay's report\n") {
		t.Errorf("an oversized replay.json: exit %d:\n%s", code, te.stdout.String())
	}
}

// The effective scenario of --out begins with the command that ran, each word quoted for a
// shell, and a word with a newline in Go's quotes: the comment stays one line, and the file
// loads.
func TestEffectiveHeaderStaysAComment(t *testing.T) {
	head := string(effectiveHeader([]string{"sim", "run", "my dir/x.yaml", "--set", "services[0].replicas=5", "--set", "description=a\nname: b"}))
	if !strings.Contains(head, `#   sim run 'my dir/x.yaml' --set 'services[0].replicas=5' --set "description=a\nname: b"`+"\n") {
		t.Errorf("header:\n%s", head)
	}
	for _, line := range strings.Split(strings.TrimSuffix(head, "\n"), "\n") {
		if !strings.HasPrefix(line, "#") {
			t.Errorf("line %q of the header is not a comment", line)
		}
	}
}
