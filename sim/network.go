package sim

import (
	"math"
	"time"
)

// Watch-path constants (upstream: k8s.io/apiserver pkg/storage/cacher).
const (
	// minWatchChanSize and maxWatchChanSizeWithoutIndex bound a cacheWatcher's buffered
	// channels; kube-proxy's label-selected watches use no index.
	// upstream: watch_cache.go suggestedWatchChannelSize.
	minWatchChanSize             = 10
	maxWatchChanSizeWithoutIndex = 100
	// eventFreshDuration is how much history the watch cache keeps (its capacity grows to
	// hold this many seconds of events, between 100 and 100×1024 events).
	eventFreshDuration       = Time(75 * time.Second)
	minWatchCacheCapacity    = 100
	maxWatchCacheCapacity    = 100 * 1024
	dispatchBudgetMax        = Time(100 * time.Millisecond)
	dispatchBudgetRefillRate = 0.05 // seconds of budget per second (50 ms/s)
	// frameBytes and frameOverhead: an HTTP/2 DATA frame carries at most 16 KiB behind a
	// 9-byte header, and a TLS 1.3 record at most 16 KiB with 22 bytes of header and tag.
	frameBytes    = 16 * 1024
	frameOverhead = 9 + 22
)

// fluidQueue is one mode's delivery path: each API server replica sends every event to its
// share of the watchers through its egress link, first come first served, and each node
// receives every event through its ingress link. Watchers of one replica receive identical
// streams and so progress identically: one queue per stage stands for all of them, and the
// cost is O(1) per write whatever the node count. When every watcher gets the same bytes,
// this equals rate sharing (processor sharing) of the egress among the watchers, each also
// capped by its node's ingress (a property test checks it against a per-watcher simulation).
type fluidQueue struct {
	egressBusy  Time // when the egress queue drains
	ingressBusy Time // when a node's ingress queue drains
	// pending holds the completion times and bytes of events still being delivered,
	// oldest first, for the slow-watcher check.
	pending fifo[pendingEvent]
	budget  Time // the dispatcher's remaining blocking budget
	refill  Time // when the budget was last refilled
	// history holds the commit times of the events in the watch cache, oldest first, at
	// most cacheCap of them; cacheCap is 0 until the first event (then the lower bound).
	history  fifo[Time]
	cacheCap int
	// watchChan is the channel size the watchers got when they last watched anew together,
	// at rewatched: the run's first event, or the re-watch after a termination (0 until the
	// first event). Each watcher watches again 5 to 10 minutes later, when its watch times
	// out, and then gets the size the cache suggests at that time: sizes holds the sizes
	// suggested since (the time each took effect), for watcherHolds.
	watchChan int
	rewatched Time
	sizes     fifo[chanMark]
	// stalled is true while a termination's backlog drains (one termination per stall).
	stalled bool
	// resendBacklog is the bytes reconnecting kube-proxies asked for (network.resend) not
	// yet sent, and resendFrom the time until which the backlog has been sent.
	resendBacklog int64
	resendFrom    Time
	// dead are the watches of failed nodes' kube-proxies, which the API server keeps
	// sending to (see deadWatch), in the order the nodes failed.
	dead fifo[deadWatch]
}

// deadWatch is the watch of a failed node's kube-proxy: the API server has no check of a
// watch's connection, so it keeps the watch and fills its buffers (watcherHolds events)
// until the dispatcher blocks on it, for the whole of its time budget since no event ever
// leaves, and closes it as too slow. full is the count of kube-proxy events
// (apiServer.proxyEvents) at which that happens; gen voids it when the node came back
// first (watchResumed). (A watch that times out first, 5 to 10 minutes after it started,
// ends without a stall: left out.)
// upstream: cacher.go dispatchEvent (the budget's timer), cache_watcher.go add
// (forget on a timeout); apiserver server/secure_serving.go (no ReadIdleTimeout: no ping
// finds a dead client).
type deadWatch struct {
	full      int64
	node, gen int32
}

// chanMark is the channel size a new watch gets from at on.
type chanMark struct {
	at   Time
	size int
}

