package reports

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"epsim/sim"
)

// fixtureConfig is a configuration like the defaults, with truncation on, so the report's
// assumptions and suggestions have something to say about it.
func fixtureConfig() *sim.Config {
	ctl := sim.ControllerConfig{Workers: 5, QPS: 20, Burst: 30, APILatency: sim.Fixed(5 * time.Millisecond)}
	slices := ctl
	slices.BatchPeriod = time.Second
	return &sim.Config{
		Name: "5000-nodes", Seed: 1,
		Cluster: sim.ClusterConfig{Nodes: 5000},
		ControlPlane: sim.ControlPlaneConfig{EndpointSlice: slices, Endpoints: ctl, MaxEndpointsPerSlice: 100,
			EndpointsTruncation: true, InformerLag: 20 * time.Millisecond,
			Workloads: sim.WorkloadsConfig{ReplicaSet: ctl, Deployment: ctl, SchedulerQPS: 50, SchedulerBurst: 100}},
		APIServer: sim.APIServerConfig{Replicas: 3, KubeProxyEncoding: sim.EncodingProtobuf, ObjectSizeLimitBytes: 1572864, EgressBitsPerSec: 10e9},
		Network:   sim.NetworkConfig{Enabled: true, NodeIngressBitsPerSec: 1e9, TransportOverhead: true},
		Services:  []sim.ServiceConfig{{Name: "web", Replicas: 10000}, {Name: "api", Count: 3, Replicas: 10}},
		SLO:       30 * time.Second,
	}
}

func fixtureRunReport(t *testing.T, charts bool) *RunReport {
	t.Helper()
	res := fixtureResults()
	s := NewSummary(res, nil)
	r := &RunReport{File: "scenarios/5000-nodes.yaml", Summary: s, Config: fixtureConfig()}
	if charts {
		all, err := Charts(s, res.Series, res.Layout)
		if err != nil {
			t.Fatal(err)
		}
		r.Charts = all
	}
	return r
}

// TestRunReportMarkdown is the golden report of the fixture run: headline, phase table,
// charts in the order Charts lists them, assumptions and next steps.
func TestRunReportMarkdown(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteRunMarkdown(&buf, fixtureRunReport(t, true)); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "run-report.golden", buf.Bytes())
}

// TestRunReportSaysWhatRan checks the report's content against the summary it is built
// from, so that the golden file is not the only guard.
func TestRunReportSaysWhatRan(t *testing.T) {
	r := fixtureRunReport(t, true)
	var buf bytes.Buffer
	if err := WriteRunMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	tot := r.Summary.Total
	for _, want := range []string{
		FormatBytes(tot.Endpoints.FanoutBytes), FormatBytes(tot.EndpointSlices.FanoutBytes),
		FormatRatio(*tot.Ratio.FanoutBytes, true),
		"4 Services", "truncation on", "`--set controlPlane.endpointsTruncation=false`",
		"batch period 1s", "3 API servers",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Every phase has a row; every chart is shown, in order.
	for _, p := range r.Summary.Phases {
		if !strings.Contains(md, "| `"+p.Name+"` |") {
			t.Errorf("phase table lacks %s", p.Name)
		}
	}
	last := -1
	for _, c := range r.Charts {
		i := strings.Index(md, "]("+c.Name+".png)")
		if i < 0 || i < last {
			t.Errorf("chart %s missing or out of order", c.Name)
		}
		last = i
	}

	// Without charts there are none to link.
	buf.Reset()
	if err := WriteRunMarkdown(&buf, fixtureRunReport(t, false)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), ".png") || strings.Contains(buf.String(), "## Charts") {
		t.Errorf("report without charts links some:\n%s", buf.String())
	}
}

// externalRef finds anything a browser would fetch: src or href attributes, CSS url() and
// @import, that is not a data: URI or a fragment.
var externalRef = regexp.MustCompile(`(?i)(?:src|href)\s*=\s*"(?:[^"d#]|d[^a]|da[^t])|url\(\s*['"]?(?:[^'"d]|d[^a])|@import|<link|<script`)

// TestRunReportHTMLSelfContained: report.html loads nothing from elsewhere; every chart is
// an embedded PNG.
func TestRunReportHTMLSelfContained(t *testing.T) {
	r := fixtureRunReport(t, true)
	var buf bytes.Buffer
	if err := WriteRunHTML(&buf, r); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if m := externalRef.FindString(page); m != "" {
		t.Errorf("report.html refers to something outside itself: %q", m)
	}
	if n := strings.Count(page, `src="data:image/png;base64,iVBORw0KGgo`); n != len(r.Charts) {
		t.Errorf("%d embedded PNGs, want %d (one per chart)", n, len(r.Charts))
	}
	// The matcher itself finds what it must.
	for _, bad := range []string{`<img src="chart.png">`, `<a href="https://x">`, `background: url(x.png)`, `<link rel="stylesheet" href="s.css">`} {
		if !externalRef.MatchString(bad) {
			t.Errorf("externalRef misses %q", bad)
		}
	}
}

