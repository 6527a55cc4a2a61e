package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"epsim/reports"
	"epsim/scenarios"
	"epsim/sim"
)

var cmdPlan = &command{
	name:  "plan",
	usage: "plan PLAN.yaml",
	short: "capacity-planning report over a grid of cluster shapes",
	long: `Plan runs a capacity plan: a base scenario and a grid of overrides (any scenario field,
as with --set), every point of the grid with both control planes, and writes a report that
answers the plan's budgets — per-node ingress per day, peak API server egress, write rate
against the controllers' QPS — and, per service size, recommends the maxEndpointsPerSlice
that fans out the fewest bytes within them. It lists every limit a layout hits: Endpoints
over the etcd request limit, truncation at 1000 addresses, egress saturation, writes over
the QPS budget. When the base scenario has several Services (your own cluster, say), the
advice is also split by the size of those Services: which layout each size group favours.
A grid over maxEndpointsPerSlice alone (kep-752) also gets KEP-752's cost table: each
phase — a create, a single endpoint update, a rolling update — per layout. PLAN is a file
or the name of a shipped plan (slice-size, cluster-size, kep-752). A plan file names its
base scenario, the grid's axes (each a field, as --set writes it, and its values) and,
optionally, budgets; docs/plan.md describes every field, and 'sim validate PLAN' checks one:

    name: my-plan
    scenario: quick                    # a shipped scenario's name, or a file
    grid:
      - set: controlPlane.maxEndpointsPerSlice
        values: [50, 100, 500]
    budgets:
      peakEgress: 1Gbit

The points run in parallel (--jobs, default all cores); results are placed by grid index,
so the same plan gives the same report byte for byte. A point whose run fails is listed in
the report and the CSV; the others still count (exit 0). When every point fails, the report
is still written and plan exits 1 (so does --merge of a grid whose points all failed; a
--shard exits 0 once its partial is written, failures and all, for the merge to judge). A
progress bar with an ETA is shown on stderr when it is a terminal; otherwise (CI, a pipe) a
plain line at most every 10 s of wall time, none in the first, counts the points done
("sim: plan NAME: 12/40 points done, 1m0s elapsed"). The points share one heap: while they
run, it is not collected below the floor sim run keeps (192 MiB), one per point running,
with a soft limit at 3/4 of the machine's memory, so that collecting it does not take the
cores the points need; GOGC or GOMEMLIMIT in the environment override this.

--out DIR writes report.md, report.html (self-contained, charts embedded), results.csv (one
row per point, every summary figure), plan.json (all point results) and the charts as PNG
and SVG, atomically: DIR is replaced as a whole, so it may not be the working directory or
contain it. Without --out, report.md goes to stdout.

To spread a big plan over machines, run each share with --shard i/n (i = 0..n-1); each
writes its partial, named with i and n in five digits (partial-00000-of-00002.json for
--shard 0/2), into --out (or to stdout without --out). Then --merge builds the report
from the partials (directories or files), identical to a one-machine run. See
docs/plan.md for running the shards as a Kubernetes Indexed Job.

Examples:

    sim plan slice-size --out results/slice-size
    sim plan scenarios/plans/cluster-size.yaml --jobs 2
    sim plan kep-752 --shard 0/4 --out results/kep/0
    sim plan --merge results/kep/0 results/kep/1 results/kep/2 results/kep/3 --out results/kep`,
	setup: func(fs *flag.FlagSet) func(e *env, args []string) error {
		o := &planOptions{}
		fs.StringVar(&o.out, "out", "", "write the report, CSV, charts (or the shard's partial) into `DIR`")
		fs.StringVar(&o.shard, "shard", "", "run only share `i/n` of the grid (points with index mod n = i) and write a partial")
		fs.BoolVar(&o.merge, "merge", false, "build the report from partials (the arguments: directories or partial files)")
		fs.IntVar(&o.jobs, "jobs", 0, "runs in parallel (`N`, default: the number of cores)")
		fs.BoolVar(&o.quiet, "quiet", false, "no progress on stderr (bar or lines)")
		fs.BoolVar(&o.charts, "charts", true, "with --out, also draw the charts")
		o.profiles.addFlags(fs, "plan", "the points")
		return func(e *env, args []string) error { return o.run(e, args) }
	},
}

