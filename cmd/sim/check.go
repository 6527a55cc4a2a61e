package main

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"epsim/reports"
	"epsim/scenarios"
	"epsim/sim"
)

var cmdCheck = &command{
	name:  "check",
	usage: "check SCENARIO...",
	short: "fail when update volume regresses past a baseline or budget",
	long: `Check runs each SCENARIO and compares its figures with two kinds of expectation, for CI:

  budgets     the scenario's expect: section: bounds on any figure of a phase or the total,
              e.g.  rolling-update.endpointslices.fanoutBytes: {max: 2TB}
                    one-endpoint-not-ready.ratio.fanoutBytes: {min: 50}
                    total.endpointslices.failedWrites: {max: 0}
              Budgets are hard bounds: a figure outside one is a broken budget. With
              --set, the bound follows the key's dots:
                    --set expect.total.endpointslices.fanoutBytes.max=2TB
              (or expect["total.endpointslices.fanoutBytes"]={max: 2TB}).
  baselines   a JSON file of every figure of an earlier run (--baseline FILE, or
              --baseline-dir DIR holding SCENARIO.json). A figure that grew by more than
              --tolerance is a regression; one that shrank by more is an improvement
              (reported, and a failure only with --strict). --update-baseline (re)writes
              the baselines from this run instead of comparing, atomically; budgets
              are still checked, so a broken budget fails the check (exit 1) even
              though the baselines were written. A baseline keeps the settings of the
              scenario it was written with; a check of other settings (another --set,
              an edited file) lists them above its figures and names them when it fails.

--tolerance takes a percentage for every figure (default 2%) and, repeated,
PATTERN=PERCENT for the figures PATTERN matches: a figure kind (count, bytes, seconds) or
a glob over figure names, matched against the whole name, the name without its phase and
the figure alone (writes.* , *.endpointslices.fanoutBytes, total.*); the last match wins.
--floor N (or PATTERN=N) is an absolute change within which a figure never fails, so a
count going from 2 to 3 is not a +50% regression; N is in the figure's unit (bytes,
seconds, a count) or carries one (1KB, 50ms). A baseline may name the figures it gates
with "gates": [PATTERN...]; the others are still compared and listed (verdict ungated)
but never fail, and --update-baseline keeps the gates.

Figures are named as in summary.json: <phase|total>.<mode>.<figure>, where phase is a
timeline action's name, mode is endpoints, endpointslices or ratio (Endpoints /
EndpointSlices), and figure is a summary.json field, nested ones joined with dots:

  endpoints, endpointslices:
    writes.create writes.update writes.delete writes.total noopWrites failedWrites
    conflicts syncs staleSyncs objects etcdBytes requestBytes watchEvents fanoutBytes
    perNodeBytes maxObjectBytes peakEgressBytesPerSec truncatedObjects hiddenAddresses
    propagation.count propagation.p50Seconds propagation.p90Seconds
    propagation.p99Seconds propagation.maxSeconds watcherTerminations relists
    resentBytes programming.count programming.p50Seconds programming.p90Seconds
    programming.p99Seconds programming.maxSeconds kubeProxyCPUSeconds
    kubeProxyDecodeCPUSeconds kubeProxySyncs kubeProxyFullSyncs peakSyncSeconds
    kubeProxyBusyFraction apiserverCPUSeconds
  ratio:
    writes etcdBytes watchEvents fanoutBytes perNodeBytes maxObjectBytes
    peakEgressBytesPerSec kubeProxyCPUSeconds kubeProxyDecodeCPUSeconds
    apiserverCPUSeconds

Budgets take bytes with units (2TB, 1.5MiB), rates for peakEgressBytesPerSec (10Gbit,
1.25GB/s, or bytes as 1GB), durations (30s, or a number of seconds) and plain numbers;
they may also use the short names writes, creates, updates, deletes and propagationP99 or
programmingP99 (and P50, P90, Max). Baselines hold every endpoints and endpointslices
figure; ratios follow from those, so only budgets bound them. An unknown figure name is an
error that names the closest valid ones.

The output is the failures — verdict, figure, expected value or bounds, actual value,
change in percent (from a thousandfold, the factor: 982,744×), and where the expectation
came from — one block per scenario with failures, then one line with the outcome; a
passing check prints that line only.
--verbose lists every checked figure, failures first (in capitals). --format json (-o json)
gives every figure as JSON, and --junit FILE also writes JUnit XML (one testcase per
figure) for CI systems to display. The --junit file and the baselines --update-baseline
writes are checked before any run (a directory, a path whose directory cannot be written,
or a file that is not a JUnit report or not a baseline, is bad input, and the file is left
as it is); directories missing on their paths are created when they are written. Two
scenarios of one base name cannot share a --baseline-dir.

The scenarios run side by side, one per core (--jobs N to choose), the largest first, and
as many at once as fit together in guards.maxMemory's default (3/4 of the machine's memory)
by their estimates; the report keeps the order they were given in. While several run,
stderr shows a bar of the scenarios done (a plain line at most every 10 s when it is not a
terminal), and the collector is set for them as for sim plan's points. --jobs 1 runs them
one after the other, each with its own progress bar.

Exit status: 0 every figure within bounds; 1 a regression, a broken budget (with
--update-baseline too: the baselines are written, and the check fails), a figure missing
from the run (with --strict also an improvement or a figure new to the baseline), or a run
that failed;
2 bad input: a scenario error (with file:line), a missing, malformed or mismatched
baseline, an unknown figure name, or a scenario with nothing to check.

Examples:

    sim check quick --baseline-dir scenarios/baselines
    sim check quick dual-stack --baseline-dir scenarios/baselines --junit check.xml
    sim check scenarios/quick.yaml --baseline quick.json --tolerance 5%
    sim check quick --baseline-dir scenarios/baselines --tolerance 'writes.*=10%' --floor count=2
    sim check quick --baseline-dir scenarios/baselines --verbose
    sim check quick --baseline-dir scenarios/baselines --update-baseline
    sim check my-cluster.yaml --baseline my-cluster.json --format json --strict`,
	setup: func(fs *flag.FlagSet) func(e *env, args []string) error {
		o := &checkOptions{}
		fs.StringVar(&o.baseline, "baseline", "", "compare with the baseline `FILE` (one scenario only)")
		fs.StringVar(&o.baselineDir, "baseline-dir", "", "compare each scenario with `DIR`/SCENARIO.json (SCENARIO is the file's base name)")
		fs.Var(&o.tolerances, "tolerance", "relative change allowed against a baseline: `PERCENT` for every figure, or PATTERN=PERCENT for the figures or kind PATTERN matches (repeatable; the last match wins) (default 2%)")
		fs.Var(&o.floors, "floor", "absolute change within which a baseline figure never fails: `N` for every figure, or PATTERN=N (repeatable; N in the figure's unit, or with one: 1KB, 50ms)")
		fs.BoolVar(&o.verbose, "verbose", false, "list every checked figure, not only the failures")
		fs.StringVar(&o.junit, "junit", "", "also write JUnit XML to `FILE`")
		fs.BoolVar(&o.update, "update-baseline", false, "write the baselines from this run instead of comparing with them (budgets are still checked)")
		fs.BoolVar(&o.strict, "strict", false, "fail on improvements and on figures new to the baseline too")
		formatFlag(fs, &o.format, "stdout `format`: table or json")
		fs.Var(&o.sets, "set", "override a scenario field, `path=value` (repeatable), for every scenario")
		seedFlag(fs, &o.seed, "override the scenarios' seeds with `N`, 0..2^63-1")
		fs.BoolVar(&o.quiet, "quiet", false, "no progress on stderr (bar or lines)")
		fs.IntVar(&o.jobs, "jobs", 0, "scenarios run side by side (`N`, default: the number of cores)")
		o.profiles.addFlags(fs, "check", "the scenarios")
		return func(e *env, args []string) error {
			fs.Visit(func(f *flag.Flag) {
				if f.Name == "seed" {
					o.seedSet = true
				}
			})
			return o.run(e, args)
		}
	},
}

