package sim

import (
	"fmt"
	"math"
	"time"

	"epsim/model"
)

// connectionLostAfter is how long a kube-proxy's client goes without receiving anything
// before it finds its connection lost: client-go checks an HTTP/2 connection that has
// received no frame for 30 s with a ping, and closes it when no answer comes within 15 s.
// The watch then ends with an error (not the end of its stream), and the reflector lists
// again rather than watching from its last resourceVersion.
// upstream: apimachinery util/net/http.go readIdleTimeoutSeconds, pingTimeoutSeconds;
// watch/streamwatcher.go receive (an Error event for what is not a probable EOF); client-go
// tools/cache/reflector.go watch (returns on a watch error, and ListAndWatch starts again).
const connectionLostAfter = Time(45 * time.Second)

// listing is what a kube-proxy lists of one mode's objects: their bytes (protobuf), and
// those of the ADDED watch events that carry them in a watch list.
type listing struct{ bytes, events int64 }

// add counts an object of objectBytes (protobuf) in l.
func (l *listing) add(objectBytes int64) {
	l.bytes += objectBytes
	l.events += model.WatchEventSize(objectBytes, model.EventAdded, model.Protobuf)
}

// remove takes an object of objectBytes (protobuf) out of l.
func (l *listing) remove(objectBytes int64) {
	l.bytes -= objectBytes
	l.events -= model.WatchEventSize(objectBytes, model.EventAdded, model.Protobuf)
}

// watchMark is where a node's kube-proxy stopped receiving, per mode (modeIndex): when, the
// count of events the resource's watch cache had taken (apiServer.events), and the bytes of
// the kube-proxy events sent until then (apiServer.proxyBytes).
type watchMark struct {
	at     [2]Time
	events [2]int64
	bytes  [2]int64
}

// markWatch records where node i's kube-proxies stop receiving (its node failed): in each
// mode whose kube-proxy was watching; one still getting through from an earlier failure
// keeps its mark, its connection lost then.
func (e *Engine) markWatch(i int) {
	if e.watchMarks == nil {
		e.watchMarks = map[int]watchMark{}
	}
	mark := e.watchMarks[i]
	for mi := range mark.at {
		if e.proxyAway[mi] == nil || !e.proxyAway[mi][i] {
			mark.at[mi], mark.events[mi], mark.bytes[mi] = e.now, e.api.events[mi], e.api.proxyBytes[mi]
		}
	}
	e.watchMarks[i] = mark
}

// rewatch is node i's kube-proxy watching again, in each mode, after its node came back.
// Unreachable for connectionLostAfter or more, it found its connection lost, and lists
// everything it watches (a relist). Back sooner, its watch goes on from the
// resourceVersion it had when it stopped (markWatch): the watch cache replays the events it
// missed if it still holds them all, else the API server answers 410 Gone and the
// kube-proxy relists. A kube-proxy that starts afresh (restart: an upgraded node) always
// lists, with a watch list. (A node back from a failure calls proxiesBack, which finds
// when each kube-proxy that lost its connection gets through again.)
// upstream: client-go tools/cache/reflector.go (watch from LastSyncResourceVersion, relist on
// a "too old resource version" error or a watch error); apiserver storage/cacher
// watch_cache.go getAllEventsSinceLocked (too old when older than the history's oldest
// event).
func (e *Engine) rewatch(i int, restart bool) {
	mark, had := e.watchMarks[i]
	delete(e.watchMarks, i)
	for mi := range e.proxyAway {
		if e.proxyAway[mi] != nil && e.proxyAway[mi][i] {
			// Still getting through after a failure: started afresh, it is through now.
			e.proxyAway[mi][i] = false
			e.api.proxies[mi]++
		}
	}
	for _, c := range e.ctls {
		e.rewatchMode(i, c.mode, restart, mark, had)
	}
}

// rewatchMode is node i's kube-proxy of mode m watching again (rewatch), from where it
// stopped (mark, if had).
func (e *Engine) rewatchMode(i int, m Mode, restart bool, mark watchMark, had bool) {
	mi := modeIndex(m)
	relist := restart || !had || e.now-mark.at[mi] >= connectionLostAfter
	var replayed int64
	if !relist {
		missed := e.api.events[mi] - mark.events[mi]
		relist = !e.api.net.holds(m, missed, e.now-mark.at[mi])
		replayed = e.api.proxyBytes[mi] - mark.bytes[mi]
	}
	e.api.resend(m, relist, replayed)
}

// proxiesAway takes node i's kube-proxies out of the watchers, in each mode run, when its
// node fails (one still getting through again from an earlier failure is out already).
// Call it after markWatch, which tells them apart.
func (e *Engine) proxiesAway(i int) {
	for _, c := range e.ctls {
		mi := modeIndex(c.mode)
		if e.proxyAway[mi] == nil {
			e.proxyAway[mi] = make([]bool, len(e.nodes))
		}
		if !e.proxyAway[mi][i] {
			e.proxyAway[mi][i] = true
			e.api.proxies[mi]--
			e.api.net.watchDied(c.mode, i)
		}
	}
}