// planOptions are the parsed flags of 'sim plan'.
type planOptions struct {
	out, shard   string
	merge, quiet bool
	charts       bool
	jobs         int
	// profiles are --cpuprofile and --memprofile (not of a --merge, which runs nothing).
	profiles commandProfiles
}

func (o *planOptions) run(e *env, args []string) (err error) {
	if o.jobs < 0 {
		return usageErrorf("plan", "--jobs %d: want 1 or more (0 = all cores)", o.jobs)
	}
	if err := o.profiles.check(o.out); err != nil {
		return err
	}
	if o.merge {
		if o.shard != "" {
			return usageErrorf("plan", "--merge and --shard do not go together")
		}
		if len(args) == 0 {
			return usageErrorf("plan", "plan --merge takes the partials: directories or files")
		}
		if o.profiles.mem != "" {
			return usageErrorf("plan", "--memprofile is of the points' heap, and --merge runs none (--cpuprofile profiles a merge)")
		}
		if err := o.profiles.start(); err != nil {
			return err
		}
		defer func() { err = o.profiles.stop(err) }()
		return o.runMerge(e, args)
	}
	if len(args) != 1 {
		return usageErrorf("plan", "plan takes exactly one plan (a file or a shipped name), got %d", len(args))
	}
	shards := 1
	shard := 0
	if o.shard != "" {
		var err error
		if shard, shards, err = parseShard(o.shard); err != nil {
			return usageErrorf("plan", "--shard %q: %v", o.shard, err)
		}
		// The shard's partial, written after the points, would replace a profile of its
		// name (clearOfOutputs knows the report's files, not a shard's).
		if o.out != "" {
			partial := filepath.Join(o.out, partialName(shard, shards))
			if f := o.profiles.flagAt(partial); f != "" {
				return usageErrorf("plan", "%s %s: is the partial --shard %s writes; give the profile another name", f, partial, o.shard)
			}
		}
	}
	plan, err := scenarios.LoadPlan(args[0])
	if err != nil {
		return badInput(err)
	}
	var out *outputDir
	if o.out != "" && o.shard == "" {
		// Fail before the grid runs, not after it.
		if out, err = openOutputDir(o.out, true, planFiles); err != nil {
			return err
		}
		defer out.abort()
	} else if o.out != "" {
		// Shards may share a directory: each writes its own partial, atomically. A shard
		// that fails or is stopped removes the directories it created, as a run does.
		if out, err = openSharedDir(o.out); err != nil {
			return err
		}
		defer out.abort()
	}
	var points []scenarios.GridPoint
	for _, p := range plan.Points {
		if p.Index%shards == shard {
			points = append(points, p)
		}
	}
	if err := o.profiles.start(); err != nil {
		return err
	}
	defer func() { err = o.profiles.stop(err) }()
	res := &reports.PlanResults{Format: reports.PlanFormat, Plan: planSpec(plan), Shard: shard, Shards: shards}
	started := time.Now()
	res.Points = o.runPoints(e, plan, points)
	if err := o.profiles.writeHeap(); err != nil {
		return err
	}
	failed := 0
	for _, p := range res.Points {
		if p.Error != "" {
			failed++
		}
	}
	if !o.quiet {
		fmt.Fprintf(e.stderr, "sim: plan %s: %s in %s", plan.Name, plural(len(points), "point"), time.Since(started).Round(time.Millisecond))
		if failed > 0 {
			fmt.Fprintf(e.stderr, ", %d failed (listed in the report)", failed)
		}
		fmt.Fprintln(e.stderr)
	}
	// The partial is what a report is built from, on one machine or after a merge: going
	// through its bytes here makes both give the same report.
	var buf bytes.Buffer
	if err := reports.WritePlanPartial(&buf, res); err != nil {
		return err
	}
	if o.shard != "" {
		name := partialName(shard, shards)
		if o.out == "" {
			_, err := e.stdout.Write(buf.Bytes())
			return err
		}
		// A shard whose points all failed still succeeds: its partial holds the failures,
		// and the merge judges the whole grid (an Indexed Job would otherwise retry the
		// shard's pod for the same deterministic failures).
		testHook("before-partial")
		if err := writeFileAtomic(filepath.Join(o.out, name), func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
			return err
		}
		out.keep()
		return nil
	}
	full, err := reports.ReadPlanPartial(&buf)
	if err != nil {
		return err
	}
	if err := o.writeReport(e, full, out); err != nil {
		return err
	}
	return allPointsFailed(full)
}

