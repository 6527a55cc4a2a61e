package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"epsim/reports"
	"epsim/sim"
)

// fakeResults is a small hand-made run; the CLI tests check plumbing, not the engine.
func fakeResults(cfg sim.Config) *sim.Results {
	phase := sim.PhaseResult{
		Name: "flip", End: sim.Time(10 * time.Second),
		Endpoints: sim.ModeResult{Writes: sim.WriteCounts{Update: 2}, EtcdBytes: 2_000_000,
			WatchEvents: 200, FanoutBytes: 200_000_000, PerNodeBytes: 2_000_000, MaxObjectBytes: 1_000_000,
			PeakEgressBytesPerSec: 100_000_000},
		EndpointSlices: sim.ModeResult{Writes: sim.WriteCounts{Update: 2}, EtcdBytes: 30_000,
			WatchEvents: 200, FanoutBytes: 3_000_000, PerNodeBytes: 30_000, MaxObjectBytes: 15_000,
			PeakEgressBytesPerSec: 1_500_000},
	}
	return &sim.Results{
		Scenario: cfg.Name, Seed: cfg.Seed, Nodes: 100, Watchers: 100,
		Phases: []sim.PhaseResult{phase}, Total: phase, EndTime: sim.Time(10 * time.Second),
		Series: []sim.Bucket{{Second: 1, Endpoints: sim.BucketMode{Writes: 1, FanoutBytes: 100_000_000, EtcdBytes: 1_000_000},
			EndpointSlices: sim.BucketMode{Writes: 1, FanoutBytes: 1_500_000, EtcdBytes: 15_000}}},
		Writes: []sim.WriteRecord{{At: sim.Time(time.Second), Mode: sim.ModeEndpoints, Verb: "update", Kind: "Endpoints",
			Namespace: "default", Name: "web", Outcome: "ok", Phase: "flip"}},
		Layout: []sim.LayoutSample{{At: 0, Slices: 1, Endpoints: 100, Min: 100, Median: 100, Max: 100}},
	}
}

// testEnv is an env with captured streams, a fake loader (any name but "bad" and
// "missing.yaml" loads) and a fake engine that records the config it ran.
type testEnv struct {
	*env
	stdout, stderr bytes.Buffer
	// mu guards ran: sim check and plan run several configs side by side.
	mu     sync.Mutex
	ran    []sim.Config
	runErr error
	// mutate edits the fake results before they are returned.
	mutate func(*sim.Results)
}

func newTestEnv() *testEnv {
	te := &testEnv{}
	te.env = &env{
		stdout: &te.stdout, stderr: &te.stderr,
		load: func(nameOrPath string, sets []string) (*loadedScenario, error) {
			if nameOrPath == "bad" {
				return nil, errors.New("bad.yaml:3:5: cluster.nodes: -1 out of range")
			}
			if nameOrPath == "missing.yaml" {
				return loadScenario(nameOrPath, sets) // the real loader's not-found error
			}
			return &loadedScenario{File: nameOrPath, Config: sim.Config{Name: "fake", Seed: 1,
				Timeline: []sim.Action{{Name: "flip"}}}}, nil
		},
		names: func() []string { return []string{"a", "b"} },
		runSim: func(cfg sim.Config, obs sim.Observer) (*sim.Results, error) {
			if obs != nil {
				obs.Progress(sim.Time(time.Second), 0, len(cfg.Timeline))
			}
			te.mu.Lock()
			te.ran = append(te.ran, cfg)
			te.mu.Unlock()
			if te.runErr != nil {
				return nil, te.runErr
			}
			res := fakeResults(cfg)
			if te.mutate != nil {
				te.mutate(res)
			}
			return res, nil
		},
	}
	return te
}