type pendingEvent struct {
	done  Time
	bytes int64 // per watcher
}

// network is the delivery model of both modes.
type network struct {
	e          *Engine
	enabled    bool
	replicas   int64
	egressBps  float64 // bits per second per replica
	ingressBps float64 // bits per second per node
	overhead   bool
	queues     [2]fluidQueue
	// deadGen is, per mode and node, the generation of the node's dead watch (deadWatch):
	// moved on when the node keeps its connection through a failure.
	deadGen [2][]int32
}

func newNetwork(e *Engine) *network {
	return &network{
		e:          e,
		enabled:    e.cfg.Network.Enabled,
		replicas:   int64(max(e.cfg.APIServer.Replicas, 1)),
		egressBps:  e.cfg.APIServer.EgressBitsPerSec,
		ingressBps: e.cfg.Network.NodeIngressBitsPerSec,
		overhead:   e.cfg.Network.TransportOverhead,
		queues:     [2]fluidQueue{{budget: dispatchBudgetMax}, {budget: dispatchBudgetMax}},
	}
}

// wireBytes adds HTTP/2 and TLS framing to a message of n bytes when enabled.
func (n *network) wireBytes(b int64) int64 {
	if !n.overhead || b <= 0 {
		return b
	}
	return b + (b+frameBytes-1)/frameBytes*frameOverhead
}

// transfer returns how long b bytes take at bps bits per second (0: instant).
func transfer(b int64, bps float64) Time {
	if bps <= 0 || b <= 0 {
		return 0
	}
	return Time(math.Ceil(float64(b) * 8 / bps * 1e9))
}

// delivery is what the network did with one write's fan-out.
type delivery struct {
	done Time // the last watcher has the event
	// terminated counts watchers whose watch was closed as too slow; resentBytes the bytes
	// of the relists they take when they must relist, as sent (relistRawBytes before
	// compression: network.relistSize); replayedBytes those of the events they
	// missed, which a re-watch from their last resourceVersion replays from the watch cache
	// (sent once all the same: a closed watch drops what it had not sent).
	terminated int64
	// deadClosed counts the failed nodes' watches closed (network.dead).
	deadClosed     int64
	resentBytes    int64
	relistRawBytes int64
	replayedBytes  int64
	relists        int64
}

// deliver queues a write's fan-out: fanoutBytes in all over watchers watchers, perWatcher
// bytes to each kube-proxy. listed is what a kube-proxy lists of the resource, sent to
// every terminated watcher that must relist. It returns when the last watcher has it.
func (n *network) deliver(m Mode, fanoutBytes, perWatcher, watchers int64, listed listing) delivery {
	now := n.e.now
	if !n.enabled || watchers == 0 {
		n.e.stats.egress(m, now, now, fanoutBytes, 0)
		return delivery{done: now}
	}
	q := &n.queues[modeIndex(m)]
	n.advanceResends(m, now)
	var d delivery
	// Failed nodes' watches whose buffers this event fills block the dispatcher for the
	// rest of its budget, and are closed; the event goes out after the stall.
	stall := Time(0)
	if d.deadClosed = n.closeDead(m); d.deadClosed > 0 {
		q.refillBudget(now)
		stall, q.budget = q.budget, 0
	}
	// Slow watchers: if the backlog exceeds what the watchers' channels hold, the
	// dispatcher blocks on the oldest event, within its time budget; past it, the
	// watchers are closed (upstream: cacher.go dispatchEvent, cache_watcher.go add).
	q.drain(now)
	q.remember(now)
	if q.stalled && q.pending.len() == 0 {
		q.stalled = false
	}
	if q.watchChan == 0 {
		q.rewatch(now)
	}
	if !q.stalled && q.pending.len() >= 2*minWatchChanSize+3 && q.pending.len() >= q.watcherHolds(now) {
		q.refillBudget(now)
		wait := q.pending.items()[0].done - now
		if wait <= q.budget {
			q.budget -= wait
		} else {
			q.budget = 0
			q.stalled = true
			d.terminated = watchers
			// Their new watches get channels of the size the cache suggests now.
			q.rewatch(now)
			// A closed watch drops the events it had not sent; the client watches again from
			// the last resourceVersion it got and the watch cache replays the rest, so each
			// event still reaches each watcher once (the queue keeps them: no bytes again).
			// If that resourceVersion is older than the cache's history, they relist.
			// upstream: cache_watcher.go stopLocked, sendWatchCacheEvent; client-go
			// reflector.go watch (LastSyncResourceVersion); cacher.go Watch.
			var missed int64
			for _, p := range q.pending.items() {
				missed += p.bytes
			}
			if int64(q.pending.len()) > int64(q.capacity()) {
				d.relists = watchers
				raw, sent := n.relistSize(m, listed)
				d.relistRawBytes, d.resentBytes = raw*watchers, sent*watchers
			} else {
				d.replayedBytes = missed * watchers
			}
		}
	}
	// Watchers are spread over the replicas; the replica with the most (⌈W/R⌉) is the last.
	perReplica := (watchers + n.replicas - 1) / n.replicas
	bytes := n.wireBytes(fanoutBytes+d.resentBytes) * perReplica / watchers
	start := max(now+stall, q.egressBusy)
	q.egressBusy = start + transfer(bytes, n.egressBps)
	done := q.egressBusy
	n.e.stats.egress(m, start, q.egressBusy, fanoutBytes, d.resentBytes)
	if n.ingressBps > 0 {
		per := n.wireBytes(perWatcher)
		if d.resentBytes > 0 {
			per += n.wireBytes(d.resentBytes / watchers)
		}
		istart := max(now, q.ingressBusy)
		q.ingressBusy = istart + transfer(per, n.ingressBps)
		done = max(done, q.ingressBusy)
	}
	q.pending.push(pendingEvent{done: done, bytes: perWatcher})
	d.done = done
	return d
}

