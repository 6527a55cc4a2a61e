package reports

import (
	"fmt"
	"io"
	"strings"
	"time"

	"epsim/sim"
)

// RunReport is what the report of one run (report.md and report.html in 'sim run --out')
// is built from.
type RunReport struct {
	// File is the scenario's file (or embedded name), for the commands the report suggests.
	File string
	// Overrides are the run's --set and --seed flags as given, flag and value in turn
	// ("--set", "cluster.nodes=500", "--seed", "7"): the suggested commands repeat them, so
	// that they run what the report describes.
	Overrides []string
	// Summary is the run's summary.json.
	Summary *Summary
	// Config is the configuration that ran, every default applied: the assumptions.
	Config *sim.Config
	// Charts are the charts drawn for the run, in the order Charts lists them (none when
	// charts were not drawn).
	Charts []*Chart
	// PNG returns a chart's PNG bytes for embedding in the HTML page; nil renders them.
	PNG func(c *Chart) ([]byte, error)
	// Replay, for a run of 'sim replay', says where its pod churn came from, in place of a
	// scenario; nil for 'sim run'.
	Replay *ReplaySource
}

// ReplaySource is what the report of a replay says of the recording it ran, as the
// replay's table printed it (the report escapes the text).
type ReplaySource struct {
	// Command repeats the replay: "sim", "replay" and its inputs and settings as given
	// (not --set, which is in RunReport.Overrides, nor --out), which the report's
	// suggested commands extend.
	Command []string
	// Pods is --pods as given.
	Pods string
	// Services and Nodes are how many the replay ran.
	Services, Nodes int
	// NodesFromPods is true when the nodes were those the pods name (no --nodes): they
	// have no zones.
	NodesFromPods bool
	// RecordedTimes is false when the events' times came from the pods' own timestamps
	// (a kubectl stream), true for the arrival times of a 'sim record' trace.
	RecordedTimes bool
	// Warm is --start warm: the controllers' first syncs ran in a phase of their own.
	Warm bool
	// Read lists what was read, a label and a value each ("pod events matching no
	// Service", "1").
	Read [][2]string
	// Compared, with --endpointslices, sets the cluster's own EndpointSlice writes beside
	// the simulated ones.
	Compared *SliceComparison
}

// SliceComparison is a replay's comparison of the real EndpointSlice writes with the
// simulated ones: Head, then a row per Service (its namespace/name first) and the total
// last; Notes say what was left out of it.
type SliceComparison struct {
	Title string
	Head  []string
	Rows  [][]string
	Notes []string
}

// runChartCaption says what a run chart shows; charts it does not know keep their title.
// both says whether both modes ran (a ratio to show).
func runChartCaption(c *Chart, both bool) string {
	ratio := ""
	if both {
		ratio = ", with the Endpoints / EndpointSlices ratio"
	}
	switch c.Name {
	case "cumulative-fanout":
		return "Bytes fanned out to all watchers since the start, per mode (log scale); the phases are numbered above the plot."
	case "egress-rate":
		return "What left the API servers each second, per mode: the load a rollout puts on their network (a long run's drawn per column: its mean as a line, its least to greatest second as a band)."
	case "propagation-latency":
		return "The largest propagation latency (trigger to last watcher) of the writes of each second (a long run's drawn per column: its largest as a line, its least to greatest second with writes as a band)."
	case "phases-writes":
		return "API writes per phase" + ratio + "."
	case "phases-bytes":
		return "Bytes fanned out per phase" + ratio + "."
	case "programming-latency":
		return "Network programming latency per phase (trigger to rules in place on a node, as kube-proxy measures it): p50 to max, with the p99 marked."
	case SliceLayoutName:
		return "How the EndpointSlices are laid out over time: how many, and endpoints per slice (min, median, max)."
	}
	return c.Title + "."
}

