package sim

import (
	"fmt"
	"math"
)

// collector accumulates results as the run goes: per phase and mode, per second, per write.
type collector struct {
	e      *Engine
	phases []PhaseResult
	// series is the traffic series: bucket i starts at second i×width and is width seconds
	// long (what Results.Series says of each bucket, so it is not kept). width is 1,
	// doubled when the run outgrows MaxSeriesBuckets. resent holds the buckets' bytes
	// re-sent to closed watchers, by bucket: few buckets have any.
	series chunkList[bucketTraffic]
	resent map[int][2]int64
	width  int64
	writes []WriteRecord
	layout chunkList[layoutSample]
	// sliceSizes counts live EndpointSlices by endpoint count, for layout samples; the counts
	// from sizesTop on have always been zero (a sample reads no further: most runs' slices
	// hold at most 100 endpoints of the 1,000 counted).
	sliceSizes    []int
	sizesTop      int
	slices        int
	endpoints     int
	layoutDirtyAt int64 // the second a layout change happened in (-1: none pending)
	objects       [2]int64
	// err is the first figure that overflowed int64; the run stops with it.
	err error
	// lastWrite is the time of the last API write.
	lastWrite Time
	// programming holds, per mode, the network programming latency samples of every phase.
	programming [2][]runChunk
	// services accumulates per Service (by serviceState.idx) and mode, over the whole run:
	// a fixed-size record and a latency sample per committed write, O(1) per write. The
	// samples are kept once, here: a phase's and the run's propagation summaries are made
	// from every Service's.
	services [][2]serviceAcc
	// wrote is finishRun's list of the Services that wrote, for serviceResults.
	wrote []serviceWrote
}

// serviceAcc is one Service's accounting in one mode.
type serviceAcc struct {
	fanout, maxObject int64
	// writes and failed count its writes: int32, as a Service's writes are far fewer than
	// 2^31, for a record of 72 bytes rather than 80 (two a Service).
	writes, failed int32
	latency        latencyLog
}

// service returns the accounting of service idx in mode m.
func (c *collector) service(idx int, m Mode) *serviceAcc {
	if len(c.services) <= idx {
		// One allocation for every Service of the run (two records of ~100 bytes each).
		n := max(idx+1, len(c.e.services))
		c.services = append(c.services, make([][2]serviceAcc, n-len(c.services))...)
	}
	return &c.services[idx][modeIndex(m)]
}

// add adds v to the figure *dst, recording an error naming the figure instead of wrapping
// around past math.MaxInt64 (a negative v is an overflowed product upstream of here).
func (c *collector) add(dst *int64, v int64, figure string, m Mode) {
	if v < 0 || *dst > math.MaxInt64-v {
		if c.err == nil {
			c.err = fmt.Errorf("%w: %s of %s in phase %q is more than %d", ErrOverflow, figure, m, c.phases[c.e.phase].Name, int64(math.MaxInt64))
		}
		return
	}
	*dst += v
}

// mulChecked returns a × b, or -1 when the product overflows int64 (a, b ≥ 0).
func mulChecked(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return -1
	}
	return a * b
}

