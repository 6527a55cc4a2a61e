package sim

import (
	"math"
	"slices"
)

// collector accumulates results as the run goes: per phase and mode, per second, per write.
type collector struct {
	e       *Engine
	phases  []PhaseResult
	latency [][2][]float64 // per phase, per mode: latency samples in seconds
	buckets []Bucket
	writes  []WriteRecord
	layout  []LayoutSample
	// sliceSizes counts live EndpointSlices by endpoint count, for layout samples.
	sliceSizes    []int
	slices        int
	endpoints     int
	layoutDirtyAt int64 // the second a layout change happened in (-1: none pending)
	objects       [2]int64
	// programming holds, per mode and phase, network programming latency samples (seconds).
	programming [2][][]float64
	// services accumulates per Service (by serviceState.idx) and mode, over the whole run:
	// a fixed-size record and a latency sample per committed write, O(1) per write.
	services [][2]serviceAcc
}

// serviceAcc is one Service's accounting in one mode.
type serviceAcc struct {
	writes, failed, fanout, maxObject int64
	latency                           []float64
}

// service returns the accounting of service idx in mode m.
func (c *collector) service(idx int, m Mode) *serviceAcc {
	for len(c.services) <= idx {
		c.services = append(c.services, [2]serviceAcc{})
	}
	return &c.services[idx][modeIndex(m)]
}

func newCollector(e *Engine) *collector {
	c := &collector{e: e, sliceSizes: make([]int, model1000+1), layoutDirtyAt: -1}
	c.phases = make([]PhaseResult, len(e.cfg.Timeline))
	c.latency = make([][2][]float64, len(e.cfg.Timeline))
	for i, a := range e.cfg.Timeline {
		c.phases[i].Name = a.Name
	}
	return c
}

// model1000 bounds the slice-size histogram; larger slices (after max was lowered) are clamped.
const model1000 = 1000

func (c *collector) mode(m Mode) *ModeResult {
	return c.phases[c.e.phase].Mode(m)
}

func (c *collector) bucket(t Time) *Bucket {
	sec := int64(t / 1e9)
	for int64(len(c.buckets)) <= sec {
		c.buckets = append(c.buckets, Bucket{Second: int64(len(c.buckets))})
	}
	return &c.buckets[sec]
}

func (c *collector) sync(m Mode)  { c.mode(m).Syncs++ }
func (c *collector) stale(m Mode) { c.mode(m).StaleSyncs++ }

// write records a write that produced no event (failed or no-op).
func (c *collector) write(rec WriteRecord, cm committed, svc int) {
	rec.Phase = c.phases[c.e.phase].Name
	r := c.mode(rec.Mode)
	switch rec.Outcome {
	case "failed":
		r.FailedWrites++
		c.service(svc, rec.Mode).failed++
	case "noop":
		r.NoopWrites++
		r.RequestBytes += cm.requestBytes
	case "conflict":
		r.Conflicts++
	}
	if cm.truncated {
		r.TruncatedObjects++
		r.HiddenAddresses = max(r.HiddenAddresses, cm.hidden)
	}
	if !c.e.cfg.NoWriteLog {
		c.writes = append(c.writes, rec)
	}
}

// committed records a write that the API server stored and fanned out.
func (c *collector) committed(rec WriteRecord, cm committed, svc int, fanout, perNode, events int64, d delivery) {
	latency := rec.Latency
	rec.Phase = c.phases[c.e.phase].Name
	r := c.mode(rec.Mode)
	sa := c.service(svc, rec.Mode)
	sa.writes++
	sa.fanout += fanout
	if rec.Verb != "delete" {
		sa.maxObject = max(sa.maxObject, cm.objectBytes[0])
	}
	if events > 0 {
		sa.latency = append(sa.latency, latency.Seconds())
	}
	switch rec.Verb {
	case "create":
		r.Writes.Create++
		c.objects[modeIndex(rec.Mode)]++
	case "update":
		r.Writes.Update++
	case "delete":
		r.Writes.Delete++
		c.objects[modeIndex(rec.Mode)]--
	}
	if rec.Verb != "delete" {
		r.EtcdBytes += cm.objectBytes[0]
		r.MaxObjectBytes = max(r.MaxObjectBytes, cm.objectBytes[0])
	}
	r.RequestBytes += cm.requestBytes
	r.WatchEvents += events
	r.FanoutBytes += fanout
	r.PerNodeBytes += perNode
	if cm.truncated {
		r.TruncatedObjects++
		r.HiddenAddresses = max(r.HiddenAddresses, cm.hidden)
	}
	b := c.bucket(c.e.now)
	bm := &b.EndpointSlices
	if rec.Mode == ModeEndpoints {
		bm = &b.Endpoints
	}
	bm.Writes++
	if rec.Verb != "delete" {
		bm.EtcdBytes += cm.objectBytes[0]
	}
	r.WatcherTerminations += d.terminated
	r.Relists += d.relists
	r.ResentBytes += d.resentBytes
	if events > 0 {
		bm.MaxLatencySeconds = max(bm.MaxLatencySeconds, latency.Seconds())
		mi := modeIndex(rec.Mode)
		c.latency[c.e.phase][mi] = append(c.latency[c.e.phase][mi], latency.Seconds())
	}
	if !c.e.cfg.NoWriteLog {
		c.writes = append(c.writes, rec)
	}
}

