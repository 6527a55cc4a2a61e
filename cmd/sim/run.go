package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"

	"epsim/internal/gcfloor"
	"epsim/internal/hugeheap"
	"epsim/reports"
	"epsim/scenarios"
	"epsim/sim"
)

var cmdRun = &command{
	name:  "run",
	usage: "run SCENARIO",
	short: "run a scenario and compare Endpoints with EndpointSlices",
	long: `Run simulates SCENARIO — a YAML file, or the name of a scenario built into sim (see
'sim scenarios') — with both control planes on the same pod timeline, and prints a
side-by-side table per phase and in total: committed API writes by verb (no-op updates the
API server dropped are not among them), failed writes, etcd bytes, watch events, bytes
fanned out to watchers, bytes per node, the largest object, peak API server egress and
propagation latency, with the ratio Endpoints / EndpointSlices.

The same scenario and seed always give the same output, byte for byte. --out DIR also writes
summary.json (the stable machine interface), timeseries.csv (1 s buckets), writes.jsonl (one
line per API write, written as the run goes rather than held in memory: about 300 bytes a
write, 650 MB for a day of cluster-day, which --write-log=false leaves out), layout.csv
(EndpointSlice layout samples), charts (PNG and SVG), the run's report, report.md and
report.html (self-contained, charts embedded): the headline, the phase table, the charts,
the assumptions in force and what to try next, and effective-scenario.yaml, the scenario as
it ran (every default and override applied, as --print-scenario prints it), which repeats
the run and tells 'sim diff' what two runs' inputs differ in. DIR is checked and locked
before the run and replaced as a whole after it (so it may not be the working directory or
contain it): on any error or signal (a full disk stops the run at once) nothing in DIR is
changed; outputs of an earlier run this one does not produce go, other files stay. An
empty --out is an error.
'sim diff' compares two such directories.

Progress goes to stderr (never with --quiet): a bar when stderr is a terminal; otherwise
(CI, a pipe) a plain line at most every 10 s of wall time, so a short run prints none:
"sim: NAME: phase 3/4 rolling-update, virtual 1h52m10s, 10,000 pods, 1m0s elapsed".
With --out, a line on stderr then says which files and charts it wrote into DIR (not
with --quiet): "sim: run: wrote 7 files and 7 charts (png and svg each) into DIR: …".

Examples:

    sim run scenarios/5000-nodes.yaml
    sim run 5000-nodes --out results/5000 --seed 7
    sim run cluster-day --out results/day --write-log=false
    sim run scenarios/5000-nodes.yaml --mode endpointslices --format json
    sim run scenarios/5000-nodes.yaml --set controlPlane.maxEndpointsPerSlice=500
    sim run quick --set cluster.nodes=50 --print-scenario`,
	setup: func(fs *flag.FlagSet) func(e *env, args []string) error {
		o := &runOptions{}
		fs.StringVar(&o.out, "out", "", "also write summary.json, timeseries.csv, writes.jsonl, layout.csv, charts, report.md/.html and effective-scenario.yaml into `DIR`")
		formatFlag(fs, &o.format, "stdout `format`: table, or json (the content of summary.json)")
		seedFlag(fs, &o.seed, "override the scenario's seed with `N`, 0..2^63-1 (default: the scenario's seed)")
		choiceFlag(fs, &o.mode, "mode", "both", "control planes to run (`mode`): both, endpoints or endpointslices", modeChoices...)
		fs.Var(&o.sets, "set", "override a scenario field, `path=value` (repeatable), e.g. cluster.nodes=1000")
		fs.BoolVar(&o.quiet, "quiet", false, "no progress on stderr (bar or lines), nor the line saying what --out wrote")
		fs.BoolVar(&o.charts, "charts", true, "with --out, also draw the charts")
		fs.BoolVar(&o.writeLog, "write-log", true, "with --out, also write writes.jsonl, a line per API write (false: leave it out)")
		fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the run to `FILE`")
		fs.StringVar(&o.memprofile, "memprofile", "", "write a heap profile to `FILE`, taken near the run's largest live heap")
		fs.BoolVar(&o.printScenario, "print-scenario", false, "print the scenario with every default and override applied, as YAML, and do not run it")
		return func(e *env, args []string) error {
			o.set = map[string]bool{}
			fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
			return o.run(e, args)
		}
	},
}