// Reference: cmd/sim/doc.go "Exit status".
func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		runErr error
		want   int
	}{
		{"no command", nil, nil, exitBadInput},
		{"unknown command", []string{"frobnicate"}, nil, exitBadInput},
		{"run without scenario", []string{"run"}, nil, exitBadInput},
		{"run with two scenarios", []string{"run", "a", "b"}, nil, exitBadInput},
		{"missing file", []string{"run", "missing.yaml"}, nil, exitBadInput},
		{"invalid scenario", []string{"run", "bad"}, nil, exitBadInput},
		{"unknown flag", []string{"run", "--bogus", "x.yaml"}, nil, exitBadInput},
		{"unknown flag after scenario", []string{"run", "x.yaml", "--bogus"}, nil, exitBadInput},
		{"bad --mode", []string{"run", "--mode", "neither", "x.yaml"}, nil, exitBadInput},
		{"bad --format", []string{"run", "--format=xml", "x.yaml"}, nil, exitBadInput},
		{"bad --seed", []string{"run", "--seed", "-3", "x.yaml"}, nil, exitBadInput},
		{"run ok", []string{"run", "x.yaml"}, nil, exitOK},
		{"run fails", []string{"run", "x.yaml"}, errors.New("sim: event budget exhausted"), exitFailed},
		{"validate missing", []string{"validate", "missing.yaml"}, nil, exitBadInput},
		{"validate mixed", []string{"validate", "x.yaml", "bad"}, nil, exitBadInput},
		{"validate ok", []string{"validate", "x.yaml", "y.yaml"}, nil, exitOK},
		{"validate nothing", []string{"validate"}, nil, exitBadInput},
		{"scenarios", []string{"scenarios"}, nil, exitOK},
		{"help", []string{"help"}, nil, exitOK},
		{"help run", []string{"help", "run"}, nil, exitOK},
		{"help unknown", []string{"help", "nope"}, nil, exitBadInput},
		{"run --help", []string{"run", "--help"}, nil, exitOK},
		{"version", []string{"version"}, nil, exitOK},
		{"check with nothing to check", []string{"check", "x.yaml"}, nil, exitBadInput},
		// An empty path was taken as no flag at all.
		{"empty --out", []string{"run", "--out", "", "x.yaml"}, nil, exitBadInput},
		{"empty --out=", []string{"run", "--out=", "x.yaml"}, nil, exitBadInput},
		{"empty --cpuprofile", []string{"run", "--cpuprofile", "", "x.yaml"}, nil, exitBadInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te := newTestEnv()
			te.runErr = tc.runErr
			got := te.main(tc.args)
			if got != tc.want {
				t.Fatalf("sim %s: exit %d, want %d\nstderr: %s", strings.Join(tc.args, " "), got, tc.want, te.stderr.String())
			}
			if got != exitOK {
				// The error is printed once, prefixed "sim: ".
				if n := strings.Count(te.stderr.String(), "sim: "); n < 1 || !strings.HasPrefix(lastErrorLine(te.stderr.String()), "sim: ") {
					t.Errorf("stderr has %d 'sim: ' errors, want one:\n%s", n, te.stderr.String())
				}
			}
		})
	}
}

// TestFlagValueErrors: a flag's bad value is one clean line naming the flag as help does
// (--seed, not the flag package's -seed), with no dangling colon.
func TestFlagValueErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "quick", "--seed", "-1"}, `sim: run: invalid value "-1" for --seed: want an integer from 0 to 2^63-1 (9223372036854775807), the range of a scenario's seed field`},
		{[]string{"check", "quick", "--seed=x"}, `sim: check: invalid value "x" for --seed: want an integer`},
		{[]string{"run", "quick", "--quiet=maybe"}, `sim: run: invalid boolean value "maybe" for --quiet: `},
		{[]string{"plan", "slice-size", "--job", "2"}, `sim: plan: unknown flag --job`},
		{[]string{"run", "quick", "-jobs", "2"}, `sim: run: unknown flag --jobs`},
		{[]string{"run", "quick", "--out"}, `sim: run: --out needs a value`},
	} {
		te := newTestEnv()
		if code := te.main(tc.args); code != exitBadInput {
			t.Errorf("%v: exit %d, want %d", tc.args, code, exitBadInput)
		}
		line := lastErrorLine(te.stderr.String())
		if !strings.HasPrefix(line, tc.want) || strings.HasSuffix(line, ":") || regexp.MustCompile(` -[a-z]`).MatchString(line) {
			t.Errorf("%v: error line %q, want it to start with %q and not end with a colon", tc.args, line, tc.want)
		}
	}
}

// lastErrorLine returns the first stderr line that starts with "sim: ".
func lastErrorLine(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "sim: ") {
			return l
		}
	}
	return ""
}

