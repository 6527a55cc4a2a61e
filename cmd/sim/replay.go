package main

import (
	"cmp"
	"encoding/json"
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

	"epsim/internal/gcfloor"
	"epsim/model"
	"epsim/reports"
	"epsim/scenarios"
	"epsim/sim"
	"epsim/trace"
)

var cmdReplay = &command{
	name:  "replay",
	usage: "replay --pods FILE --services FILE [--nodes FILE]",
	short: "account recorded pod churn (kubectl get pods --watch -o json)",
	long: `Replay runs pod churn recorded from a real cluster through both control planes and
prints the same side-by-side table as 'sim run', with one phase, "replay" (two with
--start warm: "start-up", then "replay").

--pods is a trace written by 'sim record', or kubectl's own output of
'kubectl get pods -A --watch --output-watch-events -o json' ("-" reads stdin). A trace
carries the time each event arrived; kubectl's output does not, and then event times come
from the objects' timestamps (second precision), which replay says on stderr. --services is
'kubectl get services -A -o json' and --nodes 'kubectl get nodes -o json' (zones from the
topology.kubernetes.io/zone label); without --nodes, the nodes are those the pods name, with
no zone. Pods are matched to Services by selector; Services without a selector (user-managed
Endpoints) and pods no Service selects are left out and counted.

The initial listing: a watch starts by printing the pods that already exist as ADDED events.
They are applied at time 0 as the informers' initial list, and the controllers start their
workers only then (as kube-controller-manager waits for its caches to sync), so the first
sync of each Service sees all of them. The listing is the leading run of ADDED events; with
recorded times it ends at the first other event, or at the first ADDED event that both
arrives later after the one before it than the listing has lasted so far (and than 50 ms)
and is of a pod created no earlier than the second the recording started. Time 0 is the
first event's time (recorded) or the latest timestamp of the listing (object times).

The pod queues: since Kubernetes 1.37 both endpoint controllers find each pod event's
Services on a queue of their own, whose workers (as many as the Service workers) list every
Service of the pod's namespace (controlPlane.podMapPerService each, 200 ns: 2 ms a pod with
10,000 Services in it). At the start they take every listed pod, those no Service selects
too, and a change after the listing waits behind them: the facts after the table say when
they are done ("listing's pods mapped by"). A Service whose pods are mapped while its first
sync runs is synced again after it (a sync that writes nothing when its objects are up to
date); with --start warm the start-up phase lasts until all of that is done.

The objects the cluster had: a Service created before the recording's first second (or
without a creationTimestamp) had its Endpoints object and EndpointSlices then. The run
begins with them stored, as the controllers would write them for the listed pods (or, with
--endpointslices, the cluster's own slices: below), counting no write,
and with every kube-proxy having programmed them; so the controllers' first syncs find
them up to date and write nothing, as a restarted kube-controller-manager does. (Its
EndpointSlice controller, whose tracker knows none of the slices it finds, syncs each such
Service again a second later, and twice at each informer resync until it has written its
slices.) A Service created since has none yet: its first syncs create them (one create per
slice needed, one Endpoints create).

--start says what the controllers were doing when the recording began. cold (the default):
starting, as after a restart of kube-controller-manager; the churn is replayed from time 0
while their first syncs run, and it may queue behind them. warm: running for long, as in a
recording of a live cluster; the first syncs run to the end in a phase of their own,
"start-up", which ends when every kube-proxy has programmed what they wrote and is idle (its
minSyncPeriod passed, so the churn's first change is synced at once, as on a live cluster),
and the churn is replayed in the "replay" phase, which starts on the next whole second and
shifts every recorded time by its start (the write log and the CSVs say when things
happened in the replay, not in the recording). Read the "replay" phase's row for what the
churn cost: the total includes the start-up. With --endpointslices, either start begins
from the cluster's own slices (that stream's initial listing): the controller reconciles
them against the listed pods and writes only where they disagree. So the churn meets the
layout the cluster's slices had, packed over their history; without them, each Service's
slices are taken to be those the listing packs into at once, which may be laid out
otherwise.

The simulated writes continue the cluster's resourceVersions: each write's is the next after
the largest the recording has carried so far (pods', and the listed slices' of
--endpointslices), as its width counts in every object's size.

Programming latency runs from the trigger times the controllers annotate (the pods' Ready
transitions, on the recording's own clock) to the kube-proxy sync that programs them. The
kube-proxies are taken to have started with the recording: as upstream's change tracker
ignores triggers from before its start, the first syncs' trigger, each Service's creation,
counts none.

A listed pod dated after the first event that follows the listing has a clock ahead (its
node's): time 0 is then the listing's latest time before that event, and replay warns.

Object times have second precision: the events of each second are spread evenly across it,
in stream order. On simulated churn (create, not-ready, restart, rolling update of 150 and
500 pods) this keeps write counts within ±25% of the same recording with arrival times
(measured: -1% to +21%, the most for Endpoints of small Services); applying each second as
one burst undercounted them by up to 94%. Record with 'sim record' for exact times.

Replay warns on stderr, and counts in replay.json, events out of time order, events dated
before the recording's first event (both applied at once), events of a type other than
ADDED, MODIFIED, DELETED and BOOKMARK (skipped; an ERROR ended the watch, and the recording
may lack what followed), events whose pod IP is not an IP address (rejected; the warning
names their event numbers) and pod events on nodes that
--nodes does not list (the warning names some): the EndpointSlice controller leaves such
pods out and retries their Service with backoff, as upstream does for a node its informer
does not have, while the Endpoints controller keeps them. A node an autoscaler added during
the recording is the usual cause: list the nodes the cluster had while the pods ran. A node
created during the recording (its creationTimestamp) joins then: its kube-proxy starts,
lists everything it watches (relists, resentBytes) and receives the watch events from then
on, not before. It warns too when, in a recorded trace, an object is dated a second or more
after its event arrived (clockLeadSeconds, clockLeadEvent): the clocks that stamp objects
ran ahead of the recorder's, and the programming latency, measured from those timestamps,
reads that much short. A Service created during the recording (its creationTimestamp after
the recording's first second; createdDuring) is created then, as a node is: until then the
controllers leave its pods alone, and its first syncs write its objects for the pods it
selects at that time. One created after the recording's last event is left out, with a
warning (createdAfterEnd). A recording made by running kubectl again whenever its watch
ends lists the pods again each time (ADDED events of pods it has): the pods such a relist
lacks are deleted at it (relists, relistDeleted), as an informer's relist does.

Objects of another kind than a file's flag is for are skipped and counted, but a file that
holds none of its flag's kind and only others (a NodeList given to --services, say) is an
error naming the kinds it holds (exit 2).

The control plane (controller workers, QPS, batch period, maxEndpointsPerSlice, API server
and network) is the built-in defaults, a scenario file's (--scenario; its name, cluster,
services and timeline are ignored, and may be left out), or either changed with --set. --set
takes paths under seed, modes (as --mode; give one of the two), controlPlane (but its
workloads), apiServer, network, kubeProxy, guards and slo; a path under name, description,
cluster, services, timeline, controlPlane.workloads or expect is an error (exit 2): the
nodes, Services and pod churn come from the recording. guards.endTime counts from the
recording's last event: a recording of any length replays to its end, and the guard stops a
run that does not settle after it.

--endpointslices adds the cluster's real EndpointSlice stream ('kubectl get endpointslices
-A --watch --output-watch-events -o json', or its 'sim record' trace) and compares it with
the simulation: EndpointSlice writes (ADDED/MODIFIED/DELETED) and bytes fanned out, per
Service and in total; each real slice is sized exactly as the simulation sizes its own
(protobuf, kube-proxy's default) and multiplied by the watchers. The real stream's initial
listing is the slices that existed, which the run begins with (above), not writes: it is
left out, and with --start warm so is the simulated start-up. Its listing and the pods'
should be taken together ('sim record' does): a listing of slices that lags the pods'
makes writes at the start, not churn. Only the real writes within the pod recording's span
count, from its start to its last event and then as long as the simulated writes went on
after that event, so that the real writes its last changes caused count as the simulated
ones do (tailSeconds; each stream's times placed on the wall clock from its own start):
those before or after it are left out and counted, and replay warns when the
real stream's events cover less than half of the span. A slice is its Service's by its
kubernetes.io/service-name label, or without one by its generateName; a generateName two
Services share (names alike in their first 58 characters) is counted unattributed.

--out DIR writes what 'sim run' writes, with a report (report.md, report.html) that says
what was replayed where a run's describes its scenario: the recording, where its times came
from and how the controllers started, what was read, and with --endpointslices the
cluster's slice writes beside the simulated ones; its next steps repeat this replay's
command. Besides, replay.json holds what was read (events read, skipped, unmatched, out of
order, where times came from, and the comparison), and effective-scenario.yaml the settings
the replay ran with, every default and override applied, without the cluster, Services and
timeline the recording gave: --scenario takes it to replay with them again, and 'sim diff'
says what two replays' settings, and recordings (from replay.json), differ in. As with
'sim run', DIR is replaced as a
whole, so it may not be the working directory or contain it, and a line on stderr says what
was written into it (not with --quiet).

On a terminal, a progress bar on stderr shows how much of --pods has been read, and the
virtual time reached; otherwise (CI, a pipe) a plain line at most every 10 s of wall time
shows the virtual time and the pods held (neither with --quiet).

Examples:

    sim replay --pods trace.jsonl --services services.json --nodes nodes.json
    sim replay --pods watch.json --services services.json --out results/replay
    sim replay --pods trace.jsonl --services services.json --set controlPlane.maxEndpointsPerSlice=500
    sim replay --pods trace.jsonl --services services.json --scenario cp.yaml --format json
    sim replay --pods trace.jsonl --services services.json --nodes nodes.json --endpointslices slices.jsonl
    sim replay --pods trace.jsonl --services services.json --nodes nodes.json --start warm`,
	setup: func(fs *flag.FlagSet) func(e *env, args []string) error {
		o := &replayOptions{}
		fs.StringVar(&o.pods, "pods", "", "the pod watch stream or trace to replay, `FILE` (- for stdin)")
		fs.StringVar(&o.services, "services", "", "the cluster's Services, `FILE` from 'kubectl get services -A -o json'")
		fs.StringVar(&o.nodes, "nodes", "", "the cluster's Nodes, `FILE` from 'kubectl get nodes -o json' (default: the nodes the pods name)")
		fs.StringVar(&o.slices, "endpointslices", "", "the real EndpointSlice watch stream or trace, `FILE`, to compare with (--mode both or endpointslices)")
		fs.StringVar(&o.scenario, "scenario", "", "take control-plane settings from scenario `FILE` (default: built-in defaults)")
		fs.Var(&o.sets, "set", "override a setting, `path=value` (repeatable): seed, modes, controlPlane, apiServer, network, kubeProxy, guards or slo; e.g. controlPlane.maxEndpointsPerSlice=500")
		fs.StringVar(&o.out, "out", "", "also write summary.json, timeseries.csv, writes.jsonl, layout.csv, replay.json, effective-scenario.yaml, the report and charts into `DIR`")
		formatFlag(fs, &o.format, "stdout `format`: table, or json (the content of summary.json)")
		choiceFlag(fs, &o.mode, "mode", "both", "control planes to run (`mode`): both, endpoints or endpointslices", modeChoices...)
		choiceFlag(fs, &o.start, "start", "cold", "what the controllers were doing when the recording began (`start`): cold (starting) or warm (running; the first syncs run in a phase of their own)", "cold", "warm")
		fs.BoolVar(&o.quiet, "quiet", false, "no progress on stderr (bar or lines), nor the line saying what --out wrote")
		fs.BoolVar(&o.charts, "charts", true, "with --out, also draw the charts")
		fs.BoolVar(&o.writeLog, "write-log", true, "with --out, also write writes.jsonl, a line per API write (false: leave it out)")
		fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the replay (reading the inputs, the run, the outputs) to `FILE`")
		fs.StringVar(&o.memprofile, "memprofile", "", "write a heap profile to `FILE`, taken near the replay's largest live heap")
		return func(e *env, args []string) error {
			fs.Visit(func(f *flag.Flag) { o.modeGiven = o.modeGiven || f.Name == "mode" })
			return o.run(e, args)
		}
	},
}

