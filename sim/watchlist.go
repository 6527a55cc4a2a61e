package sim

import (
	"container/heap"
	"math/rand/v2"
	"time"

	"epsim/model"
)

// A kube-proxy of 1.37 that lists (it started, or lost its watch and relists) does so with a
// watch list, and keeps the watch list's response as its watch: the API server gzips that
// whole response, so the live events that follow come gzipped too, each flushed as a gzip
// member of its own (model.WatchGzipMemberBytes), or, when they back up, into the member
// the ones before began (model.WatchGzipSharedBytes), until the watch's timeout ends it
// and the kube-proxy watches again, uncompressed. A kube-proxy of Endpoints (before 1.19)
// lists with a LIST and watches uncompressed. upstream: client-go tools/cache/reflector.go watchList
// (TimeoutSeconds random in [minWatchTimeout, 2×minWatchTimeout]), watch (a new watch after
// the timeout asks for no initial events); apiserver endpoints/handlers/watch.go
// newWatchResponseWriter (gzip for a watch list request only).

// Watch timeouts of a reflector (client-go tools/cache/reflector.go defaultMinWatchTimeout).
const (
	minWatchTimeout = 5 * time.Minute
	maxWatchTimeout = 2 * minWatchTimeout
)

// watchLists holds when the gzipped watches of one mode's kube-proxies end: those that began
// with a watch list and have not timed out. It keeps no node: a kube-proxy gone again
// before its watch times out keeps its entry (the count is capped by the nodes up).
type watchLists struct {
	ends timeHeap
}

// start begins n gzipped watches at now, each ending after its own random timeout, drawn as
// client-go draws it: whole seconds in [minWatchTimeout, maxWatchTimeout).
func (w *watchLists) start(now Time, n int64, rng *rand.Rand) {
	for range n {
		secs := int64(minWatchTimeout.Seconds() + rng.Float64()*(maxWatchTimeout-minWatchTimeout).Seconds())
		heap.Push(&w.ends, now+Time(secs)*Time(time.Second))
	}
}

// live returns how many gzipped watches are open at now (ending after it).
func (w *watchLists) live(now Time) int64 {
	for len(w.ends) > 0 && w.ends[0] <= now {
		heap.Pop(&w.ends)
	}
	return int64(len(w.ends))
}

// endAll ends every gzipped watch: their watches were closed (as too slow), and the
// kube-proxies watch again from their resourceVersion, uncompressed, or list again.
func (w *watchLists) endAll() { w.ends = w.ends[:0] }

// timeHeap is a min-heap of times.
type timeHeap []Time

func (h timeHeap) Len() int           { return len(h) }
func (h timeHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h timeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timeHeap) Push(x any)        { *h = append(*h, x.(Time)) }
func (h *timeHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	return t
}

// gzipsLiveEvents reports whether mode m's kube-proxies get gzipped live events after they
// list: EndpointSlices' (a watch list), when the kube-proxy asks for protobuf, whose gzip
// the model measures, and the scenario does not send lists uncompressed
// (network.listCompressionRatio 1, a client that does not accept gzip).
func (a *apiServer) gzipsLiveEvents(m Mode) bool {
	return m == ModeEndpointSlices && a.groups[0].encoding == model.Protobuf && a.e.cfg.Network.ListCompressionRatio != 1
}

// listedAgain records n kube-proxies of mode m listing again at now: their watches begin
// gzipped when the mode lists with a watch list.
func (a *apiServer) listedAgain(m Mode, n int64) {
	if n > 0 && a.gzipsLiveEvents(m) {
		a.watchLists[modeIndex(m)].start(a.e.now, n, a.watchTimeouts)
	}
}