func TestRunHeadline(t *testing.T) {
	s := NewSummary(fixtureResults(), nil)
	h := RunHeadline(s)
	if !strings.Contains(h, FormatRatio(*s.Total.Ratio.FanoutBytes, true)) || !strings.Contains(h, "widest in phase") {
		t.Errorf("headline %q lacks the ratio or the widest phase", h)
	}
	one := NewSummary(fixtureResults(), []sim.Mode{sim.ModeEndpointSlices})
	if h := RunHeadline(one); !strings.Contains(h, "Endpoints did not run") {
		t.Errorf("one-mode headline %q", h)
	}
}

// TestRunReportTruncationFlatters: a phase where Endpoints cost less than EndpointSlices
// while truncating gets a warning saying so; one that did not truncate, or cost more, does
// not.
func TestRunReportTruncationFlatters(t *testing.T) {
	r := fixtureRunReport(t, false)
	p := &r.Summary.Phases[0]
	low := 0.7
	p.Ratio.FanoutBytes = &low
	p.Endpoints.TruncatedObjects, p.Endpoints.HiddenAddresses = 20, 2000
	var buf bytes.Buffer
	if err := WriteRunMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	want := "Phase `" + p.Name + "`: Endpoints fanned out less than EndpointSlices (0.70×), but 20 of its writes were truncated at 1000 addresses (up to 2,000 left out of one)"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, buf.String())
	}
	for _, tc := range []struct {
		ratio     float64
		truncated int64
	}{{0.7, 0}, {1.2, 20}} {
		p.Ratio.FanoutBytes, p.Endpoints.TruncatedObjects = &tc.ratio, tc.truncated
		if w := truncationFlatters(p); w != "" {
			t.Errorf("ratio %v, %d truncated: warned %q", tc.ratio, tc.truncated, w)
		}
	}
}

// TestRunReportSaysWhatWasSentAgain: bytes sent beyond the live events (relists, a node's
// missed events) are not in the bytes fanned out, and the headline says how many, per mode;
// a run without any says nothing.
func TestRunReportSaysWhatWasSentAgain(t *testing.T) {
	r := fixtureRunReport(t, false)
	if w := resentWarning(r.Summary); w != "" {
		t.Errorf("a run that sent nothing again warns %q", w)
	}
	r.Summary.Total.EndpointSlices.ResentBytes, r.Summary.Total.EndpointSlices.Relists = 2_500_000_000, 3
	var buf bytes.Buffer
	if err := WriteRunMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	want := "Beyond the bytes fanned out, watchers were sent 2.5 GB with EndpointSlices (3 relists) again"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, buf.String())
	}
}

// TestRunReportWatchersAsTheTable: when nodes fail, the writes went to more watchers than
// there are at the end; the report's first paragraph says both, as the table's header
// does, not the count at the end as if it were every write's (zone-outage.yaml).
func TestRunReportWatchersAsTheTable(t *testing.T) {
	r := fixtureRunReport(t, false)
	s := r.Summary
	s.Watchers = 1000
	s.Total.Endpoints.Watchers, s.Total.EndpointSlices.Watchers = 1500, 1500
	var md, table bytes.Buffer
	if err := WriteRunMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&table, s); err != nil {
		t.Fatal(err)
	}
	const want = "1,500 watchers per write at most, 1,000 at the end"
	if !strings.Contains(table.String(), want) {
		t.Fatalf("the table lacks %q: the test's premise is wrong\n%s", want, table.String())
	}
	if first := strings.SplitN(md.String(), "\n\n", 3)[1]; !strings.Contains(first, want) {
		t.Errorf("report's first paragraph lacks %q:\n%s", want, first)
	}
}