// runOptions are the parsed flags of 'sim run'.
type runOptions struct {
	out, format, mode, cpuprofile string
	memprofile                    string
	seed                          uint64
	// set holds the names of the flags given on the command line.
	set           map[string]bool
	sets          stringList
	quiet, charts bool
	// writeLog: with --out, write writes.jsonl (--write-log, on by default).
	writeLog      bool
	printScenario bool
	// sharedHeap is set where the process runs several simulations (sim check of several
	// scenarios): its heap, reused from run to run, is not marked for huge pages, whose
	// holes would stay resident (sim check of the seven shipped scenarios once peaked at
	// 698 MB of RSS against 357-363), and where the caller has marked it (sim check of one
	// scenario, before its profiles start).
	sharedHeap bool
	// sharedGC is set where the caller set the collector for several runs side by side
	// (sharedGC): the run leaves it alone.
	sharedGC bool
	// profiles are the profiles of the command this run is one of (sim check's), which its
	// progress reports feed; nil where the run is the command.
	profiles *commandProfiles
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// modeChoices are the values of --mode (parseMode).
var modeChoices = []string{"both", string(sim.ModeEndpoints), string(sim.ModeEndpointSlices)}

// parseMode maps --mode to the modes that run.
func parseMode(s string) ([]sim.Mode, error) {
	switch s {
	case "both":
		return []sim.Mode{sim.ModeEndpoints, sim.ModeEndpointSlices}, nil
	case string(sim.ModeEndpoints):
		return []sim.Mode{sim.ModeEndpoints}, nil
	case string(sim.ModeEndpointSlices):
		return []sim.Mode{sim.ModeEndpointSlices}, nil
	}
	return nil, fmt.Errorf("--mode %q: want both, endpoints or endpointslices", s)
}

func (o *runOptions) run(e *env, args []string) error {
	if len(args) != 1 {
		return usageErrorf("run", "run takes exactly one scenario (a file or an embedded name), got %d", len(args))
	}
	modes, err := parseMode(o.mode)
	if err != nil {
		return usageErrorf("run", "%v", err)
	}
	if o.format != "table" && o.format != "json" {
		return usageErrorf("run", "--format %q: want table or json", o.format)
	}
	if o.printScenario && o.format == "json" {
		return usageErrorf("run", "--print-scenario prints the scenario as YAML, not JSON; leave out -o/--format json")
	}
	if err := (&commandProfiles{cmd: "run", cpu: o.cpuprofile, mem: o.memprofile}).check(o.out); err != nil {
		return err
	}
	if o.printScenario {
		for _, f := range []struct{ flag, value string }{{"--out", o.out}, {"--cpuprofile", o.cpuprofile}, {"--memprofile", o.memprofile}} {
			if f.value != "" {
				return usageErrorf("run", "--print-scenario prints the scenario and does not run it, so %s would write nothing; leave out one or the other", f.flag)
			}
		}
	}
	sc, err := e.load(args[0], o.sets)
	if err != nil {
		return badInput(err)
	}
	cfg := sc.Config
	if o.set["seed"] {
		cfg.Seed = o.seed
	}
	seed := cfg.Seed
	e.seed = &seed
	// --mode overrides the scenario's modes; a scenario that names none runs both.
	if o.set["mode"] || !(cfg.RunEndpoints || cfg.RunEndpointSlices) {
		cfg.RunEndpoints = slices.Contains(modes, sim.ModeEndpoints)
		cfg.RunEndpointSlices = slices.Contains(modes, sim.ModeEndpointSlices)
	}
	modes = configModes(cfg)
	if o.printScenario {
		text, err := effectiveScenario(sc, cfg)
		if err != nil {
			return badInput(err)
		}
		_, err = e.stdout.Write(text)
		return err
	}
	var out *outputDir
	var log *writeLog
	if o.out != "" {
		// Fail before a long run, not after it.
		if out, err = openOutputDir(o.out, true, runFiles); err != nil {
			return err
		}
		defer out.abort()
		// The write log goes to writes.jsonl as the run makes it rather than being held to
		// the end: a day of a large cluster makes millions of writes.
		if o.writeLog {
			if log, err = newWriteLog(out); err != nil {
				return fmt.Errorf("--out %s: %w", out.dir, err)
			}
		}
	}

	warnCapacity(e.stderr, "run", cfg)
	res, err := o.simulate(e, cfg, log)
	if log != nil {
		// A write log that could not be written stopped the run: say so, not the run.
		if cerr := log.close(); cerr != nil {
			return fmt.Errorf("--out %s: %w (nothing in it was changed)", out.dir, cerr)
		}
	}
	if err != nil {
		return fmt.Errorf("run %s: %w", sc.File, err)
	}
	summary := reports.NewSummary(res, modes)
	warnPending(e.stderr, summary, cfg.Cluster.MaxPodsPerNode)
	if out != nil {
		report := &reports.RunReport{File: args[0], Config: &cfg}
		for _, set := range o.sets {
			report.Overrides = append(report.Overrides, "--set", set)
		}
		if o.set["seed"] {
			report.Overrides = append(report.Overrides, "--seed", strconv.FormatUint(o.seed, 10))
		}
		var extra []outputFile
		if sc.Scenario != nil { // nil from tests' fake loaders
			command := append([]string{"sim", "run", args[0]}, report.Overrides...)
			if o.set["mode"] {
				command = append(command, "--mode", o.mode)
			}
			effective, err := effectiveScenario(sc, cfg)
			if err != nil {
				return err
			}
			effective = append(effectiveHeader(command), effective...)
			extra = append(extra, outputFile{effectiveScenarioFile, func(w io.Writer) error {
				_, err := w.Write(effective)
				return err
			}})
		}
		written, err := writeOutputs(out, res, summary, outputChoices{charts: o.charts, writeLog: o.writeLog}, report, extra...)
		if err != nil {
			return err
		}
		if !o.quiet {
			written.say(e.stderr, "run", o.out)
		}
	}
	if o.format == "json" {
		return reports.WriteSummaryJSON(e.stdout, summary)
	}
	return reports.WriteTable(e.stdout, summary)
}

// warnCapacity says on w, before cmd runs or passes scenario cfg, when its Services ask for
// more pods than its nodes take (cluster.nodes × cluster.maxPodsPerNode, DaemonSet pods
// included): the rest stay Pending, and the scheduler trying each of them again, through its
// 50 qps client, makes a large excess a long run (400,000 Services of 10 pods on 5,000 nodes
// of 250 ran 100 s into its event budget). Rollouts' surge pods need room besides.
func warnCapacity(w io.Writer, cmd string, cfg sim.Config) {
	_, pods := size(cfg)
	maxPods := cfg.Cluster.MaxPodsPerNode
	if maxPods <= 0 {
		maxPods = sim.DefaultMaxPodsPerNode
	}
	room := int64(cfg.Cluster.Nodes) * int64(maxPods)
	if int64(pods) <= room {
		return
	}
	fmt.Fprintf(w, "sim: %s: warning: the Services ask for %s, the %s take %s (cluster.maxPodsPerNode %d): "+
		"%s of them would stay Pending, which the scheduler tries again and again (a slow run); raise cluster.nodes or cluster.maxPodsPerNode\n",
		cmd, plural(pods, "pod"), plural(cfg.Cluster.Nodes, "node"), thousands(room), maxPods, thousands(int64(pods)-room))
}

// warnPending says on w which phases ended with pods Pending for want of a node, whose
// endpoints no figure counts: a scenario asking more pods of its nodes than their maxPods.
func warnPending(w io.Writer, s *reports.Summary, maxPods int) {
	phases, most := 0, int64(0)
	for i := range s.Phases {
		if n := s.Phases[i].PendingPods; n > 0 {
			phases++
			most = max(most, n)
		}
	}
	if phases == 0 {
		return
	}
	if maxPods <= 0 {
		maxPods = sim.DefaultMaxPodsPerNode
	}
	fmt.Fprintf(w, "sim: run: warning: up to %s Pending at a phase's end (%d of %s), no node ready with room "+
		"(%s, cluster.maxPodsPerNode %d): the figures cover the pods that ran\n",
		counted(most, "pod", "pods"), phases, counted(int64(len(s.Phases)), "phase", "phases"), counted(int64(s.Nodes), "node", "nodes"), maxPods)
}

// configModes returns the modes cfg runs, Endpoints first.
func configModes(cfg sim.Config) []sim.Mode {
	var modes []sim.Mode
	if cfg.RunEndpoints {
		modes = append(modes, sim.ModeEndpoints)
	}
	if cfg.RunEndpointSlices {
		modes = append(modes, sim.ModeEndpointSlices)
	}
	return modes
}

// createProfile creates the file of a profile flag (cpuprofile or memprofile) of command
// cmd: a directory is a usage error, a path that cannot be created bad input. A file that
// holds something else than a profile is bad input too, and left as it is: a mistyped flag
// (--cpuprofile my-cluster.yaml) destroyed the scenario, recording or baseline the command
// was about to read. An earlier profile (pprof's are gzip-compressed), an empty file and a
// device (/dev/null) are written.
func createProfile(cmd, flagName, path string) (*os.File, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, usageErrorf(cmd, "--%s %s: is a directory; give a file name", flagName, path)
	}
	if err := profileOutput.replaceable(path); err != nil {
		return nil, badInput(fmt.Errorf("--%s %s: %w", flagName, path, err))
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, badInput(fmt.Errorf("--%s %s: %w", flagName, path, plainPathError(err)))
	}
	return f, nil
}

