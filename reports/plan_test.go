package reports

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"epsim/sim"
)

// fixturePlan is a 2×2 plan (endpoints per service × maxEndpointsPerSlice) built from the
// hand-made fixture run, scaled per point, plus one failed point: the tests check the
// analysis and rendering, not the engine.
func fixturePlan() *PlanResults {
	r := &PlanResults{Format: PlanFormat, Shards: 1, Plan: PlanSpec{
		Name: "fixture", File: "plans/fixture.yaml", Scenario: "5000-nodes",
		Axes: []PlanAxis{
			{Name: "replicas", Paths: []string{"services[0].replicas"}, Values: []string{"1000", "10000"}},
			{Name: "perSlice", Paths: []string{"controlPlane.maxEndpointsPerSlice"}, Values: []string{"100", "500", "1000"}},
		},
		Churn:      []PlanPhaseRate{{Phase: "rollout", PerDay: 2}, {Phase: "one-endpoint-not-ready", PerDay: 100}},
		Budgets:    PlanBudgets{PerNodeBytesPerDay: 500_000_000, PeakEgressBytesPerSec: 2_000_000_000, WriteWindowSeconds: 10},
		GridPoints: 6,
	}}
	i := 0
	for _, replicas := range []int{1000, 10000} {
		for _, perSlice := range []int{100, 500, 1000} {
			cfg := sim.Config{Name: "5000-nodes", Seed: 42, RunEndpoints: true, RunEndpointSlices: true,
				Cluster:      sim.ClusterConfig{Nodes: 5000},
				ControlPlane: sim.ControlPlaneConfig{MaxEndpointsPerSlice: perSlice, EndpointSlice: sim.ControllerConfig{QPS: 20}, Endpoints: sim.ControllerConfig{QPS: 20}},
				APIServer:    sim.APIServerConfig{Replicas: 1, ObjectSizeLimitBytes: 1572864, EgressBitsPerSec: 10e9, KubeProxyEncoding: sim.EncodingProtobuf},
				Services:     []sim.ServiceConfig{{Name: "web", Count: 1, Replicas: replicas}},
				Timeline:     []sim.Action{{Name: "create", Kind: sim.ActionCreate}, {Name: "one-endpoint-not-ready", Kind: sim.ActionFlipReadiness}, {Name: "rollout", Kind: sim.ActionRollout}},
				SLO:          30 * time.Second,
			}
			values := []string{fmt.Sprint(replicas), fmt.Sprint(perSlice)}
			if i == 5 {
				r.Points = append(r.Points, NewPlanPoint(i, values, cfg, nil, errors.New("sim: event budget exhausted"), 10))
				i++
				continue
			}
			res := fixtureResults()
			scale := func(m *sim.ModeResult, f float64) {
				m.FanoutBytes = int64(float64(m.FanoutBytes) * f)
				m.PerNodeBytes = int64(float64(m.PerNodeBytes) * f)
				m.PeakEgressBytesPerSec = int64(float64(m.PeakEgressBytesPerSec) * f)
				m.MaxObjectBytes = int64(float64(m.MaxObjectBytes) * f)
			}
			for k := range res.Phases {
				scale(&res.Phases[k].Endpoints, float64(replicas)/10000)
				scale(&res.Phases[k].EndpointSlices, float64(perSlice)/100*float64(replicas)/10000)
			}
			// The big Service's slices grow with the slice size; the small ones fit in one
			// slice at every size.
			res.Services[0].Replicas = replicas
			res.Services[0].EndpointSlices.FanoutBytes = int64(float64(res.Services[0].EndpointSlices.FanoutBytes) * float64(perSlice) / 100 * float64(replicas) / 10000)
			res.Services[0].Endpoints.FanoutBytes = int64(float64(res.Services[0].Endpoints.FanoutBytes) * float64(replicas) / 10000)
			scale(&res.Total.Endpoints, float64(replicas)/10000)
			scale(&res.Total.EndpointSlices, float64(perSlice)/100*float64(replicas)/10000)
			r.Points = append(r.Points, NewPlanPoint(i, values, cfg, res, nil, 10))
			i++
		}
	}
	return r
}

