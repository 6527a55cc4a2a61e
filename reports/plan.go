package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"epsim/sim"
)

// PlanFormat names the version of the plan partial file format (PlanResults as JSON).
const PlanFormat = "epsim-plan/1"

// PlanResults is everything a capacity-planning report is rendered from: the plan and one
// record per grid point that ran. It is also the partial file `sim plan --shard` writes, so
// a report built from merged partials is the report of one machine, byte for byte.
type PlanResults struct {
	Format string   `json:"format"`
	Plan   PlanSpec `json:"plan"`
	// Shard and Shards say which share of the grid a partial holds (0 and 1 for all of it).
	Shard  int `json:"shard"`
	Shards int `json:"shards"`
	// Points are in grid-index order.
	Points []PlanPoint `json:"points"`
}

// PlanSpec is what a report needs to know about the plan itself.
type PlanSpec struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Notes       string `json:"notes,omitempty"`
	// File is the plan file; Scenario the base scenario as the plan names it.
	File     string `json:"file"`
	Scenario string `json:"scenario"`
	// Set are the overrides applied to every point.
	Set  []string   `json:"set,omitempty"`
	Axes []PlanAxis `json:"axes"`
	// Churn weighs phases for per-day figures.
	Churn   []PlanPhaseRate `json:"churn,omitempty"`
	Budgets PlanBudgets     `json:"budgets"`
	// GridPoints is the number of points of the whole grid.
	GridPoints int `json:"gridPoints"`
}

// PlanAxis is one grid dimension.
type PlanAxis struct {
	Name   string   `json:"name"`
	Paths  []string `json:"paths"`
	Values []string `json:"values"`
}

// PlanPhaseRate is how many times per day a phase happens.
type PlanPhaseRate struct {
	Phase  string  `json:"phase"`
	PerDay float64 `json:"perDay"`
}

// PlanBudgets are the limits every point is held to; zero means none, except WritesPerSec,
// where zero means each controller's own client QPS.
type PlanBudgets struct {
	PerNodeBytesPerDay    int64   `json:"perNodeBytesPerDay,omitempty"`
	PeakEgressBytesPerSec int64   `json:"peakEgressBytesPerSec,omitempty"`
	WritesPerSec          float64 `json:"writesPerSec,omitempty"`
	// WriteWindowSeconds is the window of the sustained write rate.
	WriteWindowSeconds int `json:"writeWindowSeconds"`
}

// PlanPoint is one grid point: its coordinates, the facts of its configuration the report
// compares against, and its summary (nil when the run failed, with Error set).
type PlanPoint struct {
	Index  int      `json:"index"`
	Values []string `json:"values"`
	Seed   uint64   `json:"seed"`
	// Facts of the configuration.
	Nodes               int `json:"nodes"`
	Services            int `json:"services"`
	EndpointsPerService int `json:"endpointsPerService"`
	// MixedSizes says the Services differ in size: EndpointsPerService is the largest's,
	// SmallestService the smallest's.
	MixedSizes           bool    `json:"mixedSizes,omitempty"`
	SmallestService      int     `json:"smallestService,omitempty"`
	MaxEndpointsPerSlice int     `json:"maxEndpointsPerSlice"`
	BatchPeriodSeconds   float64 `json:"batchPeriodSeconds"`
	Encoding             string  `json:"encoding"`
	ObjectSizeLimitBytes int64   `json:"objectSizeLimitBytes"`
	// EgressCapacityBytesPerSec is all API servers' egress bandwidth; 0 = unlimited.
	EgressCapacityBytesPerSec int64   `json:"egressCapacityBytesPerSec"`
	EndpointsQPS              float64 `json:"endpointsQPS"`
	EndpointSliceQPS          float64 `json:"endpointSliceQPS"`
	SLOSeconds                float64 `json:"sloSeconds"`
	// RolloutPhase is the first rollout phase of the timeline ("" if none).
	RolloutPhase string `json:"rolloutPhase,omitempty"`
	// Error is why the run failed; Summary is nil then.
	Error   string   `json:"error,omitempty"`
	Summary *Summary `json:"summary,omitempty"`
	// WritesPerSec is each mode's highest write rate sustained over the budget's window.
	WritesPerSec PlanModeRates `json:"writesPerSec"`
}