// checkOptions are the parsed flags of 'sim check'.
type checkOptions struct {
	baseline, baselineDir, junit, format    string
	update, strict, quiet, seedSet, verbose bool
	seed                                    uint64
	sets, tolerances, floors                stringList
	// jobs is --jobs: the scenarios run side by side (0: one per core).
	jobs int
	// profiles are --cpuprofile and --memprofile.
	profiles commandProfiles
}

// checkScenario is what check needs from a loaded scenario.
type checkScenario struct {
	loadedScenario
	// Budgets are the scenario's expect: budgets.
	Budgets []reports.BudgetSpec
}

// loadCheckScenario loads a scenario with its budgets (the real loader; tests inject
// their own through env.loadCheck).
func loadCheckScenario(nameOrPath string, sets []string) (*checkScenario, error) {
	sc, cfg, err := scenarios.Load(nameOrPath, sets)
	if err != nil {
		return nil, err
	}
	return &checkScenario{loadedScenario: loadedScenario{File: sc.File, Config: cfg, Scenario: sc}, Budgets: budgetSpecs(sc.File, sc.Expect)}, nil
}

// budgetSpecs converts the loader's budgets to the comparison's.
func budgetSpecs(file string, expect scenarios.Expect) []reports.BudgetSpec {
	specs := make([]reports.BudgetSpec, 0, len(expect))
	for _, b := range expect {
		s := reports.BudgetSpec{Figure: b.Name(), Where: file}
		if b.Line > 0 {
			s.Where = fmt.Sprintf("%s:%d:%d", file, b.Line, b.Column)
		} else {
			s.Where = file + " (--set)"
		}
		if b.Max != nil {
			v := b.Max.Value()
			s.Max, s.MaxText = &v, b.Max.Text
		}
		if b.Min != nil {
			v := b.Min.Value()
			s.Min, s.MinText = &v, b.Min.Text
		}
		specs = append(specs, s)
	}
	return specs
}