func newCollector(e *Engine) *collector {
	c := &collector{e: e, sliceSizes: make([]int, model1000+1), layoutDirtyAt: -1, width: 1}
	c.phases = make([]PhaseResult, len(e.cfg.Timeline))
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

// bucketTraffic is a Bucket's traffic as the collector keeps it (see collector.series), by
// mode (modeIndex): 64 bytes where two BucketModes take 80, in a series of up to 65,536.
type bucketTraffic [2]bucketMode

// bucketMode is a BucketMode but for its ResentBytes (collector.resent), with its largest
// latency as a Time, whose Seconds is MaxLatencySeconds (the conversion keeps the order,
// so the largest converts to the largest).
type bucketMode struct {
	fanout, etcd int64
	maxLatency   Time
	// writes counts the bucket's writes: far below 2^32 in any run.
	writes uint32
}

// add adds b's traffic to m.
func (m *bucketMode) add(b bucketMode) {
	m.writes += b.writes
	m.fanout += b.fanout
	m.etcd += b.etcd
	m.maxLatency = max(m.maxLatency, b.maxLatency)
}

// public returns m as a BucketMode with resent bytes resent.
func (m *bucketMode) public(resent int64) BucketMode {
	return BucketMode{Writes: int64(m.writes), FanoutBytes: m.fanout, ResentBytes: resent, EtcdBytes: m.etcd,
		MaxLatencySeconds: m.maxLatency.Seconds()}
}

// bucket returns the bucket of time t and its index, coarsening the series first if t is
// past its end.
func (c *collector) bucket(t Time) (int, *bucketTraffic) {
	sec := int64(t / 1e9)
	for sec/c.width >= MaxSeriesBuckets {
		c.coarsen()
	}
	i := int(sec / c.width)
	for c.series.len() <= i {
		c.series.push(bucketTraffic{})
	}
	return i, c.series.at(i)
}

// seriesBuckets returns the traffic series as Results.Series holds it.
func (c *collector) seriesBuckets() []Bucket {
	var width int64 // 0 means 1
	if c.width > 1 {
		width = c.width
	}
	out := make([]Bucket, 0, c.series.len())
	for _, chunk := range c.series.chunks {
		for _, b := range chunk {
			r := c.resent[len(out)]
			out = append(out, Bucket{Second: int64(len(out)) * c.width, Width: width,
				Endpoints:      b[modeIndex(ModeEndpoints)].public(r[modeIndex(ModeEndpoints)]),
				EndpointSlices: b[modeIndex(ModeEndpointSlices)].public(r[modeIndex(ModeEndpointSlices)])})
		}
	}
	return out
}

// coarsen doubles the width of every bucket, merging pairs, so that the series stays
// within MaxSeriesBuckets whatever the span of virtual time.
func (c *collector) coarsen() {
	w := c.width * 2
	n := (c.series.len() + 1) / 2
	for i := range n {
		b := *c.series.at(2 * i)
		if 2*i+1 < c.series.len() {
			next := c.series.at(2*i + 1)
			for m := range b {
				b[m].add(next[m])
			}
		}
		*c.series.at(i) = b
	}
	c.series.truncate(n)
	if len(c.resent) > 0 {
		merged := make(map[int][2]int64, len(c.resent))
		for i, r := range c.resent {
			m := merged[i/2]
			m[0] += r[0]
			m[1] += r[1]
			merged[i/2] = m
		}
		c.resent = merged
	}
	c.width = w
}

// chunkList is a list that grows in chunks of listChunk items, for what a run keeps for its
// whole length and appends to all along (the traffic series, the layout samples). A slice
// that doubled kept up to half of itself unused (3 MB of many-services' 35,000 buckets), and
// one that grew by less copied itself many times over. A chunked list is never copied while
// it grows and keeps less than a chunk unused.
type chunkList[T any] struct {
	chunks [][]T // each of listChunk capacity; all but the last are full
	n      int
}

// listChunk is the number of items of a chunk (96 KB of buckets).
const listChunk = 1024

func (s *chunkList[T]) len() int { return s.n }

// at returns item i (i < len).
func (s *chunkList[T]) at(i int) *T { return &s.chunks[i/listChunk][i%listChunk] }

// push appends v.
func (s *chunkList[T]) push(v T) {
	if s.n%listChunk == 0 {
		s.chunks = append(s.chunks, make([]T, 0, listChunk))
	}
	last := &s.chunks[len(s.chunks)-1]
	*last = append(*last, v)
	s.n++
}

// truncate keeps the first n items (n ≤ len), dropping the chunks past them.
func (s *chunkList[T]) truncate(n int) {
	keep := (n + listChunk - 1) / listChunk
	clear(s.chunks[keep:])
	s.chunks = s.chunks[:keep]
	if keep > 0 {
		last := &s.chunks[keep-1]
		tail := n - (keep-1)*listChunk
		clear((*last)[tail:])
		*last = (*last)[:tail]
	}
	s.n = n
}

func (c *collector) sync(m Mode)  { c.mode(m).Syncs++ }
func (c *collector) stale(m Mode) { c.mode(m).StaleSyncs++ }

// write records a write that produced no event (failed or no-op).
func (c *collector) write(rec *WriteRecord, cm *committed, svc int) {
	rec.Phase = c.phases[c.e.phase].Name
	c.lastWrite = max(c.lastWrite, rec.At)
	r := c.mode(rec.Mode)
	// The controller sent the body whatever the API server then did with it.
	c.add(&r.RequestBytes, cm.requestBytes, "requestBytes", rec.Mode)
	switch rec.Outcome {
	case "failed":
		r.FailedWrites++
		c.service(svc, rec.Mode).failed++
	case "noop":
		r.NoopWrites++
	case "conflict":
		r.Conflicts++
	}
	// A truncated object is counted where it is committed: TruncatedObjects counts writes
	// that stored a truncated Endpoints, which a failed or no-op write did not.
	c.logWrite(rec)
}

// logWrite adds rec to the write log: to the Observer's, if it takes it (WriteLogger), or
// to Results.Writes; nowhere with NoWriteLog.
func (c *collector) logWrite(rec *WriteRecord) {
	if c.e.cfg.NoWriteLog {
		return
	}
	if l, ok := c.e.obs.(WriteLogger); ok {
		// By value: a pointer through the interface would move every rec to the heap.
		if err := l.LogWrite(*rec); err != nil && c.err == nil {
			c.err = fmt.Errorf("sim: write log: %w", err)
		}
		return
	}
	c.writes = append(c.writes, *rec)
}

// committed records a write that the API server stored and fanned out.
func (c *collector) committed(rec *WriteRecord, cm *committed, svc int, fanout, perNode, events int64, d delivery) {
	latency := rec.Latency
	rec.Phase = c.phases[c.e.phase].Name
	c.lastWrite = max(c.lastWrite, rec.At)
	r := c.mode(rec.Mode)
	r.Watchers = max(r.Watchers, events)
	sa := c.service(svc, rec.Mode)
	sa.writes++
	sa.fanout += fanout
	if rec.Verb != "delete" {
		sa.maxObject = max(sa.maxObject, cm.objectBytes[0])
	}
	if events > 0 {
		sa.latency.add(latency, c.e.phase)
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
		c.add(&r.EtcdBytes, cm.objectBytes[0], "etcdBytes", rec.Mode)
		r.MaxObjectBytes = max(r.MaxObjectBytes, cm.objectBytes[0])
	}
	c.add(&r.RequestBytes, cm.requestBytes, "requestBytes", rec.Mode)
	c.add(&r.WatchEvents, events, "watchEvents", rec.Mode)
	c.add(&r.FanoutBytes, fanout, "fanoutBytes", rec.Mode)
	c.add(&r.PerNodeBytes, perNode, "perNodeBytes", rec.Mode)
	if cm.truncated {
		r.TruncatedObjects++
		r.HiddenAddresses = max(r.HiddenAddresses, cm.hidden)
	}
	_, b := c.bucket(c.e.now)
	bm := &b[modeIndex(rec.Mode)]
	bm.writes++
	if rec.Verb != "delete" {
		bm.etcd += cm.objectBytes[0]
	}
	r.WatcherTerminations += d.terminated + d.deadClosed
	r.Relists += d.relists
	c.add(&r.ResentBytes, d.resentBytes, "resentBytes", rec.Mode)
	if events > 0 {
		bm.maxLatency = max(bm.maxLatency, latency)
	}
	c.logWrite(rec)
}

// egress records bytes leaving the API servers between start and end — fan-out of watch
// events and bytes re-sent to closed watchers — spread evenly over the buckets the interval
// covers.
func (c *collector) egress(m Mode, start, end Time, fanout, resent int64) {
	add := func(t Time, f, r int64) {
		i, bk := c.bucket(t)
		c.add(&bk[modeIndex(m)].fanout, f, "fanoutBytes per second", m)
		if r != 0 {
			if c.resent == nil {
				c.resent = map[int][2]int64{}
			}
			sum := c.resent[i]
			c.add(&sum[modeIndex(m)], r, "resentBytes per second", m)
			c.resent[i] = sum
		}
	}
	if end > start {
		c.bucket(end - 1) // coarsen first: the width is fixed for the loop below
	}
	width := Time(c.width) * 1e9
	if end <= start || start/width == (end-1)/width {
		add(start, fanout, resent)
		return
	}
	span := float64(end - start)
	leftF, leftR := fanout, resent
	for t := start; t < end; {
		next := min((t/width+1)*width, end)
		f := int64(float64(fanout) * float64(next-t) / span)
		r := int64(float64(resent) * float64(next-t) / span)
		if next == end {
			f, r = leftF, leftR
		}
		add(t, f, r)
		leftF -= f
		leftR -= r
		t = next
	}
}

// sliceResized updates the layout histogram when a slice goes from old to new endpoints
// (old < 0: created; new < 0: deleted).
func (c *collector) sliceResized(old, new int) {
	sec := int64(c.e.now / 1e9)
	if c.layoutDirtyAt >= 0 && c.layoutDirtyAt != sec {
		// The sample of the last second with a change: the layout it left, before this
		// change of a later second.
		c.sampleLayout(Time(c.layoutDirtyAt+1) * 1e9)
	}
	if old >= 0 {
		c.sliceSizes[min(old, model1000)]--
		c.slices--
		c.endpoints -= old
	}
	if new >= 0 {
		i := min(new, model1000)
		c.sliceSizes[i]++
		c.sizesTop = max(c.sizesTop, i+1)
		c.slices++
		c.endpoints += new
	}
	c.layoutDirtyAt = sec
}

// finishLayout takes the sample of the last second with a layout change, at the run's end.
func (c *collector) finishLayout() {
	if c.layoutDirtyAt >= 0 {
		c.sampleLayout(Time(c.layoutDirtyAt+1) * 1e9)
	}
}

// layoutSample is a LayoutSample as the collector keeps it, 24 bytes instead of 48: the
// counts of the run's slices and endpoints fit 4 bytes, and slice sizes are at most 1000
// (sliceSizes' last class).
type layoutSample struct {
	at                        Time
	slices, endpoints         int32
	minLen, medianLen, maxLen uint16
}

// layoutSamples returns the layout samples as Results.Layout holds them.
func (c *collector) layoutSamples() []LayoutSample {
	out := make([]LayoutSample, 0, c.layout.len())
	for _, chunk := range c.layout.chunks {
		for _, s := range chunk {
			out = append(out, LayoutSample{At: s.at, Slices: int(s.slices), Endpoints: int(s.endpoints),
				Min: int(s.minLen), Median: int(s.medianLen), Max: int(s.maxLen)})
		}
	}
	return out
}

// sampleLayout records the slice layout as of time at.
func (c *collector) sampleLayout(at Time) {
	s := LayoutSample{At: at, Slices: c.slices, Endpoints: c.endpoints, Min: -1}
	seen := 0
	for size, n := range c.sliceSizes[:c.sizesTop] {
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
	c.layout.push(layoutSample{at: s.At, slices: int32(s.Slices), endpoints: int32(s.Endpoints),
		minLen: uint16(s.Min), medianLen: uint16(s.Median), maxLen: uint16(s.Max)})
	c.layoutDirtyAt = -1
}

// phaseEnded closes phase i at time t: peak egress, latency percentiles, live objects.
func (c *collector) phaseEnded(i int, start, end Time) {
	p := &c.phases[i]
	p.Start, p.End = start, end
	p.PendingPods = int64(c.e.sched.unschedulablePods())
	var z summarizer
	parts := make([]samples, 0, len(c.services))
	for _, m := range []Mode{ModeEndpointSlices, ModeEndpoints} {
		r := p.Mode(m)
		mi := modeIndex(m)
		r.Objects = c.objects[mi]
		parts = parts[:0]
		for j := range c.services {
			if s := c.services[j][mi].latency.ofPhase(i); s.len() > 0 {
				parts = append(parts, s)
			}
		}
		r.Propagation = z.summarize(parts...)
		// Peak egress per second: a coarse bucket gives its average over its seconds.
		first, last := int64(start/1e9)/c.width, int64(end/1e9)/c.width
		if i == len(c.phases)-1 {
			last = int64(c.series.len()) // the last phase also owns the tail of deliveries
		}
		for j := first; j <= last && j < int64(c.series.len()); j++ {
			fanout, resent := c.series.at(int(j))[mi].fanout, c.resent[int(j)][mi]
			r.PeakEgressBytesPerSec = max(r.PeakEgressBytesPerSec, (fanout+resent)/c.width)
		}
	}
}

// addTotal is add for the total over all phases.
func (c *collector) addTotal(dst *int64, v int64, figure string, m Mode) {
	if v < 0 || *dst > math.MaxInt64-v {
		if c.err == nil {
			c.err = fmt.Errorf("%w: %s of %s in total is more than %d", ErrOverflow, figure, m, int64(math.MaxInt64))
		}
		return
	}
	*dst += v
}

// finishRun takes from the engine what the results need of it, once the run's events are
// done: the figures only the engine knows, kube-proxy's (kubeProxyResults) and the names of
// the Services that wrote. It returns the Results so far and lets go of the engine; results
// makes the rest from the collector's own records, so the engine's state can be collected
// before (Engine.release).
func (c *collector) finishRun() *Results {
	e := c.e
	c.finishLayout()
	e.api.net.flushResends()
	c.kubeProxyResults(e.now)
	r := &Results{
		Scenario:  e.cfg.Name,
		Seed:      e.cfg.Seed,
		Nodes:     len(e.nodes),
		Watchers:  int(e.api.watchers(ModeEndpointSlices)),
		Phases:    c.phases,
		Writes:    c.writes,
		Events:    e.events,
		PodEvents: e.podEvents,
		EndTime:   e.now,
		LastWrite: c.lastWrite,

		SLOSeconds:   e.cfg.SLO.Seconds(),
		NetworkModel: e.cfg.Network.Enabled,
	}
	if e.cfg.Network.Enabled {
		r.EgressCapacityBytesPerSec = int64(e.cfg.APIServer.EgressBitsPerSec / 8 * float64(max(e.cfg.APIServer.Replicas, 1)))
	}
	c.wrote = c.servicesThatWrote()
	c.e = nil
	return r
}

// results completes r, which finishRun returned, with the series, the totals over all
// phases and the Services' figures.
func (c *collector) results(r *Results) *Results {
	r.Series = c.seriesBuckets()
	r.Layout = c.layoutSamples()
	r.Total.Name = "total"
	if len(c.phases) > 0 {
		last := &c.phases[len(c.phases)-1]
		r.Total.Start, r.Total.End = c.phases[0].Start, last.End
		r.Total.PendingPods = last.PendingPods
	}
	var z summarizer
	parts := make([]samples, 0, len(c.services))
	for _, m := range []Mode{ModeEndpointSlices, ModeEndpoints} {
		t := r.Total.Mode(m)
		mi := modeIndex(m)
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
			c.addTotal(&t.EtcdBytes, p.EtcdBytes, "etcdBytes", m)
			c.addTotal(&t.RequestBytes, p.RequestBytes, "requestBytes", m)
			c.addTotal(&t.WatchEvents, p.WatchEvents, "watchEvents", m)
			c.addTotal(&t.FanoutBytes, p.FanoutBytes, "fanoutBytes", m)
			c.addTotal(&t.PerNodeBytes, p.PerNodeBytes, "perNodeBytes", m)
			t.MaxObjectBytes = max(t.MaxObjectBytes, p.MaxObjectBytes)
			t.PeakEgressBytesPerSec = max(t.PeakEgressBytesPerSec, p.PeakEgressBytesPerSec)
			t.TruncatedObjects += p.TruncatedObjects
			t.HiddenAddresses = max(t.HiddenAddresses, p.HiddenAddresses)
			t.WatcherTerminations += p.WatcherTerminations
			t.Relists += p.Relists
			c.addTotal(&t.ResentBytes, p.ResentBytes, "resentBytes", m)
			t.Objects = p.Objects
			t.Watchers = max(t.Watchers, p.Watchers)
			t.KubeProxyCPUSeconds += p.KubeProxyCPUSeconds
			t.KubeProxyDecodeCPUSeconds += p.KubeProxyDecodeCPUSeconds
			t.KubeProxySyncs += p.KubeProxySyncs
			t.KubeProxyFullSyncs += p.KubeProxyFullSyncs
			t.PeakSyncSeconds = max(t.PeakSyncSeconds, p.PeakSyncSeconds)
			t.APIServerCPUSeconds += p.APIServerCPUSeconds
			busy += p.KubeProxyBusyFraction * (c.phases[i].End - c.phases[i].Start).Seconds()
		}
		parts = parts[:0]
		for j := range c.services {
			if s := c.services[j][mi].latency.all(); s.len() > 0 {
				parts = append(parts, s)
			}
		}
		t.Propagation = z.summarize(parts...)
		t.Programming = z.summarizeRuns(c.programming[mi]...)
		if d := (r.Total.End - r.Total.Start).Seconds(); d > 0 {
			t.KubeProxyBusyFraction = min(busy/d, 1)
		}
	}
	r.Services = c.serviceResults(&z)
	return r
}

// serviceWrote is a Service that some mode wrote for: its place in collector.services and
// the figures of its ServiceResult that the engine knows.
type serviceWrote struct {
	idx             int
	namespace, name string
	replicas        int
}

// servicesThatWrote returns every Service that some mode wrote for, in creation order.
func (c *collector) servicesThatWrote() []serviceWrote {
	var out []serviceWrote
	for i := range c.services {
		acc := &c.services[i]
		if i >= len(c.e.services) || c.e.services[i].svc == nil || acc[0].writes+acc[0].failed+acc[1].writes+acc[1].failed == 0 {
			continue
		}
		st := c.e.services[i]
		w := serviceWrote{idx: i, namespace: st.svc.Namespace, name: st.svc.Name}
		switch {
		case st.cfg == nil:
		case st.kind() == KindDaemonSet:
			w.replicas = c.e.cfg.Cluster.Nodes // one pod per node; Replicas is ignored
		case st.cfg.ManualEndpoints > 0:
			w.replicas = st.cfg.ManualEndpoints // no pods: the user's Endpoints addresses
		default:
			w.replicas = st.cfg.Replicas
		}
		out = append(out, w)
	}
	return out
}

// serviceResults returns every Service that some mode wrote for (finishRun's list), in
// creation order.
func (c *collector) serviceResults(z *summarizer) []ServiceResult {
	if len(c.wrote) == 0 {
		return nil
	}
	out := make([]ServiceResult, 0, len(c.wrote))
	for _, w := range c.wrote {
		acc := &c.services[w.idx]
		sr := ServiceResult{Namespace: w.namespace, Name: w.name, Replicas: w.replicas}
		for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
			a := &acc[modeIndex(m)]
			*sr.Mode(m) = ServiceModeResult{Writes: int64(a.writes), FailedWrites: int64(a.failed), FanoutBytes: a.fanout,
				MaxObjectBytes: a.maxObject, Propagation: z.summarize(a.latency.all())}
		}
		out = append(out, sr)
	}
	return out
}