// egress records bytes leaving the API servers between start and end, spread evenly over
// the 1 s buckets the interval covers.
func (c *collector) egress(m Mode, start, end Time, bytes int64) {
	add := func(t Time, b int64) {
		bk := c.bucket(t)
		if m == ModeEndpoints {
			bk.Endpoints.FanoutBytes += b
		} else {
			bk.EndpointSlices.FanoutBytes += b
		}
	}
	if end <= start || start/1e9 == (end-1)/1e9 {
		add(start, bytes)
		return
	}
	span := float64(end - start)
	left := bytes
	for t := start; t < end; {
		next := min((t/1e9+1)*1e9, end)
		b := int64(float64(bytes) * float64(next-t) / span)
		if next == end {
			b = left
		}
		add(t, b)
		left -= b
		t = next
	}
}

// sliceResized updates the layout histogram when a slice goes from old to new endpoints
// (old < 0: created; new < 0: deleted).
func (c *collector) sliceResized(old, new int) {
	if old >= 0 {
		c.sliceSizes[min(old, model1000)]--
		c.slices--
		c.endpoints -= old
	}
	if new >= 0 {
		c.sliceSizes[min(new, model1000)]++
		c.slices++
		c.endpoints += new
	}
	sec := int64(c.e.now / 1e9)
	if c.layoutDirtyAt >= 0 && c.layoutDirtyAt != sec {
		c.sampleLayout(Time(c.layoutDirtyAt+1) * 1e9)
	}
	c.layoutDirtyAt = sec
}

// sampleLayout records the slice layout as of time at.
func (c *collector) sampleLayout(at Time) {
	s := LayoutSample{At: at, Slices: c.slices, Endpoints: c.endpoints, Min: -1}
	seen := 0
	for size, n := range c.sliceSizes {
		if n == 0 {
			continue
		}
		if s.Min < 0 {
			s.Min = size
		}
		s.Max = size
		if seen < (c.slices+1)/2 && seen+n >= (c.slices+1)/2 {
			s.Median = size
		}
		seen += n
	}
	if s.Min < 0 {
		s.Min = 0
	}
	c.layout = append(c.layout, s)
	c.layoutDirtyAt = -1
}

// phaseEnded closes phase i at time t: peak egress, latency percentiles, live objects.
func (c *collector) phaseEnded(i int, start, end Time) {
	p := &c.phases[i]
	p.Start, p.End = start, end
	for _, m := range []Mode{ModeEndpointSlices, ModeEndpoints} {
		r := p.Mode(m)
		mi := modeIndex(m)
		r.Objects = c.objects[mi]
		r.Propagation = summarize(c.latency[i][mi])
		last := int64(end / 1e9)
		if i == len(c.phases)-1 {
			last = int64(len(c.buckets)) // the last phase also owns the tail of deliveries
		}
		for sec := int64(start / 1e9); sec <= last && sec < int64(len(c.buckets)); sec++ {
			b := &c.buckets[sec]
			v := b.EndpointSlices.FanoutBytes
			if m == ModeEndpoints {
				v = b.Endpoints.FanoutBytes
			}
			r.PeakEgressBytesPerSec = max(r.PeakEgressBytesPerSec, v)
		}
	}
}