// parseTolerance reads one percentage: with or without the % sign.
func parseTolerance(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || v < 0 || v > 1000 || v != v {
		return 0, fmt.Errorf("--tolerance %q: want a percentage from 0%% to 1000%%, like 2%%", s)
	}
	return v / 100, nil
}

// parseFloor reads one absolute change: a plain number (in the figure's unit), bytes with
// a unit (1KB, 1.5MiB), a rate (10MB/s, 100Mbit: bytes per second) or a duration (50ms),
// in bytes, bytes per second or seconds.
func parseFloor(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseFloat(s, 64); err == nil && v >= 0 && v == v && v < 1e300 {
		return v, nil
	}
	if b, err := scenarios.ParseBytes(s); err == nil && b >= 0 {
		return float64(b), nil
	}
	if d, err := scenarios.ParseDuration(s); err == nil && d >= 0 {
		return d.Seconds(), nil
	}
	if bits, err := scenarios.ParseBandwidth(s); err == nil && s != "unlimited" {
		return bits / 8, nil // a rate, for peakEgressBytesPerSec: bytes per second
	}
	return 0, fmt.Errorf("--floor %q: want a number of at least 0, bytes (1KB), a rate (10MB/s, 100Mbit) or a duration (50ms)", s)
}

// parseRules reads repeated --tolerance or --floor values: a plain value sets the default,
// PATTERN=VALUE adds a rule. The default is def when no plain value is given.
func parseRules(flagName string, values []string, def float64, parse func(string) (float64, error)) (float64, []reports.FigureRule, error) {
	var rules []reports.FigureRule
	var errs []error
	for _, v := range values {
		pattern, value, ok := strings.Cut(v, "=")
		if !ok {
			d, err := parse(v)
			if err != nil {
				errs = append(errs, err)
			}
			def = d
			continue
		}
		pattern = strings.TrimSpace(pattern)
		if err := reports.CheckFigurePattern(pattern); err != nil {
			errs = append(errs, fmt.Errorf("%s %q: %w", flagName, v, err))
			continue
		}
		d, err := parse(value)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rules = append(rules, reports.FigureRule{Pattern: pattern, Value: d})
	}
	return def, rules, errors.Join(errs...)
}