// RunHeadline is the one-sentence answer of a run: what the whole run fanned out with each
// mode and their ratio, and the phase where the two differ most, in either direction.
func RunHeadline(s *Summary) string {
	e, sl := s.Total.Endpoints, s.Total.EndpointSlices
	switch {
	case e != nil && sl != nil:
		r, ok := ratio(e.FanoutBytes, sl.FanoutBytes)
		if !ok {
			return fmt.Sprintf("Over the whole run, legacy Endpoints fan out %s to watchers and EndpointSlices nothing.", FormatBytes(e.FanoutBytes))
		}
		h := fmt.Sprintf("Over the whole run, legacy Endpoints fan out %s to watchers and EndpointSlices %s: %s as many bytes with Endpoints.",
			FormatBytes(e.FanoutBytes), FormatBytes(sl.FanoutBytes), FormatRatio(r, true))
		if best := widestGap(s, fanoutBytes); best >= 0 && len(s.Phases) > 1 {
			p := &s.Phases[best]
			if f := gapFactor(p.Endpoints.FanoutBytes, p.EndpointSlices.FanoutBytes); f >= 1.05 {
				h += fmt.Sprintf(" The gap is widest in phase %s: %s.", mdCode(p.Name), gapSentence(p))
			}
		}
		return h
	case e != nil:
		return fmt.Sprintf("Over the whole run, legacy Endpoints fan out %s to watchers (EndpointSlices did not run).", FormatBytes(e.FanoutBytes))
	case sl != nil:
		return fmt.Sprintf("Over the whole run, EndpointSlices fan out %s to watchers (legacy Endpoints did not run).", FormatBytes(sl.FanoutBytes))
	}
	return "Nothing ran."
}

// pair formats one figure of both modes as "E / S", or the one mode that ran.
func pair(p *PhaseSummary, modes []sim.Mode, f func(m *ModeSummary) string) string {
	var parts []string
	for _, m := range modes {
		if ms := p.Mode(m); ms != nil {
			parts = append(parts, f(ms))
		}
	}
	return strings.Join(parts, " / ")
}

