package sim

import (
	"math"
	"slices"
	"testing"
	"time"

	"epsim/model"
)

// netEngine returns an engine whose network has the given links, with nothing scheduled.
func netEngine(t *testing.T, nodes, replicas int, egressBps, ingressBps float64) *Engine {
	t.Helper()
	cfg := testConfig(nodes, 1)
	cfg.Network.Enabled = true
	cfg.APIServer.Replicas = replicas
	cfg.APIServer.EgressBitsPerSec = egressBps
	cfg.Network.NodeIngressBitsPerSec = ingressBps
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestFluidQueueHandComputed checks delivery times worked out by hand.
// Reference: issue 8 "unit tests of the fluid queue against hand-computed cases".
func TestFluidQueueHandComputed(t *testing.T) {
	const gbit = 1e9
	sec := func(s float64) Time { return Time(s * 1e9) }
	t.Run("one write alone", func(t *testing.T) {
		// 100 watchers on one replica, 1 MB each: 100 MB = 800 Mbit over 1 Gbit/s = 0.8 s.
		e := netEngine(t, 100, 1, gbit, 0)
		d := e.api.net.deliver(ModeEndpoints, 100e6, 1e6, 100, listing{})
		if d.done != sec(0.8) {
			t.Fatalf("done %v, want 800ms", d.done)
		}
	})
	t.Run("two writes overlapping", func(t *testing.T) {
		// The second write arrives at 0.5 s while the first still has 0.3 s to go: it waits,
		// then takes its own 0.4 s: done at 1.2 s.
		e := netEngine(t, 100, 1, gbit, 0)
		e.api.net.deliver(ModeEndpoints, 100e6, 1e6, 100, listing{})
		e.now = sec(0.5)
		d := e.api.net.deliver(ModeEndpoints, 50e6, 0.5e6, 100, listing{})
		if d.done != sec(1.2) {
			t.Fatalf("done %v, want 1.2s", d.done)
		}
	})
	t.Run("a burst larger than the link", func(t *testing.T) {
		// Ten 125 MB writes at once through 1 Gbit/s (125 MB/s): the k-th is done at k s,
		// and the egress chart shows 125 MB in each of the ten seconds.
		e := netEngine(t, 10, 1, gbit, 0)
		for k := 1; k <= 10; k++ {
			d := e.api.net.deliver(ModeEndpointSlices, 125e6, 12.5e6, 10, listing{})
			if d.done != sec(float64(k)) {
				t.Fatalf("write %d done %v, want %ds", k, d.done, k)
			}
		}
		for s := range 10 {
			if got := e.stats.series.at(s)[modeIndex(ModeEndpointSlices)].fanout; got != 125e6 {
				t.Errorf("second %d: egress %d B, want 125 MB", s, got)
			}
		}
	})
	t.Run("node ingress is the bottleneck", func(t *testing.T) {
		// 10 watchers × 10 MB on a fast egress, each node at 100 Mbit/s: 0.8 s.
		e := netEngine(t, 10, 1, 100*gbit, 0.1*gbit)
		d := e.api.net.deliver(ModeEndpoints, 100e6, 10e6, 10, listing{})
		if d.done != sec(0.8) {
			t.Fatalf("done %v, want 800ms", d.done)
		}
	})
	t.Run("replicas share the watchers", func(t *testing.T) {
		// 10 watchers over 3 replicas: the busiest has 4, so 4 × 1 MB at 8 Mbit/s... = 4 s.
		e := netEngine(t, 10, 3, 8e6, 0)
		d := e.api.net.deliver(ModeEndpoints, 10e6, 1e6, 10, listing{})
		if d.done != sec(4) {
			t.Fatalf("done %v, want 4s", d.done)
		}
	})
}

// naiveDelivery simulates every watcher one by one in small time steps: each replica's egress
// is shared equally among its watchers that still have bytes queued (processor sharing),
// each watcher also capped by its node's ingress. It returns, per event, the time the last
// watcher had it.
func naiveDelivery(watchers, replicas int, egressBps, ingressBps float64, at []Time, bytes []int64, step Time) []Time {
	type watcher struct {
		replica   int
		delivered float64 // bytes received so far
	}
	ws := make([]watcher, watchers)
	for i := range ws {
		ws[i].replica = i % replicas
	}
	cum := make([]float64, len(bytes)) // cumulative bytes up to event k
	var total float64
	for k, b := range bytes {
		total += float64(b)
		cum[k] = total
	}
	done := make([]Time, len(bytes))
	finished := make([]int, len(bytes))
	dt := step.Seconds()
	for now := Time(0); ; now += step {
		// bytes queued for each watcher: events that arrived by now.
		arrived := 0.0
		for k := range at {
			if at[k] <= now {
				arrived = cum[k]
			}
		}
		for r := range replicas {
			var active []int
			for i := range ws {
				if ws[i].replica == r && ws[i].delivered < arrived-1e-9 {
					active = append(active, i)
				}
			}
			if len(active) == 0 {
				continue
			}
			share := egressBps / 8 * dt / float64(len(active))
			if ingressBps > 0 {
				share = math.Min(share, ingressBps/8*dt)
			}
			for _, i := range active {
				ws[i].delivered = math.Min(arrived, ws[i].delivered+share)
			}
		}
		all := true
		for k := range bytes {
			if finished[k] == watchers {
				continue
			}
			n := 0
			for i := range ws {
				if ws[i].delivered >= cum[k]-1e-6 {
					n++
				}
			}
			finished[k] = n
			if n == watchers {
				done[k] = now + step
			} else {
				all = false
			}
		}
		if all {
			return done
		}
	}
}

// TestFluidMatchesPerWatcherSimulation is the property test of the network model: on small
// clusters, random write streams give the same last-watcher times as simulating every watcher.
func TestFluidMatchesPerWatcherSimulation(t *testing.T) {
	cases := []struct {
		name                  string
		watchers, replicas    int
		egressBps, ingressBps float64
	}{
		{"egress-bound", 40, 1, 400e6, 1e9},
		{"ingress-bound", 20, 2, 10e9, 50e6},
		{"three replicas", 50, 3, 1e9, 0},
	}
	const step = Time(100 * time.Microsecond)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := newStream(7, 1)
			var at []Time
			var sizes []int64
			now := Time(0)
			for range 12 {
				now += Time(rng.Int64N(int64(300 * time.Millisecond)))
				at = append(at, now)
				sizes = append(sizes, 100_000+rng.Int64N(900_000))
			}
			e := netEngine(t, c.watchers, c.replicas, c.egressBps, c.ingressBps)
			want := naiveDelivery(c.watchers, c.replicas, c.egressBps, c.ingressBps, at, sizes, step)
			for k := range at {
				e.now = at[k]
				d := e.api.net.deliver(ModeEndpoints, sizes[k]*int64(c.watchers), sizes[k], int64(c.watchers), listing{})
				if diff := d.done - want[k]; diff < -2*step || diff > 2*step {
					t.Errorf("event %d at %v: fluid %v, per-watcher %v", k, at[k], d.done, want[k])
				}
			}
		})
	}
}