// baselineName is the base name a scenario's baseline is filed under: the scenario file's
// name without .yaml (an embedded scenario's name).
func baselineName(nameOrPath string) string {
	base := filepath.Base(nameOrPath)
	for _, ext := range []string{".yaml", ".yml"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

// checkJob is one scenario to check.
type checkJob struct {
	arg          string
	sc           *checkScenario
	baselinePath string
	baseline     *reports.Baseline
	// gates are the existing baseline's gates, kept by --update-baseline.
	gates []string
}

func (o *checkOptions) run(e *env, args []string) (err error) {
	if len(args) == 0 {
		return usageErrorf("check", "check takes at least one scenario (a file or an embedded name)")
	}
	if o.baseline != "" && o.baselineDir != "" {
		return usageErrorf("check", "--baseline and --baseline-dir exclude each other")
	}
	if o.baseline != "" && len(args) > 1 {
		return usageErrorf("check", "--baseline FILE takes one scenario, got %d (use --baseline-dir for several)", len(args))
	}
	if o.update && o.baseline == "" && o.baselineDir == "" {
		return usageErrorf("check", "--update-baseline needs --baseline FILE or --baseline-dir DIR")
	}
	if o.jobs < 0 {
		return usageErrorf("check", "--jobs %d: want 1 or more (0 = all cores)", o.jobs)
	}
	if err := o.profiles.check(""); err != nil {
		return err
	}
	if err := checkFormat("check", o.format); err != nil {
		return err
	}
	tolerance, tolRules, err := parseRules("--tolerance", o.tolerances, 0.02, parseTolerance)
	if err != nil {
		return usageErrorf("check", "%v", err)
	}
	floor, floorRules, err := parseRules("--floor", o.floors, 0, parseFloor)
	if err != nil {
		return usageErrorf("check", "%v", err)
	}

	// Everything that can be wrong with the input is found before anything runs, and all of
	// it is reported at once.
	var jobs []*checkJob
	var problems []error
	for _, arg := range args {
		job, err := o.prepare(e, arg)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		jobs = append(jobs, job)
	}
	problems = append(problems, o.checkOutputs(jobs)...)
	if len(problems) > 0 {
		return badInput(errors.Join(problems...))
	}
	// A check of one scenario has its run's heap marked for huge pages as sim run's
	// (simulate; several share a heap, which is not marked), here, before a heap profile
	// starts: the marking allocates the range once, which the profile would count.
	if len(jobs) == 1 {
		prepareHeap(scenarios.EstimateMemory(&jobs[0].sc.Config), scenarios.DefaultMaxMemory())
	}
	if err := o.profiles.start(); err != nil {
		return err
	}
	defer func() { err = o.profiles.stop(err) }()

	opt := reports.CheckOptions{Tolerance: tolerance, Tolerances: tolRules, Floor: floor, Floors: floorRules, Strict: o.strict}
	report := &reports.CheckReport{TolerancePercent: tolerance * 100, Strict: o.strict}
	for _, r := range tolRules {
		report.Rules = append(report.Rules, fmt.Sprintf("%s=%s", r.Pattern, strconv.FormatFloat(r.Value*100, 'f', -1, 64)+"%"))
	}
	if floor > 0 {
		report.Rules = append(report.Rules, "floor "+strconv.FormatFloat(floor, 'f', -1, 64))
	}
	for _, r := range floorRules {
		report.Rules = append(report.Rules, fmt.Sprintf("floor %s=%s", r.Pattern, strconv.FormatFloat(r.Value, 'f', -1, 64)))
	}
	var newBaselines []*reports.Baseline
	runs := o.runScenarios(e, jobs)
	if err := o.profiles.writeHeap(); err != nil {
		return err
	}
	for i, job := range jobs {
		cfg := job.sc.Config
		res, err := runs[i].res, runs[i].err
		if err != nil {
			return fmt.Errorf("check %s: %w", job.sc.File, err)
		}
		summary := reports.NewSummary(res, configModes(cfg))
		rows := reports.CheckBudgets(summary, job.sc.Budgets)
		sc := reports.ScenarioCheck{Scenario: summary.Scenario, File: job.sc.File, Seed: summary.Seed, Baseline: job.baselinePath}
		var settings []scenarios.Setting
		if o.update || job.baseline != nil && job.baseline.Settings != nil {
			if settings, err = checkSettings(job.sc, cfg); err != nil {
				return fmt.Errorf("check %s: %w", job.sc.File, err)
			}
		}
		switch {
		case o.update:
			sc.BaselineWritten = true
			nb := reports.NewBaseline(summary)
			nb.Gates = job.gates
			if settings != nil {
				nb.Settings = map[string]string{}
				for _, s := range settings {
					nb.Settings[s.Path] = s.Value
				}
			}
			newBaselines = append(newBaselines, nb)
		case job.baseline != nil:
			rows = append(rows, reports.CompareBaseline(summary, job.baseline, opt)...)
			if job.baseline.Settings != nil && settings != nil {
				sc.Inputs = inputChanges(baselineSettings(job.baseline.Settings, settings), settings)
			}
		}
		reports.SortCheckRows(rows)
		sc.Rows = rows
		report.Scenarios = append(report.Scenarios, sc)
	}

	if o.update {
		for i, job := range jobs {
			changed, err := writeBaseline(job.baselinePath, newBaselines[i])
			if err != nil {
				return err
			}
			state := "unchanged"
			if changed {
				state = "written"
			}
			fmt.Fprintf(e.stderr, "sim: baseline %s %s (%s)\n", job.baselinePath, state, plural(len(newBaselines[i].Figures), "figure"))
		}
	}
	if o.junit != "" {
		if err := os.MkdirAll(filepath.Dir(o.junit), 0o755); err != nil {
			return fmt.Errorf("--junit %s: %w", o.junit, plainPathError(err))
		}
		if err := writeFileAtomic(o.junit, func(w io.Writer) error { return reports.WriteCheckJUnit(w, report) }); err != nil {
			return fmt.Errorf("--junit %s: %w", o.junit, err)
		}
	}
	if o.format == "json" {
		err = reports.WriteCheckJSON(e.stdout, report)
	} else {
		err = reports.WriteCheckTable(e.stdout, report, o.verbose)
	}
	if err != nil {
		return err
	}
	if c := report.Counts(); c.Failed > 0 {
		err := fmt.Errorf("check failed: %d of %d figures out of bounds (%s)", c.Failed, c.Figures, c)
		if o.update {
			err = fmt.Errorf("%w; the baselines now hold this run's figures, as asked, but budgets still apply", err)
		} else {
			// Say what to do next, by what failed: a baseline's figures are accepted anew
			// with --update-baseline; a budget is changed where it is written.
			if c.Failed > c.Broken {
				err = fmt.Errorf("%w; if the change is meant, accept it with --update-baseline (the same command), or allow it with --tolerance or --floor", err)
				if changed := inputsChanged(report); changed != "" {
					err = fmt.Errorf("%w; %s", err, changed)
				}
			}
			if c.Broken > 0 {
				err = fmt.Errorf("%w; a budget is a bound in the scenario's expect: section or a --set expect.… (SOURCE says which): change it there if the new figure is meant", err)
			}
		}
		return &exitError{code: exitFailed, err: err}
	}
	return nil
}

// checkRun is what one scenario's run gave: its results, or the error or panic that stopped
// it.
type checkRun struct {
	res      *sim.Results
	err      error
	panicked any
}

// runScenarios runs the jobs' scenarios and returns what each gave, in the jobs' order: on
// --jobs workers side by side (as many as fit in guards.maxMemory's default together, by
// their estimates), the largest first, so that the longest run does not start last; or one
// after the other, with each run's own progress, up to the first that fails.
func (o *checkOptions) runScenarios(e *env, jobs []*checkJob) []checkRun {
	estimates := make([]int64, len(jobs))
	for i, job := range jobs {
		estimates[i] = scenarios.EstimateMemory(&job.sc.Config)
	}
	workers := workersFor(o.jobs, estimates, scenarios.DefaultMaxMemory())
	runs := make([]checkRun, len(jobs))
	if workers == 1 {
		for i, job := range jobs {
			// sharedHeap: run marked the heap of a lone scenario's run (see there).
			ro := &runOptions{quiet: o.quiet, sharedHeap: true, profiles: &o.profiles}
			runs[i].res, runs[i].err = ro.simulate(e, job.sc.Config, nil)
			if runs[i].err != nil {
				break
			}
		}
		return runs
	}
	defer sharedGC(workers, o.profiles.floored())()
	progress := newCountProgress(e, o.quiet, "check", "scenarios", len(jobs))
	defer progress.finish()
	sideBySide(workers, largestFirst(estimates), func(i int) {
		defer func() {
			if p := recover(); p != nil {
				runs[i].panicked = p
			}
		}()
		ro := &runOptions{quiet: true, sharedHeap: true, sharedGC: true, profiles: &o.profiles}
		runs[i].res, runs[i].err = ro.simulate(e, jobs[i].sc.Config, nil)
	}, progress.done)
	// A crash in a run is raised again here, once every run is done, where the command's
	// crash is caught (env.main): on a worker's goroutine it would end the process unreported.
	for _, r := range runs {
		if r.panicked != nil {
			panic(r.panicked)
		}
	}
	return runs
}

// largestFirst returns the indexes of estimates from the largest estimate to the smallest,
// those of equal ones in their order: runs side by side are started in that order, so that
// the longest (the largest, most often) does not start when the others are done.
func largestFirst(estimates []int64) []int {
	order := indexes(len(estimates))
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(estimates[b], estimates[a]) })
	return order
}