// serviceSizeText is the endpoints per service of a point or group: "800", or "3–800" when
// its Services differ in size (a cluster's 3,900 three-pod Services read "800" before).
func serviceSizeText(largest int, mixed bool, smallest int) string {
	if mixed {
		return formatCount(int64(smallest)) + "–" + formatCount(int64(largest))
	}
	return formatCount(int64(largest))
}

// serviceEndpoints is how many endpoints Service s has in cfg: a DaemonSet one per node (its
// replicas are ignored), a selector-less Service its manualEndpoints, any other its replicas.
func serviceEndpoints(cfg sim.Config, s sim.ServiceConfig) int {
	switch {
	case s.ManualEndpoints > 0:
		return s.ManualEndpoints
	case s.WorkloadKind == sim.KindDaemonSet:
		return cfg.Cluster.Nodes
	}
	return s.Replicas
}

// PlanModeRates is a rate per mode.
type PlanModeRates struct {
	Endpoints      float64 `json:"endpoints"`
	EndpointSlices float64 `json:"endpointslices"`
}

func (r PlanModeRates) mode(m sim.Mode) float64 {
	if m == sim.ModeEndpoints {
		return r.Endpoints
	}
	return r.EndpointSlices
}

// NewPlanPoint records one grid point: the facts of cfg, and the summary of res (or runErr
// when the run failed). windowSeconds is the sustained-write-rate window (at least 1).
func NewPlanPoint(index int, values []string, cfg sim.Config, res *sim.Results, runErr error, windowSeconds int) PlanPoint {
	p := PlanPoint{
		Index:                index,
		Values:               slices.Clone(values),
		Seed:                 cfg.Seed,
		Nodes:                cfg.Cluster.Nodes,
		MaxEndpointsPerSlice: cfg.ControlPlane.MaxEndpointsPerSlice,
		BatchPeriodSeconds:   cfg.ControlPlane.EndpointSlice.BatchPeriod.Seconds(),
		Encoding:             string(cfg.APIServer.KubeProxyEncoding),
		ObjectSizeLimitBytes: cfg.APIServer.ObjectSizeLimitBytes,
		EndpointsQPS:         cfg.ControlPlane.Endpoints.QPS,
		EndpointSliceQPS:     cfg.ControlPlane.EndpointSlice.QPS,
		SLOSeconds:           cfg.SLO.Seconds(),
	}
	if cfg.APIServer.EgressBitsPerSec > 0 {
		p.EgressCapacityBytesPerSec = int64(math.Round(cfg.APIServer.EgressBitsPerSec / 8 * float64(max(cfg.APIServer.Replicas, 1))))
	}
	for i, s := range cfg.Services {
		p.Services += max(s.Count, 1)
		n := serviceEndpoints(cfg, s)
		if i == 0 {
			p.SmallestService = n
		}
		p.EndpointsPerService = max(p.EndpointsPerService, n)
		p.SmallestService = min(p.SmallestService, n)
	}
	p.MixedSizes = p.SmallestService != p.EndpointsPerService
	if !p.MixedSizes {
		p.SmallestService = 0
	}
	for _, a := range cfg.Timeline {
		if a.Kind == sim.ActionRollout {
			p.RolloutPhase = a.Name
			break
		}
	}
	switch {
	case runErr != nil:
		// The engine's errors start with its package's name, which means nothing in a
		// report or a CSV cell (as the command line drops it).
		p.Error = strings.TrimPrefix(runErr.Error(), "sim: ")
	case res == nil:
		p.Error = "the engine returned no results"
	default:
		var modes []sim.Mode
		if cfg.RunEndpoints {
			modes = append(modes, sim.ModeEndpoints)
		}
		if cfg.RunEndpointSlices {
			modes = append(modes, sim.ModeEndpointSlices)
		}
		p.Summary = NewSummary(res, modes)
		p.WritesPerSec = sustainedWrites(res.Series, max(windowSeconds, 1))
	}
	return p
}