// backedUp reports whether mode m's watchers still have an event on its way now: the
// handler of a watch writes the next event before the one before is through, and the API
// server's gzip writer does not flush between them (apiserver endpoints/handlers/watch.go
// HandleHTTP: flush when len(ch) == 0). Without the network model, never.
func (n *network) backedUp(m Mode) bool {
	if !n.enabled {
		return false
	}
	q := &n.queues[modeIndex(m)]
	q.drain(n.e.now)
	return q.pending.len() > 0
}

// record adds a commit that no watcher receives to mode m's watch cache history (the cache
// holds every event of the resource).
func (n *network) record(m Mode) {
	if n.enabled {
		n.queues[modeIndex(m)].remember(n.e.now)
	}
}

// drain forgets events every watcher has received by now.
func (q *fluidQueue) drain(now Time) {
	p := q.pending.items()
	i := 0
	for i < len(p) && p[i].done <= now {
		i++
	}
	q.pending.drop(i)
}

// fifo is a queue in one array: dropping from the front moves the rest down only once the
// dropped elements are half the array (and at least fifoMoveMin), so a drop is O(1)
// amortised, not O(len), and the array is reused rather than regrown. A push into a full
// array whose front quarter or more is dropped moves the rest down too, rather than growing
// it: a watch backlog that holds steady otherwise doubled its array again and again (7 MB
// of many-services' allocations). Nothing holds items() across a push.
type fifo[T any] struct {
	buf  []T
	head int
}

// items returns the elements, oldest first.
func (f *fifo[T]) items() []T { return f.buf[f.head:] }

func (f *fifo[T]) len() int { return len(f.buf) - f.head }

func (f *fifo[T]) push(v T) {
	if len(f.buf) == cap(f.buf) && f.head > 0 && f.head*4 >= len(f.buf) {
		f.compact()
	}
	f.buf = append(f.buf, v)
}

// drop removes the first i elements.
func (f *fifo[T]) drop(i int) {
	// What the dropped elements refer to may go. (One, a workqueue's usual drop, is zeroed
	// by assignment, which costs less than clear's call.)
	if i == 1 {
		var zero T
		f.buf[f.head] = zero
	} else {
		clear(f.buf[f.head : f.head+i])
	}
	f.head += i
	switch {
	case f.head == len(f.buf) && cap(f.buf) <= fifoShrinkMin:
		// Emptied (a workqueue's ready keys are, whenever its workers keep up): its array
		// is reused from the start, every element cleared already.
		f.buf, f.head = f.buf[:0], 0
	case f.head*2 >= len(f.buf) && (f.head >= fifoMoveMin || f.head == len(f.buf)):
		f.compact()
	}
}