// checkOutputs finds, before anything runs, what would stop check writing its files at the
// end: two scenarios whose baselines are one file (--baseline-dir files them by base name),
// and a --junit or baseline path that cannot be a file (see checkOutputPath).
func (o *checkOptions) checkOutputs(jobs []*checkJob) []error {
	var problems []error
	byPath := map[string]*checkJob{}
	for _, job := range jobs {
		if job.baselinePath == "" {
			continue
		}
		key := filepath.Clean(job.baselinePath)
		if prev, ok := byPath[key]; ok && prev.sc.File != job.sc.File {
			problems = append(problems, fmt.Errorf("%s and %s share the baseline %s (baselines are filed by the scenario's base name); check them in separate runs with separate --baseline-dir",
				prev.sc.File, job.sc.File, job.baselinePath))
			continue
		}
		byPath[key] = job
		if o.update {
			if err := checkOutputPath(job.baselinePath); err != nil {
				problems = append(problems, fmt.Errorf("baseline %s: %w", job.baselinePath, err))
			} else if sc := scenarioAt(jobs, job.baselinePath); sc != "" {
				problems = append(problems, fmt.Errorf("baseline %s: is the scenario %s; writing the baseline would destroy it", job.baselinePath, sc))
			} else if err := baselineOutput.replaceable(job.baselinePath); err != nil {
				problems = append(problems, fmt.Errorf("baseline %s: %w", job.baselinePath, err))
			}
		}
	}
	if o.junit != "" {
		if err := checkOutputPath(o.junit); err != nil {
			problems = append(problems, fmt.Errorf("--junit %s: %w", o.junit, err))
		} else if sc := scenarioAt(jobs, o.junit); sc != "" {
			problems = append(problems, fmt.Errorf("--junit %s: is the scenario %s; writing the report would destroy it", o.junit, sc))
		} else if i := slices.IndexFunc(jobs, func(job *checkJob) bool { return job.baselinePath != "" && samePath(job.baselinePath, o.junit) }); i >= 0 {
			problems = append(problems, fmt.Errorf("--junit %s: is the baseline of %s; writing the report would destroy it", o.junit, jobs[i].sc.File))
		} else if err := junitOutput.replaceable(o.junit); err != nil {
			problems = append(problems, fmt.Errorf("--junit %s: %w", o.junit, err))
		}
	}
	// A profile is written during the runs, the report and baselines after them, over it.
	if f := o.profiles.flagAt(o.junit); f != "" {
		problems = append(problems, fmt.Errorf("%s %s: is the --junit report too; give each a file of its own", f, o.junit))
	}
	for _, job := range jobs {
		if f := o.profiles.flagAt(job.baselinePath); f != "" {
			problems = append(problems, fmt.Errorf("%s %s: is the baseline of %s; give the profile a file of its own", f, job.baselinePath, job.sc.File))
		}
	}
	return problems
}