// replayOptions are the parsed flags of 'sim replay'.
type replayOptions struct {
	pods, services, nodes, slices, scenario string
	out, format, mode, start                string
	cpuprofile, memprofile                  string
	sets                                    stringList
	quiet, charts, writeLog                 bool
	// modeGiven is true when --mode was on the command line, not its default.
	modeGiven bool
}

// replaySetFields are the top-level scenario fields a replay takes from --set (and
// --scenario): the control plane and what the run is measured against.
var replaySetFields = []string{"seed", "modes", "controlPlane (but its workloads)", "apiServer", "network", "kubeProxy", "guards", "slo"}

// replayRecorded says, for the fields a replay takes from the recording or has no use for,
// where it takes them from instead. A --set of one of them would be silently ignored.
var replayRecorded = map[string]string{
	"name":                   "the run is named after --pods",
	"description":            "a replay has no description",
	"cluster":                "the nodes come from --nodes, or are the nodes the pods name",
	"services":               "the Services come from --services",
	"timeline":               "the pod churn comes from --pods",
	"controlPlane.workloads": "the pod churn comes from --pods, not from workload controllers",
	"expect":                 "a replay checks no budgets",
}

// checkReplaySets rejects a --set of a field replay does not use, naming the path, where
// replay takes that field from and the fields it does take from --set.
func checkReplaySets(sets []string) error {
	for _, set := range sets {
		path, _, _ := strings.Cut(set, "=")
		top := path
		if i := strings.IndexAny(path, ".["); i >= 0 {
			top = path[:i]
		}
		why, ok := replayRecorded[top]
		if top == "controlPlane" {
			if rest, found := strings.CutPrefix(path, "controlPlane.workloads"); found && (rest == "" || rest[0] == '.' || rest[0] == '[') {
				why, ok = replayRecorded["controlPlane.workloads"], true
			}
		}
		if ok {
			return usageErrorf("replay", "--set %s: replay does not use %s: %s; the --set paths it honours are under %s",
				set, path, why, strings.Join(replaySetFields, ", "))
		}
	}
	return nil
}