// runDoc builds the blocks of the run report.
func (r *RunReport) runDoc() []block {
	var doc []block
	h := func(level int, text string) { doc = append(doc, block{kind: blockHeading, level: level, text: text}) }
	para := func(format string, args ...any) {
		doc = append(doc, block{kind: blockPara, text: fmt.Sprintf(format, args...)})
	}
	list := func(items []string) { doc = append(doc, block{kind: blockList, items: items}) }
	s, cfg := r.Summary, r.Config

	services := 0
	for _, sv := range cfg.Services {
		services += max(1, sv.Count)
	}
	what := "Scenario " + mdCode(r.File)
	if rp := r.Replay; rp != nil {
		h(1, "Replay report: "+mdText(rp.Pods))
		services, what = rp.Services, "Replay of "+mdCode(rp.Pods)
	} else {
		h(1, "Run report: "+mdText(s.Scenario))
	}
	// The watchers as the table says them: the most per write, and at the end when fewer.
	para("%s, seed %d: %s, %s, %s, %s; the last API write at %s of virtual time, everything delivered by %s. Bytes are in SI units (1 KB = 1000 B).",
		what, s.Seed, plural(s.Nodes, "node"), plural(services, "Service"), watchersText(s, &s.Total),
		plural(len(s.Phases), "phase"), FormatSeconds(s.LastWriteSeconds), FormatSeconds(max(s.Total.EndSeconds, s.EndTimeSeconds)))
	if rp := r.Replay; rp != nil {
		para("%s", replayTiming(rp))
	}

	h(2, "Headline")
	para("%s", RunHeadline(s))
	var warnings []string
	for _, p := range s.Phases {
		for _, m := range s.Modes {
			ms := p.Mode(m)
			if ms == nil {
				continue
			}
			if ms.FailedWrites > 0 {
				warnings = append(warnings, fmt.Sprintf("Phase %s: %s (objects over the etcd request limit).", mdCode(p.Name),
					counted(ms.FailedWrites, modeTitle(m)+" write failed", modeTitle(m)+" writes failed")))
			}
			if ms.WithinSLO != nil && !*ms.WithinSLO {
				warnings = append(warnings, fmt.Sprintf("Phase %s: %s propagation p99 %s misses the %s SLO.", mdCode(p.Name), modeTitle(m), FormatSeconds(ms.Propagation.P99Seconds), FormatSeconds(s.SLOSeconds)))
			}
		}
	}
	for i := range s.Phases {
		if w := PendingNote(&s.Phases[i]); w != "" {
			warnings = append(warnings, fmt.Sprintf("Phase %s: %s.", mdCode(s.Phases[i].Name), w))
		}
	}
	if w := resentWarning(s); w != "" {
		warnings = append(warnings, w)
	}
	if t := s.Total.Endpoints; t != nil && t.HiddenAddresses > 0 {
		warnings = append(warnings, fmt.Sprintf("Truncation at 1000 addresses left up to %s addresses out of an Endpoints object: those bytes are not counted, and an Endpoints consumer would not see those endpoints.", formatCount(t.HiddenAddresses)))
	}
	for i := range s.Phases {
		if w := truncationFlatters(&s.Phases[i]); w != "" {
			warnings = append(warnings, w)
		}
	}
	if len(warnings) > 0 {
		list(warnings)
	}

	if rp := r.Replay; rp != nil {
		doc = append(doc, replayBlocks(rp)...)
	}

	h(2, "Phases")
	modes := s.Modes
	var names []string
	for _, m := range modes {
		names = append(names, modeTitle(m))
	}
	both := len(modes) == 2
	head := []string{"phase", "time", "API writes", "bytes fanned out", "largest object", "propagation p99"}
	if both {
		head = append(head[:4], append([]string{"ratio"}, head[4:]...)...)
	}
	rows := [][]string{head}
	add := func(name string, p *PhaseSummary) {
		row := []string{name, FormatSeconds(p.StartSeconds) + " → " + FormatSeconds(p.EndSeconds),
			pair(p, modes, func(m *ModeSummary) string { return formatCount(m.Writes.Total) }),
			pair(p, modes, func(m *ModeSummary) string { return FormatBytes(m.FanoutBytes) })}
		if both {
			row = append(row, FormatRatio(deref(p.Ratio.FanoutBytes), p.Ratio.FanoutBytes != nil))
		}
		row = append(row, pair(p, modes, func(m *ModeSummary) string { return FormatBytes(m.MaxObjectBytes) }),
			pair(p, modes, func(m *ModeSummary) string { return formatLatency(m.Propagation, m.Propagation.P99Seconds) }))
		rows = append(rows, row)
	}
	for i := range s.Phases {
		add(mdCode(s.Phases[i].Name), &s.Phases[i])
	}
	add("total", &s.Total)
	if both {
		para("Each cell is %s; the ratio is that of bytes fanned out. summary.json has every figure.", strings.Join(names, " / "))
	} else if len(names) == 1 {
		para("Each cell is the %s figure (the other mode did not run). summary.json has every figure.", names[0])
	}
	doc = append(doc, block{kind: blockTable, rows: rows})

	if len(s.Services) > 1 {
		top := TopServicesByBytes(s, TopServices)
		h(2, "Services")
		together := ""
		if both {
			together = " (both modes together)"
		}
		if len(top) < len(s.Services) {
			para("The %d of %s that fanned out the most bytes over the whole run%s; summary.json lists every one.", len(top), plural(len(s.Services), "Service"), together)
		} else {
			para("Every Service, by bytes fanned out over the whole run%s.", together)
		}
		rows := [][]string{{"Service", "writes", "bytes fanned out"}}
		if both {
			rows[0] = append(rows[0], "ratio")
		}
		rows[0] = append(rows[0], "largest object", "propagation p99")
		for _, sv := range top {
			sp := func(f func(m *ServiceModeSummary) string) string {
				var parts []string
				for _, m := range modes {
					parts = append(parts, f(sv.Mode(m)))
				}
				return strings.Join(parts, " / ")
			}
			row := []string{mdCode(sv.Namespace + "/" + sv.Name),
				sp(func(m *ServiceModeSummary) string { return formatCount(m.Writes) }),
				sp(func(m *ServiceModeSummary) string { return FormatBytes(m.FanoutBytes) })}
			if both {
				r, ok := ratio(sv.Endpoints.FanoutBytes, sv.EndpointSlices.FanoutBytes)
				row = append(row, FormatRatio(r, ok))
			}
			row = append(row, sp(func(m *ServiceModeSummary) string { return FormatBytes(m.MaxObjectBytes) }),
				sp(func(m *ServiceModeSummary) string { return FormatSeconds(m.PropagationP99Seconds) }))
			rows = append(rows, row)
		}
		doc = append(doc, block{kind: blockTable, rows: rows})
	}

	if len(r.Charts) > 0 {
		h(2, "Charts")
		for _, c := range r.Charts {
			doc = append(doc, block{kind: blockChart, chart: c, text: runChartCaption(c, bothModes(s))})
		}
	}

	h(2, "Assumptions in force")
	para("What this run assumed; each names the scenario fields (in parentheses) you can change with `--set`.")
	list(assumptions(cfg, r.Replay != nil))

	h(2, "What to change next")
	list(r.nextSteps())
	return doc
}