// startCPUProfile starts the CPU profile that --cpuprofile of command cmd asks for, into
// path; stop ends it and closes the file.
func startCPUProfile(cmd, path string) (stop func() error, err error) {
	f, err := createProfile(cmd, "cpuprofile", path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		return nil
	}, nil
}

// prepareHeap is hugeheap.Prepare, which the commands that run one simulation call before
// it; tests replace it to see what each command marks.
var prepareHeap = hugeheap.Prepare

// simulate runs cfg with the progress bar and profiles the flags ask for; log, if not nil,
// takes the write log as the run goes.
func (o *runOptions) simulate(e *env, cfg sim.Config, log *writeLog) (res *sim.Results, err error) {
	if !o.sharedHeap {
		// The heap the run will fill is backed by huge pages where the kernel gives them
		// on request (internal/hugeheap): a tenth of many-services' time was its page
		// faults. Before the heap profile starts, which would count the range as an
		// allocation. The estimated peak (scenarios.EstimateMemory), within what the
		// process may use, as the collector's floor is.
		prepareHeap(scenarios.EstimateMemory(&cfg), scenarios.DefaultMaxMemory())
	}
	if o.memprofile != "" {
		// What was allocated before this is not in the profile (the scenario, a few KB).
		if err := startHeapProfile("run", o.memprofile); err != nil {
			return nil, err
		}
	}
	if o.cpuprofile != "" {
		stop, err := startCPUProfile("run", o.cpuprofile)
		if err != nil {
			return nil, err
		}
		defer func() {
			if serr := stop(); serr != nil && err == nil {
				err = serr
			}
		}()
	}
	// The collector's goal stays at gcfloor.Default at least (an eighth of the memory the
	// process may use, at most) while the live heap is small: fewer collections, the same
	// peak (internal/gcfloor). GOGC or GOMEMLIMIT in the environment turn it off, and so
	// does --memprofile: a heap profile is of the last collection, and a run under the
	// floor never collects (5000-nodes' profile held 1 MB of the process's start, none of
	// the run).
	// So does the --memprofile of a command that runs several (profiles).
	if o.memprofile == "" && !o.sharedGC && (o.profiles == nil || o.profiles.floored()) {
		defer gcfloor.Set(gcfloor.Default, scenarios.DefaultMaxMemory())()
	}
	var obs sim.Observer
	switch {
	case o.quiet:
	case e.stderrIsTerminal:
		p := newProgress(e.stderr, cfg.Name, len(cfg.Timeline))
		defer p.finish()
		obs = p
	default:
		obs = newLineProgress(e, cfg.Name, cfg.Timeline)
	}
	var heap *peakHeapProfiler
	if o.memprofile != "" {
		heap = newPeakHeapProfiler(obs)
		obs = heap
	} else if o.profiles != nil {
		obs = o.profiles.watch(obs)
	}
	if log != nil {
		log.next = obs
		obs = log
	}
	// Without --out, or with --write-log=false, nothing reads the write log.
	cfg.NoWriteLog = o.out == "" || !o.writeLog
	res, err = e.runSim(cfg, obs)
	if heap != nil && err == nil {
		err = heap.writeTo(o.memprofile)
	}
	if err == nil && res == nil {
		err = errors.New("the engine returned no results")
	}
	return res, err
}