// sustainedWrites returns each mode's largest number of writes in any window of w seconds,
// divided by w (windows of whole buckets when a long run has buckets wider than 1 s).
func sustainedWrites(series []sim.Bucket, w int) PlanModeRates {
	dense := DenseSeries(series)
	width := int64(1)
	if len(dense) > 0 {
		width = dense[0].Seconds()
	}
	nb := max(1, (int64(w)+width-1)/width) // buckets per window
	var best, cur [2]int64
	for i, b := range dense {
		cur[0] += b.Endpoints.Writes
		cur[1] += b.EndpointSlices.Writes
		if int64(i) >= nb {
			cur[0] -= dense[int64(i)-nb].Endpoints.Writes
			cur[1] -= dense[int64(i)-nb].EndpointSlices.Writes
		}
		best[0], best[1] = max(best[0], cur[0]), max(best[1], cur[1])
	}
	secs := float64(nb * width)
	return PlanModeRates{Endpoints: float64(best[0]) / secs, EndpointSlices: float64(best[1]) / secs}
}

// ok reports whether the point ran.
func (p *PlanPoint) ok() bool { return p.Error == "" && p.Summary != nil }

// mode returns the point's total for mode m, or nil.
func (p *PlanPoint) mode(m sim.Mode) *ModeSummary {
	if !p.ok() {
		return nil
	}
	return p.Summary.Total.Mode(m)
}

// phase returns the point's phase by name, or nil.
func (p *PlanPoint) phase(name string) *PhaseSummary {
	if !p.ok() {
		return nil
	}
	for i := range p.Summary.Phases {
		if p.Summary.Phases[i].Name == name {
			return &p.Summary.Phases[i]
		}
	}
	return nil
}