// fifoMoveMin is the fewest dropped elements a drop moves the rest down for (but for an
// emptied array): a queue of one to a few elements (as the event queue's events of the
// current instant were) would move one of two down after the first's drop, which was 0.8%
// of a run's instructions (1,000 Services of 10 pods).
const fifoMoveMin = 16

// compact moves the elements to the array's front, into an array a quarter the size when
// they fill less than an eighth of it: a burst (the create phase's thousands of events at one
// instant, a watch backlog) would otherwise leave its array to the rest of the run.
func (f *fifo[T]) compact() {
	if c := cap(f.buf); c > fifoShrinkMin && f.len()*8 < c {
		buf := make([]T, f.len(), c/4)
		copy(buf, f.buf[f.head:])
		f.buf, f.head = buf, 0
		return
	}
	// The dropped elements were cleared as they went (drop): behind the moved ones, only
	// their old places still refer to anything.
	n := copy(f.buf, f.buf[f.head:])
	clear(f.buf[max(n, f.head):])
	f.buf, f.head = f.buf[:n], 0
}

// fifoShrinkMin is the capacity up to which a fifo keeps its array however empty.
const fifoShrinkMin = 1024

// remember adds a commit to the watch cache's history, resizing it as upstream does: when it
// is full, it doubles if its oldest event is less than eventFreshDuration old, and halves
// (keeping the newest) if its newest quarter started more than eventFreshDuration ago; a
// full cache then drops its oldest event. So it grows in a burst and keeps its size after.
// upstream: watch_cache_history.go updateCache, resizeCacheLocked.
func (q *fluidQueue) remember(now Time) {
	if q.cacheCap == 0 {
		q.cacheCap = minWatchCacheCapacity
	}
	was := q.cacheCap
	if h := q.history.items(); len(h) == q.cacheCap {
		switch {
		case now-h[0] < eventFreshDuration:
			q.cacheCap = min(2*q.cacheCap, maxWatchCacheCapacity)
		case now-h[len(h)-q.cacheCap/4] > eventFreshDuration:
			c := max(q.cacheCap/2, minWatchCacheCapacity)
			q.history.drop(len(h) - c)
			q.cacheCap = c
		}
	}
	if q.history.len() == q.cacheCap {
		q.history.drop(1)
	}
	q.history.push(now)
	if q.cacheCap != was {
		q.noteChanSize(now)
	}
}

// noteChanSize records the channel size a new watch gets from now on, if it changed (the
// cache's capacity did), for smallestChan.
func (q *fluidQueue) noteChanSize(now Time) {
	if n := q.sizes.len(); n > 0 {
		if size := q.chanSize(); size != q.sizes.items()[n-1].size {
			q.sizes.push(chanMark{at: now, size: size})
		}
	}
}

// capacity is the watch cache's history size.
func (q *fluidQueue) capacity() int { return max(q.cacheCap, minWatchCacheCapacity) }

// chanSize is the channel a new watch gets: about one second of history, within bounds.
// upstream: watch_cache.go suggestedWatchChannelSize (no index), called at Cacher.Watch.
func (q *fluidQueue) chanSize() int {
	c := int(math.Ceil(float64(q.capacity()) / eventFreshDuration.Seconds()))
	return min(max(c, minWatchChanSize), maxWatchChanSizeWithoutIndex)
}

// watchDied records that node i's kube-proxy of mode m stopped receiving with its watch
// open (its node failed): the API server keeps the watch (deadWatch).
func (n *network) watchDied(m Mode, i int) {
	if !n.enabled {
		return
	}
	mi := modeIndex(m)
	q := &n.queues[mi]
	if q.watchChan == 0 {
		q.rewatch(n.e.now)
	}
	if n.deadGen[mi] == nil {
		n.deadGen[mi] = make([]int32, len(n.e.nodes))
	}
	q.dead.push(deadWatch{full: n.e.api.proxyEvents[mi] + int64(q.watcherHolds(n.e.now)), node: int32(i), gen: n.deadGen[mi][i]})
}