// sim plot redraws exactly the charts sim run drew, every one byte for byte, from the files
// sim run wrote: of a real run, whose latencies are not whole milliseconds.
func TestPlotRedrawsCharts(t *testing.T) {
	runDir := filepath.Join(t.TempDir(), "run")
	te := realEnv()
	if code := te.main([]string{"run", "quick", "--quiet", "--out", runDir}); code != exitOK {
		t.Fatalf("run: exit %d: %s", code, te.stderr.String())
	}
	plotDir := filepath.Join(t.TempDir(), "plot")
	if code := te.main([]string{"plot", runDir, "--out", plotDir}); code != exitOK {
		t.Fatalf("plot: exit %d: %s", code, te.stderr.String())
	}
	var charts []string
	for _, f := range expectedOutFiles {
		if strings.HasSuffix(f, ".png") || strings.HasSuffix(f, ".svg") {
			charts = append(charts, f)
		}
	}
	if got := listDir(t, plotDir); !slices.Equal(got, charts) {
		t.Errorf("plot wrote %q, want %q", got, charts)
	}
	// On success plot says where its charts went, naming each, rather than nothing at all.
	said := te.stderr.String()
	if !strings.Contains(said, "sim: plot: wrote ") || !strings.Contains(said, plotDir) {
		t.Errorf("plot's stderr %q does not say what it wrote into %s", said, plotDir)
	}
	for _, f := range charts {
		if name := strings.TrimSuffix(strings.TrimSuffix(f, ".png"), ".svg"); !strings.Contains(said, name) {
			t.Errorf("plot's stderr %q does not name chart %s", said, name)
		}
	}
	for _, f := range charts {
		a, _ := os.ReadFile(filepath.Join(runDir, f))
		b, _ := os.ReadFile(filepath.Join(plotDir, f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s redrawn by plot differs from the one run drew", f)
		}
	}
	if code := te.main([]string{"plot", t.TempDir()}); code != exitBadInput {
		t.Errorf("plot of an empty directory: exit %d, want %d", code, exitBadInput)
	}

	// Without layout.csv, the slice-layout chart is not drawn, and one already there (not
	// drawn from these files) is said to be left as it was; into an empty --out, nothing is.
	if err := os.Remove(filepath.Join(runDir, "layout.csv")); err != nil {
		t.Fatal(err)
	}
	note := "so slice-layout.* in "
	for _, tc := range []struct {
		out  string
		note bool
	}{{runDir, true}, {filepath.Join(t.TempDir(), "plot"), false}} {
		te := realEnv()
		if code := te.main([]string{"plot", runDir, "--out", tc.out}); code != exitOK {
			t.Fatalf("plot without layout.csv: exit %d: %s", code, te.stderr.String())
		}
		said := te.stderr.String()
		if !strings.Contains(said, "wrote 6 charts") || strings.Contains(said, note+tc.out+" were not redrawn") != tc.note {
			t.Errorf("plot without layout.csv into %s (an old chart there: %v) said:\n%s", tc.out, tc.note, said)
		}
	}
}

func TestRunOverrides(t *testing.T) {
	for _, tc := range []struct {
		args                 []string
		seed                 uint64
		endpoints, endslices bool
	}{
		{[]string{"run", "x.yaml"}, 1, true, true},
		{[]string{"run", "x.yaml", "--seed", "7"}, 7, true, true},
		{[]string{"run", "--mode=endpoints", "x.yaml"}, 1, true, false},
		{[]string{"run", "x.yaml", "--mode", "endpointslices", "--seed=0"}, 0, false, true},
	} {
		te := newTestEnv()
		if code := te.main(tc.args); code != exitOK {
			t.Fatalf("%v: exit %d: %s", tc.args, code, te.stderr.String())
		}
		cfg := te.ran[0]
		if cfg.Seed != tc.seed || cfg.RunEndpoints != tc.endpoints || cfg.RunEndpointSlices != tc.endslices {
			t.Errorf("%v: ran seed=%d endpoints=%v endpointslices=%v, want %d %v %v",
				tc.args, cfg.Seed, cfg.RunEndpoints, cfg.RunEndpointSlices, tc.seed, tc.endpoints, tc.endslices)
		}
	}
}

func TestRunSetPassedToLoader(t *testing.T) {
	te := newTestEnv()
	var got []string
	te.load = func(name string, sets []string) (*loadedScenario, error) {
		got = sets
		return &loadedScenario{File: name}, nil
	}
	te.main([]string{"run", "--set", "cluster.nodes=10", "x.yaml", "--set=seed=3"})
	if want := []string{"cluster.nodes=10", "seed=3"}; !slices.Equal(got, want) {
		t.Errorf("loader got sets %q, want %q", got, want)
	}
}

func TestRunTableAndJSON(t *testing.T) {
	te := newTestEnv()
	if code := te.main([]string{"run", "x.yaml"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, te.stderr.String())
	}
	if !strings.Contains(te.stdout.String(), "Endpoints fan out 200.0 MB, EndpointSlices 3.0 MB (67×)") {
		t.Errorf("table lacks the headline:\n%s", te.stdout.String())
	}
	if te.stderr.Len() != 0 {
		t.Errorf("stderr is not empty without a terminal: %q", te.stderr.String())
	}

	te = newTestEnv()
	if code := te.main([]string{"run", "x.yaml", "--format", "json"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, te.stderr.String())
	}
	s, err := reports.ReadSummaryJSON(&te.stdout)
	if err != nil {
		t.Fatal(err)
	}
	if s.Scenario != "fake" || s.Total.Ratio == nil || *s.Total.Ratio.FanoutBytes != 66.667 {
		t.Errorf("json summary = %+v", s)
	}
}

func TestProgressOnlyOnTerminal(t *testing.T) {
	te := newTestEnv()
	te.stderrIsTerminal = true
	if code := te.main([]string{"run", "x.yaml"}); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	if te.stderr.Len() == 0 {
		t.Error("no progress on a terminal")
	}
	if strings.Contains(te.stdout.String(), "phase 1/1, virtual") {
		t.Error("progress leaked into stdout")
	}
	te = newTestEnv()
	te.stderrIsTerminal = true
	te.main([]string{"run", "--quiet", "x.yaml"})
	if te.stderr.Len() != 0 {
		t.Errorf("--quiet still drew progress: %q", te.stderr.String())
	}
}

// TestLineProgress: with stderr not a terminal, a run's progress is a plain line at most
// once an interval of wall time, none in the first interval (a short run prints nothing),
// naming the phase, the virtual time reached and the pods held.
// Reference: README "A short tour" (progress on stderr) and the run help.
func TestLineProgress(t *testing.T) {
	var stderr bytes.Buffer
	wall := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := &env{stderr: &stderr, wallClock: func() time.Time { return wall }, progressEvery: 10 * time.Second}
	p := newLineProgress(e, "big", []sim.Action{{Name: "create"}, {Name: "rolling-update"}})
	for _, step := range []struct {
		wall  time.Duration // since the start
		now   time.Duration // virtual
		phase int
		pods  int
	}{
		{1 * time.Second, 5 * time.Second, 0, 10},                         // in the first interval: nothing
		{9 * time.Second, 90 * time.Second, 0, 20},                        // still nothing
		{10 * time.Second, 750*time.Second + 300*time.Millisecond, 1, 30}, // a line
		{15 * time.Second, 800 * time.Second, 1, 40},                      // within 10 s of it: nothing
		{21 * time.Second, 900 * time.Second, 2, 1_200_000},               // a line; phase past the end: the last
	} {
		wall = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(step.wall)
		p.PodsHeld(step.pods)
		p.Progress(sim.Time(step.now), step.phase, 2)
	}
	want := "sim: big: phase 2/2 rolling-update, virtual 12m30s, 30 pods, 10s elapsed\n" +
		"sim: big: phase 2/2 rolling-update, virtual 15m0s, 1,200,000 pods, 21s elapsed\n"
	if stderr.String() != want {
		t.Errorf("progress lines:\n%s\nwant:\n%s", stderr.String(), want)
	}
}

// TestPlanPointLines: a plan's progress with stderr not a terminal is a plain line of the
// points done, at most once an interval of wall time, none in the first.
// Reference: the plan help ("otherwise (CI, a pipe) a plain line at most every 10 s").
func TestPlanPointLines(t *testing.T) {
	var stderr bytes.Buffer
	wall := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := &env{stderr: &stderr, wallClock: func() time.Time { return wall }, progressEvery: 10 * time.Second}
	p := newPointLines(e, "plan growth", "points", 1200)
	for _, at := range []time.Duration{2 * time.Second, 9 * time.Second, 10 * time.Second, 12 * time.Second, 31 * time.Second} {
		wall = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(at)
		p.done()
	}
	want := "sim: plan growth: 3/1,200 points done, 10s elapsed\n" +
		"sim: plan growth: 5/1,200 points done, 31s elapsed\n"
	if stderr.String() != want {
		t.Errorf("progress lines:\n%s\nwant:\n%s", stderr.String(), want)
	}
	var none *pointLines
	none.done() // a terminal, or --quiet: nothing, and no panic
}

// TestProgressLinesWhenNotTerminal runs a real scenario with stderr not a terminal and a
// wall clock that moves a second a virtual second: stderr has progress lines, stdout and
// every --out file are byte for byte those of a --quiet run, and --quiet prints none.
// Reference: STYLE.md §7 "Determinism rules" 1 and 7 (wall time on stderr only).
func TestProgressLinesWhenNotTerminal(t *testing.T) {
	run := func(quiet bool) (stdout, stderr string, summary []byte) {
		te := realEnv()
		var wall time.Time
		te.wallClock = func() time.Time { wall = wall.Add(time.Second); return wall }
		te.progressEvery = 10 * time.Second
		out := filepath.Join(t.TempDir(), "out")
		args := []string{"run", "quick", "--out", out, "--charts=false"}
		if quiet {
			args = append(args, "--quiet")
		}
		if code := te.main(args); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, te.stderr.String())
		}
		var files []string
		for _, f := range []string{"summary.json", "timeseries.csv", "writes.jsonl", "layout.csv"} {
			b, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, string(b))
		}
		return te.stdout.String(), te.stderr.String(), []byte(strings.Join(files, "\x00"))
	}
	outQuiet, errQuiet, filesQuiet := run(true)
	out, errLines, files := run(false)
	if errQuiet != "" {
		t.Errorf("--quiet printed progress: %q", errQuiet)
	}
	if !regexp.MustCompile(`^sim: quick: phase 1/\d+ create, virtual \d+s, [\d,]+ pods, 10s elapsed\n`).MatchString(errLines) {
		t.Errorf("no progress lines on stderr: %.500q", errLines)
	}
	if out != outQuiet || !bytes.Equal(files, filesQuiet) {
		t.Error("progress lines changed the results")
	}
}