// scenarioAt returns the file of the scenario among jobs that path is (the same file, by
// whatever name), or "" for none: an output written there would replace the scenario.
func scenarioAt(jobs []*checkJob, path string) string {
	out, err := os.Stat(path)
	if err != nil {
		return ""
	}
	for _, job := range jobs {
		if fi, err := os.Stat(job.sc.File); err == nil && os.SameFile(fi, out) {
			return job.sc.File
		}
	}
	return ""
}

// checkOutputPath fails when path cannot be written as a file: it names a directory (or
// ends in /), is not a regular file, or the nearest directory on its path that exists is
// not writable (missing directories are created when the file is written).
func checkOutputPath(path string) error {
	if strings.HasSuffix(path, "/") {
		return errors.New("names a directory, not a file")
	}
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return errors.New("is a directory, not a file")
		}
		if !st.Mode().IsRegular() {
			return errors.New("exists and is not a regular file")
		}
	} else if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return plainPathError(err)
	}
	dir := filepath.Dir(path)
	for {
		st, err := os.Stat(dir)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("%s is not a directory", dir)
			}
			if writable(dir) != nil {
				return fmt.Errorf("directory %s is not writable", dir)
			}
			return nil
		}
		if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return plainPathError(err)
		}
		up := filepath.Dir(dir)
		if up == dir {
			return nil
		}
		dir = up
	}
}