// phasesWhere names the phases in which mode m's figures meet cond, as " (phases over it:
// create, rollout)": a limit is judged on the whole run, and a run's create phase, which a
// plan's churn may not count at all, is often what hits it.
func (p *PlanPoint) phasesWhere(m sim.Mode, what string, cond func(*ModeSummary) bool) string {
	if !p.ok() {
		return ""
	}
	var names []string
	for i := range p.Summary.Phases {
		if ms := p.Summary.Phases[i].Mode(m); ms != nil && cond(ms) {
			names = append(names, p.Summary.Phases[i].Name)
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return " (phase " + what + ": " + names[0] + ")"
	}
	return " (phases " + what + ": " + strings.Join(names, ", ") + ")"
}

// pendingPods is the most pods the point's run ended a phase with Pending for want of a
// node (0 for a point that failed).
func (p *PlanPoint) pendingPods() int64 {
	var most int64
	if p.ok() {
		for i := range p.Summary.Phases {
			most = max(most, p.Summary.Phases[i].PendingPods)
		}
	}
	return most
}

// rolloutBytes returns the bytes mode m fanned out in the point's rollout phase.
func (p *PlanPoint) rolloutBytes(m sim.Mode) (int64, bool) {
	ph := p.phase(p.RolloutPhase)
	if ph == nil || ph.Mode(m) == nil {
		return 0, false
	}
	return ph.Mode(m).FanoutBytes, true
}

// perNodeBytesPerDay weighs each phase's per-node bytes by the plan's churn.
func (p *PlanPoint) perNodeBytesPerDay(churn []PlanPhaseRate, m sim.Mode) (int64, bool) {
	if len(churn) == 0 || !p.ok() {
		return 0, false
	}
	total := 0.0
	for _, r := range churn {
		if ph := p.phase(r.Phase); ph != nil && ph.Mode(m) != nil {
			total += float64(ph.Mode(m).PerNodeBytes) * r.PerDay
		}
	}
	return int64(math.Round(total)), true
}

// EgressSaturatedShare is the share of the API servers' egress bandwidth at which a peak
// second counts as saturated. The peak never reaches the full bandwidth: it counts payload
// bytes while the links also carry framing (about 0.2 %), and the busiest replica serves
// ⌈watchers / replicas⌉ of them. A second the links were busy throughout shows as 99.8 %.
const EgressSaturatedShare = 0.98

// PlanLimit is one limit a layout hits at one grid point.
type PlanLimit struct {
	Mode sim.Mode
	// Kind is a stable key: objectSize, truncated, egressSaturated, egressBudget, writeRate,
	// perNodeIngress, slo, programmingSLO, kubeProxySaturated, podsPending.
	Kind string
	// Text says what happened, with the figures.
	Text string
}

// Limits returns every limit mode m hits at point p, in a fixed order.
func (r *PlanResults) Limits(p *PlanPoint, m sim.Mode) []PlanLimit {
	ms := p.mode(m)
	if ms == nil {
		return nil
	}
	var out []PlanLimit
	add := func(kind, format string, args ...any) {
		out = append(out, PlanLimit{Mode: m, Kind: kind, Text: fmt.Sprintf(format, args...)})
	}
	if ms.FailedWrites > 0 || (p.ObjectSizeLimitBytes > 0 && ms.MaxObjectBytes > p.ObjectSizeLimitBytes) {
		add("objectSize", "over the etcd request limit of %s: %s failed writes, largest object written %s",
			formatLimitBytes(p.ObjectSizeLimitBytes), formatCount(ms.FailedWrites), FormatBytes(ms.MaxObjectBytes))
	}
	if most := p.pendingPods(); most > 0 {
		add("podsPending", "up to %s Pending at a phase's end: %s", counted(most, "pod", "pods"), pendingWhy)
	}
	if ms.TruncatedObjects > 0 {
		add("truncated", "truncated at 1000 addresses (%s)", counted(ms.TruncatedObjects, "write", "writes"))
	}
	if c := p.EgressCapacityBytesPerSec; c > 0 && float64(ms.PeakEgressBytesPerSec) >= EgressSaturatedShare*float64(c) {
		peak, bandwidth, share := formatRateShare(ms.PeakEgressBytesPerSec, c)
		add("egressSaturated", "API server egress saturated: peak %s is %s of bandwidth %s%s", peak, share, bandwidth,
			p.phasesWhere(m, "at it", func(ph *ModeSummary) bool {
				return float64(ph.PeakEgressBytesPerSec) >= EgressSaturatedShare*float64(c)
			}))
	}
	if b := r.Plan.Budgets.PeakEgressBytesPerSec; b > 0 && ms.PeakEgressBytesPerSec > b {
		add("egressBudget", "peak egress %s > budget %s", FormatRate(ms.PeakEgressBytesPerSec), FormatRate(b))
	}
	if budget, name := r.writeBudget(p, m); budget > 0 && p.WritesPerSec.mode(m) >= budget {
		add("writeRate", "writes/s at or over %s: %.1f/s sustained over %ds vs %.1f/s",
			name, p.WritesPerSec.mode(m), r.Plan.Budgets.WriteWindowSeconds, budget)
	}
	if b := r.Plan.Budgets.PerNodeBytesPerDay; b > 0 {
		if v, ok := p.perNodeBytesPerDay(r.Plan.Churn, m); ok && v > b {
			add("perNodeIngress", "per-node ingress %s/day > budget %s/day", FormatBytes(v), FormatBytes(b))
		}
	}
	if p.SLOSeconds > 0 && ms.Propagation.Count > 0 && ms.Propagation.P99Seconds > p.SLOSeconds {
		add("slo", "propagation p99 %s > SLO %s%s", FormatSeconds(ms.Propagation.P99Seconds), FormatSeconds(p.SLOSeconds),
			p.phasesWhere(m, "over it", func(ph *ModeSummary) bool {
				return ph.Propagation.Count > 0 && ph.Propagation.P99Seconds > p.SLOSeconds
			}))
	}
	if p.SLOSeconds > 0 && ms.Programming.Count > 0 && ms.Programming.P99Seconds > p.SLOSeconds {
		add("programmingSLO", "network programming p99 %s > SLO %s%s", FormatSeconds(ms.Programming.P99Seconds), FormatSeconds(p.SLOSeconds),
			p.phasesWhere(m, "over it", func(ph *ModeSummary) bool {
				return ph.Programming.Count > 0 && ph.Programming.P99Seconds > p.SLOSeconds
			}))
	}
	if ms.KubeProxyBusyFraction >= KubeProxySaturatedFraction {
		add("kubeProxySaturated", "kube-proxy syncing %.0f%% of the time (longest sync %s): changes queue behind whole syncs",
			ms.KubeProxyBusyFraction*100, FormatSeconds(ms.PeakSyncSeconds))
	}
	return out
}

// formatRateShare formats rate as a share of capacity (a positive rate) and both rates, in
// capacity's SI unit with as many decimals as it takes (1 to 4) for the two figures shown to
// give the share shown: with one decimal, 3,742,169,632 B/s of 3,750,000,000 read "peak 3.7
// GB/s is 99.8% of bandwidth 3.8 GB/s"; now "3.742 GB/s is 99.8% of bandwidth 3.750 GB/s".
func formatRateShare(rate, capacity int64) (rateText, capacityText, share string) {
	pct := func(a, b float64) string { return fmt.Sprintf("%.1f%%", 100*a/b) }
	share = pct(float64(rate), float64(capacity))
	scale, unit := 1.0, 0
	for float64(capacity)/scale >= 999.95 && unit < len(siByteUnits)-1 {
		scale *= 1000
		unit++
	}
	if unit == 0 {
		return FormatRate(rate), FormatRate(capacity), share // whole bytes: exact
	}
	r, c := float64(rate)/scale, float64(capacity)/scale
	decimals := 1
	for ; decimals < 4; decimals++ {
		p := math.Pow10(decimals)
		if rc := math.Round(c*p) / p; rc > 0 && pct(math.Round(r*p)/p, rc) == share {
			break
		}
	}
	format := func(v float64) string {
		return strconv.FormatFloat(v, 'f', decimals, 64) + " " + siByteUnits[unit] + "/s"
	}
	return format(r), format(c), share
}

// KubeProxySaturatedFraction is the share of a run spent syncing from which the plan calls
// kube-proxy saturated: its sync loop then runs nearly back to back, so each change waits
// for the sync in progress and minSyncPeriod no longer bounds the delay.
const KubeProxySaturatedFraction = 0.9

// writeBudget returns the write-rate budget of mode m at p and how to name it.
func (r *PlanResults) writeBudget(p *PlanPoint, m sim.Mode) (float64, string) {
	if b := r.Plan.Budgets.WritesPerSec; b > 0 {
		return b, "the budget"
	}
	if m == sim.ModeEndpoints {
		return p.EndpointsQPS, "the controller's QPS"
	}
	return p.EndpointSliceQPS, "the controller's QPS"
}

// formatLimitBytes prints a byte limit in SI units, and in MiB when it is a whole number of
// them (1.6 MB (1.5 MiB)).
func formatLimitBytes(n int64) string {
	if n >= 1<<20 && n%(1<<19) == 0 {
		return fmt.Sprintf("%s (%g MiB)", FormatBytes(n), float64(n)/(1<<20))
	}
	return FormatBytes(n)
}

// PlanRecommendation is the advice for one group of points that differ only in
// maxEndpointsPerSlice.
type PlanRecommendation struct {
	// Label names the group by its other axis values.
	Label string
	// EndpointsPerService is the group's service size (its largest Service's).
	EndpointsPerService int
	// MixedSizes says its Services differ in size, the smallest having SmallestService.
	MixedSizes      bool
	SmallestService int
	// Points are the group's points, in grid order.
	Points []*PlanPoint
	// Best is the recommended point (nil when no point of the group ran); WithinBudget
	// says it hits no limit.
	Best         *PlanPoint
	WithinBudget bool
	// BySize splits the advice by the size of the scenario's own Services, when its runs
	// have more than one Service: per size group, the layout that fans out the fewest bytes
	// for those Services.
	BySize []PlanSizeRecommendation
}

// PlanSizeRecommendation is the layout a group of Services of similar size favours.
type PlanSizeRecommendation struct {
	// Size names the group ("101–1,000 endpoints"); Min and Max bound its replicas (Max 0:
	// no bound; both 0: Services of unknown size).
	Size     string
	Min, Max int
	// Services is how many Services of the scenario are in the group.
	Services int
	// Bytes are the group's EndpointSlices bytes fanned out at each point of the
	// recommendation group (in its order; -1 where the point did not run), and
	// EndpointsBytes the legacy Endpoints bytes for the same Services.
	Bytes          []int64
	EndpointsBytes int64
	// Best is the point with the fewest bytes among those where no Service of the group
	// had a failed write (or the fewest bytes when every point had one).
	Best *PlanPoint
	// Failed says the best point still had failed writes for the group.
	Failed bool
}

// serviceSizeGroups are the bounds of the Service size groups, in endpoints (replicas).
var serviceSizeGroups = []struct {
	min, max int
	name     string
}{
	{1, 10, "1–10 endpoints"},
	{11, 100, "11–100 endpoints"},
	{101, 1000, "101–1,000 endpoints"},
	{1001, 10000, "1,001–10,000 endpoints"},
	{10001, 0, "over 10,000 endpoints"},
}

// sizeGroup returns the index in serviceSizeGroups of a Service of replicas endpoints, or
// len(serviceSizeGroups) when the size is unknown.
func sizeGroup(replicas int) int {
	for i, g := range serviceSizeGroups {
		if replicas >= g.min && (g.max == 0 || replicas <= g.max) {
			return i
		}
	}
	return len(serviceSizeGroups)
}

// bySize splits a recommendation group by Service size; nil unless its runs have more than
// one Service.
func bySize(points []*PlanPoint) []PlanSizeRecommendation {
	many := false
	for _, p := range points {
		if p.ok() && len(p.Summary.Services) > 1 {
			many = true
		}
	}
	if !many {
		return nil
	}
	n := len(serviceSizeGroups) + 1
	out := make([]PlanSizeRecommendation, n)
	failed := make([][]bool, n)
	for g := range out {
		out[g].Bytes = make([]int64, len(points))
		failed[g] = make([]bool, len(points))
		if g < len(serviceSizeGroups) {
			out[g].Size, out[g].Min, out[g].Max = serviceSizeGroups[g].name, serviceSizeGroups[g].min, serviceSizeGroups[g].max
		} else {
			out[g].Size = "unknown size"
		}
	}
	counted := false
	for k, p := range points {
		if !p.ok() {
			for g := range out {
				out[g].Bytes[k] = -1
			}
			continue
		}
		for i := range p.Summary.Services {
			sv := &p.Summary.Services[i]
			g := sizeGroup(sv.Replicas)
			if !counted {
				out[g].Services++
				if sv.Endpoints != nil {
					out[g].EndpointsBytes += sv.Endpoints.FanoutBytes
				}
			}
			if sv.EndpointSlices != nil {
				out[g].Bytes[k] += sv.EndpointSlices.FanoutBytes
				failed[g][k] = failed[g][k] || sv.EndpointSlices.FailedWrites > 0
			}
		}
		counted = true
	}
	var kept []PlanSizeRecommendation
	for g := range out {
		rec := &out[g]
		if rec.Services == 0 {
			continue
		}
		best := -1
		for k, b := range rec.Bytes {
			if b < 0 || points[k].mode(sim.ModeEndpointSlices) == nil {
				continue
			}
			if best < 0 || (!failed[g][k] && failed[g][best]) || (failed[g][k] == failed[g][best] && b < rec.Bytes[best]) {
				best = k
			}
		}
		if best >= 0 {
			rec.Best, rec.Failed = points[best], failed[g][best]
		}
		kept = append(kept, *rec)
	}
	return kept
}

// Recommendations groups the points by every axis that does not change
// maxEndpointsPerSlice and, in each group, picks the EndpointSlice layout that fans out the
// fewest bytes while hitting no limit (the same timeline, so the fewest bytes per change);
// when every layout hits a limit, it picks the fewest bytes anyway and says so. Groups are
// in grid order.
func (r *PlanResults) Recommendations() []PlanRecommendation {
	affects := r.axesAffecting(func(p *PlanPoint) int { return p.MaxEndpointsPerSlice })
	var out []PlanRecommendation
	byKey := map[string]int{}
	for i := range r.Points {
		p := &r.Points[i]
		var parts []string
		for a, ax := range r.Plan.Axes {
			if !affects[a] && a < len(p.Values) {
				parts = append(parts, ax.Name+"="+p.Values[a])
			}
		}
		key := strings.Join(parts, ", ")
		g, ok := byKey[key]
		if !ok {
			g = len(out)
			byKey[key] = g
			out = append(out, PlanRecommendation{Label: key, EndpointsPerService: p.EndpointsPerService,
				MixedSizes: p.MixedSizes, SmallestService: p.SmallestService})
		}
		out[g].Points = append(out[g].Points, p)
	}
	for g := range out {
		rec := &out[g]
		for _, p := range rec.Points {
			ms := p.mode(sim.ModeEndpointSlices)
			if ms == nil {
				continue
			}
			within := len(r.Limits(p, sim.ModeEndpointSlices)) == 0
			better := rec.Best == nil ||
				(within && !rec.WithinBudget) ||
				(within == rec.WithinBudget && ms.FanoutBytes < rec.Best.mode(sim.ModeEndpointSlices).FanoutBytes)
			if better {
				rec.Best, rec.WithinBudget = p, within
			}
		}
		rec.BySize = bySize(rec.Points)
	}
	return out
}

// axesAffecting reports, per axis, whether changing only that axis changes f.
func (r *PlanResults) axesAffecting(f func(*PlanPoint) int) []bool {
	out := make([]bool, len(r.Plan.Axes))
	for a := range r.Plan.Axes {
		seen := map[string]int{}
		for i := range r.Points {
			p := &r.Points[i]
			if len(p.Values) != len(r.Plan.Axes) {
				continue
			}
			rest := slices.Clone(p.Values)
			rest[a] = ""
			key := strings.Join(rest, "\x00")
			if v, ok := seen[key]; ok && v != f(p) {
				out[a] = true
				break
			}
			seen[key] = f(p)
		}
	}
	return out
}

// WritePlanPartial writes r as indented JSON (the partial file of `sim plan --shard`).
func WritePlanPartial(w io.Writer, r *PlanResults) error {
	return writeIndentedJSON(w, r, "plan partial")
}

// ReadPlanPartial decodes a partial written by WritePlanPartial, strictly. Its errors
// describe the content: the caller names the file.
func ReadPlanPartial(rd io.Reader) (*PlanResults, error) {
	dec := json.NewDecoder(rd)
	dec.DisallowUnknownFields()
	var r PlanResults
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a plan partial: %w", readError(err))
	}
	if r.Format != PlanFormat {
		return nil, fmt.Errorf("a plan partial of format %q, want %q", r.Format, PlanFormat)
	}
	if r.Shards < 1 || r.Shard < 0 || r.Shard >= r.Shards {
		return nil, fmt.Errorf("a plan partial numbered shard %d of %d", r.Shard, r.Shards)
	}
	for _, p := range r.Points {
		if p.Index < 0 || p.Index >= r.Plan.GridPoints || len(p.Values) != len(r.Plan.Axes) {
			return nil, fmt.Errorf("a plan partial whose point %d does not fit the grid (%d points, %d axes)", p.Index, r.Plan.GridPoints, len(r.Plan.Axes))
		}
	}
	return &r, nil
}