// TestSlowWatchersAreClosed drives a backlog far past the watchers' buffers: the watchers are
// closed once per stall, and sent what they missed again. With channels of 10 a watcher
// holds 23 events back (two channels, the two events between them, measured against the
// real cacher: 22; and the one the watch handler writes): the dispatcher blocks on the
// 24th, its budget of 100 ms is far too short, and the watchers miss 23 events.
// upstream: cache_watcher.go newCacheWatcher, processInterval, add; cacher.go
// dispatchEvent; endpoints/handlers/watch.go serveWatchHandler.
func TestSlowWatchersAreClosed(t *testing.T) {
	e := netEngine(t, 100, 1, 1e9, 0)
	var terminated, resent, replayed int64
	var last Time
	for k := range 40 { // 40 writes of 100 MB at once: 32 s of backlog
		d := e.api.net.deliver(ModeEndpoints, 100e6, 1e6, 100, listing{})
		if d.terminated > 0 && k != 2*minWatchChanSize+3 {
			t.Errorf("the watchers closed at write %d, want %d (23 events held back)", k+1, 2*minWatchChanSize+4)
		}
		terminated += d.terminated
		resent += d.resentBytes
		replayed += d.replayedBytes
		last = d.done
	}
	if terminated != 100 {
		t.Errorf("terminated %d watchers, want 100 (one stall)", terminated)
	}
	// The re-watch replays the missed events from the cache: each event still goes to each
	// watcher once, so nothing is sent again and the backlog ends when its 4,000 MB have
	// gone at 1 Gbit/s: 32 s.
	if resent != 0 || replayed != (2*minWatchChanSize+3)*1e6*100 {
		t.Errorf("resent %d B, replayed %d B; want 0 and the %d missed events to each watcher", resent, replayed, 2*minWatchChanSize+3)
	}
	if want := Time(32 * time.Second); last != want {
		t.Errorf("the last event delivered at %v, want %v (each byte sent once)", last, want)
	}
}