// allPointsFailed fails the plan (exit 1) when it ran points and every one of them failed:
// its report, written all the same, answers nothing. Some failed points do not fail it:
// the report lists them and the others still count.
func allPointsFailed(res *reports.PlanResults) error {
	for _, p := range res.Points {
		if p.Error == "" {
			return nil
		}
	}
	if len(res.Points) == 0 {
		return nil
	}
	if len(res.Points) == 1 {
		return fmt.Errorf("plan %s: its only point failed (listed in the report with its error)", res.Plan.Name)
	}
	return fmt.Errorf("plan %s: all %d points failed (listed in the report with their errors)", res.Plan.Name, len(res.Points))
}

// runMerge reads partials and writes the report of the whole grid.
func (o *planOptions) runMerge(e *env, args []string) error {
	var files []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return badInput(err)
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		found, err := filepath.Glob(filepath.Join(a, "partial-*-of-*.json"))
		if err != nil {
			return badInput(err)
		}
		if len(found) == 0 {
			return badInput(fmt.Errorf("%s: no partial-*-of-*.json files (written by sim plan --shard i/n --out DIR)", a))
		}
		slices.Sort(found)
		files = append(files, found...)
	}
	var parts []*reports.PlanResults
	for _, f := range files {
		part, err := readPartial(f)
		if err != nil {
			return badInput(err)
		}
		parts = append(parts, part)
	}
	merged, err := reports.MergePlanPartials(parts)
	if err != nil {
		return badInput(err)
	}
	var out *outputDir
	if o.out != "" {
		if out, err = openOutputDir(o.out, true, planFiles); err != nil {
			return err
		}
		defer out.abort()
	}
	if err := o.writeReport(e, merged, out); err != nil {
		return err
	}
	return allPointsFailed(merged)
}