// onOff formats a switch.
func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// bandwidth formats a bandwidth in bit/s, 0 being unlimited.
func bandwidth(bitsPerSec float64) string {
	if bitsPerSec <= 0 {
		return "unlimited"
	}
	return formatBits(int64(bitsPerSec))
}

// distributionText formats a delay distribution.
func distributionText(d sim.Distribution) string {
	switch d.Kind {
	case sim.DistUniform:
		return fmt.Sprintf("uniform %s..%s", d.Min, d.Max)
	case sim.DistLognormal:
		return fmt.Sprintf("lognormal, median %s, p99 %s", d.Median, d.P99)
	case sim.DistExponential:
		return fmt.Sprintf("exponential, mean %s", d.Mean)
	}
	return d.Value.String()
}

// assumptions lists the settings of cfg that decide the figures; replay says the pod churn
// was recorded, not made by the workload controllers.
func assumptions(cfg *sim.Config, replay bool) []string {
	cp, api, net := &cfg.ControlPlane, &cfg.APIServer, &cfg.Network
	lag := cp.InformerLag
	if lag == 0 {
		lag = 20 * time.Millisecond
	}
	truncation := "off: Endpoints objects carry every address, as before Kubernetes 1.22"
	if cp.EndpointsTruncation {
		truncation = "on: an Endpoints object keeps at most 1000 addresses (upstream since 1.22), so its bytes stop growing there"
	}
	out := []string{
		fmt.Sprintf("Endpoints truncation %s (`controlPlane.endpointsTruncation`).", truncation),
		fmt.Sprintf("At most %s per EndpointSlice (`controlPlane.maxEndpointsPerSlice`).", plural(cp.MaxEndpointsPerSlice, "endpoint")),
	}
	for _, c := range []struct {
		name, path string
		cc         *sim.ControllerConfig
	}{{"EndpointSlice", "controlPlane.endpointSlice", &cp.EndpointSlice}, {"Endpoints", "controlPlane.endpoints", &cp.Endpoints}} {
		out = append(out, fmt.Sprintf("%s controller: batch period %s, %s, %g QPS (burst %d), API calls take %s (`%s.batchPeriod`, `.workers`, `.qps`, `.burst`, `.apiLatency`).",
			c.name, c.cc.BatchPeriod, plural(c.cc.Workers, "worker"), c.cc.QPS, c.cc.Burst, distributionText(c.cc.APILatency), c.path))
	}
	if replay {
		out = append(out, "Pod churn as recorded (`--pods`): the workload controllers and the scheduler are not simulated, and `controlPlane.workloads` is not used.")
	} else {
		out = append(out, workloadsText(&cp.Workloads))
	}
	out = append(out,
		fmt.Sprintf("Informer lag %s: a sync sooner than that after the controller's own write finds its cache stale and backs off (`controlPlane.informerLag`).", lag),
		fmt.Sprintf("A sync takes %s per pod of the Service with Endpoints (building its address list) and %s with EndpointSlices (reconciling them) before it writes (`controlPlane.endpointsBuildPerPod`, `.endpointSliceSyncPerPod`).",
			orDefault(cp.EndpointsBuildPerPod, 10*time.Microsecond), orDefault(cp.EndpointSliceSyncPerPod, 15*time.Microsecond)),
		fmt.Sprintf("Each pod event waits on the controller's pod queue, whose workers (as many as its Service workers) take %s per Service of the pod's namespace to find its Services before they are queued (`controlPlane.podMapPerService`).",
			orDefault(cp.PodMapPerService, 200*time.Nanosecond)),
		fmt.Sprintf("kube-proxy watches in %s (`apiServer.kubeProxyEncoding`); %s (`apiServer.watchers`).", api.KubeProxyEncoding, counted(int64(len(api.Watchers)), "extra watcher group", "extra watcher groups")),
		fmt.Sprintf("%s, objects over %s rejected (`apiServer.replicas`, `apiServer.objectSizeLimit`).", plural(max(1, api.Replicas), "API server"), formatLimitBytes(api.ObjectSizeLimitBytes)),
	)
	if net.Enabled {
		out = append(out, fmt.Sprintf("Network model on: API server egress %s each, node ingress %s, transport framing %s; latencies include the time to send the bytes (`network.*`, `apiServer.egressBandwidth`).",
			bandwidth(api.EgressBitsPerSec), bandwidth(net.NodeIngressBitsPerSec), onOff(net.TransportOverhead)))
	} else {
		out = append(out, "Network model off: bandwidth is unlimited, so propagation latency is the controllers' and API calls' delays only (`network.enabled`).")
	}
	if kp := cfg.KubeProxy; kp.Mode != "" {
		// The terms of the engine's sync cost (sim/kubeproxy.go): the walk over every
		// Service port when it has a cost, and the rules generated, which nftables'
		// partial sync limits to the changed Services.
		walk := ""
		if kp.Costs.WalkNanosPerServicePort > 0 {
			walk = fmt.Sprintf(" + %.0f ns per Service port walked", kp.Costs.WalkNanosPerServicePort)
		}
		generated := "per rule of every Service"
		if kp.Mode == sim.KubeProxyNFTables {
			generated = "per rule generated (a partial sync: the changed Services' only)"
		}
		out = append(out, fmt.Sprintf("kube-proxy in %s mode: minSyncPeriod %s, syncPeriod %s, %g CPU; a sync costs %s%s + %.0f ns %s + %.0f ns per rule written, decoding %g ns per protobuf byte (`kubeProxy.*`; README \"kube-proxy\" for the sources).",
			kp.Mode, kp.MinSyncPeriod, kp.SyncPeriod, kp.CPU, kp.Costs.SyncBase, walk, kp.Costs.GenerateNanosPerRule, generated, kp.Costs.WriteNanosPerRule, kp.Costs.DecodeProtobufNanosPerByte))
	}
	out = append(out, fmt.Sprintf("Propagation and network programming SLO: p99 within %s (`slo`).", cfg.SLO))
	return out
}