// prepare loads one scenario and its baseline and makes sure there is something to check.
func (o *checkOptions) prepare(e *env, arg string) (*checkJob, error) {
	var sc *checkScenario
	if e.loadCheck != nil {
		s, err := e.loadCheck(arg, o.sets)
		if err != nil {
			return nil, err
		}
		sc = s
	} else {
		// An env without a budget-aware loader (a test's) checks baselines only.
		s, err := e.load(arg, o.sets)
		if err != nil {
			return nil, err
		}
		sc = &checkScenario{loadedScenario: *s}
	}
	if o.seedSet {
		sc.Config.Seed = o.seed
	}
	// A scenario that names no modes runs both, as in 'sim run'.
	if !sc.Config.RunEndpoints && !sc.Config.RunEndpointSlices {
		sc.Config.RunEndpoints, sc.Config.RunEndpointSlices = true, true
	}
	job := &checkJob{arg: arg, sc: sc}
	switch {
	case o.baseline != "":
		job.baselinePath = o.baseline
	case o.baselineDir != "":
		job.baselinePath = filepath.Join(o.baselineDir, baselineName(arg)+".json")
	}
	if job.baselinePath == "" {
		if len(sc.Budgets) == 0 {
			return nil, fmt.Errorf("%s: nothing to check: the scenario has no expect: budgets and no --baseline or --baseline-dir was given", sc.File)
		}
		return job, nil
	}
	if o.update {
		// Keep the gates a baseline names; a missing or unreadable one is simply rewritten.
		if old, err := readBaseline(job.baselinePath); err == nil {
			job.gates = old.Gates
		}
		return job, nil
	}
	base, err := readBaseline(job.baselinePath)
	if err != nil {
		return nil, err
	}
	if base.Scenario != sc.Config.Name || base.Seed != sc.Config.Seed {
		return nil, fmt.Errorf("baseline %s was written for scenario %q seed %d, but %s is scenario %q seed %d; pass the right baseline, or rewrite it with --update-baseline",
			job.baselinePath, base.Scenario, base.Seed, sc.File, sc.Config.Name, sc.Config.Seed)
	}
	job.baseline = base
	return job, nil
}