// replayDefaults is the scenario the control-plane defaults and --set overrides are decoded
// over when no --scenario is given. Its cluster, service and timeline are placeholders:
// replay takes them from the recording.
const replayDefaults = `name: replay
cluster: {nodes: 1}
services: [{name: replay}]
timeline: [{name: replay, action: create, services: [replay]}]
`

// ReplayReport is replay.json: what was read and, with --endpointslices, the comparison.
type ReplayReport struct {
	Pods     string           `json:"pods"`
	Replay   *sim.ReplayStats `json:"replay"`
	Stream   *trace.Stats     `json:"podStream"`
	Services int              `json:"services"`
	// OutsideTraffic counts the Services that take traffic from outside the cluster
	// (model.IsExternallyAccessible): kube-proxy's rules for it are not simulated.
	OutsideTraffic int               `json:"outsideTrafficServices,omitempty"`
	Nodes          int               `json:"nodes"`
	Skipped        map[string]int64  `json:"skippedObjects,omitempty"`
	Compare        *trace.Comparison `json:"endpointSlices,omitempty"`
	TimesFrom      string            `json:"timesFrom"`
	// Start is --start: cold or warm.
	Start string `json:"start"`
}

func (o *replayOptions) run(e *env, args []string) (err error) {
	if len(args) > 0 {
		return usageErrorf("replay", "replay takes no arguments (use --pods FILE), got %q", args[0])
	}
	if o.pods == "" || o.services == "" {
		return usageErrorf("replay", "replay needs --pods FILE and --services FILE")
	}
	if o.pods == "-" && o.slices == "-" {
		return usageErrorf("replay", "--pods - and --endpointslices - cannot both read stdin")
	}
	if err := (&commandProfiles{cmd: "replay", cpu: o.cpuprofile, mem: o.memprofile}).check(o.out); err != nil {
		return err
	}
	if err := clearOfOutputs("replay", o.out, [2]string{"--pods", o.pods}, [2]string{"--services", o.services}, [2]string{"--nodes", o.nodes},
		[2]string{"--endpointslices", o.slices}, [2]string{"--scenario", o.scenario}); err != nil {
		return err
	}
	if o.pods == "-" && o.nodes == "" {
		return usageErrorf("replay", "--pods - (stdin) needs --nodes: nodes are otherwise found by reading the pods twice")
	}
	if o.format != "table" && o.format != "json" {
		return usageErrorf("replay", "--format %q: want table or json", o.format)
	}
	if o.start != "cold" && o.start != "warm" {
		return usageErrorf("replay", "--start %q: want cold or warm", o.start)
	}
	warm := o.start == "warm"
	modes, err := parseMode(o.mode)
	if err != nil {
		return usageErrorf("replay", "%v", err)
	}
	if err := checkReplaySets(o.sets); err != nil {
		return err
	}
	setModes := slices.ContainsFunc(o.sets, func(s string) bool { return strings.HasPrefix(s, "modes=") || strings.HasPrefix(s, "modes[") })
	if setModes && o.modeGiven {
		return usageErrorf("replay", "--mode and --set modes both choose the control planes: give one")
	}
	cfg, err := o.config(e)
	if err != nil {
		return badInput(err)
	}
	// --set modes chooses the control planes as --mode does; otherwise --mode does, over
	// a --scenario's modes.
	mode := o.mode
	if setModes {
		modes = configModes(cfg)
		mode = "--set modes: " + string(modes[0])
	}
	if o.slices != "" && !slices.Contains(modes, sim.ModeEndpointSlices) {
		// The comparison would set the cluster's slice writes beside none.
		return usageErrorf("replay", "--endpointslices compares the EndpointSlice controller's writes: it needs --mode both or endpointslices, not %s", mode)
	}
	// The heap the replay will fill is backed by huge pages, as sim run's (simulate): the
	// trace of a rollout of 30,000 pods faulted 37,000 times without, 3,300-3,800 with.
	prepareHeap(replayHeapBytes(inputSize(o.pods), inputSize(o.slices)), scenarios.DefaultMaxMemory())
	if o.memprofile != "" {
		// Before the inputs are read; the heap prepared above is not in the profile.
		if err := startHeapProfile("replay", o.memprofile); err != nil {
			return err
		}
	}
	if o.cpuprofile != "" {
		stop, err := startCPUProfile("replay", o.cpuprofile)
		if err != nil {
			return err
		}
		defer func() {
			if serr := stop(); serr != nil && err == nil {
				err = serr
			}
		}()
	}
	cfg.Name = "replay " + filepath.Base(o.pods)
	cfg.RunEndpoints = slices.Contains(modes, sim.ModeEndpoints)
	cfg.RunEndpointSlices = slices.Contains(modes, sim.ModeEndpointSlices)

	// --out is checked before any input is read: without --nodes the pods are read twice,
	// and a recording may be millions of events (as 'sim run' fails before a long run).
	var out *outputDir
	log := &replayLog{warm: warm}
	if o.out != "" {
		if out, err = openOutputDir(o.out, true, replayFiles); err != nil {
			return err
		}
		defer out.abort()
		// writes.jsonl is written as the replay makes the writes, not held to the end.
		if o.writeLog {
			if log.file, err = newWriteLog(out); err != nil {
				return fmt.Errorf("--out %s: %w", out.dir, err)
			}
		}
	}
	services, svcStats, err := readFile(o.services, trace.ReadServices)
	if err != nil {
		return badInput(err)
	}
	if err := wrongKind("--services", o.services, "Service", int64(len(services)), svcStats); err != nil {
		return err
	}
	if len(services) == 0 {
		// Nothing would be replayed: every pod event would match no Service.
		return badInput(fmt.Errorf("replay: --services %s holds no Service", o.services))
	}
	var nodes []*model.Node
	skipped := map[string]int64{}
	merge(skipped, svcStats)
	if o.nodes != "" {
		var nodeStats *trace.Stats
		nodes, nodeStats, err = readFile(o.nodes, trace.ReadNodes)
		if err != nil {
			return badInput(err)
		}
		if err := wrongKind("--nodes", o.nodes, "Node", int64(len(nodes)), nodeStats); err != nil {
			return err
		}
		if len(nodes) == 0 {
			return badInput(fmt.Errorf("replay: --nodes %s holds no Node", o.nodes))
		}
		merge(skipped, nodeStats)
	} else {
		var podStats *trace.Stats
		nodes, podStats, err = nodesOfPods(o.pods)
		if err != nil {
			return badInput(err)
		}
		if err := wrongKind("--pods", o.pods, "Pod", podStats.Events, podStats); err != nil {
			return err
		}
		if podStats.Events == 0 {
			return badInput(noPodEvents(o.pods))
		}
		fmt.Fprintf(e.stderr, "sim: replay: no --nodes: %s named by the pods, without zones\n", plural(len(nodes), "node"))
	}
	if len(nodes) == 0 {
		return badInput(errors.New("replay: no nodes (give --nodes, or pods scheduled to nodes)"))
	}
	var sliceStream *trace.SliceReader
	var seed []*model.EndpointSlice
	if o.slices != "" {
		f, closeSlices, err := openInput(o.slices)
		if err != nil {
			return badInput(err)
		}
		defer closeSlices()
		sliceStream = trace.NewSliceReader(f, inputName(o.slices))
		// The run begins from the cluster's slices (the stream's listing); the comparison
		// reads the stream on from there.
		if seed, err = sliceStream.Listing(); err != nil {
			return badInput(fmt.Errorf("--endpointslices: %w", err))
		}
		log.slices = trace.NewSliceTally(services, seed)
		// Listing reads up to the first event after the listing: with no event at all it
		// has read the whole stream.
		if st := sliceStream.Stats(); st.Events == 0 {
			if err := wrongKind("--endpointslices", o.slices, "EndpointSlice", 0, st); err != nil {
				return err
			}
		}
	}
	// Without --out (or with --write-log=false) and --endpointslices nothing reads the write
	// log.
	cfg.NoWriteLog = (o.out == "" || !o.writeLog) && o.slices == ""

	in, closeIn, err := openInput(o.pods)
	if err != nil {
		return badInput(err)
	}
	defer closeIn()
	read := &countingReader{r: in}
	src := trace.NewPodReader(read, inputName(o.pods))
	switch {
	case o.quiet:
	case e.stderrIsTerminal:
		p := newReplayProgress(e.stderr, cfg.Name, inputSize(o.pods), read)
		defer p.finish()
		log.next = p
	default:
		log.next = newLineProgress(e, cfg.Name, cfg.Timeline)
	}
	// The recording is decoded on another core, ahead of the replay. A replay that ends
	// well has read it to its end, where the reading stops: src.Stats may be read then.
	span := trace.NewSpanSource(src) // the recording's span: the window of --endpointslices
	ahead := trace.ReadAhead(span)
	defer ahead.Close()
	var heap *peakHeapProfiler
	if o.memprofile != "" {
		// As sim run's: a heap profile is of a collection, so no floor puts them off.
		heap = newPeakHeapProfiler(log.next)
		log.next = heap
	} else {
		defer gcfloor.Set(gcfloor.Default, scenarios.DefaultMaxMemory())() // as sim run (simulate)
	}
	res, stats, err := sim.ReplayWith(sim.ReplayOptions{Warm: warm, Slices: seed}, cfg, services, nodes, ahead, log)
	if log.file != nil {
		// A write log that could not be written stopped the replay: say so, not the replay.
		if cerr := log.file.close(); cerr != nil {
			return fmt.Errorf("--out %s: %w (nothing in it was changed)", out.dir, cerr)
		}
	}
	if err != nil {
		if errors.Is(err, trace.ErrFormat) {
			return badInput(fmt.Errorf("replay: %w", err))
		}
		return fmt.Errorf("replay: %w", err)
	}
	if heap != nil {
		if err := heap.writeTo(o.memprofile); err != nil {
			return err
		}
	}
	pstats := src.Stats()
	if err := wrongKind("--pods", o.pods, "Pod", pstats.Events, pstats); err != nil {
		return err
	}
	if pstats.Events == 0 {
		return badInput(noPodEvents(o.pods))
	}
	report := &ReplayReport{Pods: filepath.Base(o.pods), Replay: stats, Stream: pstats, Services: len(services), Nodes: len(nodes), TimesFrom: "recorded", Start: o.start}
	if len(skipped) > 0 {
		report.Skipped = skipped
	}
	for _, s := range services {
		if s.ExternallyAccessible && !s.ExternalName {
			report.OutsideTraffic++
		}
	}
	if !pstats.RecordedTimes {
		report.TimesFrom = "objects"
		fmt.Fprintf(e.stderr, "sim: replay: %s has no recorded times: event times come from the pods' own timestamps (creation, condition transitions, deletion; second precision), and the events of each second are spread evenly across it in stream order (%s). Expect write counts within ±25%% of a recording with arrival times; record with 'sim record' for exact times.\n", inputName(o.pods), counted(pstats.Spread, "event", "events"))
	}
	warnReplay(e.stderr, inputName(o.pods), stats, pstats)
	if sliceStream != nil {
		pods := span.Span(pstats.Start)
		// The simulated writes went on after the recording's last event until the
		// controllers settled: the real ones of that tail count too.
		lastEvent := res.Phases[len(res.Phases)-1].Start + span.Last()
		tail := time.Duration(log.slices.Last() - lastEvent)
		report.Compare, err = trace.CompareSlices(sliceStream, log.slices, int64(res.Watchers), true, &pods, tail)
		if err != nil {
			return badInput(fmt.Errorf("--endpointslices: %w", err))
		}
		if w := report.Compare.SpanWarning(); w != "" {
			fmt.Fprintf(e.stderr, "sim: replay: warning: --endpointslices %s: %s\n", inputName(o.slices), w)
		}
	}

	summary := reports.NewSummary(res, configModes(cfg))
	if o.out != "" {
		run := o.runReport(cfg, report, pstats.RecordedTimes)
		settings := append(replaySettingsHeader(append(slices.Clone(run.Replay.Command), run.Overrides...)),
			scenarios.EffectiveSettings(&cfg, cmp.Or(o.scenario, "the replay's defaults"))...)
		written, err := writeReplayOutputs(out, res, summary, report, run, outputChoices{charts: o.charts, writeLog: o.writeLog}, settings)
		if err != nil {
			return err
		}
		if !o.quiet {
			written.say(e.stderr, "replay", o.out)
		}
	}
	if o.format == "json" {
		return reports.WriteSummaryJSON(e.stdout, summary)
	}
	if err := reports.WriteTable(e.stdout, summary); err != nil {
		return err
	}
	return writeReplayReport(e.stdout, report)
}