func readPartial(name string) (*reports.PlanResults, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	part, err := reports.ReadPlanPartial(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return part, nil
}

// writeReport writes the report files into --out, or report.md to stdout.
func (o *planOptions) writeReport(e *env, res *reports.PlanResults, out *outputDir) error {
	var charts []*reports.Chart
	if o.charts || o.out == "" {
		var err error
		if charts, err = reports.PlanCharts(res); err != nil {
			return err
		}
	}
	if out == nil {
		return reports.WritePlanMarkdown(e.stdout, res, charts)
	}
	err := func() error {
		for _, f := range []struct {
			name   string
			render func(w io.Writer) error
		}{
			{"report.md", func(w io.Writer) error { return reports.WritePlanMarkdown(w, res, charts) }},
			{"report.html", func(w io.Writer) error { return reports.WritePlanHTML(w, res, charts) }},
			{"results.csv", func(w io.Writer) error { return reports.WritePlanCSV(w, res) }},
			{"plan.json", func(w io.Writer) error { return reports.WritePlanPartial(w, res) }},
		} {
			if err := out.write(f.name, f.render); err != nil {
				return err
			}
		}
		for _, c := range charts {
			for _, format := range reports.ChartFormats {
				if err := out.write(c.Name+"."+format, func(w io.Writer) error { return c.Render(w, format) }); err != nil {
					return err
				}
			}
		}
		return nil
	}()
	if err != nil {
		out.abort()
		return fmt.Errorf("--out %s: %w (nothing in it was changed)", o.out, err)
	}
	return out.commit()
}

// runPoints runs the points on --jobs workers and returns their records in grid order.
func (o *planOptions) runPoints(e *env, plan *scenarios.Plan, points []scenarios.GridPoint) []reports.PlanPoint {
	jobs := workersFor(o.jobs, pointEstimates(points), scenarios.DefaultMaxMemory())
	defer sharedGC(jobs, o.profiles.floored())()
	window := int(plan.Budgets.WriteWindow / time.Second)
	out := make([]reports.PlanPoint, len(points))
	progress := newCountProgress(e, o.quiet, "plan "+plan.Name, "points", len(points))
	defer progress.finish()
	sideBySide(jobs, indexes(len(points)), func(i int) {
		p := points[i]
		res, err := runPoint(e, p.Config, o.profiles.watch(nil))
		out[i] = reports.NewPlanPoint(p.Index, p.Values, p.Config, res, err, window)
	}, progress.done)
	return out
}

// pointEstimates are the points' estimated peaks (scenarios.EstimateMemory).
func pointEstimates(points []scenarios.GridPoint) []int64 {
	estimates := make([]int64, len(points))
	for i := range points {
		estimates[i] = scenarios.EstimateMemory(&points[i].Config)
	}
	return estimates
}

// runPoint runs one configuration, reporting its progress to obs (nil for none); a panic
// in the engine fails the point, not the plan.
func runPoint(e *env, cfg sim.Config, obs sim.Observer) (res *sim.Results, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("engine panic: %v", r)
		}
	}()
	cfg.NoWriteLog = true // plan reports read the buckets, not the write log
	return e.runSim(cfg, obs)
}

// parseShard parses "i/n" with 0 <= i < n.
func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, errors.New("want i/n, like 0/4")
	}
	if n < 1 || n > scenarios.MaxPlanPoints || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("want 0 <= i < n <= %d", scenarios.MaxPlanPoints)
	}
	return i, n, nil
}

// partialName is the file a shard writes: sortable, and naming its share.
func partialName(shard, shards int) string {
	return fmt.Sprintf("partial-%05d-of-%05d.json", shard, shards)
}

// planFileName is the plan's file as reports print it: as given, but never an absolute
// path (outputs carry no host paths).
func planFileName(file string) string {
	if filepath.IsAbs(file) {
		file = filepath.Base(file)
	}
	return filepath.ToSlash(file)
}

// planSpec turns a loaded plan into what the report needs to know about it.
func planSpec(p *scenarios.Plan) reports.PlanSpec {
	spec := reports.PlanSpec{
		Name: p.Name, Description: p.Description, Notes: p.Notes,
		File: planFileName(p.File), Scenario: p.Scenario, Set: p.Set,
		GridPoints: len(p.Points),
		Budgets: reports.PlanBudgets{
			PerNodeBytesPerDay:    p.Budgets.PerNodeBytesPerDay,
			PeakEgressBytesPerSec: int64(p.Budgets.PeakEgressBitsPerSec / 8),
			WritesPerSec:          p.Budgets.WritesPerSec,
			WriteWindowSeconds:    int(p.Budgets.WriteWindow / time.Second),
		},
	}
	for _, ax := range p.Axes {
		spec.Axes = append(spec.Axes, reports.PlanAxis{Name: ax.Name, Paths: ax.Paths, Values: ax.Values})
	}
	for _, c := range p.Churn {
		spec.Churn = append(spec.Churn, reports.PlanPhaseRate{Phase: c.Phase, PerDay: c.PerDay})
	}
	return spec
}
