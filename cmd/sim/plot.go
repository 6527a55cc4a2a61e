package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"epsim/reports"
	"epsim/sim"
)

var cmdPlot = &command{
	name:  "plot",
	usage: "plot DIR",
	short: "redraw the charts of a run from its --out directory",
	long: `Plot redraws the charts of an earlier 'sim run --out DIR' from DIR/summary.json,
DIR/timeseries.csv and, when present, DIR/layout.csv, without running the simulation
again. The charts are written into DIR, or into --out. As with 'sim run', the files are
written atomically: on any error none is replaced. The directory written is replaced as a
whole, so it may not be the working directory or contain it: 'sim plot .' is refused.
Nor may --out hold another run's results (a summary.json that is not DIR's): its
report.md would show these charts under that run's figures.
On success plot says on stderr which charts it wrote, and into which directory. Without
layout.csv there is no slice-layout chart to draw: one already in the directory is left
as it was, and plot says so.

Examples:

    sim plot results/5000-nodes
    sim plot results/5000-nodes --out /tmp/charts`,
	setup: func(fs *flag.FlagSet) func(e *env, args []string) error {
		var out string
		fs.StringVar(&out, "out", "", "write the charts into `DIR` instead of the input directory")
		return func(e *env, args []string) error {
			if len(args) != 1 {
				return usageErrorf("plot", "plot takes exactly one directory, got %d", len(args))
			}
			if out == "" {
				out = args[0]
			}
			return plotDir(e, args[0], out)
		}
	},
}

// plotDir reads a run's outputs from in and writes its charts into out, then says on
// stderr which files it wrote, as 'sim check' says which baseline it wrote: a command that
// succeeds in silence leaves the user to guess where its output went.
func plotDir(e *env, in, out string) error {
	summary, series, layout, err := readRunDir(in)
	if err != nil {
		return badInput(err)
	}
	if err := otherRunsResults(in, out); err != nil {
		return badInput(err)
	}
	o, err := openOutputDir(out, false, nil)
	if err != nil {
		return err
	}
	charts, _, err := writeCharts(o, summary, series, layout)
	if err != nil {
		o.abort()
		return fmt.Errorf("plot %s: %w (nothing in %s was changed)", in, err, out)
	}
	if err := o.commit(); err != nil {
		return err
	}
	names := make([]string, len(charts))
	for i, c := range charts {
		names[i] = c.Name
	}
	fmt.Fprintf(e.stderr, "sim: plot: wrote %s (%s each) into %s: %s\n",
		plural(len(charts), "chart"), strings.Join(reports.ChartFormats, " and "), out, strings.Join(names, ", "))
	if layout == nil && summary.Total.EndpointSlices != nil {
		// Plot replaces only what it draws: a slice-layout chart already in out was not
		// drawn from these files, and could be taken for one that was.
		for _, format := range reports.ChartFormats {
			if _, err := os.Lstat(filepath.Join(out, reports.SliceLayoutName+"."+format)); err == nil {
				fmt.Fprintf(e.stderr, "sim: plot: no layout.csv in %s, so %s.* in %s were not redrawn: they are as an earlier run or plot left them\n",
					in, reports.SliceLayoutName, out)
				break
			}
		}
	}
	return nil
}

// otherRunsResults says why plotting the run in into out would leave out's outputs
// disagreeing with each other: out holds the summary.json of another run (one whose bytes
// differ from in's), and its report.md would show these charts under that run's captions.
// A directory without a summary.json, or with a copy of in's, is fine.
func otherRunsResults(in, out string) error {
	if samePath(in, out) {
		return nil
	}
	theirs, err := os.ReadFile(filepath.Join(out, "summary.json"))
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return nil
	case err != nil:
		return fmt.Errorf("%s: %w", filepath.Join(out, "summary.json"), plainPathError(err))
	}
	ours, err := os.ReadFile(filepath.Join(in, "summary.json"))
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(in, "summary.json"), plainPathError(err))
	}
	if bytes.Equal(ours, theirs) {
		return nil
	}
	return fmt.Errorf("plot %s: --out %s holds the results of another run (its summary.json "+
		"is not %s's), whose report.md would show these charts under its own figures; plot into "+
		"%s itself, or --out a directory without a run's results (nothing was changed)", in, out, in, in)
}

// openRunFile opens the file name of the --out directory dir of a run. Its error names the
// path once (not "open DIR/summary.json: …") and, when dir is not a directory or lacks the
// file, says what was expected.
func openRunFile(dir, name string) (*os.File, error) {
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", dir, plainPathError(err))
	case !st.IsDir():
		return nil, fmt.Errorf("%s: not a directory (want the --out directory of a 'sim run')", dir)
	}
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, perr := os.Stat(filepath.Join(dir, "plan.json")); perr == nil {
			return nil, fmt.Errorf("%s: holds a 'sim plan' (plan.json), not a run: no %s in it (want the --out directory of a 'sim run')", dir, name)
		}
		return nil, fmt.Errorf("%s: no %s in it (want the --out directory of a 'sim run')", dir, name)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, plainPathError(err))
	}
	return f, nil
}

// readRunDir reads summary.json, timeseries.csv and the optional layout.csv of a run.
func readRunDir(dir string) (*reports.Summary, []sim.Bucket, []sim.LayoutSample, error) {
	f, err := openRunFile(dir, "summary.json")
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	summary, err := reports.ReadSummaryJSON(f)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	g, err := openRunFile(dir, "timeseries.csv")
	if err != nil {
		return nil, nil, nil, err
	}
	defer g.Close()
	series, err := reports.ReadTimeseriesCSV(g)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", g.Name(), err)
	}
	var layout []sim.LayoutSample
	h, err := os.Open(filepath.Join(dir, "layout.csv"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, nil, nil, fmt.Errorf("%s: %w", filepath.Join(dir, "layout.csv"), plainPathError(err))
	default:
		defer h.Close()
		if layout, err = reports.ReadLayoutCSV(h); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", h.Name(), err)
		}
	}
	return summary, series, layout, nil
}
