package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"epsim/scenarios"
	"epsim/sim"
)

// tinyPlan is a 2×2 grid over the quick scenario made small (20 nodes, 30 and 60 pods), so
// the real engine runs every point in a fraction of a second.
const tinyPlan = `name: tiny
scenario: quick
set: [cluster.nodes=20]
grid:
  - name: pods
    set: services[0].replicas
    values: [30, 60]
  - set: controlPlane.maxEndpointsPerSlice
    values: [10, 100]
churn: {rolling-update: 24}
budgets: {perNodeIngressPerDay: 1MB}
`

func writePlan(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// realEnv runs the real engine (plan tests need results that differ per point).
func realEnv() *testEnv {
	te := newTestEnv()
	te.runSim = sim.Run
	te.load = loadScenario
	return te
}

// TestPlanShardsMergeEqualWholeRun: --shard partials merged give the one-machine report
// byte for byte (every file), whatever the number of shards and jobs.
// Reference: the sim plan issue (5), "Scale-out".
func TestPlanShardsMergeEqualWholeRun(t *testing.T) {
	plan := writePlan(t, tinyPlan)
	whole := filepath.Join(t.TempDir(), "whole")
	te := realEnv()
	if code := te.main([]string{"plan", plan, "--out", whole, "--quiet", "--jobs", "2"}); code != exitOK {
		t.Fatalf("plan: exit %d: %s", code, te.stderr.String())
	}
	shards := t.TempDir()
	var dirs []string
	for i := range 3 {
		dir := filepath.Join(shards, string(rune('a'+i)))
		dirs = append(dirs, dir)
		te := realEnv()
		if code := te.main([]string{"plan", plan, "--shard", []string{"0/3", "1/3", "2/3"}[i], "--out", dir, "--quiet", "--jobs", "1"}); code != exitOK {
			t.Fatalf("shard %d: exit %d: %s", i, code, te.stderr.String())
		}
	}
	merged := filepath.Join(t.TempDir(), "merged")
	te = realEnv()
	if code := te.main(append([]string{"plan", "--merge", "--out", merged}, dirs...)); code != exitOK {
		t.Fatalf("merge: exit %d: %s", code, te.stderr.String())
	}
	names := listDir(t, whole)
	for _, want := range []string{"report.md", "report.html", "results.csv", "plan.json", "bytes-per-rollout.png", "bytes-per-rollout.svg"} {
		if !slices.Contains(names, want) {
			t.Errorf("--out lacks %s (has %q)", want, names)
		}
	}
	if got := listDir(t, merged); !slices.Equal(got, names) {
		t.Fatalf("merge wrote %q, whole run %q", got, names)
	}
	for _, f := range names {
		a, _ := os.ReadFile(filepath.Join(whole, f))
		b, _ := os.ReadFile(filepath.Join(merged, f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between the whole run and the merged shards", f)
		}
	}
	report, _ := os.ReadFile(filepath.Join(whole, "report.md"))
	if !strings.Contains(string(report), "| pods=30 | 30 |") {
		t.Errorf("report.md lacks the recommendation row for 30 pods:\n%s", report)
	}
}

// TestPlanBadInput: a bad plan is exit 2 with file:line and the field; so are bad flags
// and partials that do not add up.
func TestPlanBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, plan string
		args       []string
		want       string
	}{
		{"unknown field", "name: x\nscenario: quick\ngrid:\n  - set: cluster.nodes\n    valuez: [1]\n", nil, ":5:5: grid[0].valuez: unknown field \"valuez\" (did you mean \"values\"?)"},
		{"bad point", "name: x\nscenario: quick\ngrid:\n  - set: cluster.nodes\n    values: [10, -1]\n", nil, ":5:18: grid[0].values[1]: -1: scenarios/quick.yaml: --set cluster.nodes=-1: cluster.nodes: -1 out of range"},
		{"bad churn phase", "name: x\nscenario: quick\ngrid:\n  - set: cluster.nodes\n    values: [10]\nchurn: {rollout: 1}\n", nil, ":6:9: churn.rollout: \"rollout\" is not a phase"},
		{"bad shard", tinyPlan, []string{"--shard", "3/3"}, "--shard"},
		{"missing", "", []string{"nope.yaml"}, "plan nope.yaml: no such file, and not a shipped plan"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"plan"}
			if tc.plan != "" {
				args = append(args, writePlan(t, tc.plan))
			}
			args = append(args, tc.args...)
			te := realEnv()
			if code := te.main(args); code != exitBadInput {
				t.Fatalf("exit %d, want %d: %s", code, exitBadInput, te.stderr.String())
			}
			if !strings.Contains(te.stderr.String(), tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, te.stderr.String())
			}
		})
	}
	te := realEnv()
	empty := t.TempDir()
	if code := te.main([]string{"plan", "--merge", empty}); code != exitBadInput {
		t.Errorf("merge of an empty directory: exit %d", code)
	}
}