// writeCharts renders every chart in every format into out and returns the charts, in the
// order reports.Charts lists them, with their PNG bytes (rendered once, for the files and for
// the report's embedded images).
func writeCharts(out *outputDir, summary *reports.Summary, series []sim.Bucket, layout []sim.LayoutSample) ([]*reports.Chart, map[string][]byte, error) {
	all, err := reports.Charts(summary, series, layout)
	if err != nil {
		return nil, nil, err
	}
	programming, err := reports.ProgrammingChart(summary)
	if err != nil {
		return nil, nil, err
	}
	all = append(all, programming)
	drawn := renderCharts(all)
	pngs := map[string][]byte{}
	for i, c := range all {
		for j, format := range reports.ChartFormats {
			r := &drawn[i][j]
			if r.err != nil {
				return nil, nil, fmt.Errorf("%s.%s: %w", c.Name, format, r.err)
			}
			if format == "png" {
				pngs[c.Name] = r.data
			}
			if err := out.write(c.Name+"."+format, func(w io.Writer) error { _, err := w.Write(r.data); return err }); err != nil {
				return nil, nil, err
			}
		}
	}
	return all, pngs, nil
}

// renderedChart is one chart rendered in one format, or the error that stopped it, or the
// value of the panic that did.
type renderedChart struct {
	data     []byte
	err      error
	panicked any
}

