package main

import (
	"encoding/json"
	"errors"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"epsim/reports"
	"epsim/sim"
)

// TestCheckJobsSameReport: scenarios checked side by side give the report, byte for byte,
// that they give one after the other, in the order given (not the order they ran or ended
// in), and the collector is left as it was.
// Reference: sim check --help ("the report keeps the order they were given in").
func TestCheckJobsSameReport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the engine")
	}
	dir := t.TempDir()
	args := []string{"check", "../../scenarios/quick.yaml", "../../scenarios/truncation.yaml",
		"../../scenarios/zone-outage.yaml", "--baseline-dir", dir, "--quiet"}
	real := func() *testEnv {
		te := newTestEnv()
		te.env.runSim, te.env.loadCheck = sim.Run, loadCheckScenario
		return te
	}
	te := real()
	if code := te.main(append(args, "--update-baseline", "--jobs", "1")); code != exitOK {
		t.Fatalf("update: exit %d\n%s", code, te.stderr.String())
	}
	prev := debug.SetGCPercent(91)
	defer debug.SetGCPercent(prev)
	var outputs [2]string
	for i, jobs := range []string{"1", "3"} {
		te := real()
		if code := te.main(append(args, "-o", "json", "--verbose", "--tolerance", "0%", "--jobs", jobs)); code != exitOK {
			t.Fatalf("--jobs %s: exit %d\n%s", jobs, code, te.stderr.String())
		}
		outputs[i] = te.stdout.String()
	}
	if got := debug.SetGCPercent(91); got != 91 {
		t.Errorf("after the check, GOGC is %d, want 91 as before", got)
	}
	if outputs[0] != outputs[1] {
		t.Fatalf("--jobs 3 report differs from --jobs 1:\n%s\nwant:\n%s", outputs[1], outputs[0])
	}
	var got struct{ Scenarios []reports.ScenarioCheck }
	if err := json.Unmarshal([]byte(outputs[1]), &got); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, sc := range got.Scenarios {
		files = append(files, sc.File)
		for _, r := range sc.Rows {
			if r.Source == reports.SourceBaseline && r.Verdict != reports.VerdictOK {
				t.Errorf("%s: %s %s against its own baseline", sc.File, r.Figure, r.Verdict)
			}
		}
	}
	want := []string{"../../scenarios/quick.yaml", "../../scenarios/truncation.yaml", "../../scenarios/zone-outage.yaml"}
	if !slices.Equal(files, want) {
		t.Errorf("scenarios reported in the order %v, want %v", files, want)
	}
}

// TestCheckJobsProgressLines: with stderr not a terminal, scenarios checked side by side
// report how many are done in plain lines (none for the last), and no run prints its own.
// Reference: sim check --help ("a plain line at most every 10 s when it is not a terminal").
func TestCheckJobsProgressLines(t *testing.T) {
	te := checkEnv()
	var mu sync.Mutex
	wall := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	te.wallClock = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		wall = wall.Add(11 * time.Second) // every scenario takes longer than the interval
		return wall
	}
	te.progressEvery = 10 * time.Second
	code := te.main([]string{"check", "a.yaml", "b.yaml", "c.yaml", "--baseline-dir", t.TempDir(), "--update-baseline", "--jobs", "2"})
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, te.stderr.String())
	}
	var lines []string
	for _, l := range strings.Split(te.stderr.String(), "\n") {
		if strings.HasPrefix(l, "sim: check") {
			lines = append(lines, l[:strings.LastIndex(l, ",")])
		}
	}
	want := []string{"sim: check: 1/3 scenarios done", "sim: check: 2/3 scenarios done"}
	if !slices.Equal(lines, want) {
		t.Errorf("progress lines %q, want %q\nstderr:\n%s", lines, want, te.stderr.String())
	}
	if len(te.ran) != 3 {
		t.Errorf("ran %d scenarios, want 3", len(te.ran))
	}
}

// TestCheckJobsRunFails: a run that fails among runs side by side fails the check, naming
// the first failed scenario in the order given.
func TestCheckJobsRunFails(t *testing.T) {
	te := checkEnv()
	te.runErr = errors.New("event budget exhausted")
	code := te.main([]string{"check", "a.yaml", "b.yaml", "--baseline-dir", t.TempDir(), "--update-baseline", "--jobs", "2"})
	if code != exitFailed || !strings.Contains(te.stderr.String(), "check a.yaml: event budget exhausted") {
		t.Errorf("exit %d, stderr %q; want 1 and the first scenario's error", code, te.stderr.String())
	}
}

// TestCheckJobsCrashIsReported: a crash in a run among runs side by side is sim's internal
// error (exit 3, one line to report), as a crash of a lone run is, not a raw panic that ends
// the process from a worker.
// Reference: cmd/sim/doc.go "Exit status" (3: a crash).
func TestCheckJobsCrashIsReported(t *testing.T) {
	te := checkEnv()
	run := te.runSim
	var runs atomic.Int32
	te.runSim = func(cfg sim.Config, obs sim.Observer) (*sim.Results, error) {
		if runs.Add(1) > 1 {
			panic("index out of range [7] with length 7")
		}
		return run(cfg, obs)
	}
	code := te.main([]string{"check", "a.yaml", "b.yaml", "c.yaml", "--baseline-dir", t.TempDir(), "--update-baseline", "--jobs", "2"})
	if code != exitInternal || !strings.Contains(te.stderr.String(), "internal error (a bug in sim, not in your input): index out of range") {
		t.Errorf("exit %d, stderr %q; want 3 and the crash reported", code, te.stderr.String())
	}
}

// TestSideBySide: every index runs once whatever the workers, done is called once a run,
// and one worker runs them in the order given.
func TestSideBySide(t *testing.T) {
	order := []int{3, 0, 4, 1, 2}
	for _, workers := range []int{1, 2, 8} {
		var mu sync.Mutex
		var ran []int
		done := 0
		sideBySide(workers, order, func(i int) {
			mu.Lock()
			ran = append(ran, i)
			mu.Unlock()
		}, func() { done++ })
		if done != len(order) {
			t.Errorf("%d workers: done called %d times, want %d", workers, done, len(order))
		}
		if workers == 1 && !slices.Equal(ran, order) {
			t.Errorf("one worker ran %v, want the order %v", ran, order)
		}
		got := slices.Clone(ran)
		slices.Sort(got)
		if !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
			t.Errorf("%d workers ran %v, want each index once", workers, ran)
		}
	}
}

// TestLargestFirst: runs side by side start from the largest estimate, equal ones in the
// order given.
func TestLargestFirst(t *testing.T) {
	for _, c := range []struct {
		estimates []int64
		want      []int
	}{
		{nil, []int{}},
		{[]int64{5, 9, 5, 1}, []int{1, 0, 2, 3}},
		{[]int64{1, 2, 3}, []int{2, 1, 0}},
		{[]int64{7, 7}, []int{0, 1}},
	} {
		if got := largestFirst(c.estimates); !slices.Equal(got, c.want) {
			t.Errorf("largestFirst(%v) = %v, want %v", c.estimates, got, c.want)
		}
	}
}
