package sim

import "math"

// watchMark is where a node's kube-proxy stopped receiving, per mode: the count of events
// the resource's watch cache had taken (apiServer.events), and the bytes of the kube-proxy
// events sent until then (apiServer.proxyBytes).
type watchMark struct {
	at     Time
	events [2]int64
	bytes  [2]int64
}

// markWatch records where node i's kube-proxy stops receiving (its node failed).
func (e *Engine) markWatch(i int) {
	if e.watchMarks == nil {
		e.watchMarks = map[int]watchMark{}
	}
	e.watchMarks[i] = watchMark{at: e.now, events: e.api.events, bytes: e.api.proxyBytes}
}

// rewatch is node i's kube-proxy watching again, in each mode, after its node came back:
// from the resourceVersion it had when it stopped (markWatch). The watch cache replays the
// events it missed if it still holds them all; else the API server answers 410 Gone and
// the kube-proxy lists everything it watches (a relist). A kube-proxy that starts afresh
// (restart: an upgraded node) always lists.
// upstream: client-go tools/cache/reflector.go (watch from LastSyncResourceVersion, relist on
// a "too old resource version" error); apiserver storage/cacher watch_cache.go
// getAllEventsSinceLocked (too old when older than the history's oldest event).
func (e *Engine) rewatch(i int, restart bool) {
	mark, had := e.watchMarks[i]
	delete(e.watchMarks, i)
	for _, c := range e.ctls {
		m := c.mode
		mi := modeIndex(m)
		relist := restart || !had
		var replayed int64
		if !relist {
			missed := e.api.events[mi] - mark.events[mi]
			relist = !e.api.net.holds(m, missed, e.now-mark.at)
			replayed = e.api.proxyBytes[mi] - mark.bytes[mi]
		}
		e.api.resend(m, relist, replayed)
	}
}

// resend sends one kube-proxy what it takes to watch mode m again: a LIST of everything it
// watches (relist), or the events it missed, replayed from the watch cache (replayed
// bytes). The API server serializes either for it alone; the bytes leave through the
// egress the watch events share.
func (a *apiServer) resend(m Mode, relist bool, replayed int64) {
	mi := modeIndex(m)
	costs := a.e.cfg.APIServer.Costs
	bytes := replayed
	if relist {
		bytes = a.net.listSize(a.listBytes[mi])
	}
	if bytes <= 0 && !relist {
		return
	}
	cpu := float64(bytes) * (costs.EncodeProtobufNanosPerByte + costs.TLSNanosPerByte)
	a.e.stats.apiserverCPU(m, Time(cpu))
	a.net.resend(m, bytes)
	a.e.stats.rewatched(m, relist, bytes)
}

// holds reports whether mode m's watch cache still holds the missed events, the newest
// ones, of a watcher that stopped receiving down ago: its history keeps the newest events
// up to its capacity. Without the network model, which keeps the history, it holds what
// came in the last eventFreshDuration, the least it keeps.
func (n *network) holds(m Mode, missed int64, down Time) bool {
	if !n.enabled {
		return down <= eventFreshDuration
	}
	return missed <= int64(n.queues[modeIndex(m)].history.len())
}

// listSize is the bytes of a LIST of listBytes as sent: gzip-compressed from 128 KiB with
// network.listCompressionRatio.
func (n *network) listSize(listBytes int64) int64 {
	if r := n.e.cfg.Network.ListCompressionRatio; listBytes >= gzipThresholdBytes && r > 0 && r < 1 {
		return int64(float64(listBytes) * r)
	}
	return listBytes
}

// resend sends bytes to one watcher through mode m's egress. The egress is shared fairly
// among connections, and the watch events' are many small flows: they take what they need
// and do not wait behind these few large transfers (a first-come queue would hold every
// event until they were done), which take what is left. So the resends form a backlog
// that each replica's egress sends while the watch events leave it idle (advanceResends).
func (n *network) resend(m Mode, bytes int64) {
	now := n.e.now
	if !n.enabled || n.egressBps <= 0 {
		n.e.stats.egress(m, now, now, 0, bytes)
		return
	}
	q := &n.queues[modeIndex(m)]
	n.advanceResends(m, now)
	if q.resendBacklog == 0 {
		q.resendFrom = now
	}
	q.resendBacklog += bytes
}

// advanceResends sends mode m's resend backlog in the time before now that the watch
// events left the egress idle (after egressBusy), at the egress rate of every replica, and
// counts its bytes there.
func (n *network) advanceResends(m Mode, now Time) {
	q := &n.queues[modeIndex(m)]
	if q.resendBacklog == 0 {
		return
	}
	from := max(q.resendFrom, q.egressBusy)
	if now <= from {
		return
	}
	rate := n.egressBps / 8 * float64(n.replicas) // bytes per second, all replicas
	sent := min(q.resendBacklog, int64(float64(now-from)/1e9*rate))
	end := from + Time(math.Ceil(float64(sent)/rate*1e9))
	if sent == q.resendBacklog {
		end = min(end, now)
	} else {
		end = now
	}
	n.e.stats.egress(m, from, end, 0, sent)
	q.resendBacklog -= sent
	q.resendFrom = end
}

// resendsDone returns when mode m's resend backlog is sent, if no watch event comes
// before.
func (n *network) resendsDone(q *fluidQueue) Time {
	if q.resendBacklog == 0 {
		return 0
	}
	rate := n.egressBps / 8 * float64(n.replicas)
	return max(q.resendFrom, q.egressBusy) + Time(math.Ceil(float64(q.resendBacklog)/rate*1e9))
}

// flushResends sends what is left of every resend backlog (the run's events are done).
func (n *network) flushResends() {
	for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
		if q := &n.queues[modeIndex(m)]; q.resendBacklog > 0 {
			n.advanceResends(m, n.resendsDone(q))
		}
	}
}

// rewatched counts a kube-proxy's re-watch: a relist, and the bytes sent again.
func (c *collector) rewatched(m Mode, relist bool, bytes int64) {
	r := c.mode(m)
	if relist {
		r.Relists++
	}
	c.add(&r.ResentBytes, bytes, "resentBytes", m)
}
