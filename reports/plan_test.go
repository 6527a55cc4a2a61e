package reports

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

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
	for _, want := range []string{"over the etcd request limit", "point 5 (replicas=10000, perSlice=1000): sim: event budget exhausted"} {
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
}
