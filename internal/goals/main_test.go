package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain makes the test binary a stand-in for sim: with GOALS_FAKE_LOG set it appends its
// arguments (and, for a scenario file, the file's first line) to that file, spends
// GOALS_FAKE_SPIN of CPU time (a duration, 0 unless set), and exits with GOALS_FAKE_EXIT
// (0 unless set) after writing GOALS_FAKE_STDERR to stderr.
func TestMain(m *testing.M) {
	if os.Getenv(referenceEnv) != "" {
		reference()
		os.Exit(0)
	}
	if log := os.Getenv("GOALS_FAKE_LOG"); log != "" {
		line := strings.Join(os.Args[1:], " ")
		if len(os.Args) > 2 && strings.HasSuffix(os.Args[2], ".yaml") {
			text, err := os.ReadFile(os.Args[2])
			if err != nil {
				panic(err)
			}
			first, _, _ := strings.Cut(string(text), "\n")
			line += " | " + first
		}
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			panic(err)
		}
		f.WriteString(line + "\n")
		f.Close()
		if d, err := time.ParseDuration(os.Getenv("GOALS_FAKE_SPIN")); err == nil {
			spin(d)
		}
		os.Stderr.WriteString(os.Getenv("GOALS_FAKE_STDERR"))
		if os.Getenv("GOALS_FAKE_EXIT") != "" {
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeSim makes the test binary sim for the test's runs, logging into a file it returns.
func fakeSim(t *testing.T) (bin, log string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log = filepath.Join(t.TempDir(), "runs.log")
	t.Setenv("GOALS_FAKE_LOG", log)
	return self, log
}

func TestRunsEachGoalOnceARoundAndReportsLimits(t *testing.T) {
	bin, log := fakeSim(t)
	t.Setenv("GOALS_FAKE_SPIN", "20ms")
	var out bytes.Buffer
	if err := run(t.Context(), []string{"-sim", bin, "-rounds", "2", "-only", "services-50k, 5000-nodes", "-reference=false"}, &out); err != nil {
		t.Fatal(err)
	}
	runs, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(runs)), "\n")
	// The goals' own order, not -only's, each round in turn; the 50,000 Services' scenario
	// is a file that exists while it runs.
	want := []string{"run 5000-nodes --quiet", "run services-50k.yaml --quiet | name: services-50000"}
	if len(lines) != 4 {
		t.Fatalf("runs:\n%s\nwant 4", runs)
	}
	for i, line := range lines {
		got := line
		if dir, file, ok := strings.Cut(line, "services-50k.yaml"); ok {
			got = "run services-50k.yaml" + file
			if !strings.HasPrefix(dir, "run /") {
				t.Errorf("run %d: %q, want the scenario's absolute path", i+1, line)
			}
		}
		if got != want[i%2] {
			t.Errorf("run %d: %q, want %q", i+1, got, want[i%2])
		}
	}
	text := out.String()
	for _, want := range []string{"round 1/2 5000-nodes: ", "round 2/2 services-50k: "} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if !hasRow(text, "5000-nodes", "the headline scenario") || !hasRow(text, "services-50k", "50,000 Services of 10 pods") {
		t.Errorf("the table lacks a goal's row:\n%s", text)
	}
	// A stand-in that spins 20 ms and holds a few MB stays within every limit.
	if !strings.Contains(text, "2/2 ≤ 1 ") || !strings.Contains(text, "2/2 ≤ 20 ") {
		t.Errorf("output does not count both runs within the CPU limits:\n%s", text)
	}
	if runtime.GOOS == "linux" && !strings.Contains(text, "2/2 ≤ 1500") {
		t.Errorf("output does not count both runs within the RSS limit:\n%s", text)
	}
}