// The report's kube-proxy assumption states the cost model the engine runs: with nftables,
// a sync also walks every Service port (12000 ns each by default, most of a partial sync's
// cost) and generates only the changed Services' rules; it read "923 ns per rule of every
// Service" and left the walk out. iptables keeps its line.
func TestAssumptionsKubeProxyCostTerms(t *testing.T) {
	line := func(mode sim.KubeProxyMode) string {
		cfg := fixtureConfig()
		cfg.KubeProxy = sim.DefaultKubeProxy(mode)
		for _, a := range assumptions(cfg, false) {
			if strings.HasPrefix(a, "kube-proxy in ") {
				return a
			}
		}
		t.Fatalf("%s: no kube-proxy assumption", mode)
		return ""
	}
	nft := line(sim.KubeProxyNFTables)
	for _, want := range []string{"10ms + 12000 ns per Service port walked + 923 ns per rule generated (a partial sync: the changed Services' only) + 18351 ns per rule written"} {
		if !strings.Contains(nft, want) {
			t.Errorf("nftables: %q\nwant it to contain %q", nft, want)
		}
	}
	ipt := line(sim.KubeProxyIPTables)
	if want := "10ms + 16770 ns per rule of every Service + 18351 ns per rule written"; !strings.Contains(ipt, want) {
		t.Errorf("iptables: %q\nwant it to contain %q", ipt, want)
	}
}

// The commands the report suggests repeat the run's --set and --seed flags (quoted for the
// shell where needed): without them, "Guard the figures in CI" wrote a baseline of the
// scenario as filed, not of the 500-per-slice run the report described. The other slice
// size's command replaces the run's own.
func TestRunReportNextStepsKeepOverrides(t *testing.T) {
	r := fixtureRunReport(t, false)
	r.Config.ControlPlane.MaxEndpointsPerSlice = 500
	r.Overrides = []string{"--set", "controlPlane.maxEndpointsPerSlice=500", "--set", "services[0].replicas=500", "--seed", "7"}
	steps := strings.Join(r.nextSteps(), "\n")
	for _, want := range []string{
		"`sim run scenarios/5000-nodes.yaml --set 'services[0].replicas=500' --seed 7 --set controlPlane.maxEndpointsPerSlice=100 --out results/b`",
		"`sim check scenarios/5000-nodes.yaml --set controlPlane.maxEndpointsPerSlice=500 --set 'services[0].replicas=500' --seed 7 --baseline-dir baselines --update-baseline`",
		"`sim check scenarios/5000-nodes.yaml --set controlPlane.maxEndpointsPerSlice=500 --set 'services[0].replicas=500' --seed 7 --baseline-dir baselines`.",
	} {
		if !strings.Contains(steps, want) {
			t.Errorf("next steps:\n%s\nwant %s", steps, want)
		}
	}
}

// A run of one node, one endpoint per slice and one worker a controller is said as such:
// the table's and the report's headers, the slice-layout title and the assumptions wrote
// "1 nodes", "1 endpoints per EndpointSlice", "1 workers".
func TestRunReportCountsOne(t *testing.T) {
	r := fixtureRunReport(t, false)
	r.Summary.Nodes = 1
	r.Config.ControlPlane.MaxEndpointsPerSlice = 1
	r.Config.ControlPlane.Endpoints.Workers = 1
	r.Config.ControlPlane.Workloads.ReplicaSet.Workers = 1
	r.Config.ControlPlane.Workloads.BurstReplicas = 1
	r.Config.APIServer.Watchers = []sim.WatcherConfig{{Name: "coredns", Count: 2}}
	r.Summary.Phases[0].Endpoints.FailedWrites = 1
	var md, table bytes.Buffer
	if err := WriteRunMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&table, r.Summary); err != nil {
		t.Fatal(err)
	}
	res := fixtureResults()
	res.Layout = []sim.LayoutSample{{Slices: 1, Endpoints: 1, Min: 1, Median: 1, Max: 1}}
	charts, err := Charts(r.Summary, res.Series, res.Layout)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, c := range charts {
		titles = append(titles, c.Title, c.Subtitle)
	}
	text := md.String() + table.String() + strings.Join(titles, "\n")
	for _, want := range []string{"seed 42: 1 node,", "At most 1 endpoint per EndpointSlice", "batch period 0s, 1 worker,",
		"ReplicaSet controller 1 worker,", "at most 1 pod per ReplicaSet sync", "every slice holds 1 endpoint", "; 1 extra watcher group (", ": 1 Endpoints write failed (objects over"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	if m := regexp.MustCompile(`\b1 (nodes|endpoints|workers|pods|watchers)\b`).FindString(text); m != "" {
		t.Errorf("%q in\n%s", m, text)
	}
}

// A plan of one grid point says "1 grid point" in its report and chart subtitles.
func TestPlanReportCountsOne(t *testing.T) {
	r := fixturePlan()
	r.Plan.GridPoints = 1
	var buf bytes.Buffer
	if err := WritePlanMarkdown(&buf, r, nil); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "; 1 grid point:") || strings.Contains(out, "1 grid points") {
		t.Errorf("plan report of one point:\n%s", out)
	}
}