// TestSliceSizesMatchTheSizeModel checks the one-walk sizing of a written slice against the
// size model's whole-object sizes: stored object per encoding, and the request body without
// managedFields.
func TestSliceSizesMatchTheSizeModel(t *testing.T) {
	e, err := newEngine(testConfig(5, 30), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.run()
	if err != nil || res.Total.EndpointSlices.Writes.Total() == 0 {
		t.Fatalf("run: %v", err)
	}
	y := e.ctls[0].syncer.(*sliceSyncer)
	for _, st := range y.stored[0].list {
		if st.slice.ManagedFields != nil {
			t.Fatalf("%s: the stored slice keeps its managedFields", st.slice.Name)
		}
		// The stored slice drops its managedFields once sized: the API server's are put back
		// (their time's encoding has the same length at any time of the run).
		withMF := *st.slice
		withMF.ManagedFields = []model.ManagedFieldsEntry{model.EndpointSliceManagedFields(st.slice, st.slice.CreationTimestamp)}
		obj, req := sliceSizes(&withMF, true)
		noMF := *st.slice
		if obj[model.Protobuf] != model.EndpointSliceSize(&withMF, model.Protobuf) ||
			obj[model.JSON] != model.EndpointSliceSize(&withMF, model.JSON) ||
			req != model.EndpointSliceSize(&noMF, model.Protobuf) {
			t.Errorf("%s: sliceSizes %v/%d disagree with EndpointSliceSize", st.slice.Name, obj, req)
		}
		if st.bytes[model.Protobuf] != obj[model.Protobuf] {
			t.Errorf("%s: stored %d B, sized %d B", st.slice.Name, st.bytes[model.Protobuf], obj[model.Protobuf])
		}
	}
}

// TestFIFOKeepsOrder drives a fifo, as fluidQueue's pending and recent lists are, against a
// plain copy-down queue.
func TestFIFOKeepsOrder(t *testing.T) {
	var q fifo[int]
	var want []int
	next := 0
	for step := range 2000 {
		for range step % 5 {
			q.push(next)
			want = append(want, next)
			next++
		}
		drop := min(q.len(), step%7)
		q.drop(drop)
		want = append(want[:0], want[drop:]...)
		if !slices.Equal(q.items(), want) || q.len() != len(want) {
			t.Fatalf("step %d: queue %v, want %v", step, q.items(), want)
		}
	}
}

// TestFIFOReusesItsArray: a queue whose length holds steady, one push and one drop at a
// time, moves its elements down rather than growing, so its array stays under twice the
// length (growing until a drop freed half the array, it reached 2.56 times); and it keeps
// its order doing so.
func TestFIFOReusesItsArray(t *testing.T) {
	var q fifo[int]
	for i := range 1000 {
		q.push(i)
	}
	first := 0
	for i := 1000; i < 100000; i++ {
		q.push(i)
		q.drop(1)
		first++
		if items := q.items(); len(items) != 1000 || items[0] != first || items[999] != i {
			t.Fatalf("after %d pushes: %d items from %d to %d, want 1000 from %d to %d", i+1, len(items), items[0], items[len(items)-1], first, i)
		}
	}
	if c := cap(q.buf); c >= 2*1000 {
		t.Errorf("a queue of 1000 has an array of %d", c)
	}
}

// TestFIFOGivesBackABurstsArray: a queue that a burst grew and that then drains keeps an
// array of about its new length, not the burst's, and its order throughout.
func TestFIFOGivesBackABurstsArray(t *testing.T) {
	var q fifo[int]
	var want []int
	next := 0
	for round := range 3 {
		for range 50_000 {
			q.push(next)
			want = append(want, next)
			next++
		}
		burst := cap(q.buf)
		for q.len() > 10 {
			drop := min(q.len()-10, 1+q.len()/100)
			q.drop(drop)
			want = want[drop:]
			if !slices.Equal(q.items(), want) {
				t.Fatalf("round %d: the queue lost its order draining", round)
			}
		}
		if c := cap(q.buf); c > fifoShrinkMin {
			t.Errorf("round %d: drained to %d after a burst of %d, it keeps an array of %d", round, q.len(), burst, c)
		}
	}
}

// TestWatchCacheHistorySize follows upstream's watch cache sizing: a burst of 1,000 events in
// 2 s doubles a full cache whose oldest event is fresh, 100 → 1,600; it keeps that size
// after the burst (it shrinks only when full and its newest quarter is stale), and a watch
// started then gets a channel of ⌈1,600/75⌉ = 22.
// upstream: watch_cache_history.go updateCache, resizeCacheLocked, suggestedWatchChannelSize.
func TestWatchCacheHistorySize(t *testing.T) {
	var q fluidQueue
	for i := range 1000 {
		q.remember(Time(i) * 2 * Time(time.Millisecond))
	}
	if q.capacity() != 1600 || q.history.len() != 1000 {
		t.Fatalf("after the burst: capacity %d holding %d, want 1600 holding 1000", q.capacity(), q.history.len())
	}
	q.remember(Time(10 * time.Minute))
	if q.capacity() != 1600 || q.chanSize() != 22 {
		t.Fatalf("10 minutes later: capacity %d, channel %d; want 1600 and 22", q.capacity(), q.chanSize())
	}
	// Full, with its newest quarter more than 75 s old: it halves, keeping the newest.
	for q.history.len() < 1600 {
		q.remember(Time(10 * time.Minute))
	}
	q.remember(Time(20 * time.Minute))
	if q.capacity() != 800 || q.history.len() != 800 {
		t.Fatalf("after a stale full cache: capacity %d holding %d, want 800 holding 800", q.capacity(), q.history.len())
	}
}

// TestDeadWatchesAreClosedWithAStall: the watches of five failed nodes' kube-proxies stay
// with the API server, which has no check of a watch's connection, and fill: the event that
// fills their buffers (watcherHolds events after the failure) blocks the dispatcher for its
// whole budget (no event ever leaves a dead watch), then the five are closed, once. A sixth
// node back before its client found the connection lost keeps its watch: it is not closed.
// (Measured against the real cacher: three dead watchers beside a live one are closed in one
// dispatch, the live one's event 90 ms late.)
// upstream: cacher.go dispatchEvent; cache_watcher.go add; apiserver
// server/secure_serving.go (no ReadIdleTimeout).
func TestDeadWatchesAreClosedWithAStall(t *testing.T) {
	e := netEngine(t, 100, 1, 10e9, 0)
	n, mi := e.api.net, modeIndex(ModeEndpointSlices)
	for i := range 6 {
		n.watchDied(ModeEndpointSlices, i)
	}
	n.watchResumed(ModeEndpointSlices, 5)
	holds := n.queues[mi].watcherHolds(0)
	var closed int64
	for k := 1; k <= holds+5; k++ {
		e.now = Time(k) * Time(time.Second) // far apart: no backlog
		e.api.proxyEvents[mi]++
		d := n.deliver(ModeEndpointSlices, 94*1000, 1000, 94, listing{})
		closed += d.deadClosed
		stalled := d.done - e.now
		switch {
		case k < holds && (d.deadClosed != 0 || stalled > Time(time.Millisecond)):
			t.Errorf("event %d: %d dead watches closed, delivered in %v; want none closed, no stall", k, d.deadClosed, stalled)
		case k == holds && (d.deadClosed != 5 || stalled < dispatchBudgetMax || stalled > dispatchBudgetMax+Time(time.Millisecond)):
			t.Errorf("event %d (the %dth since the failure): %d dead watches closed, delivered in %v; want 5, after the 100 ms budget",
				k, holds, d.deadClosed, stalled)
		}
	}
	if closed != 5 {
		t.Errorf("%d dead watches closed in all, want 5 (the node back in time keeps its watch)", closed)
	}
}

// TestSmallestChannelFollowsTheRewatches: the watchers all watch anew at 0 with channels of
// 10 (the cache at its least); the cache then grows to suggest 100. Each watch times out 5
// to 10 minutes after it began and the watcher watches again with the size suggested then:
// the smallest channel is 10 for the first 10 minutes (some watchers keep their first
// watch), then 100; once the cache suggests 10 again, some watcher gets 10 at its next
// watch, and the smallest is 10 again for as long as the 10-minute window holds that.
// upstream: client-go tools/cache/reflector.go watch (timeoutSeconds); cacher.go Watch
// (suggestedWatchChannelSize).
func TestSmallestChannelFollowsTheRewatches(t *testing.T) {
	var q fluidQueue
	minutes := func(m float64) Time { return Time(m * float64(time.Minute)) }
	q.cacheCap = minWatchCacheCapacity
	q.rewatch(0)
	if q.watchChan != minWatchChanSize {
		t.Fatalf("first channels %d, want %d", q.watchChan, minWatchChanSize)
	}
	setCache := func(at Time, capacity int) {
		q.cacheCap = capacity // as remember resizes it
		q.noteChanSize(at)
	}
	big := maxWatchChanSizeWithoutIndex * int(eventFreshDuration.Seconds())
	setCache(minutes(1), big)
	for _, tc := range []struct {
		at    float64 // minutes
		want  int
		cache int // the cache's capacity from just after at on, if not 0
	}{
		{0.5, minWatchChanSize, 0},
		{4, minWatchChanSize, 0},                // every watcher still on its first watch
		{7, minWatchChanSize, 0},                // some re-watched with 100, others not yet
		{10.5, maxWatchChanSizeWithoutIndex, 0}, // every first watch timed out
		{11.9, maxWatchChanSizeWithoutIndex, 0},
		{12, maxWatchChanSizeWithoutIndex, minWatchCacheCapacity}, // it shrinks
		{12.5, minWatchChanSize, 0},                               // a watcher re-watched since 12 min got 10
		{21.9, minWatchChanSize, 0},
	} {
		if got := q.smallestChan(minutes(tc.at)); got != tc.want {
			t.Errorf("at %v min: smallest channel %d, want %d", tc.at, got, tc.want)
		}
		if tc.cache != 0 {
			setCache(minutes(tc.at), tc.cache)
		}
	}
	// A termination: every watcher watches anew with the size suggested now.
	setCache(minutes(30), big)
	q.rewatch(minutes(31))
	if got := q.smallestChan(minutes(32)); got != maxWatchChanSizeWithoutIndex {
		t.Errorf("after the re-watch of all: smallest channel %d, want %d", got, maxWatchChanSizeWithoutIndex)
	}
}

// TestDeadWatchesCloseWithEveryNodeDown: every node fails, so no kube-proxy is connected
// when the node lifecycle controller marks the pods not ready; their endpoints' events
// still fill the failed nodes' watches, which the API server closes: one termination per
// node and mode.
func TestDeadWatchesCloseWithEveryNodeDown(t *testing.T) {
	cfg := testConfig(6, 60)
	cfg.Network.Enabled = true
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
		{Name: "fail", Kind: ActionFailNodes, Nodes: 6, Duration: 10 * time.Minute},
	}
	_, res := runEngineOf(t, cfg, nil)
	var fail *PhaseResult
	for i := range res.Phases {
		if res.Phases[i].Name == "fail" {
			fail = &res.Phases[i]
		}
	}
	if fail == nil {
		t.Fatal("no phase fail")
	}
	for mode, r := range map[string]ModeResult{"Endpoints": fail.Endpoints, "EndpointSlices": fail.EndpointSlices} {
		if r.WatcherTerminations != 6 {
			t.Errorf("%s: %d watcher terminations while every node was down, want 6 (one per failed node's watch)", mode, r.WatcherTerminations)
		}
	}
}
