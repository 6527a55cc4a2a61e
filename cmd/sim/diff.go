package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"epsim/reports"
	"epsim/scenarios"
)

var cmdDiff = &command{
	name:  "diff",
	usage: "diff A B",
	short: "compare two runs figure by figure",
	long: `Diff compares two runs: A and B are 'sim run --out' directories or summary.json files.
Every figure of every phase and of the total, per mode (endpoints, endpointslices) and
ratio, is compared by name (<phase|total>.<mode>.<figure>, as in 'sim check'); phases are
matched by name. The table lists the figures that changed, largest relative change first
— figures only one run has, and figures that moved from 0, come first — then one line
with the outcome. --all lists the unchanged figures too. --services adds each Service's
figures (writes, failedWrites, fanoutBytes, maxObjectBytes, propagationP99Seconds, named
service.NAMESPACE/NAME.MODE.FIGURE), matched by namespace and name.

Above the figures, diff lists the settings the runs' inputs differ in (seed,
controlPlane.maxEndpointsPerSlice, services[0].replicas, ...): it compares the
effective-scenario.yaml that 'sim run --out' writes beside each summary.json, every field
with defaults and overrides applied, so that a change of input no one meant shows. Of a
'sim replay --out', what it replayed is compared too, from its replay.json: the settings
replay.pods (the recording's file name), replay.podStream.events and .start (its events
and first moment), replay.services, replay.nodes, replay.timesFrom and replay.start. A run
without an effective scenario (of a sim before it wrote one) is named there, and its
figures are compared all the same.

With --fail-on PERCENT, a figure that moved by more than PERCENT (either way) fails the
diff (exit status 1) and is printed in capitals. A figure only one run has (a mode or a
phase the other did not run) is listed as NEW or GONE and counted apart from the changes;
it could not be compared, so with --fail-on it fails the diff too. --floor N ignores
changes of at most N (in the figure's unit: bytes, seconds or a count; or with a unit, as
in 'sim check': 1KB, 50ms), so that a count going from 2 to 3 is not a +50% failure.

Exit status: 0 no figure past --fail-on; 1 some figure past it; 2 bad input (a missing or
malformed summary.json).

Examples:

    sim run quick --out /tmp/a --quiet
    sim run quick --out /tmp/b --quiet --set controlPlane.maxEndpointsPerSlice=500
    sim diff /tmp/a /tmp/b
    sim diff /tmp/a/summary.json /tmp/b/summary.json --fail-on 5% --floor 10
    sim diff /tmp/a /tmp/b -o json
    sim diff /tmp/a /tmp/b --services`,
	setup: func(fs *flag.FlagSet) func(e *env, args []string) error {
		o := &diffOptions{}
		fs.StringVar(&o.failOn, "fail-on", "", "fail when a figure changes by more than `PERCENT` (like 5%)")
		fs.StringVar(&o.floor, "floor", "", "with --fail-on, ignore absolute changes of at most `N` (in the figure's unit, or with one: 1KB, 50ms)")
		fs.BoolVar(&o.all, "all", false, "list unchanged figures too")
		fs.BoolVar(&o.services, "services", false, "also compare every Service's figures (service.NAMESPACE/NAME.MODE.FIGURE)")
		formatFlag(fs, &o.format, "")
		return func(e *env, args []string) error { return o.run(e, args) }
	},
}

// diffOptions are the parsed flags of 'sim diff'.
type diffOptions struct {
	failOn, format, floor string
	all, services         bool
}

func (o *diffOptions) run(e *env, args []string) error {
	if len(args) != 2 {
		return usageErrorf("diff", "diff takes two runs (--out directories or summary.json files), got %d", len(args))
	}
	if err := checkFormat("diff", o.format); err != nil {
		return err
	}
	var opt reports.DiffOptions
	if o.failOn != "" {
		v, err := parsePercent("--fail-on", o.failOn)
		if err != nil {
			return usageErrorf("diff", "%v", err)
		}
		opt.FailOn = v
	}
	if o.floor != "" {
		// The same forms as sim check's --floor N (a rule per figure is check's alone).
		v, err := parseFloor(o.floor)
		if err != nil {
			return usageErrorf("diff", "%v", err)
		}
		opt.Floor = v
	}
	opt.Services = o.services
	a, err := readSummaryArg(args[0])
	if err != nil {
		return badInput(err)
	}
	b, err := readSummaryArg(args[1])
	if err != nil {
		return badInput(err)
	}
	r := reports.DiffSummaries(a, b, args[0], args[1], opt)
	r.Inputs = diffInputs(args[0], args[1])
	if o.format == "json" {
		err = reports.WriteDiffJSON(e.stdout, r)
	} else {
		err = reports.WriteDiffTable(e.stdout, r, o.all)
	}
	if err != nil {
		return err
	}
	if c := r.Counts(); c.Failed > 0 {
		return &exitError{code: exitFailed, err: fmt.Errorf("diff failed: %s", failedText(c, strings.TrimSpace(o.failOn)))}
	}
	return nil
}

// failedText says why a diff failed: the compared figures past the threshold (failOn), and
// those only one run has, which could not be compared.
func failedText(c reports.DiffCounts, failOn string) string {
	var parts []string
	if c.Over > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d figures changed by more than %s", c.Over, c.Compared, failOn))
	}
	if apart := c.Failed - c.Over; apart > 0 {
		parts = append(parts, fmt.Sprintf("%s only in one run (a mode or phase the other did not run), so not compared", counted(int64(apart), "figure is", "figures are")))
	}
	return strings.Join(parts, "; ")
}