// expectedOutFiles is the --out contract (doc.go "Outputs").
var expectedOutFiles = []string{
	"cumulative-fanout.png", "cumulative-fanout.svg", "egress-rate.png", "egress-rate.svg",
	"layout.csv", "phases-bytes.png", "phases-bytes.svg", "phases-writes.png", "phases-writes.svg",
	"programming-latency.png", "programming-latency.svg", "propagation-latency.png", "propagation-latency.svg", "report.html", "report.md",
	"slice-layout.png", "slice-layout.svg", "summary.json", "timeseries.csv", "writes.jsonl",
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() == manifestName { // checked by the output tests
			continue
		}
		names = append(names, e.Name())
	}
	return names
}

func TestRunOutWritesExactlyTheExpectedFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	te := newTestEnv()
	if code := te.main([]string{"run", "x.yaml", "--out", dir}); code != exitOK {
		t.Fatalf("exit %d: %s", code, te.stderr.String())
	}
	if got := listDir(t, dir); !slices.Equal(got, expectedOutFiles) {
		t.Errorf("--out wrote %q, want %q", got, expectedOutFiles)
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	if doc["scenario"] != "fake" {
		t.Errorf("summary.json scenario = %v", doc["scenario"])
	}

	dir2 := filepath.Join(t.TempDir(), "out")
	te = newTestEnv()
	if code := te.main([]string{"run", "x.yaml", "--out", dir2, "--charts=false"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, te.stderr.String())
	}
	if got, want := listDir(t, dir2), []string{"layout.csv", "report.html", "report.md", "summary.json", "timeseries.csv", "writes.jsonl"}; !slices.Equal(got, want) {
		t.Errorf("--charts=false wrote %q, want %q", got, want)
	}
}