// qpsText formats a client rate limit, 0 QPS being unlimited.
func qpsText(qps float64, burst int) string {
	if qps <= 0 {
		return "no client rate limit"
	}
	return fmt.Sprintf("%g QPS (burst %d)", qps, burst)
}

// workloadsText says how fast the workload controllers and the scheduler make pod churn.
func workloadsText(w *sim.WorkloadsConfig) string {
	burst := w.BurstReplicas
	if burst == 0 {
		burst = 500
	}
	t := fmt.Sprintf("Pod churn at the workload controllers' pace: ReplicaSet controller %s, %s; Deployment controller %s, %s; scheduler bindings %s; at most %s per ReplicaSet sync",
		plural(w.ReplicaSet.Workers, "worker"), qpsText(w.ReplicaSet.QPS, w.ReplicaSet.Burst), plural(w.Deployment.Workers, "worker"), qpsText(w.Deployment.QPS, w.Deployment.Burst),
		qpsText(w.SchedulerQPS, w.SchedulerBurst), plural(burst, "pod"))
	if w.PodCreateFailureRate > 0 {
		t += fmt.Sprintf("; %g%% of pod creates fail", w.PodCreateFailureRate*100)
	}
	return t + " (`controlPlane.workloads`)."
}

// nextSteps suggests what to try after this run.
func (r *RunReport) nextSteps() []string {
	s, cfg := r.Summary, r.Config
	command := "sim run " + ShellWord(r.File)
	if r.Replay != nil {
		words := make([]string, len(r.Replay.Command))
		for i, w := range r.Replay.Command {
			words[i] = ShellWord(w)
		}
		command = strings.Join(words, " ")
	}
	// overrides repeats the run's flags; otherSize all but its own slice size.
	var overrides, otherSize string
	for i := 0; i+1 < len(r.Overrides); i += 2 {
		flag, value := r.Overrides[i], r.Overrides[i+1]
		arg := " " + flag + " " + ShellWord(value)
		overrides += arg
		if flag != "--set" || !strings.HasPrefix(value, "controlPlane.maxEndpointsPerSlice=") {
			otherSize += arg
		}
	}
	var out []string
	size := 500
	if cfg.ControlPlane.MaxEndpointsPerSlice >= 500 {
		size = 100
	}
	out = append(out, fmt.Sprintf("Another slice size: %s, then `sim diff` this directory with `results/b`.",
		mdCode(fmt.Sprintf("%s%s --set controlPlane.maxEndpointsPerSlice=%d --out results/b", command, otherSize, size))))
	if cfg.ControlPlane.EndpointsTruncation {
		hidden := ""
		if t := s.Total.Endpoints; t != nil && t.HiddenAddresses > 0 {
			hidden = fmt.Sprintf(" (it hid up to %s here)", counted(t.HiddenAddresses, "address", "addresses"))
		}
		out = append(out, fmt.Sprintf("The full cost of Endpoints without truncation%s: `--set controlPlane.endpointsTruncation=false`.", hidden))
	}
	if !cfg.Network.Enabled {
		out = append(out, "Latencies that include bandwidth: `--set network.enabled=true` (the API server egress and node ingress bandwidths then apply).")
	}
	bp := cfg.ControlPlane.EndpointSlice.BatchPeriod
	longer := 2 * bp
	if bp == 0 {
		longer = time.Second
	}
	out = append(out, fmt.Sprintf("Fewer, larger writes: a longer EndpointSlice batch period, e.g. `--set controlPlane.endpointSlice.batchPeriod=%s` (now %s).", longer, bp))
	if rp := r.Replay; rp != nil {
		if !rp.RecordedTimes {
			out = append(out, "Exact event times: record the churn with `sim record` (`kubectl get pods -A --watch --output-watch-events -o json | sim record --out trace.jsonl`) and replay the trace.")
		}
		if rp.Compared == nil {
			out = append(out, "How close the simulated EndpointSlice writes come to the cluster's own: record its slices beside the pods and replay with `--endpointslices` (see `sim help replay`).")
		}
		out = append(out, "Every slice size for this cluster's Services at once: `sim import` them into a scenario, then `sim plan` over `controlPlane.maxEndpointsPerSlice` (see `sim help import`, `sim help plan`).")
		out = append(out, "Replay with the same settings, or changed ones: `effective-scenario.yaml` beside this report holds the settings this replay ran with, every default and override applied, for `--scenario`; `sim diff` of two replays' directories says which of them they differ in.")
		return out
	}
	out = append(out, "Every slice size for your own Services at once: `sim plan` over `controlPlane.maxEndpointsPerSlice` (see `sim help plan`).")
	file := ShellWord(r.File)
	out = append(out, fmt.Sprintf("Guard the figures in CI: %s once, then %s.",
		mdCode("sim check "+file+overrides+" --baseline-dir baselines --update-baseline"), mdCode("sim check "+file+overrides+" --baseline-dir baselines")))
	out = append(out, "Repeat this run, or change it: `effective-scenario.yaml` beside this report is its scenario as it ran, every default and override applied, to `sim run` or edit; `sim diff` of two runs' directories says which of its settings they differ in.")
	return out
}