// readSummaryArg reads the summary.json of a run: path is the file or its --out directory.
func readSummaryArg(path string) (*reports.Summary, error) {
	var f *os.File
	var err error
	if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
		f, err = openRunFile(path, "summary.json")
		path = filepath.Join(path, "summary.json")
	} else if f, err = os.Open(path); err != nil {
		err = fmt.Errorf("%s: %w", path, plainPathError(err))
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := reports.ReadSummaryJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// parsePercent reads a percentage flag, with or without the % sign, as a fraction.
func parsePercent(flagName, s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || v < 0 || v > 1000 || v != v {
		return 0, fmt.Errorf("%s %q: want a percentage from 0%% to 1000%%, like 5%%", flagName, s)
	}
	return v / 100, nil
}

// diffInputs compares the effective scenarios beside the summaries of runs a and b (each
// an --out directory or its summary.json): the settings they differ in. Nil when neither
// run has one (runs of a sim that did not write it); when one has, or a file
// cannot be read, the figures are still compared and the report says why the inputs were
// not.
func diffInputs(a, b string) *reports.DiffInputs {
	in := &reports.DiffInputs{File: effectiveScenarioFile, Changes: []reports.InputChange{}}
	var settings [2][]scenarios.Setting
	var missing []string
	for i, run := range []string{a, b} {
		name := "AB"[i:i+1] + " " + run
		dir := run
		if fi, err := os.Stat(run); err != nil || !fi.IsDir() {
			// A summary.json is read with the effective scenario beside it; a summary
			// under another name was taken out of its run's directory, whose files
			// those beside it need not be.
			if filepath.Base(run) != "summary.json" {
				missing = append(missing, fmt.Sprintf("%s is a summary apart from its run's %s", name, effectiveScenarioFile))
				continue
			}
			dir = filepath.Dir(run)
		}
		path := filepath.Join(dir, effectiveScenarioFile)
		data, err := readBounded(path, scenarios.MaxFileBytes, "an effective scenario")
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing = append(missing, fmt.Sprintf("%s has no %s (a run of a sim before it was written)", name, effectiveScenarioFile))
			continue
		case err == nil:
			settings[i], err = scenarios.Settings(data)
		}
		if err != nil {
			in.NotCompared = fmt.Sprintf("%s: %v", path, plainPathError(err))
			return in
		}
		recording, err := recordingSettings(dir)
		if err != nil {
			in.NotCompared = err.Error()
			return in
		}
		if recording != nil {
			in.Replay = replayReportFile
			settings[i] = append(settings[i], recording...)
		}
	}
	switch len(missing) {
	case 2:
		return nil
	case 1:
		in.NotCompared = missing[0]
		return in
	}
	in.Changes = append(in.Changes, inputChanges(settings[0], settings[1])...)
	return in
}

// replayReportFile is the report a replay writes beside its results (ReplayReport).
const replayReportFile = "replay.json"

// maxReplayReportBytes bounds the replay report diff reads: a few hundred bytes, and with
// --endpointslices' comparison about 360 more a Service (a row each): 18 MB for 50,000
// Services. The bound holds some 700,000.
const maxReplayReportBytes = 256 << 20

// recordingSettings lists what the replay whose results are in dir replayed, from its
// replay.json, as settings named after its fields under "replay.": the recording (its file
// name, events and first moment), the Services and nodes read, where event times came from
// and --start. A replay's effective scenario holds its settings alone: two replays of two
// recordings at the same settings would otherwise be "the same". Nil when dir holds no
// replay.json (a run of a scenario, or a replay of a sim before it was written).
func recordingSettings(dir string) ([]scenarios.Setting, error) {
	path := filepath.Join(dir, replayReportFile)
	data, err := readBounded(path, maxReplayReportBytes, "a replay's report")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var r ReplayReport
	if err == nil {
		err = json.Unmarshal(data, &r)
	}
	if err == nil && r.Stream == nil {
		err = errors.New("no podStream in it: not the replay.json of a 'sim replay --out'")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, plainPathError(err))
	}
	return []scenarios.Setting{
		{Path: "replay.pods", Value: r.Pods},
		{Path: "replay.podStream.events", Value: strconv.FormatInt(r.Stream.Events, 10)},
		{Path: "replay.podStream.start", Value: r.Stream.Start.Format(time.RFC3339Nano)},
		{Path: "replay.services", Value: strconv.Itoa(r.Services)},
		{Path: "replay.nodes", Value: strconv.Itoa(r.Nodes)},
		{Path: "replay.timesFrom", Value: r.TimesFrom},
		{Path: "replay.start", Value: r.Start},
	}, nil
}

// inputChanges lists the settings a and b differ in, as the reports show them.
func inputChanges(a, b []scenarios.Setting) []reports.InputChange {
	var out []reports.InputChange
	for _, c := range scenarios.CompareSettings(a, b) {
		out = append(out, reports.InputChange{Setting: c.Path, A: c.A, B: c.B})
	}
	return out
}

// readBounded reads the regular file at path (a named pipe would block the read), failing
// when it holds more than limit bytes, too large to be what (the file diff expects there).
func readBounded(path string, limit int, what string) ([]byte, error) {
	tooLarge := fmt.Errorf("larger than %d bytes, not %s", limit, what)
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	} else if st.Size() > int64(limit) {
		return nil, tooLarge
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > limit { // it grew since
		return nil, tooLarge
	}
	return data, nil
}