// replayLog takes a replay's write records as it makes them (sim.WriteLogger): into
// writes.jsonl with --out, into the EndpointSlice tally with --endpointslices. It passes
// progress on to next.
type replayLog struct {
	next   sim.Observer
	file   *writeLog
	slices *trace.SliceTally
	// warm leaves the start-up's writes out of the tally (--start warm).
	warm bool
}

// Progress implements sim.Observer.
func (l *replayLog) Progress(now sim.Time, phase, phases int) {
	if l.next != nil {
		l.next.Progress(now, phase, phases)
	}
}

// LogWrite implements sim.WriteLogger.
func (l *replayLog) LogWrite(rec sim.WriteRecord) error {
	if l.slices != nil && !(l.warm && rec.Phase == sim.ReplayStartUpPhase) {
		l.slices.Add(&rec)
	}
	if l.file != nil {
		return l.file.LogWrite(rec)
	}
	return nil
}

// warnReplay says on stderr what in the trace was out of order, dated before the listing or
// rejected; replay.json counts the same.
func warnReplay(w io.Writer, name string, r *sim.ReplayStats, s *trace.Stats) {
	if n := r.OutOfOrder + s.Clamped; n > 0 {
		fmt.Fprintf(w, "sim: replay: warning: %s: %s out of time order (applied at the previous event's time)\n", name, counted(n, "event", "events"))
	}
	if s.BeforeListing > 0 {
		fmt.Fprintf(w, "sim: replay: warning: %s: %s dated before the recording's first event (applied at once)\n", name, counted(s.BeforeListing, "event", "events"))
	}
	if r.Relists > 0 {
		fmt.Fprintf(w, "sim: replay: warning: %s: the recording lists the pods again %s (kubectl's watch started "+
			"over): the %s a relist did not list %s deleted at it, as an informer's relist does; %s while "+
			"the watch was down, at times the recording does not have\n", name, counted(r.Relists, "time", "times"),
			counted(r.RelistDeleted, "pod", "pods"), agree(r.RelistDeleted, "was", "were"), agree(r.RelistDeleted, "it went", "they went"))
	}
	if r.CreatedAfterEnd > 0 {
		fmt.Fprintf(w, "sim: replay: warning: %s: %s created after the recording's last event (%s "+
			"creationTimestamp): left out; the Services file was taken after the recording, so it may also lack "+
			"Services deleted meanwhile\n", name, counted(r.CreatedAfterEnd, "Service was", "Services were"), agree(r.CreatedAfterEnd, "its", "their"))
	}
	if s.ClockLeadSeconds > 0 {
		lead := time.Duration(s.ClockLeadSeconds * float64(time.Second)).Round(time.Millisecond)
		fmt.Fprintf(w, "sim: replay: warning: %s: event %d's object is dated %s after the event arrived: a clock that stamps "+
			"objects (the API server's, a kubelet's) ran ahead of the recorder's, and the programming latency, measured "+
			"from those timestamps, reads up to %s short (below 0 at worst); record on a machine whose clock agrees with the cluster's\n",
			name, s.ClockLeadEvent, lead, lead)
	}
	if s.AheadOfListing > 0 {
		fmt.Fprintf(w, "sim: replay: warning: %s: initial listing dated after the first event that followed it "+
			"(pods: %d; a node's clock ahead): time 0 is the listing's latest time before that event\n", name, s.AheadOfListing)
	}
	if r.UnknownNodes > 0 {
		more := ""
		if r.UnknownNodes > int64(len(r.UnknownNodeExamples)) {
			more = ", …"
		}
		fmt.Fprintf(w, "sim: replay: warning: %s: nodes not in --nodes (%d: %s%s; pod events on them: %d): the EndpointSlice "+
			"controller leaves their pods out and retries, as for a node it cannot find, while the Endpoints controller "+
			"keeps them; give the nodes the cluster had while the pods ran\n",
			name, r.UnknownNodes, strings.Join(r.UnknownNodeExamples, ", "), more, r.UnknownNodeEvents)
	}
	// Events of a type replay does not apply: a BOOKMARK is expected (a watch that asked
	// for them) and says nothing; an ERROR ends a watch (its resourceVersion too old, say),
	// so the recording may lack what happened after it; another type is not a watch's.
	types := make([]string, 0, len(s.Skipped))
	for k := range s.Skipped {
		if t, ok := strings.CutPrefix(k, "type "); ok && t != "BOOKMARK" {
			types = append(types, t)
		}
	}
	slices.Sort(types)
	for _, t := range types {
		why := "not a watch event type: only ADDED, MODIFIED and DELETED are replayed"
		if t == "ERROR" {
			why = "the watch reported an error and ended there: the recording may lack the events after it"
		}
		fmt.Fprintf(w, "sim: replay: warning: %s: %s of type %s skipped (%s)\n", name, counted(s.Skipped["type "+t], "event", "events"), t, why)
	}
	if s.InvalidIPs > 0 {
		nums := make([]string, len(s.InvalidIPEvents))
		for i, n := range s.InvalidIPEvents {
			nums[i] = strconv.FormatInt(n, 10)
		}
		more := ""
		if int64(len(nums)) < s.InvalidIPs {
			more = ", …"
		}
		fmt.Fprintf(w, "sim: replay: warning: %s: %s rejected for a pod IP that is not an IP address (%s %s%s)\n", name, counted(s.InvalidIPs, "event", "events"), agree(s.InvalidIPs, "event", "events"), strings.Join(nums, ", "), more)
	}
}