// replayTiming says where a replay's event times came from and how its controllers started.
func replayTiming(rp *ReplaySource) string {
	t := "Event times are the recording's arrival times (a `sim record` trace)."
	if !rp.RecordedTimes {
		t = "Event times come from the pods' own timestamps (a kubectl stream: second precision, the events of each second spread evenly across it), which keeps write counts within ±25% of a recording with arrival times."
	}
	if rp.Warm {
		return t + " The controllers were running when the recording began (`--start warm`): their first syncs ran in phase `start-up`, so phase `replay` is what the churn cost, and the total includes the start-up."
	}
	return t + " The controllers start with the recording (`--start cold`, as after a restart of kube-controller-manager): the churn may queue behind their first syncs."
}

// replayBlocks is the report's section on what a replay read and, with --endpointslices,
// how the simulated slice writes compare with the cluster's.
func replayBlocks(rp *ReplaySource) []block {
	nodesFrom := ""
	if rp.NodesFromPods {
		nodesFrom = " (those the pods name, without zones: no `--nodes`)"
	}
	rows := [][]string{{"read", "count"}}
	for _, f := range rp.Read {
		rows = append(rows, []string{mdText(f[0]), mdText(f[1])})
	}
	doc := []block{
		{kind: blockHeading, level: 2, text: "Replay"},
		{kind: blockPara, text: fmt.Sprintf("What the replay read of %s: %s replayed on %s%s.", mdCode(rp.Pods), plural(rp.Services, "Service"), plural(rp.Nodes, "node"), nodesFrom)},
		{kind: blockTable, rows: rows},
	}
	if c := rp.Compared; c != nil {
		head := make([]string, len(c.Head))
		for i, h := range c.Head {
			head[i] = mdText(h)
		}
		rows := [][]string{head}
		for _, row := range c.Rows {
			cells := make([]string, len(row))
			for i, cell := range row {
				cells[i] = mdText(cell)
			}
			if len(cells) > 0 && len(row[0]) > 0 && row[0][0] != '(' && row[0] != "total" {
				cells[0] = mdCode(row[0])
			}
			rows = append(rows, cells)
		}
		doc = append(doc, block{kind: blockPara, text: mdText(c.Title)}, block{kind: blockTable, rows: rows})
		if len(c.Notes) > 0 {
			notes := make([]string, len(c.Notes))
			for i, n := range c.Notes {
				notes[i] = mdText(n)
			}
			doc = append(doc, block{kind: blockList, items: notes})
		}
	}
	return doc
}