// renderCharts renders every chart in every format (reports.ChartFormats), the charts side
// by side on the cores (each chart's formats one after the other): drawn one after another
// they were most of the time of an --out (0.35 of 0.52 s for 5000-nodes). The result is by
// chart, then format, whatever the order they were drawn in. A panic in a drawing is raised
// again here, once every drawing is done, where a run's crash is caught (env.main).
func renderCharts(charts []*reports.Chart) [][]renderedChart {
	out := make([][]renderedChart, len(charts))
	sideBySide(min(runtime.GOMAXPROCS(0), len(charts)), indexes(len(charts)), func(i int) {
		out[i] = make([]renderedChart, len(reports.ChartFormats))
		for j, format := range reports.ChartFormats {
			out[i][j] = renderChart(charts[i], format)
		}
	}, func() {})
	for _, formats := range out {
		for _, r := range formats {
			if r.panicked != nil {
				panic(r.panicked)
			}
		}
	}
	return out
}

// renderChart renders c in format, keeping a panic for renderCharts to raise.
func renderChart(c *reports.Chart, format string) (r renderedChart) {
	defer func() {
		if p := recover(); p != nil {
			r = renderedChart{panicked: p}
		}
	}()
	var buf bytes.Buffer
	err := c.Render(&buf, format)
	return renderedChart{data: buf.Bytes(), err: err}
}

// outputFile is one file of --out and how to render it.
type outputFile struct {
	name   string
	render func(io.Writer) error
}