// config returns the control-plane configuration: a scenario file's, or the defaults, with
// the --set overrides.
func (o *replayOptions) config(e *env) (sim.Config, error) {
	if o.scenario != "" {
		return loadSettings(o.scenario, o.sets)
	}
	sc, err := scenarios.Parse("(replay defaults)", []byte(replayDefaults), o.sets)
	if err != nil {
		return sim.Config{}, err
	}
	return sc.Config, nil
}

// noPodEvents is the error for a --pods file with no pod event: a replay of nothing, whose
// all-zero results would pass for a cluster without churn.
func noPodEvents(path string) error {
	return fmt.Errorf("replay: --pods %s holds no pod event (ADDED, MODIFIED or DELETED of a Pod)", inputName(path))
}

func merge(into map[string]int64, s *trace.Stats) {
	if s == nil {
		return
	}
	for k, v := range s.Skipped {
		into[k] += v
	}
}

// wrongKind fails (bad input) when the file given to flag held none of the objects it is
// for (n of kind want) but objects of other kinds: the file meant for another flag. The
// error names the kinds it holds.
func wrongKind(flag, path, want string, n int64, stats *trace.Stats) error {
	if n > 0 || stats == nil {
		return nil
	}
	var held []string
	for _, k := range stats.SkippedKeys() {
		if kind, ok := strings.CutPrefix(k, "kind "); ok {
			held = append(held, fmt.Sprintf("%s: %d", kind, stats.Skipped[k]))
		}
	}
	if len(held) == 0 {
		return nil
	}
	return badInput(fmt.Errorf("replay: %s %s holds no %s, only other kinds (%s): is it the file for another flag?", flag, path, want, strings.Join(held, ", ")))
}