// TestPlanReportGolden pins report.md and results.csv of the fixture plan: the
// recommendation per service size, every limit hit (the 10,000-endpoint Endpoints object
// over the 1.5 MiB etcd limit, egress and per-day budgets), and the failed point.
// Reference: the sim plan issue (5): "a failed point is reported (in the report and CSV)".
func TestPlanReportGolden(t *testing.T) {
	r := fixturePlan()
	charts, err := PlanCharts(r)
	if err != nil {
		t.Fatal(err)
	}
	var md, csvBuf, html bytes.Buffer
	if err := WritePlanMarkdown(&md, r, charts); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "plan-report.golden", md.Bytes())
	if err := WritePlanCSV(&csvBuf, r); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "plan-results.golden", csvBuf.Bytes())
	for _, want := range []string{"over the etcd request limit", "point 5 (replicas=10000, perSlice=1000): event budget exhausted"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if err := WritePlanHTML(&html, r, charts); err != nil {
		t.Fatal(err)
	}
	h := html.String()
	if !strings.HasPrefix(h, "<!DOCTYPE html>") || strings.Count(h, "data:image/svg+xml;base64,") != len(charts) || strings.Contains(h, "src=\"bytes-per-rollout") {
		t.Errorf("report.html is not self-contained with %d embedded charts", len(charts))
	}
	// Every CSV row has the header's width; the failed point has its error.
	lines := strings.Split(strings.TrimSpace(csvBuf.String()), "\n")
	if len(lines) != 1+len(r.Points) || !strings.Contains(lines[6], "event budget exhausted") {
		t.Errorf("results.csv has %d lines, want %d, with the failed point last", len(lines), 1+len(r.Points))
	}
}

// TestPlanRecommendations: in each service size the layout with the fewest bytes that hits
// no limit wins; the fixture's bytes grow with the slice size, so 100 per slice.
func TestPlanRecommendations(t *testing.T) {
	recs := fixturePlan().Recommendations()
	if len(recs) != 2 {
		t.Fatalf("%d groups, want 2 (one per service size)", len(recs))
	}
	for _, rec := range recs {
		if rec.Best == nil || rec.Best.MaxEndpointsPerSlice != 100 {
			t.Errorf("%s: recommended %+v, want 100 per slice", rec.Label, rec.Best)
		}
	}
}

// TestPlanChartsGolden digests each plan chart's series (not pixels) and checks PNG and SVG.
func TestPlanChartsGolden(t *testing.T) {
	charts, err := PlanCharts(fixturePlan())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, c := range charts {
		fmt.Fprintf(&buf, "%s (%s)\n  title: %s\n  subtitle: %s\n", c.Name, c.Digest(), c.Title, c.Subtitle)
		for _, s := range c.Series {
			fmt.Fprintf(&buf, "  %-30s %v\n", s.Name, s.XYs)
		}
		checkRendered(t, c)
	}
	checkGolden(t, "plan-charts.golden", buf.Bytes())
}