// A rendering failure (here a NaN latency, which JSON cannot hold) must leave the output
// directory exactly as it was: no new files, no temporary files, old files untouched.
func TestRunOutNothingPartialOnRenderFailure(t *testing.T) {
	dir := t.TempDir()
	old := []byte("{\n  \"scenario\": \"an earlier run's, from a sim without a manifest\"\n}\n")
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	te := newTestEnv()
	te.mutate = func(r *sim.Results) { r.Total.Endpoints.Propagation.P99Seconds = math.NaN() }
	if code := te.main([]string{"run", "x.yaml", "--out", dir}); code != exitFailed {
		t.Fatalf("exit %d, want %d", code, exitFailed)
	}
	if got := listDir(t, dir); !slices.Equal(got, []string{"summary.json"}) {
		t.Errorf("after a failed render the directory holds %q, want only the old summary.json", got)
	}
	// Issue 12: no temporary file names in errors.
	if msg := te.stderr.String(); strings.Contains(msg, stageInfix) || strings.Contains(msg, tmpInfix) || !strings.Contains(msg, "summary.json") {
		t.Errorf("message %q: want the file's name and no temporary's", msg)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "summary.json")); !bytes.Equal(b, old) {
		t.Errorf("the old summary.json was replaced: %q", b)
	}
}