// TestPlanFailedPointIsReported: a run that fails is a row of the report, not a fatal error.
func TestPlanFailedPointIsReported(t *testing.T) {
	plan := writePlan(t, tinyPlan)
	te := realEnv()
	te.runSim = func(cfg sim.Config, obs sim.Observer) (*sim.Results, error) {
		if cfg.ControlPlane.MaxEndpointsPerSlice == 10 && cfg.Services[0].Replicas == 60 {
			panic("boom")
		}
		return sim.Run(cfg, obs)
	}
	if code := te.main([]string{"plan", plan, "--quiet"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, te.stderr.String())
	}
	if !strings.Contains(te.stdout.String(), "point 2 (pods=60, controlPlane.maxEndpointsPerSlice=10): engine panic: boom") {
		t.Errorf("report lacks the failed point:\n%s", te.stdout.String())
	}
}

// TestPlanAllPointsFailedExits1: a plan whose every point failed answers nothing, so it
// fails (exit 1, the run failed) — with its report still written, listing the failures —
// and so does a merge of points that all failed; a shard of them succeeds once its partial
// is written (an Indexed Job would retry it for nothing). Some failures alone do not fail
// it (TestPlanFailedPointIsReported).
func TestPlanAllPointsFailedExits1(t *testing.T) {
	// The user's repro: an event budget no point of the quick scenario fits in.
	plan := writePlan(t, strings.Replace(tinyPlan, "set: [cluster.nodes=20]", "set: [cluster.nodes=20, guards.maxEvents=2000]", 1))
	dir := t.TempDir()
	out := filepath.Join(dir, "report")
	te := realEnv()
	if code := te.main([]string{"plan", plan, "--quiet", "--charts=false", "--out", out}); code != exitFailed {
		t.Fatalf("exit %d, want %d: %s", code, exitFailed, te.stderr.String())
	}
	if !strings.Contains(te.stderr.String(), "plan tiny: all 4 points failed") {
		t.Errorf("stderr lacks the failure:\n%s", te.stderr.String())
	}
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatalf("the report was not written: %v", err)
	}
	if !strings.Contains(string(report), "event budget") {
		t.Errorf("report lacks the points' errors:\n%s", report)
	}

	shards := filepath.Join(dir, "shards")
	te = realEnv()
	for _, shard := range []string{"0/2", "1/2"} {
		// A shard succeeds once its partial is written: the merge judges the grid.
		te = realEnv()
		if code := te.main([]string{"plan", plan, "--quiet", "--shard", shard, "--out", shards}); code != exitOK {
			t.Errorf("shard %s: exit %d, want %d: %s", shard, code, exitOK, te.stderr.String())
		}
	}
	te = realEnv()
	if code := te.main([]string{"plan", "--merge", shards}); code != exitFailed {
		t.Errorf("merge: exit %d, want %d: %s", code, exitFailed, te.stderr.String())
	}
	if !strings.Contains(te.stderr.String(), "plan tiny: all 4 points failed") {
		t.Errorf("merge: stderr lacks the failure:\n%s", te.stderr.String())
	}
}

// Points run side by side must fit in memory together, not only one by one.
func TestPlanJobsFitInMemory(t *testing.T) {
	small := scenarios.GridPoint{Config: sim.Config{Cluster: sim.ClusterConfig{Nodes: 10}}}
	big := scenarios.GridPoint{Config: sim.Config{Cluster: sim.ClusterConfig{Nodes: 1000},
		Services: []sim.ServiceConfig{{Name: "web", Count: 1, Replicas: 100_000}}}}
	est := scenarios.EstimateMemory(&big.Config)
	for _, c := range []struct {
		points []scenarios.GridPoint
		limit  int64
		want   int
	}{
		{[]scenarios.GridPoint{small, big}, 3 * est, 3},
		{[]scenarios.GridPoint{small, big}, est + est/2, 1},
		{[]scenarios.GridPoint{small, big}, 0, 8},
		{[]scenarios.GridPoint{small}, 1 << 40, 8},
	} {
		if got := fitJobs(8, pointEstimates(c.points), c.limit); got != c.want {
			t.Errorf("fitJobs(8, limit %d, estimate %d) = %d, want %d", c.limit, est, got, c.want)
		}
	}
}