func TestMeasureSeesCPU(t *testing.T) {
	bin, _ := fakeSim(t)
	t.Setenv("GOALS_FAKE_SPIN", "300ms")
	m, err := measure(t.Context(), bin, []string{"run", "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The stand-in spends 300 ms of CPU time, and a little more to start and exit.
	if m.cpu < 0.3 || m.cpu > 5 {
		t.Errorf("CPU of a 300 ms spin: %.3f s", m.cpu)
	}
	if runtime.GOOS == "linux" && (m.rssMB < 1 || m.rssMB > 500) {
		t.Errorf("peak RSS of the stand-in: %.1f MB", m.rssMB)
	}
}

func TestFailedRunSaysWhichGoalAndWhy(t *testing.T) {
	bin, _ := fakeSim(t)
	t.Setenv("GOALS_FAKE_EXIT", "3")
	t.Setenv("GOALS_FAKE_STDERR", "sim: run: something broke\n")
	err := run(t.Context(), []string{"-sim", bin, "-rounds", "1", "-only", "cluster-day", "-reference=false"}, new(bytes.Buffer))
	if err == nil {
		t.Fatal("a failing run: no error")
	}
	for _, want := range []string{"cluster-day: ", "run cluster-day --quiet", "exit status 3", "something broke"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestChooseRefusesUnknownGoals(t *testing.T) {
	_, err := choose("many-services,manyservices")
	if err == nil || !strings.Contains(err.Error(), `no goal "manyservices"`) || !strings.Contains(err.Error(), "cluster-day") {
		t.Errorf("choose of an unknown goal: %v", err)
	}
	all, err := choose("")
	if err != nil || len(all) != len(goals) {
		t.Errorf("choose(\"\") = %d goals, %v; want all %d", len(all), err, len(goals))
	}
}

func TestRunRefusesWithoutSim(t *testing.T) {
	for _, args := range [][]string{{}, {"-sim", "x", "-rounds", "0"}, {"-sim", "x", "extra"}} {
		err := run(t.Context(), args, new(bytes.Buffer))
		if err == nil || !strings.Contains(err.Error(), "want -sim") {
			t.Errorf("run(%q): %v", args, err)
		}
	}
	if err := run(t.Context(), []string{"-h"}, new(bytes.Buffer)); err != nil {
		t.Errorf("-h: %v, want its usage and no error", err)
	}
}

func TestSpread(t *testing.T) {
	for _, c := range []struct {
		v     []float64
		limit float64
		want  string
	}{
		{[]float64{2.5}, 3, "2.50, 1/1 ≤ 3"},
		{[]float64{3.5, 2.5, 3}, 3, "2.50–3.50, median 3.00, 2/3 ≤ 3"},
		{[]float64{4, 1, 2, 3}, 0, "1.00–4.00, median 2.50"},
	} {
		if got := spread(c.v, c.limit, "%.2f"); got != c.want {
			t.Errorf("spread(%v, %g) = %q, want %q", c.v, c.limit, got, c.want)
		}
	}
}

func TestInterruptStopsTheRunUnderWay(t *testing.T) {
	bin, _ := fakeSim(t)
	t.Setenv("GOALS_FAKE_SPIN", "20s")
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := run(ctx, []string{"-sim", bin, "-rounds", "1", "-only", "many-services", "-reference=false"}, new(bytes.Buffer))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("run interrupted: %v, want the context's error", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("run interrupted after 300 ms returned after %v: the run under way was not stopped", took)
	}
}

func TestReferenceRunsOnceARoundFirst(t *testing.T) {
	bin, log := fakeSim(t)
	var out bytes.Buffer
	if err := run(t.Context(), []string{"-sim", bin, "-rounds", "2", "-only", "5000-nodes"}, &out); err != nil {
		t.Fatal(err)
	}
	// The reference runs as this binary with referenceEnv set (TestMain runs it then), not
	// as sim: only the goal's two runs are logged.
	runs, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(runs), "\n"); n != 2 {
		t.Errorf("sim ran %d times, want 2:\n%s", n, runs)
	}
	text := out.String()
	for _, want := range []string{"round 1/2 reference: ", "round 2/2 reference: "} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if !hasRow(text, "reference", "fixed sorting and map work (machine speed)") {
		t.Errorf("the table lacks the reference's row:\n%s", text)
	}
	if i, j := strings.Index(text, "round 1/2 reference"), strings.Index(text, "round 1/2 5000-nodes"); i < 0 || j < i {
		t.Errorf("the reference does not run first in a round:\n%s", text)
	}
	// The workload is real work: a tenth of a second at least on any machine of today.
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, "round 1/2 reference: "); ok {
			var cpu float64
			if _, err := fmt.Sscanf(rest, "%f CPU-s", &cpu); err != nil || cpu < 0.1 {
				t.Errorf("reference line %q: CPU %g, %v", line, cpu, err)
			}
		}
	}
}

func TestTableColumnsAlign(t *testing.T) {
	chosen := []goal{goals[0], goals[3]}
	got := [][]measurement{{{0.21, 52.7}, {0.22, 52.9}}, {{18.33, 1106.4}, {20.22, 1159.7}}}
	lines := strings.Split(strings.TrimSuffix(table(chosen, got), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("table:\n%s", strings.Join(lines, "\n"))
	}
	// Each column starts where the header's does, in characters (the figures hold "–" and "≤").
	col := func(line, cell string) int { return len([]rune(line[:strings.Index(line, cell)])) }
	for _, c := range []struct{ row, cell, header string }{
		{lines[1], "0.21–0.22, median 0.21, 2/2 ≤ 1", "CPU s"},
		{lines[2], "18.33–20.22, median 19.27, 1/2 ≤ 20", "CPU s"},
		{lines[1], "52.7–52.9, median 52.8, 2/2 ≤ 100", "peak RSS"},
		{lines[2], "1106.4–1159.7, median 1133.1, 2/2 ≤ 1500", "peak RSS"},
	} {
		if !strings.Contains(c.row, c.cell) {
			t.Errorf("row %q lacks %q", c.row, c.cell)
			continue
		}
		if got, want := col(c.row, c.cell), col(lines[0], c.header); got != want {
			t.Errorf("%q starts at column %d, its header %q at %d:\n%s", c.cell, got, c.header, want, strings.Join(lines, "\n"))
		}
	}
}

// hasRow reports whether text has a line that starts with name, then spaces, then what.
func hasRow(text, name, what string) bool {
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, name+" "); ok && strings.HasPrefix(strings.TrimLeft(rest, " "), what) {
			return true
		}
	}
	return false
}