// writeLog is the Observer that writes writes.jsonl into --out as the run goes
// (sim.WriteLogger), passing progress on to next. The lines are encoded and written on a
// goroutine of its own, batches of records behind the run (a sixth of a day-long run's
// time, on the run's core otherwise); a write that fails stops the run at the next
// record after it is known, and close reports it.
type writeLog struct {
	next sim.Observer
	file *outputStream
	// batch is the records not handed to the writer yet; batches takes them to it, which
	// gives the emptied arrays back through free and its first error through err.
	batch   []sim.WriteRecord
	batches chan []sim.WriteRecord
	free    chan []sim.WriteRecord
	stopped chan struct{}
	err     atomic.Pointer[error]
}

// writeLogBatch is how many records go to the writer at once; writeLogBatches how many
// batches may wait for it.
const (
	writeLogBatch   = 4096
	writeLogBatches = 4
)

func newWriteLog(out *outputDir) (*writeLog, error) {
	f, err := out.stream("writes.jsonl")
	if err != nil {
		return nil, err
	}
	return startWriteLog(f), nil
}

// startWriteLog starts writing the write log to f.
func startWriteLog(f *outputStream) *writeLog {
	l := &writeLog{
		file:    f,
		batch:   make([]sim.WriteRecord, 0, writeLogBatch),
		batches: make(chan []sim.WriteRecord, writeLogBatches),
		free:    make(chan []sim.WriteRecord, writeLogBatches+1),
		stopped: make(chan struct{}),
	}
	go l.write(reports.NewWritesJSONL(f.Writer))
	return l
}

// write writes the batches it is handed, in order, then the buffer's rest.
func (l *writeLog) write(w *reports.WritesJSONL) {
	defer close(l.stopped)
	var failed error
	for batch := range l.batches {
		for i := range batch {
			if failed == nil {
				if err := w.Add(&batch[i]); err != nil {
					failed = err
					l.err.Store(&failed)
				}
			}
		}
		select {
		case l.free <- batch[:0]:
		default:
		}
	}
	if failed == nil {
		if err := w.Flush(); err != nil {
			l.err.Store(&err)
		}
	}
}

// Progress implements sim.Observer.
func (l *writeLog) Progress(now sim.Time, phase, phases int) {
	if l.next != nil {
		l.next.Progress(now, phase, phases)
	}
}

// PodsHeld implements sim.PodCounter, for the progress it passes on to.
func (l *writeLog) PodsHeld(n int) { podsHeld(l.next, n) }

// podsHeld passes the pods a run holds on to obs, if it counts them (sim.PodCounter).
func podsHeld(obs sim.Observer, n int) {
	if pc, ok := obs.(sim.PodCounter); ok {
		pc.PodsHeld(n)
	}
}

// LogWrite implements sim.WriteLogger.
func (l *writeLog) LogWrite(rec sim.WriteRecord) error {
	l.batch = append(l.batch, rec)
	if len(l.batch) == writeLogBatch {
		l.batches <- l.batch
		select {
		case l.batch = <-l.free:
		default:
			l.batch = make([]sim.WriteRecord, 0, writeLogBatch)
		}
		if err := l.err.Load(); err != nil {
			return *err
		}
	}
	return nil
}

// close writes out the last lines and closes writes.jsonl; its error is the first one
// writing it met (which also stopped the run).
func (l *writeLog) close() error {
	if len(l.batch) > 0 {
		l.batches <- l.batch
		l.batch = nil
	}
	close(l.batches)
	<-l.stopped
	if err := l.err.Load(); err != nil {
		l.file.Close()
		return fmt.Errorf("writes.jsonl: %w", plainPathError(*err))
	}
	return l.file.Close()
}

// writtenOutputs is what writeOutputs wrote: the files other than charts, in the order
// written, and the charts (each in every reports.ChartFormats).
type writtenOutputs struct {
	files  []string
	charts []*reports.Chart
}