// readBaseline reads and validates a baseline file.
func readBaseline(path string) (*reports.Baseline, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("baseline %s does not exist; create it with --update-baseline", path)
	}
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", path, plainPathError(err))
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		// "baseline x: read x: is a directory" named the path twice.
		return nil, fmt.Errorf("baseline %s: %w", path, plainPathError(err))
	}
	// A byte-order mark some editors write is no part of the JSON.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if err := scanBaselineJSON(data); err != nil {
		return nil, fmt.Errorf("baseline %s: %w", path, indentJoined(err))
	}
	base, err := reports.ReadBaselineJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", path, indentJoined(err))
	}
	return base, nil
}

// indentJoined puts each problem of a joined error on its own indented line.
func indentJoined(err error) error {
	msg := err.Error()
	if !strings.Contains(msg, "\n") {
		return err
	}
	return fmt.Errorf("\n  %s", strings.ReplaceAll(msg, "\n", "\n  "))
}

// writeBaseline writes b to path (creating its directory) atomically, unless the file
// already holds exactly these bytes. It reports whether the file changed.
func writeBaseline(path string, b *reports.Baseline) (bool, error) {
	var buf bytes.Buffer
	if err := reports.WriteBaselineJSON(&buf, b); err != nil {
		return false, err
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, buf.Bytes()) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, fmt.Errorf("baseline: %w", err)
	}
	if err := writeFileAtomic(path, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return false, fmt.Errorf("baseline %s: %w", path, err)
	}
	return true, nil
}

// checkSettings are the settings of a check's scenario as it runs (cfg, after --seed), or
// nil without a loaded scenario (tests' fake loaders).
func checkSettings(sc *checkScenario, cfg sim.Config) ([]scenarios.Setting, error) {
	if sc.Scenario == nil {
		return nil, nil
	}
	text, err := effectiveScenario(&sc.loadedScenario, cfg)
	if err != nil {
		return nil, err
	}
	return scenarios.Settings(text)
}

// baselineSettings orders a baseline's settings as the run's (current): those the run has
// in its order, then the baseline's others by path, so that a comparison lists changes in
// the order of the scenario file.
func baselineSettings(base map[string]string, current []scenarios.Setting) []scenarios.Setting {
	out := make([]scenarios.Setting, 0, len(base))
	seen := make(map[string]bool, len(current))
	for _, s := range current {
		seen[s.Path] = true
		if v, ok := base[s.Path]; ok {
			out = append(out, scenarios.Setting{Path: s.Path, Value: v})
		}
	}
	rest := make([]string, 0)
	for p := range base {
		if !seen[p] {
			rest = append(rest, p)
		}
	}
	slices.Sort(rest)
	for _, p := range rest {
		out = append(out, scenarios.Setting{Path: p, Value: base[p]})
	}
	return out
}

// inputsChanged says which checked scenarios' inputs differ from their baselines' (their
// settings are listed above the figures), or "".
func inputsChanged(r *reports.CheckReport) string {
	var names []string
	for _, sc := range r.Scenarios {
		if len(sc.Inputs) > 0 {
			names = append(names, fmt.Sprintf("%s (%s)", sc.Scenario, plural(len(sc.Inputs), "setting")))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "the inputs of " + strings.Join(names, ", ") + " differ from the baseline's, as listed: a baseline holds the figures of the inputs it was written with"
}