// ShellWord quotes a for a POSIX shell when it holds anything but letters, digits and
// -_.,=/:@+% ("services[0].replicas=5" would glob; the report's commands are to be pasted).
func ShellWord(a string) string {
	if a == "" {
		return "''"
	}
	for _, c := range a {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.,=/:@+%", c)) {
			return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return a
}

// WriteRunMarkdown writes the run report as Markdown; charts are linked as NAME.png beside
// it.
func WriteRunMarkdown(w io.Writer, r *RunReport) error {
	return writeBlocksMarkdown(w, r.runDoc())
}

// WriteRunHTML writes the run report as one self-contained HTML page: the charts are
// embedded as PNG data URIs, and nothing is loaded from elsewhere.
func WriteRunHTML(w io.Writer, r *RunReport) error {
	png := r.PNG
	if png == nil {
		png = func(c *Chart) ([]byte, error) {
			var b strings.Builder
			err := c.Render(&b, "png")
			return []byte(b.String()), err
		}
	}
	return writeBlocksHTML(w, "Run report: "+r.Summary.Scenario, r.runDoc(), func(c *Chart) (string, []byte, error) {
		data, err := png(c)
		return "image/png", data, err
	})
}

// truncationFlatters explains a phase in which Endpoints fanned out fewer bytes than
// EndpointSlices while some of its objects were truncated: the truncated objects carried at
// most 1000 addresses where the slices carried every endpoint, so the comparison favours
// Endpoints. (A change that touches every slice, such as a zone going not-ready, costs the
// slices about what it costs one whole Endpoints object.) It returns "" otherwise.
func truncationFlatters(p *PhaseSummary) string {
	e := p.Endpoints
	if e == nil || p.Ratio == nil || p.Ratio.FanoutBytes == nil || *p.Ratio.FanoutBytes >= 1 || e.TruncatedObjects == 0 {
		return ""
	}
	return fmt.Sprintf("Phase %s: Endpoints fanned out less than EndpointSlices (%s), but %s of its writes were truncated at 1000 addresses (up to %s left out of one) while the slices carried every endpoint: without truncation (`--set controlPlane.endpointsTruncation=false`) the Endpoints figure is higher.",
		mdCode(p.Name), FormatRatio(*p.Ratio.FanoutBytes, true), formatCount(e.TruncatedObjects), formatCount(e.HiddenAddresses))
}

// orDefault is d, or def when d is 0 (the simulator's default for an unset duration).
func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// resentWarning says, when watchers were sent bytes beyond the live events (relists,
// the events a node back from a failure missed), how many per mode: the bytes fanned out
// leave them out.
func resentWarning(s *Summary) string {
	var parts []string
	for _, m := range s.Modes {
		t := s.Total.Mode(m)
		if t == nil || t.ResentBytes == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s with %s (%s)", FormatBytes(t.ResentBytes), modeTitle(m), plural(int(t.Relists), "relist")))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Beyond the bytes fanned out, watchers were sent " + strings.Join(parts, " and ") + " again: everything the watchers that relisted watch (gzipped, as the API server sends a relist), and the events kube-proxies of nodes back from a failure missed."
}