// say tells w which files command cmd wrote into dir, as 'sim plot' says which charts it
// wrote: a command that succeeds in silence leaves the user to guess where its output went.
func (o writtenOutputs) say(w io.Writer, cmd, dir string) {
	what := plural(len(o.files), "file")
	list := strings.Join(o.files, ", ")
	if len(o.charts) > 0 {
		names := make([]string, len(o.charts))
		for i, c := range o.charts {
			names[i] = c.Name
		}
		what += fmt.Sprintf(" and %s (%s each)", plural(len(o.charts), "chart"), strings.Join(reports.ChartFormats, " and "))
		list += "; charts: " + strings.Join(names, ", ")
	}
	fmt.Fprintf(w, "sim: %s: wrote %s into %s: %s\n", cmd, what, dir, list)
}

// outputChoices are the optional outputs of --out a user chose: the charts (--charts) and
// the write log (--write-log).
type outputChoices struct {
	charts, writeLog bool
}

// writeOutputs renders every --out file of a run, plus extra ones; with report, also
// report.md and report.html (with the charts, when drawn), into out and commits them all at
// once: an error leaves the directory as it was. It returns what it wrote.
func writeOutputs(out *outputDir, res *sim.Results, summary *reports.Summary, choices outputChoices, report *reports.RunReport, extra ...outputFile) (writtenOutputs, error) {
	var written writtenOutputs
	charts := choices.charts
	files := []outputFile{
		{"summary.json", func(w io.Writer) error { return reports.WriteSummaryJSON(w, summary) }},
		{"timeseries.csv", func(w io.Writer) error { return reports.WriteTimeseriesCSV(w, res.Series, summary.Total.EndSeconds) }},
	}
	if choices.writeLog {
		files = append(files, outputFile{"writes.jsonl", func(w io.Writer) error { return reports.WriteWritesJSONL(w, res.Writes) }})
	}
	files = append(append(files, outputFile{"layout.csv", func(w io.Writer) error { return reports.WriteLayoutCSV(w, res.Layout) }}), extra...)
	err := func() error {
		for _, f := range files {
			written.files = append(written.files, f.name)
			if out.wrote(f.name) {
				continue // written as the run went (writes.jsonl)
			}
			if err := out.write(f.name, f.render); err != nil {
				return err
			}
		}
		var drawn []*reports.Chart
		var pngs map[string][]byte
		if charts {
			var err error
			if drawn, pngs, err = writeCharts(out, summary, res.Series, res.Layout); err != nil {
				return err
			}
			written.charts = drawn
		}
		if report == nil {
			return nil
		}
		rep := *report
		rep.Summary, rep.Charts = summary, drawn
		rep.PNG = func(c *reports.Chart) ([]byte, error) { return pngs[c.Name], nil }
		if err := out.write("report.md", func(w io.Writer) error { return reports.WriteRunMarkdown(w, &rep) }); err != nil {
			return err
		}
		written.files = append(written.files, "report.md", "report.html")
		return out.write("report.html", func(w io.Writer) error { return reports.WriteRunHTML(w, &rep) })
	}()
	if err != nil {
		out.abort()
		return writtenOutputs{}, fmt.Errorf("--out %s: %w (nothing in it was changed)", out.dir, err)
	}
	if err := out.commit(); err != nil {
		return writtenOutputs{}, err
	}
	return written, nil
}

// effectiveHeader is the comment that begins the effective-scenario.yaml of 'sim run --out':
// the command that ran (words, each quoted for a shell, or in Go's quotes where it holds a
// control character, which would end the comment's line), and what the file is for.
func effectiveHeader(words []string) []byte {
	return fmt.Appendf(nil, "# Written by 'sim run --out' for:\n#   %s\n"+
		"# 'sim run' this file to repeat that run; 'sim diff' reads it to say what two runs'\n"+
		"# inputs differ in.\n", commandLine(words))
}

// commandLine is words as one line of a comment: each quoted for a shell, or in Go's
// quotes where it holds a control character, which would end the line.
func commandLine(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = reports.ShellWord(w)
		if strings.ContainsFunc(w, unicode.IsControl) {
			quoted[i] = strconv.Quote(w)
		}
	}
	return strings.Join(quoted, " ")
}