// A failure late in the set (a chart) must not leave the files rendered before it.
func TestOutputDirAbortRemovesEverything(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	out, err := openOutputDir(dir, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.write("a.txt", func(w io.Writer) error { _, err := w.Write([]byte("a")); return err }); err != nil {
		t.Fatal(err)
	}
	if err := out.write("b.txt", func(w io.Writer) error { return errors.New("chart failed") }); err == nil {
		t.Fatal("write did not report the render error")
	}
	out.abort()
	// openOutputDir created out: abort removes it, leaving --out as it was (absent).
	if got := listDir(t, parent); len(got) != 0 {
		t.Errorf("abort left %q", got)
	}
	// A directory that existed stays, empty as it was.
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err = openOutputDir(dir, true, nil); err != nil {
		t.Fatal(err)
	}
	if err := out.write("a.txt", func(w io.Writer) error { _, err := w.Write([]byte("a")); return err }); err != nil {
		t.Fatal(err)
	}
	out.abort()
	if got := listDir(t, dir); len(got) != 0 {
		t.Errorf("abort left %q", got)
	}
	if got := listDir(t, parent); !slices.Equal(got, []string{"out"}) {
		t.Errorf("abort left %q beside --out", got)
	}
}

func TestRunEngineFailureWritesNothing(t *testing.T) {
	dir := t.TempDir()
	te := newTestEnv()
	te.runErr = errors.New("sim: event budget exhausted")
	if code := te.main([]string{"run", "x.yaml", "--out", dir}); code != exitFailed {
		t.Fatalf("exit %d", code)
	}
	if got := listDir(t, dir); len(got) != 0 {
		t.Errorf("failed run wrote %q", got)
	}
	if te.stdout.Len() != 0 {
		t.Errorf("failed run printed %q on stdout", te.stdout.String())
	}
}

func TestHelpTeaches(t *testing.T) {
	for _, c := range commands {
		te := newTestEnv()
		if code := te.main([]string{"help", c.name}); code != exitOK {
			t.Fatalf("help %s: exit %d", c.name, code)
		}
		out := te.stdout.String()
		if !strings.HasPrefix(out, "usage: sim "+c.name) {
			t.Errorf("help %s does not start with its usage line:\n%s", c.name, out)
		}
		if !strings.Contains(out, "Examples:") {
			t.Errorf("help %s has no examples", c.name)
		}
	}
	te := newTestEnv()
	te.main([]string{"help", "run"})
	for _, f := range []string{"--out DIR", "--format", "--seed N", "--mode", "--set path=value", "--quiet", "--charts", "--cpuprofile FILE", "--memprofile FILE", "(default table)", "(default both)"} {
		if !strings.Contains(te.stdout.String(), f) {
			t.Errorf("help run does not mention %q", f)
		}
	}
}

// TestRunProfiles: --cpuprofile and --memprofile write a profile pprof can read (gzip-
// compressed protobuf), and an unusable path is bad input found before the run.
func TestRunProfiles(t *testing.T) {
	for _, flagName := range []string{"--cpuprofile", "--memprofile"} {
		t.Run(flagName, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "prof.out")
			te := newTestEnv()
			if code := te.main([]string{"run", "x.yaml", "--quiet", flagName, path}); code != exitOK {
				t.Fatalf("exit %d: %s", code, te.stderr.String())
			}
			if b, err := os.ReadFile(path); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
				t.Errorf("%s wrote no gzip-compressed profile (%d bytes): %v", flagName, len(b), err)
			}
			te = newTestEnv()
			if code := te.main([]string{"run", "x.yaml", flagName, filepath.Join(t.TempDir(), "no", "such", "dir", "prof.out")}); code != exitBadInput {
				t.Errorf("unwritable %s: exit %d, want %d", flagName, code, exitBadInput)
			}
			// The input: a directory.
			te = newTestEnv()
			if code := te.main([]string{"run", "x.yaml", flagName, t.TempDir()}); code != exitBadInput {
				t.Errorf("%s DIR: exit %d, want %d", flagName, code, exitBadInput)
			}
			if msg := te.stderr.String(); !strings.Contains(msg, flagName) || !strings.Contains(msg, "is a directory") {
				t.Errorf("%s DIR: message %q", flagName, msg)
			}
		})
	}
}

// TestRunMemprofileHoldsTheRun: --memprofile of a run smaller than the collector's floor
// (5000-nodes) holds the run's allocations. A heap profile is of the last collection, and
// under the floor a run never collected: its profile held the process's start only. In a
// child, whose heap is the run's (its memory cap makes it collect, where a plain sim did
// not; TestMemprofileWithoutCollection covers that). quick was too small: in 6 runs of 30
// its only collection came before any allocation of the engine was sampled.
func TestRunMemprofileHoldsTheRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mem.prof")
	if r := runChild(t, nil, "run", "5000-nodes", "--quiet", "--memprofile", path); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// The profile's string table names the functions of its samples' stacks.
	if prof := readProfile(t, path); !bytes.Contains(prof, []byte("epsim/sim.(*Engine)")) {
		t.Errorf("the heap profile (%d bytes) names no function of the engine: it is not of the run", len(prof))
	}
}