// TestPlanMerge: shards merge back into the whole grid, in index order; gaps, duplicates
// and other plans are refused.
func TestPlanMerge(t *testing.T) {
	r := fixturePlan()
	var parts []*PlanResults
	for shard := range 2 {
		p := &PlanResults{Format: PlanFormat, Plan: r.Plan, Shard: 1 - shard, Shards: 2}
		for _, pt := range r.Points {
			if pt.Index%2 == 1-shard {
				p.Points = append(p.Points, pt)
			}
		}
		var buf bytes.Buffer
		if err := WritePlanPartial(&buf, p); err != nil {
			t.Fatal(err)
		}
		back, err := ReadPlanPartial(&buf)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, back)
	}
	merged, err := MergePlanPartials(parts)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	WritePlanCSV(&a, r)
	WritePlanCSV(&b, merged)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("merged partials give another results.csv than the whole run")
	}
	if _, err := MergePlanPartials(parts[:1]); !errors.Is(err, ErrPlanMerge) {
		t.Errorf("one of two shards merged: %v", err)
	}
	if _, err := MergePlanPartials([]*PlanResults{parts[0], parts[0], parts[1]}); !errors.Is(err, ErrPlanMerge) {
		t.Errorf("a shard given twice merged: %v", err)
	}
	other := *parts[1]
	other.Plan.Name = "other"
	if _, err := MergePlanPartials([]*PlanResults{parts[0], &other}); !errors.Is(err, ErrPlanMerge) {
		t.Errorf("shards of two plans merged: %v", err)
	}
	if _, err := ReadPlanPartial(strings.NewReader(`{"format":"epsim-plan/1","bogus":1}`)); err == nil {
		t.Error("a partial with an unknown field was read")
	}
	// An empty or cut-off file says so, not "EOF"; so do summary.json and the CSVs.
	for _, in := range []string{"", `{"format":"epsim-plan/1",`} {
		_, err := ReadPlanPartial(strings.NewReader(in))
		if err == nil || strings.Contains(err.Error(), "EOF") || !strings.Contains(err.Error(), "the file") {
			t.Errorf("partial %q: %v", in, err)
		}
	}
	for name, read := range map[string]func() error{
		"summary.json":   func() error { _, err := ReadSummaryJSON(strings.NewReader("")); return err },
		"timeseries.csv": func() error { _, err := ReadTimeseriesCSV(strings.NewReader("")); return err },
		"layout.csv":     func() error { _, err := ReadLayoutCSV(strings.NewReader("")); return err },
	} {
		if err := read(); err == nil || !strings.Contains(err.Error(), "the file is empty") {
			t.Errorf("empty %s: %v", name, err)
		}
	}
}

// Each size group of Services gets the layout with the fewest bytes for itself, and a layout
// where the group's writes failed loses to one where they did not.
func TestPlanRecommendationsBySize(t *testing.T) {
	point := func(perSlice int, small, big int64, bigFailed bool) *PlanPoint {
		var failed int64
		if bigFailed {
			failed = 1
		}
		s := &Summary{Modes: AllModes, Total: PhaseSummary{Endpoints: &ModeSummary{}, EndpointSlices: &ModeSummary{}},
			Services: []ServiceSummary{
				{Name: "a", Replicas: 5, Endpoints: &ServiceModeSummary{FanoutBytes: 10}, EndpointSlices: &ServiceModeSummary{FanoutBytes: small}},
				{Name: "b", Replicas: 8, Endpoints: &ServiceModeSummary{FanoutBytes: 10}, EndpointSlices: &ServiceModeSummary{FanoutBytes: small}},
				{Name: "c", Replicas: 5000, Endpoints: &ServiceModeSummary{FanoutBytes: 999}, EndpointSlices: &ServiceModeSummary{FanoutBytes: big, FailedWrites: failed}},
			}}
		return &PlanPoint{MaxEndpointsPerSlice: perSlice, Summary: s}
	}
	points := []*PlanPoint{point(10, 100, 500, true), point(100, 300, 600, false), point(1000, 200, 400, false), {MaxEndpointsPerSlice: 50, Error: "boom"}}
	got := bySize(points)
	if len(got) != 2 {
		t.Fatalf("%d size groups, want 2: %+v", len(got), got)
	}
	small, big := got[0], got[1]
	if small.Size != "1–10 endpoints" || small.Services != 2 || small.Best != points[0] || small.EndpointsBytes != 20 {
		t.Errorf("small group %+v: want 2 Services, best 10 per slice (200 B)", small)
	}
	if big.Size != "1,001–10,000 endpoints" || big.Services != 1 || big.Best != points[2] || big.Failed {
		t.Errorf("big group %+v: want best 1000 per slice (the 10 per slice run had failed writes)", big)
	}
	if big.Bytes[3] != -1 {
		t.Errorf("a failed point's bytes %d, want -1", big.Bytes[3])
	}
	// One Service: no split.
	one := point(100, 1, 1, false)
	one.Summary.Services = one.Summary.Services[:1]
	if got := bySize([]*PlanPoint{one}); got != nil {
		t.Errorf("split a single Service: %+v", got)
	}
}