// TestPlanGCSetsAndRestores checks that a plan's points run above a heap floor that grows
// with the points run side by side (GOGC raised for a small live heap), under a soft memory
// limit, that both settings are given back after, and that GOGC or GOMEMLIMIT in the
// environment leave the collector alone.
func TestPlanGCSetsAndRestores(t *testing.T) {
	prev := debug.SetGCPercent(77)
	defer debug.SetGCPercent(prev)
	prevLimit := debug.SetMemoryLimit(1 << 40)
	defer debug.SetMemoryLimit(prevLimit)
	gogc := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC")
	t.Setenv("GOMEMLIMIT", "")
	os.Unsetenv("GOMEMLIMIT")

	// The live heap of this test process, collected, is far below one floor (192 MiB), so
	// the next collection's goal is the floor: GOGC well above 100, higher for more points.
	runtime.GC()
	restore := sharedGC(1, true)
	one := gogc()
	if limit := debug.SetMemoryLimit(-1); limit >= 1<<40 {
		t.Errorf("while the points run, the memory limit is %d, want a limit", limit)
	}
	restore()
	restore = sharedGC(2, true)
	two := gogc()
	restore()
	if one <= 100 || two <= one {
		t.Errorf("GOGC while 1 and 2 points run: %d and %d, want above 100 and rising", one, two)
	}
	if got := gogc(); got != 77 {
		t.Errorf("after the points, GOGC is %d, want it back at 77", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("after the points, the memory limit is %d, want it back at %d", got, int64(1<<40))
	}

	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "77")
			restore := sharedGC(2, true)
			if got := gogc(); got != 77 {
				t.Errorf("with %s set in the environment, sharedGC changed GOGC to %d", env, got)
			}
			if got := debug.SetMemoryLimit(-1); got != 1<<40 {
				t.Errorf("with %s set in the environment, sharedGC changed the memory limit to %d", env, got)
			}
			restore()
		})
	}
}

// TestPlanHelpNamesThePartialFile: the help's example of a shard's file name is the name a
// shard writes (it said partial-i-of-n.json).
func TestPlanHelpNamesThePartialFile(t *testing.T) {
	if want := partialName(0, 2); !strings.Contains(cmdPlan.long, want) {
		t.Errorf("plan help lacks %q, the file --shard 0/2 writes:\n%s", want, cmdPlan.long)
	}
}

// With stderr not a terminal (CI), a plan printed nothing while its points ran, however
// long: now a plain line at most every lineEvery of wall time as points finish, none with
// --quiet, and the report byte for byte the same.
func TestPlanProgressLinesWhenNotTerminal(t *testing.T) {
	plan := writePlan(t, tinyPlan)
	run := func(quiet bool) (stderr string, md []byte) {
		te := realEnv()
		var wall time.Time
		var mu sync.Mutex
		te.wallClock = func() time.Time { mu.Lock(); defer mu.Unlock(); wall = wall.Add(6 * time.Second); return wall }
		te.progressEvery = 10 * time.Second
		out := filepath.Join(t.TempDir(), "out")
		args := []string{"plan", plan, "--out", out, "--charts=false", "--jobs", "1"}
		if quiet {
			args = append(args, "--quiet")
		}
		if code := te.main(args); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, te.stderr.String())
		}
		b, err := os.ReadFile(filepath.Join(out, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		return te.stderr.String(), b
	}
	errQuiet, mdQuiet := run(true)
	errLines, md := run(false)
	if strings.Contains(errQuiet, "points done") {
		t.Errorf("--quiet printed progress: %q", errQuiet)
	}
	if !regexp.MustCompile(`(?m)^sim: plan tiny: [123]/4 points done, \d+s elapsed$`).MatchString(errLines) {
		t.Errorf("no progress lines on stderr: %q", errLines)
	}
	if !bytes.Equal(md, mdQuiet) {
		t.Error("progress lines changed the report")
	}
}

// The line plan ends with on stderr is prefixed "sim: " as its progress lines and every
// other message on stderr are ("sim: plan NAME: 12/40 points done, …").
func TestPlanDoneLinePrefixed(t *testing.T) {
	plan := writePlan(t, tinyPlan)
	te := realEnv()
	if code := te.main([]string{"plan", plan, "--charts=false", "--out", filepath.Join(t.TempDir(), "r")}); code != exitOK {
		t.Fatalf("exit %d: %s", code, te.stderr.String())
	}
	if !regexp.MustCompile(`(?m)^sim: plan tiny: 4 points in \S+$`).MatchString(te.stderr.String()) {
		t.Errorf("stderr %q lacks 'sim: plan tiny: 4 points in …'", te.stderr.String())
	}
}

// TestPlanHelpExampleLoads: 'sim help plan' shows a plan file, which loads as written; the
// help named the shipped plans but showed no plan's format, so a first plan was written by
// guesswork ("grid: expected a list of axes").
func TestPlanHelpExampleLoads(t *testing.T) {
	_, after, ok := strings.Cut(cmdPlan.long, "    name: my-plan\n")
	if !ok {
		t.Fatal("'sim help plan' shows no plan file")
	}
	text := "name: my-plan\n"
	for _, line := range strings.Split(after, "\n") {
		if !strings.HasPrefix(line, "    ") {
			break
		}
		text += strings.TrimPrefix(line, "    ") + "\n"
	}
	path := filepath.Join(t.TempDir(), "my-plan.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := scenarios.LoadPlan(path)
	if err != nil {
		t.Fatalf("the plan in 'sim help plan' does not load: %v\n%s", err, text)
	}
	if len(p.Points) != 3 {
		t.Errorf("%d grid points, want 3", len(p.Points))
	}
}