// readFile opens path and reads it with read.
func readFile[T any](path string, read func(io.Reader, string) (T, *trace.Stats, error)) (T, *trace.Stats, error) {
	var zero T
	in, closeIn, err := openInput(path)
	if err != nil {
		return zero, nil, err
	}
	defer closeIn()
	return read(in, inputName(path))
}

// openInput opens path, or stdin for "-". A directory is refused here, where its error is
// bad input (exit 2) for every flag alike, rather than when the replay reads it.
func openInput(path string) (io.Reader, func(), error) {
	if path == "-" {
		return os.Stdin, func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, plainPathError(err))
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: is a directory, not a file", path)
	}
	return f, func() { f.Close() }, nil
}

func inputName(path string) string {
	if path == "-" {
		return "stdin"
	}
	return path
}

// replayHeapBytes is the heap a replay of recordings of these sizes (-1: not known) is
// taken to fill, for hugeheap.Prepare: twice the recordings' bytes; 0, nothing marked, when
// the pods' size is not known (stdin). A replay holds the pods alive at a time, not each
// event of them: a trace of a rollout of 30,000 pods (258 MB, 390,000 events) peaked at 156-
// 159 MB of RSS. A range marked beyond what the run touches is never resident: that trace,
// with 4 GiB marked, peaked at 157-162 MB, as with 516 MB.
func replayHeapBytes(pods, slices int64) int64 {
	if pods <= 0 {
		return 0
	}
	return 2 * (pods + max(slices, 0))
}