// proxiesBack is node i back from a failure: each of its kube-proxies watches again, at once
// when it had not found its connection lost (down for less than connectionLostAfter) and the
// watch cache still holds what it missed, one backoff step later (0.8-1.6 s) when the watch
// cache no longer does (a 410, then a relist), else when its reflector's retries get
// through (reconnectAfterLoss). While one is still getting
// through, the node keeps its mark: should it fail again first, that kube-proxy's retries go
// on from the connection it lost the first time (markWatch).
func (e *Engine) proxiesBack(i int) {
	mark, had := e.watchMarks[i]
	pending := false
	for _, c := range e.ctls {
		m := c.mode
		mi := modeIndex(m)
		if !e.proxyAway[mi][i] {
			continue
		}
		// Back, the node answers the API server: the connection goes on if its client has
		// not given it up, and a given-up one is reset by the node's kernel. Either way
		// its watch is no longer dead (network.dead).
		e.api.net.watchResumed(m, i)
		if had && e.now-mark.at[mi] >= connectionLostAfter {
			at := reconnectAfterLoss(m, mark.at[mi]+connectionLostAfter, e.now, e.reconnects[mi].Float64)
			e.schedule(at, evProxyBack{node: i, mode: m, epoch: e.nodeEpoch[i], mark: mark})
			pending = true
			continue
		}
		if had && !e.api.net.holds(m, e.api.events[mi]-mark.events[mi], e.now-mark.at[mi]) {
			// Its watch from the resourceVersion it had is answered 410 Gone: the watch
			// ends with that error, ListAndWatch returns, and the reflector waits one
			// backoff step before it lists again (rewatchMode then relists).
			// upstream: client-go tools/cache/reflector.go watch (isExpiredError: return
			// nil), Run (wait.BackoffUntil with the backoff manager, sliding).
			d := reflectorBackoffInit
			at := e.now + d + Time(e.reconnects[mi].Float64()*float64(d))
			e.schedule(at, evProxyBack{node: i, mode: m, epoch: e.nodeEpoch[i], mark: mark})
			pending = true
			continue
		}
		e.proxyBack(i, m, mark, had)
	}
	if !pending {
		delete(e.watchMarks, i)
	}
}

// proxyBack is node i's kube-proxy of mode m watching again.
func (e *Engine) proxyBack(i int, m Mode, mark watchMark, had bool) {
	mi := modeIndex(m)
	e.proxyAway[mi][i] = false
	e.api.proxies[mi]++
	e.rewatchMode(i, m, false, mark, had)
}

// proxyAwayAt reports whether one of node i's kube-proxies is not watching.
func (e *Engine) proxyAwayAt(i int) bool {
	for _, away := range e.proxyAway {
		if away != nil && away[i] {
			return true
		}
	}
	return false
}

// evProxyBack is a kube-proxy that lost its connection getting through again after its node
// came back, or one whose watch was answered 410 Gone listing again a backoff step later
// (proxiesBack); void if the node failed again meanwhile (its epoch), or if the
// kube-proxy is through already (started afresh: rewatch).
type evProxyBack struct {
	node  int
	mode  Mode
	epoch int
	mark  watchMark
}

func (ev evProxyBack) String() string {
	return fmt.Sprintf("node %d's kube-proxy of %s gets through", ev.node, ev.mode)
}

func (ev evProxyBack) apply(e *Engine) {
	if e.nodeEpoch[ev.node] != ev.epoch || !e.proxyAway[modeIndex(ev.mode)][ev.node] {
		return
	}
	e.proxyBack(ev.node, ev.mode, ev.mark, true)
	if !e.proxyAwayAt(ev.node) {
		delete(e.watchMarks, ev.node)
	}
}

// resend sends one kube-proxy what it takes to watch mode m again: everything it watches
// (relist: network.relistSize), or the events it missed, replayed from the watch cache
// (replayed bytes). The API server serializes either for it alone; the bytes leave through
// the egress the watch events share.
func (a *apiServer) resend(m Mode, relist bool, replayed int64) {
	raw, bytes := replayed, replayed
	if relist {
		raw, bytes = a.net.relistSize(m, a.listed[modeIndex(m)])
	}
	if bytes <= 0 && !relist {
		return
	}
	a.e.stats.apiserverCPU(m, Time(a.sendCPU(raw, bytes)))
	a.net.resend(m, bytes)
	a.e.stats.rewatched(m, relist, bytes)
	if relist {
		a.listedAgain(m, 1)
	}
}

// sendCPU is the API server CPU (ns) of sending raw bytes serialized for one watcher alone
// as sent bytes: their serialization, gzip when sent is less than raw, and TLS over what is
// sent.
func (a *apiServer) sendCPU(raw, sent int64) float64 {
	costs := a.e.cfg.APIServer.Costs
	ns := float64(raw)*costs.EncodeProtobufNanosPerByte + float64(sent)*costs.TLSNanosPerByte
	if sent < raw {
		ns += float64(raw) * costs.GzipNanosPerByte
	}
	return ns
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

// relistSize is what a kube-proxy of mode m that lists again is sent of listed: the bytes
// serialized (raw) and those sent, gzipped. A kube-proxy of EndpointSlices gets a watch
// list, its events gzipped; one of Endpoints a LIST, gzipped when it is 128 KiB or more
// (model.RelistGzipRatioEndpointSlices, model.RelistGzipRatioEndpoints).
// network.listCompressionRatio, when set, replaces the measured ratio (1: uncompressed).
func (n *network) relistSize(m Mode, listed listing) (raw, sent int64) {
	ratio := n.e.cfg.Network.ListCompressionRatio
	if m == ModeEndpointSlices {
		raw = listed.events
		if ratio == 0 {
			ratio = model.RelistGzipRatioEndpointSlices
		}
	} else {
		raw = listed.bytes
		if raw < model.ListGzipThresholdBytes {
			return raw, raw
		}
		if ratio == 0 {
			ratio = model.RelistGzipRatioEndpoints
		}
	}
	return raw, min(raw, int64(math.Round(float64(raw)*ratio)))
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
	sent := q.resendBacklog
	if now < n.resendsDone(q) {
		// (By then the whole backlog is sent: the float product can fall a byte short.)
		sent = min(sent, int64(float64(now-from)/1e9*rate))
	}
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