// watchResumed records that node i, back, answers the API server again: the watch of its
// kube-proxy of mode m goes on (its client kept the connection) or ends (its client gave
// the connection up, and the node's kernel resets it), and is no longer dead either way.
func (n *network) watchResumed(m Mode, i int) {
	if g := n.deadGen[modeIndex(m)]; g != nil {
		g[i]++
	}
}

// closeDead closes the dead watches of mode m whose buffers are full by now, and returns
// how many.
func (n *network) closeDead(m Mode) int64 {
	mi := modeIndex(m)
	q := &n.queues[mi]
	var closed int64
	for q.dead.len() > 0 {
		w := q.dead.items()[0]
		if w.full > n.e.api.proxyEvents[mi] {
			break
		}
		q.dead.drop(1)
		if w.gen == n.deadGen[mi][w.node] {
			closed++
		}
	}
	return closed
}

// watcherHolds is how many events the watcher with the smallest channels holds back before
// the dispatcher blocks on it: its cache watcher's two channels and the two events between
// them (measured against the real cacher: 22 with channels of 10), and the one the watch
// handler is writing. (The connection's socket and HTTP/2 window may hold more: left out.)
// upstream: cache_watcher.go newCacheWatcher (input, result), processInterval, add;
// endpoints/handlers/watch.go serveWatchHandler (the event it encodes and writes).
func (q *fluidQueue) watcherHolds(now Time) int { return 2*q.smallestChan(now) + 3 }

// smallestChan is the smallest channel among the watchers at now. Those that watched anew
// together at rewatched keep watchChan until their watch times out, 5 to 10 minutes later;
// then each watches again and gets the size the cache suggests then, again and again. With
// many watchers, their watches start at every moment: the smallest is that of the first
// group, while any of it is left, or the smallest size suggested in the last 10 minutes
// (since the first group began to re-watch).
// upstream: client-go tools/cache/reflector.go watch (timeoutSeconds in [5, 10) minutes);
// cacher.go Watch (suggestedWatchChannelSize at each watch).
func (q *fluidQueue) smallestChan(now Time) int {
	from := max(q.rewatched+Time(minWatchTimeout), now-Time(maxWatchTimeout))
	if now < from {
		return q.watchChan
	}
	size := -1
	if now < q.rewatched+Time(maxWatchTimeout) {
		size = q.watchChan
	}
	marks := q.sizes.items()
	// Marks superseded before the window are dropped; the one in effect at its start stays.
	drop := 0
	for drop+1 < len(marks) && marks[drop+1].at <= now-Time(maxWatchTimeout) {
		drop++
	}
	q.sizes.drop(drop)
	marks = q.sizes.items()
	for i, m := range marks {
		if i+1 < len(marks) && marks[i+1].at <= from {
			continue // superseded before from
		}
		if size < 0 || m.size < size {
			size = m.size
		}
	}
	return size
}

// rewatch records that every watcher watches anew at now, with the channel size the cache
// suggests.
func (q *fluidQueue) rewatch(now Time) {
	q.watchChan, q.rewatched = q.chanSize(), now
	q.sizes.drop(q.sizes.len())
	q.sizes.push(chanMark{at: now, size: q.watchChan})
}

// refillBudget tops up the dispatcher's blocking budget at 50 ms per second, up to 100 ms.
// upstream: cacher/time_budget.go.
func (q *fluidQueue) refillBudget(now Time) {
	q.budget = min(dispatchBudgetMax, q.budget+Time(float64(now-q.refill)*dispatchBudgetRefillRate))
	q.refill = now
}

// drained returns when both modes' queues will have delivered everything sent so far.
func (n *network) drained() Time {
	var t Time
	for i := range n.queues {
		t = max(t, n.queues[i].egressBusy, n.queues[i].ingressBusy, n.resendsDone(&n.queues[i]))
	}
	return t
}