// A plan whose grid varies only maxEndpointsPerSlice (kep-752) gets KEP-752's per-phase
// table: every phase, the single endpoint update included, per layout.
func TestPlanReportCostPerPhase(t *testing.T) {
	r := fixturePlan()
	r.Plan.Axes = r.Plan.Axes[1:]
	r.Points = r.Points[:3]
	r.Plan.GridPoints = 3
	for i := range r.Points {
		r.Points[i].Values = r.Points[i].Values[1:]
	}
	var md bytes.Buffer
	if err := WritePlanMarkdown(&md, r, nil); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	if !strings.Contains(out, "## Cost per phase") || !strings.Contains(out, "| phase | figure | Endpoints | 100 per slice | 500 per slice | 1000 per slice |") {
		t.Fatalf("no per-phase table:\n%s", out)
	}
	for _, p := range r.Points[0].Summary.Phases {
		want := fmt.Sprintf("| `%s` | bytes fanned out | %s | %s |", p.Name, FormatBytes(p.Endpoints.FanoutBytes), FormatBytes(p.EndpointSlices.FanoutBytes))
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// With more than one group the table would mix them: left out.
	md.Reset()
	WritePlanMarkdown(&md, fixturePlan(), nil)
	if strings.Contains(md.String(), "## Cost per phase") {
		t.Error("a two-group plan has a per-phase table")
	}
}

// TestEgressSaturatedFiguresAgree: the egressSaturated limit shows the peak and the
// bandwidth with enough decimals to give the share it states. kep-752 read "peak 3.7 GB/s
// is 99.8% of bandwidth 3.8 GB/s" (3.7/3.8 is 97.4%); 3.742/3.750 is 99.8%.
func TestEgressSaturatedFiguresAgree(t *testing.T) {
	for _, tc := range []struct {
		peak, capacity int64
		want           string
	}{
		{3_742_169_632, 3_750_000_000, "peak 3.742 GB/s is 99.8% of bandwidth 3.750 GB/s"}, // kep-752
		{2_475_000, 2_500_000, "peak 2.475 MB/s is 99.0% of bandwidth 2.500 MB/s"},         // 2.5 of 2.5 would be 100%
		{2_499_000, 2_500_000, "peak 2.5 MB/s is 100.0% of bandwidth 2.5 MB/s"},
		{990, 1000, "peak 0.99 KB/s is 99.0% of bandwidth 1.00 KB/s"},
		{995, 999, "peak 995 B/s is 99.6% of bandwidth 999 B/s"},
	} {
		s := NewSummary(fixtureResults(), nil)
		s.Total.Endpoints.PeakEgressBytesPerSec = tc.peak
		p := PlanPoint{EgressCapacityBytesPerSec: tc.capacity, Summary: s}
		r := &PlanResults{Points: []PlanPoint{p}}
		var got string
		for _, l := range r.Limits(&r.Points[0], sim.ModeEndpoints) {
			if l.Kind == "egressSaturated" {
				got = l.Text
			}
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("peak %d of %d: limit %q, want it to contain %q", tc.peak, tc.capacity, got, tc.want)
		}
	}
}

// TestPlanHTMLTablesWrap: report.html's tables can wrap every cell into words of at most 15
// characters (camelCase heads and limit kinds break at their inner capitals), and each table
// scrolls in its own box if it is still too wide. kep-752's "All grid points" table, with
// maxEndpointsPerSlice as a head and egressSaturated…programmingSLO as limits, made a
// 1400-pixel window scroll sideways and cut the limits column off.
func TestPlanHTMLTablesWrap(t *testing.T) {
	r := fixturePlan()
	var buf bytes.Buffer
	if err := WritePlanHTML(&buf, r, nil); err != nil {
		t.Fatal(err)
	}
	h := buf.String()
	if n, m := strings.Count(h, "<table>"), strings.Count(h, `<div class="table"><table>`); n == 0 || n != m {
		t.Errorf("%d of %d tables in a scrolling box", m, n)
	}
	cell := regexp.MustCompile(`<t[dh]>(.*?)</t[dh]>`)
	tag := regexp.MustCompile(`<[^>]*>`)
	longest := ""
	for _, c := range cell.FindAllStringSubmatch(h, -1) {
		for _, part := range strings.Split(c[1], "<wbr>") {
			for _, word := range strings.Fields(tag.ReplaceAllString(part, "")) {
				if utf8.RuneCountInString(word) > utf8.RuneCountInString(longest) {
					longest = word
				}
			}
		}
	}
	if utf8.RuneCountInString(longest) > 15 {
		t.Errorf("a table cell has the unbreakable word %q (%d characters), want at most 15", longest, utf8.RuneCountInString(longest))
	}
	if !strings.Contains(h, "kube<wbr>Proxy<wbr>Saturated") {
		t.Errorf("report.html lacks the limit kubeProxySaturated with its word breaks")
	}
}

// TestPlanReportFailedPointsLimits: "Limits hit" does not say "No grid point hits a limit"
// of points that failed, whose limits could not be checked: a plan whose every point
// failed (guards.maxEvents=2000 on quick) said just that.
func TestPlanReportFailedPointsLimits(t *testing.T) {
	limitsHit := func(r *PlanResults) string {
		t.Helper()
		var md bytes.Buffer
		if err := WritePlanMarkdown(&md, r, nil); err != nil {
			t.Fatal(err)
		}
		s := md.String()
		i := strings.Index(s, "## Limits hit\n")
		if i < 0 {
			t.Fatalf("no Limits hit section:\n%s", s)
		}
		s = s[i+len("## Limits hit\n"):]
		return strings.TrimSpace(s[:strings.Index(s, "\n## ")])
	}
	fail := func(p *PlanPoint) { p.Summary, p.Error = nil, "sim: event budget exhausted" }

	r := fixturePlan()
	for i := range r.Points {
		fail(&r.Points[i])
	}
	if got, want := limitsHit(r), "No grid point ran: all 6 points failed (see Failed runs below), so no limit could be checked."; got != want {
		t.Errorf("every point failed: Limits hit says %q, want %q", got, want)
	}

	// One point ran, within every limit (its EndpointSlices at 100 per slice); the others
	// failed.
	r = fixturePlan()
	for i := range r.Points[1:] {
		fail(&r.Points[1+i])
	}
	s := r.Points[0].Summary
	s.Modes, s.Total.Endpoints = []sim.Mode{sim.ModeEndpointSlices}, nil
	if lim := r.Limits(&r.Points[0], sim.ModeEndpointSlices); len(lim) > 0 {
		t.Fatalf("point 0 hits %v: this case wants a point within every limit", lim)
	}
	if got, want := limitsHit(r), "No grid point that ran hits a limit; 5 of 6 failed and could not be checked (see Failed runs below)."; got != want {
		t.Errorf("5 of 6 points failed: Limits hit says %q, want %q", got, want)
	}
}

// TestPlanPointEndpointsPerService: a DaemonSet has one endpoint per node whatever its
// replicas field says, and a selector-less Service its manualEndpoints; the plan's "endpoints
// per service" (the recommendation table, results.csv, the charts' x axis and subtitles)
// must say so, not the ignored replicas.
func TestPlanPointEndpointsPerService(t *testing.T) {
	for _, tc := range []struct {
		name string
		svc  sim.ServiceConfig
		want int
	}{
		{"deployment", sim.ServiceConfig{Name: "web", Replicas: 40}, 40},
		{"daemonset", sim.ServiceConfig{Name: "node-local-dns", WorkloadKind: sim.KindDaemonSet, Replicas: 1}, 300},
		{"manual", sim.ServiceConfig{Name: "db", ManualEndpoints: 7}, 7},
	} {
		cfg := sim.Config{Cluster: sim.ClusterConfig{Nodes: 300}, Services: []sim.ServiceConfig{{Name: "small", Replicas: 3}, tc.svc}}
		p := NewPlanPoint(0, nil, cfg, nil, errors.New("not run"), 10)
		if p.EndpointsPerService != tc.want {
			t.Errorf("%s: endpointsPerService %d, want %d", tc.name, p.EndpointsPerService, tc.want)
		}
	}
}

// A limit is judged on the whole run; its line names the phases that hit it, so that a
// create phase the plan's churn does not even count is not read as the rollout missing its
// SLO. Here only create misses the SLO and saturates egress.
func TestPlanLimitsNamePhases(t *testing.T) {
	mode := func(p99 float64, egress int64) *ModeSummary {
		return &ModeSummary{PeakEgressBytesPerSec: egress,
			Propagation: LatencySummary{Count: 10, P99Seconds: p99},
			Programming: LatencySummary{Count: 10, P99Seconds: p99}}
	}
	p := PlanPoint{SLOSeconds: 30, EgressCapacityBytesPerSec: 1_250_000_000, Summary: &Summary{
		Phases: []PhaseSummary{
			{Name: "create", EndpointSlices: mode(180, 1_248_000_000)},
			{Name: "rollout", EndpointSlices: mode(0.8, 900_000_000)},
		},
		Total: PhaseSummary{Name: "total", EndpointSlices: mode(175, 1_248_000_000)},
	}}
	r := &PlanResults{Points: []PlanPoint{p}}
	got := map[string]string{}
	for _, l := range r.Limits(&r.Points[0], sim.ModeEndpointSlices) {
		got[l.Kind] = l.Text
	}
	for kind, want := range map[string]string{
		"slo":             "propagation p99 2m55s > SLO 30s (phase over it: create)",
		"programmingSLO":  "network programming p99 2m55s > SLO 30s (phase over it: create)",
		"egressSaturated": "(phase at it: create)",
	} {
		if !strings.HasSuffix(got[kind], want) {
			t.Errorf("%s: %q, want it to end in %q", kind, got[kind], want)
		}
	}
}

// A cluster of Services of different sizes is not "800 endpoints per service": the
// recommendation table and the chart subtitles give the range, as "3–800".
func TestPlanServiceSizeRange(t *testing.T) {
	cfg := sim.Config{Cluster: sim.ClusterConfig{Nodes: 3000}, Services: []sim.ServiceConfig{
		{Name: "small", Count: 3900, Replicas: 3}, {Name: "big", Count: 10, Replicas: 800}}}
	p := NewPlanPoint(0, nil, cfg, nil, errors.New("not run"), 10)
	if got := serviceSizeText(p.EndpointsPerService, p.MixedSizes, p.SmallestService); got != "3–800" {
		t.Errorf("mixed sizes: %q, want 3–800", got)
	}
	cfg.Services = cfg.Services[1:]
	p = NewPlanPoint(0, nil, cfg, nil, errors.New("not run"), 10)
	if got := serviceSizeText(p.EndpointsPerService, p.MixedSizes, p.SmallestService); got != "800" || p.MixedSizes {
		t.Errorf("one size: %q (mixed %v), want 800", got, p.MixedSizes)
	}
	r := &PlanResults{Plan: PlanSpec{Axes: []PlanAxis{{Name: "perSlice", Paths: []string{"controlPlane.maxEndpointsPerSlice"}, Values: []string{"100"}}}}}
	r.Points = []PlanPoint{NewPlanPoint(0, []string{"100"}, sim.Config{Cluster: sim.ClusterConfig{Nodes: 3000}, Services: []sim.ServiceConfig{
		{Name: "small", Count: 3900, Replicas: 3}, {Name: "big", Count: 10, Replicas: 800}}}, nil, errors.New("not run"), 10)}
	var md bytes.Buffer
	if err := WritePlanMarkdown(&md, r, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| 3–800 |") {
		t.Errorf("recommendation table lacks the size range 3–800:\n%s", md.String())
	}
}

// A plan chart's count axis labels its grid values in one style: a grid of 3,000, 6,000
// and 10,000 nodes read "3,000", "6,000", "10k" on one axis.
func TestPlanGridTicksOneStyle(t *testing.T) {
	for _, tc := range []struct {
		values []float64
		want   []string
	}{
		{[]float64{3000, 6000, 10000}, []string{"3k", "6k", "10k"}},
		{[]float64{1000, 5000}, []string{"1,000", "5,000"}},
	} {
		gt := gridTicks{values: tc.values, format: countsFormat(tc.values[len(tc.values)-1])}
		var got []string
		for _, tk := range gt.Ticks(tc.values[0], tc.values[len(tc.values)-1]) {
			got = append(got, tk.Label)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("ticks %v: %q, want %q", tc.values, got, tc.want)
		}
	}
}