// summarize computes latency percentiles (nearest rank) of samples.
func summarize(samples []float64) Latency {
	if len(samples) == 0 {
		return Latency{}
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	rank := func(q float64) float64 {
		i := int(math.Ceil(q*float64(len(s)))) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return Latency{Count: int64(len(s)), P50Seconds: rank(0.50), P90Seconds: rank(0.90), P99Seconds: rank(0.99), MaxSeconds: s[len(s)-1]}
}

// results assembles the final Results, with the total over all phases.
func (c *collector) results() *Results {
	e := c.e
	if c.layoutDirtyAt >= 0 {
		c.sampleLayout(Time(c.layoutDirtyAt+1) * 1e9)
	}
	c.kubeProxyResults(e.now)
	r := &Results{
		Scenario: e.cfg.Name,
		Seed:     e.cfg.Seed,
		Nodes:    len(e.nodes),
		Watchers: int(e.api.watchers(ModeEndpointSlices)),
		Phases:   c.phases,
		Series:   c.buckets,
		Writes:   c.writes,
		Layout:   c.layout,
		Events:   e.events,
		EndTime:  e.now,

		SLOSeconds:   e.cfg.SLO.Seconds(),
		NetworkModel: e.cfg.Network.Enabled,
	}
	if e.cfg.Network.Enabled {
		r.EgressCapacityBytesPerSec = int64(e.cfg.APIServer.EgressBitsPerSec / 8 * float64(max(e.cfg.APIServer.Replicas, 1)))
	}
	r.Total.Name = "total"
	if len(c.phases) > 0 {
		r.Total.Start, r.Total.End = c.phases[0].Start, c.phases[len(c.phases)-1].End
	}
	for _, m := range []Mode{ModeEndpointSlices, ModeEndpoints} {
		t := r.Total.Mode(m)
		var all, programming []float64
		var busy float64
		for i := range c.phases {
			p := c.phases[i].Mode(m)
			t.Writes.Create += p.Writes.Create
			t.Writes.Update += p.Writes.Update
			t.Writes.Delete += p.Writes.Delete
			t.NoopWrites += p.NoopWrites
			t.FailedWrites += p.FailedWrites
			t.Conflicts += p.Conflicts
			t.Syncs += p.Syncs
			t.StaleSyncs += p.StaleSyncs
			t.EtcdBytes += p.EtcdBytes
			t.RequestBytes += p.RequestBytes
			t.WatchEvents += p.WatchEvents
			t.FanoutBytes += p.FanoutBytes
			t.PerNodeBytes += p.PerNodeBytes
			t.MaxObjectBytes = max(t.MaxObjectBytes, p.MaxObjectBytes)
			t.PeakEgressBytesPerSec = max(t.PeakEgressBytesPerSec, p.PeakEgressBytesPerSec)
			t.TruncatedObjects += p.TruncatedObjects
			t.HiddenAddresses = max(t.HiddenAddresses, p.HiddenAddresses)
			t.WatcherTerminations += p.WatcherTerminations
			t.Relists += p.Relists
			t.ResentBytes += p.ResentBytes
			t.Objects = p.Objects
			all = append(all, c.latency[i][modeIndex(m)]...)
			t.KubeProxyCPUSeconds += p.KubeProxyCPUSeconds
			t.KubeProxyDecodeCPUSeconds += p.KubeProxyDecodeCPUSeconds
			t.KubeProxySyncs += p.KubeProxySyncs
			t.KubeProxyFullSyncs += p.KubeProxyFullSyncs
			t.PeakSyncSeconds = max(t.PeakSyncSeconds, p.PeakSyncSeconds)
			t.APIServerCPUSeconds += p.APIServerCPUSeconds
			busy += p.KubeProxyBusyFraction * (c.phases[i].End - c.phases[i].Start).Seconds()
			if ps := c.programming[modeIndex(m)]; i < len(ps) {
				programming = append(programming, ps[i]...)
			}
		}
		t.Propagation = summarize(all)
		t.Programming = summarize(programming)
		if d := (r.Total.End - r.Total.Start).Seconds(); d > 0 {
			t.KubeProxyBusyFraction = min(busy/d, 1)
		}
	}
	r.Services = c.serviceResults()
	return r
}

// serviceResults returns every Service that some mode wrote for, in creation order.
func (c *collector) serviceResults() []ServiceResult {
	var out []ServiceResult
	for i, acc := range c.services {
		if i >= len(c.e.services) || c.e.services[i].svc == nil {
			continue
		}
		if acc[0].writes+acc[0].failed+acc[1].writes+acc[1].failed == 0 {
			continue
		}
		st := c.e.services[i]
		sr := ServiceResult{Namespace: st.svc.Namespace, Name: st.svc.Name}
		switch {
		case st.cfg == nil:
		case st.kind() == KindDaemonSet:
			sr.Replicas = c.e.cfg.Cluster.Nodes // one pod per node; Replicas is ignored
		default:
			sr.Replicas = st.cfg.Replicas
		}
		for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
			a := &acc[modeIndex(m)]
			*sr.Mode(m) = ServiceModeResult{Writes: a.writes, FailedWrites: a.failed, FanoutBytes: a.fanout,
				MaxObjectBytes: a.maxObject, Propagation: summarize(a.latency)}
		}
		out = append(out, sr)
	}
	return out
}