// ErrPlanMerge is returned (wrapped) when partials do not add up to one plan's grid.
var ErrPlanMerge = errors.New("reports: partials do not make up one plan")

// MergePlanPartials joins partials of one plan into the results of the whole grid, points
// in index order. Every point of the grid must be present exactly once.
func MergePlanPartials(parts []*PlanResults) (*PlanResults, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("%w: no partials", ErrPlanMerge)
	}
	spec, err := json.Marshal(parts[0].Plan)
	if err != nil {
		return nil, err
	}
	out := &PlanResults{Format: PlanFormat, Plan: parts[0].Plan, Shard: 0, Shards: 1}
	seen := make([]bool, parts[0].Plan.GridPoints)
	for i, part := range parts {
		other, err := json.Marshal(part.Plan)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(spec, other) {
			return nil, fmt.Errorf("%w: partial %d (shard %d/%d) is of another plan, or another version of it", ErrPlanMerge, i+1, part.Shard, part.Shards)
		}
		for _, p := range part.Points {
			if seen[p.Index] {
				return nil, fmt.Errorf("%w: grid point %d appears twice", ErrPlanMerge, p.Index)
			}
			seen[p.Index] = true
			out.Points = append(out.Points, p)
		}
	}
	var missing []string
	for i, ok := range seen {
		if !ok && len(missing) < 10 {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: grid points missing: %s (run every shard i/n for i = 0..n-1)", ErrPlanMerge, strings.Join(missing, ", "))
	}
	slices.SortFunc(out.Points, func(a, b PlanPoint) int { return a.Index - b.Index })
	return out, nil
}