// TestMemprofileWithoutCollection: when no collection ended during the run's progress
// reports (none reported, or the process's heap was larger than the run's), the profile is
// taken after one, so that it is of the run's heap, not of a collection from before it; a
// profile taken at a report is kept as it is.
func TestMemprofileWithoutCollection(t *testing.T) {
	cycles := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	path := filepath.Join(t.TempDir(), "mem.prof")

	p := newPeakHeapProfiler(nil)
	before := cycles()
	if err := p.writeTo(path); err != nil {
		t.Fatal(err)
	}
	if after := cycles(); after == before {
		t.Errorf("no profile taken during the run, and none after a collection either")
	}
	if prof := readProfile(t, path); len(prof) == 0 {
		t.Errorf("empty profile")
	}

	p = newPeakHeapProfiler(nil)
	runtime.GC() // a collection during the run: the next report takes its profile
	p.Progress(0, 0, 1)
	taken := bytes.Clone(p.profile.Bytes())
	if len(taken) == 0 {
		t.Fatal("a report after a collection took no profile")
	}
	// Compared by content, not by counting collections: a collection the runtime starts on
	// its own (the heap reaching its goal while the file is written) must not fail the test.
	if err := p.writeTo(path); err != nil {
		t.Fatal(err)
	}
	if written, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	} else if !bytes.Equal(written, taken) {
		t.Errorf("the profile taken at a report was replaced by one after a forced collection")
	}
}

// readProfile returns the protobuf of the gzip-compressed profile at path.
func readProfile(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("not a gzip-compressed profile: %v", err)
	}
	prof, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return prof
}

// TestOutNotTheWorkingDirectory: an --out that is the working directory or contains it is
// refused before the run (exit 2) and left as it was: the swap renamed it, leaving the
// shell in a deleted directory. Runs in a temporary working directory.
func TestOutNotTheWorkingDirectory(t *testing.T) {
	top := t.TempDir()
	wd := filepath.Join(top, "a", "b")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, wd, "keep.txt", "the user's\n")
	t.Chdir(wd)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"dot", []string{"run", "x.yaml", "--out", "."}},
		{"parent", []string{"run", "x.yaml", "--out", ".."}},
		{"absolute ancestor", []string{"run", "x.yaml", "--out", filepath.Join(top, "a")}},
		{"dot with slash", []string{"run", "x.yaml", "--out", "./"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, top)
			te := newTestEnv()
			if code := te.main(tc.args); code != exitBadInput {
				t.Fatalf("exit %d, want %d: %s", code, exitBadInput, te.stderr.String())
			}
			if !strings.Contains(te.stderr.String(), "is the working directory or contains it") {
				t.Errorf("stderr %q", te.stderr.String())
			}
			if len(te.ran) > 0 {
				t.Error("the run went ahead")
			}
			if after := snapshot(t, top); after != before {
				t.Errorf("the working directory changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			if _, err := os.Stat(filepath.Join(wd, "keep.txt")); err != nil {
				t.Errorf("the working directory lost its file: %v", err)
			}
		})
	}
	// sim plot . in a run's directory writes the charts into the working directory.
	run := aRun(t)
	t.Chdir(run)
	before := snapshot(t, filepath.Dir(run))
	te := newTestEnv()
	if code := te.main([]string{"plot", "."}); code != exitBadInput || !strings.Contains(te.stderr.String(), "is the working directory") {
		t.Errorf("sim plot .: exit %d: %s", code, te.stderr.String())
	}
	if after := snapshot(t, filepath.Dir(run)); after != before {
		t.Errorf("sim plot . changed the run's directory:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// The overview's exit statuses are all of them: it said "1 the run failed", while check and
// diff --fail-on exit 1 for a figure out of bounds too, and left out 3, an internal error.
// Reference: cmd/sim/doc.go "Exit status".
func TestOverviewExitStatus(t *testing.T) {
	te := newTestEnv()
	te.main([]string{"help"})
	out := strings.Join(strings.Fields(te.stdout.String()), " ")
	for _, want := range []string{"1 the run failed, or check or diff found a figure out of bounds", "2 bad input", "3 an internal error"} {
		if !strings.Contains(out, want) {
			t.Errorf("'sim help' lacks %q:\n%s", want, te.stdout.String())
		}
	}
}

// A run whose pods found no node says so on stderr, with --quiet and --format json too: the
// figures leave those pods out, and a table may not be read at all.
func TestRunWarnsOfPendingPods(t *testing.T) {
	for _, args := range [][]string{
		{"run", "x.yaml"},
		{"run", "x.yaml", "--quiet", "--format", "json"},
	} {
		te := newTestEnv()
		te.mutate = func(r *sim.Results) { r.Phases[0].PendingPods, r.Total.PendingPods = 7, 7 }
		if code := te.main(args); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, te.stderr.String())
		}
		want := "sim: run: warning: up to 7 pods Pending at a phase's end (1 of 1 phase), no node ready with room (100 nodes, cluster.maxPodsPerNode 110)"
		if !strings.HasPrefix(te.stderr.String(), want) {
			t.Errorf("%v: stderr %q; want it to start %q", args, te.stderr.String(), want)
		}
	}
	te := newTestEnv()
	if code := te.main([]string{"run", "x.yaml"}); code != exitOK || strings.Contains(te.stderr.String(), "Pending") {
		t.Errorf("a run with every pod bound: exit %d, stderr %q", code, te.stderr.String())
	}
}