// inputSize is the size of the file at path, or -1 when it is not known (stdin, a pipe).
func inputSize(path string) int64 {
	if path == "-" {
		return -1
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return -1
	}
	return st.Size()
}

// nodesOfPods reads the pod stream once for the node names its pods are scheduled to, in
// order of first appearance.
func nodesOfPods(path string) ([]*model.Node, *trace.Stats, error) {
	in, closeIn, err := openInput(path)
	if err != nil {
		return nil, nil, err
	}
	defer closeIn()
	src := trace.NewPodReader(in, inputName(path))
	seen := map[string]bool{}
	var nodes []*model.Node
	for {
		ev, err := src.Next()
		if errors.Is(err, io.EOF) {
			return nodes, src.Stats(), nil
		}
		if err != nil {
			return nil, nil, err
		}
		if n := ev.Pod.NodeName; n != "" && !seen[n] {
			seen[n] = true
			nodes = append(nodes, &model.Node{Name: n, Ready: true})
		}
	}
}

// replayTitle is the first line of what a replay read.
func replayTitle(r *ReplayReport) string {
	return fmt.Sprintf("replay of %s: %s, %s, %s; times %s; %s start", r.Pods, counted(r.Replay.Events, "pod event", "pod events"),
		plural(r.Services, "Service"), plural(r.Nodes, "node"), r.TimesFrom, r.Start)
}

// replayFacts lists what a replay read, a label and a value each, as the table after its
// figures and the report's "Replay" section give them.
func replayFacts(r *ReplayReport) [][2]string {
	var facts [][2]string
	add := func(label, format string, args ...any) {
		facts = append(facts, [2]string{label, fmt.Sprintf(format, args...)})
	}
	add("pod events matching no Service", "%d", r.Replay.Unmatched)
	add("events of the initial listing", "%d", r.Replay.Listed)
	if s := r.Replay.ListingMappedSeconds; s > 0 {
		d := time.Duration(s * float64(time.Second))
		add("listing's pods mapped by", "%s (the endpoint controllers' pod queues)", d.Round(min(time.Millisecond, max(time.Microsecond, d/1000))))
	}
	add("events out of time order", "%d", r.Replay.OutOfOrder+r.Stream.Clamped)
	if r.Replay.SeededServices > 0 {
		add("Services with objects at start", "%d", r.Replay.SeededServices)
	}
	if r.Replay.CreatedDuring > 0 {
		add("Services created while recorded", "%d (%d after its last event: left out)", r.Replay.CreatedDuring, r.Replay.CreatedAfterEnd)
	}
	if n := r.Replay.SeededSlices + r.Replay.UnseededSlices; n > 0 {
		add("cluster's slices started from", "%d (of %d listed; %d left out: another manager's, an unknown Service's, a name twice)", r.Replay.SeededSlices, n, r.Replay.UnseededSlices)
	}
	if r.Stream.BeforeListing > 0 {
		add("events dated before the listing", "%d", r.Stream.BeforeListing)
	}
	if r.Stream.AheadOfListing > 0 {
		add("listed pods dated ahead (skew)", "%d", r.Stream.AheadOfListing)
	}
	if r.Replay.UnknownNodes > 0 {
		add("events on nodes not in --nodes", "%d (nodes: %d)", r.Replay.UnknownNodeEvents, r.Replay.UnknownNodes)
	}
	if r.Stream.InvalidIPs > 0 {
		add("events rejected (invalid pod IP)", "%d", r.Stream.InvalidIPs)
	}
	if r.OutsideTraffic > 0 {
		add("Services taking outside traffic", "%d (NodePort, LoadBalancer, external IPs: kube-proxy's rules for it not simulated)", r.OutsideTraffic)
	}
	skipped := map[string]int64{}
	for k, v := range r.Skipped {
		skipped[k] += v
	}
	for k, v := range r.Stream.Skipped {
		skipped[k] += v
	}
	keys := make([]string, 0, len(skipped))
	for k := range skipped {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		add("skipped ("+k+")", "%d", skipped[k])
	}
	return facts
}