// TestRunOutSaysWhatItWrote: 'sim run --out DIR' says on stderr which files and charts it
// wrote into DIR, as 'sim plot' does; --quiet keeps stderr for warnings and errors.
func TestRunOutSaysWhatItWrote(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	te := newTestEnv()
	if code := te.main([]string{"run", "x.yaml", "--out", dir}); code != exitOK {
		t.Fatalf("exit %d: %s", code, te.stderr.String())
	}
	said := te.stderr.String()
	want := "sim: run: wrote 6 files and 7 charts (png and svg each) into " + dir +
		": summary.json, timeseries.csv, writes.jsonl, layout.csv, report.md, report.html; charts: "
	if !strings.HasPrefix(said, want) || strings.Count(said, "\n") != 1 {
		t.Fatalf("stderr %q, want one line starting %q", said, want)
	}
	for _, f := range listDir(t, dir) {
		if name := strings.TrimSuffix(strings.TrimSuffix(f, ".png"), ".svg"); !strings.Contains(said, name) {
			t.Errorf("stderr %q does not name %s", said, name)
		}
	}
	te = newTestEnv()
	if code := te.main([]string{"run", "x.yaml", "--out", dir, "--quiet"}); code != exitOK {
		t.Fatalf("--quiet: exit %d: %s", code, te.stderr.String())
	}
	if te.stderr.Len() != 0 {
		t.Errorf("--quiet: stderr %q, want nothing", te.stderr.String())
	}
}

// A scenario asking more pods than its nodes take is warned of before it runs, by run and
// by validate, with the numbers to change; and a run a guard stops while pods are Pending
// says how many. (400,000 Services of 10 pods on 5,000 nodes of 250 pods ran 100 s into
// its event budget with only "event budget exhausted" to show for it.)
func TestOverCapacityScenarioIsWarnedOf(t *testing.T) {
	const over = `name: over
cluster:
  nodes: 10
  maxPodsPerNode: 10
services:
  - name: web
    replicas: 120
  - name: agent
    kind: DaemonSet
timeline:
  - name: create
    action: create
`
	file := filepath.Join(t.TempDir(), "over.yaml")
	if err := os.WriteFile(file, []byte(over), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "warning: the Services ask for 130 pods, the 10 nodes take 100 (cluster.maxPodsPerNode 10): 30 of them would stay Pending"
	for _, args := range [][]string{
		{"validate", file},
		{"run", file, "--quiet"},
	} {
		te := realEnv()
		if code := te.main(args); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, te.stderr.String())
		}
		if !strings.Contains(te.stderr.String(), "sim: "+args[0]) || !strings.Contains(te.stderr.String(), want) {
			t.Errorf("%v: stderr %q; want the warning %q", args, te.stderr.String(), want)
		}
	}
	te := realEnv()
	if code := te.main([]string{"run", file, "--quiet", "--set", "guards.maxEvents=3000"}); code != exitFailed {
		t.Fatalf("a run out of events: exit %d: %s", code, te.stderr.String())
	}
	if got := te.stderr.String(); !strings.Contains(got, "event budget exhausted") ||
		!strings.Contains(got, " pods Pending, no node ready with room (cluster.nodes 10, cluster.maxPodsPerNode 10)") {
		t.Errorf("a run out of events with pods Pending: stderr %q", got)
	}
	for _, name := range scenarioNames() {
		te := realEnv()
		if code := te.main([]string{"validate", name}); code != exitOK || te.stderr.Len() > 0 {
			t.Errorf("validate %s: exit %d, stderr %q", name, code, te.stderr.String())
		}
	}
}