// replayComparison is the comparison of --endpointslices as the report shows it (nil
// without one): a row per Service, the unattributed writes and the total, and notes on
// what was left out of it.
func replayComparison(c *trace.Comparison) *reports.SliceComparison {
	if c == nil {
		return nil
	}
	out := &reports.SliceComparison{
		Title: fmt.Sprintf("EndpointSlices, real vs simulated (bytes × %s):", counted(int64(c.Watchers), "watcher", "watchers")),
		Head:  []string{"service", "real A/M/D", "sim A/M/D", "real bytes", "sim bytes"},
	}
	row := func(name string, real, sim trace.Writes) {
		out.Rows = append(out.Rows, []string{name,
			fmt.Sprintf("%d/%d/%d", real.Added, real.Modified, real.Deleted),
			fmt.Sprintf("%d/%d/%d", sim.Added, sim.Modified, sim.Deleted),
			reports.FormatBytes(real.FanoutBytes), reports.FormatBytes(sim.FanoutBytes)})
	}
	for _, s := range c.Services {
		row(s.Namespace+"/"+s.Name, s.Real, s.Simulated)
	}
	if u := c.Unattributed; u != nil {
		row("(unattributed: Service unknown)", u.Real, u.Simulated)
	}
	row("total", c.Real, c.Simulated)
	if c.OtherManagers > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("real events of slices other controllers manage (not simulated): %d", c.OtherManagers))
	}
	if c.ListingSkipped > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("real initial listing left out (the slices the run began with): %d", c.ListingSkipped))
	}
	if c.Before+c.After > 0 {
		const layout = "2006-01-02T15:04:05.000Z07:00"
		out.Notes = append(out.Notes, fmt.Sprintf("real events outside the pod recording (%s to %s, and %s after it as the simulation's writes), left out: %d before, %d after",
			c.Pods.Start.Format(layout), c.Pods.End.Format(layout), time.Duration(c.TailSeconds*float64(time.Second)).Round(time.Millisecond), c.Before, c.After))
	}
	return out
}

// writeReplayReport prints what was read and, with --endpointslices, the comparison.
func writeReplayReport(w io.Writer, r *ReplayReport) error {
	fmt.Fprintf(w, "\n%s\n", replayTitle(r))
	for _, f := range replayFacts(r) {
		fmt.Fprintf(w, "  %-32s %s\n", f[0], f[1])
	}
	c := replayComparison(r.Compare)
	if c == nil {
		return nil
	}
	fmt.Fprintf(w, "\n%s\n", c.Title)
	fmt.Fprintf(w, "  %-36s %17s %17s %11s %11s\n", c.Head[0], c.Head[1], c.Head[2], c.Head[3], c.Head[4])
	for _, row := range c.Rows {
		fmt.Fprintf(w, "  %-36s %17s %17s %11s %11s\n", row[0], row[1], row[2], row[3], row[4])
	}
	for _, n := range c.Notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
	return nil
}

// runReport is what report.md and report.html of the replay are made from: sim run's
// report, saying where the churn came from instead of a scenario.
func (o *replayOptions) runReport(cfg sim.Config, r *ReplayReport, recordedTimes bool) *reports.RunReport {
	command := []string{"sim", "replay", "--pods", o.pods, "--services", o.services}
	for _, f := range [][2]string{{"--nodes", o.nodes}, {"--endpointslices", o.slices}, {"--scenario", o.scenario}} {
		if f[1] != "" {
			command = append(command, f[0], f[1])
		}
	}
	if o.start != "cold" {
		command = append(command, "--start", o.start)
	}
	if o.modeGiven {
		command = append(command, "--mode", o.mode)
	}
	rep := &reports.RunReport{Config: &cfg, Replay: &reports.ReplaySource{
		Command: command, Pods: r.Pods, Services: r.Services, Nodes: r.Nodes, NodesFromPods: o.nodes == "",
		RecordedTimes: recordedTimes, Warm: o.start == "warm",
		Read: replayFacts(r), Compared: replayComparison(r.Compare),
	}}
	for _, set := range o.sets {
		rep.Overrides = append(rep.Overrides, "--set", set)
	}
	return rep
}

// writeReplayOutputs writes 'sim run”s --out files, its report of the replay and
// replay.json, all or nothing.
func writeReplayOutputs(out *outputDir, res *sim.Results, summary *reports.Summary, report *ReplayReport, run *reports.RunReport, choices outputChoices, settings []byte) (writtenOutputs, error) {
	return writeOutputs(out, res, summary, choices, run, outputFile{"replay.json", func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(report)
	}}, outputFile{effectiveScenarioFile, func(w io.Writer) error {
		_, err := w.Write(settings)
		return err
	}})
}

// replaySettingsHeader is the comment that begins a replay's effective-scenario.yaml: the
// command that ran (words quoted as effectiveHeader quotes them) and what the file is for.
func replaySettingsHeader(words []string) []byte {
	return fmt.Appendf(nil, "# Written by 'sim replay --out' for:\n#   %s\n"+
		"# The settings the replay ran with (its cluster, Services and pods came from the\n"+
		"# recording): 'sim replay --scenario' this file to replay with them again; 'sim diff'\n"+
		"# reads it to say what two runs' inputs differ in.\n", commandLine(words))
}
