package sim

import (
	"fmt"
	"slices"
	"time"
)

// defaultPodMapPerService is how long a pod queue worker takes per Service of the pod's
// namespace to find the Services of a pod event: the namespace's Services listed from the
// cache, each selector checked against the pod's labels. Measured
// (BenchmarkUpstreamPodToServices, 2026-12-08, interleaved with
// BenchmarkUpstreamEndpointsBuild): 150-180 ns per Service with 1,000 and 10,000 Services
// in the namespace, while the Endpoints build took 5.7-7.7 µs per pod; scaled as that
// build is to its default (defaultEndpointsBuildPerPod, 10 µs), 175-230 ns.
const defaultPodMapPerService = Time(200 * time.Nanosecond)

// podMapFixed is the part of a pod event's mapping that does not grow with the namespace's
// Services (the projection key, the set of Services), in Services' worth: the benchmark
// took 2.3-2.5 µs with 10 Services in the namespace, about 15 Services' worth at its
// 150-180 ns each, 5 more than the 10.
const podMapFixed = 5

// podQueue is an endpoint controller's pod queue (since Kubernetes 1.37): each pod event
// whose change may matter to endpoints (a projection key: an add, a delete, a change of
// readiness, IPs, deletion timestamp or labels) waits in a FIFO for one of the controller's
// pod workers, as many as its Service workers, which lists every Service of the pod's
// namespace, matches their selectors against the pod's labels, and only then queues the
// Services it finds, each AddAfter the batch period. Items are pointers, so the queue never
// merges two events of one pod. A mapping's cost is known when the event comes (the
// namespace's Services then), so each item's end is worked out at once: the worker free
// first takes it, when it is done with the items before it. An event that may queue a
// Service schedules evPodMapped at its end; one that can queue none (a pod no Service
// selects) only takes its worker's time.
//
// Both controllers see every pod event in the same order, at the same cost, so with as
// many workers each their queues are one and the same: such controllers share one
// (Engine.podQueues), and its evPodMapped queues the Service with each.
//
// The Services found are those of the namespace at the mapping's end: one created since the
// event is queued too (a replay's listed pods are mapped after the Services are added), and
// a pod's change that a sync has read before its mapping ends queues the Service again, for
// a sync with nothing to do.
// upstream: endpointslice_controller.go and endpoints_controller.go onPodUpdate, Run (a pod
// worker beside each Service worker), processNextPodWorkItem, syncPod; k8s.io/endpointslice
// util/controller_utils.go GetPodUpdateProjectionKey, GetServicesToUpdate.
type podQueue struct {
	// ctls are the controllers whose pod queue this is.
	ctls []*controller
	// free is, for each pod worker, when it is done with the items it has taken.
	free []Time
	// group is the replay's pod event (Engine.podGroup) the last item was for, and end
	// that item's end: the Services of one recorded pod event are found by one item.
	group uint64
	end   Time
	// perService is the mapping's cost per Service of the namespace.
	perService Time
	mapped     eventArena[evPodMapped]
	// waiting are the items queued before the informers' caches synced (a replay's
	// listing), which the workers take when they start (startPods).
	waiting []podItem
}

// podItem is a pod event on a pod queue: of namespace ns (Engine.namespaces), which may
// queue Service svc (-1: none), of replay event group (0: none), which lists the namespace
// listings times.
type podItem struct {
	group    uint64
	ns       int32
	svc      int32
	listings int32
}

// makePodQueues gives the controllers their pod queues: one for all with as many workers.
func (e *Engine) makePodQueues() {
	e.podQueues = e.podQueues[:0]
	perService := Time(e.cfg.ControlPlane.PodMapPerService)
	if perService <= 0 {
		perService = defaultPodMapPerService
	}
	for _, c := range e.ctls {
		workers := max(c.cfg.Workers, 1)
		i := slices.IndexFunc(e.podQueues, func(q *podQueue) bool { return len(q.free) == workers })
		if i < 0 {
			e.podQueues = append(e.podQueues, &podQueue{free: make([]Time, workers), perService: perService})
			i = len(e.podQueues) - 1
		}
		e.podQueues[i].ctls = append(e.podQueues[i].ctls, c)
	}
}

// take gives an item of the pod queue, taken at now, a worker: the one free first (of
// equal ones, the first), from the later of now and when it is free, for listings listings
// of a namespace of services Services. It returns the item's end. While a replay applies
// one recorded pod event (group not 0), the items after its first share that first's end
// and cost nothing: upstream maps the event once.
func (q *podQueue) take(now Time, group uint64, services int32, listings int) Time {
	if group != 0 && group == q.group {
		return q.end
	}
	w := 0
	for i, t := range q.free {
		if t < q.free[w] {
			w = i
		}
	}
	end := max(now, q.free[w]) + q.perService*Time(int64(services)+podMapFixed)*Time(listings)
	q.free[w] = end
	q.group, q.end = group, end
	return end
}

// podEvent is a pod event of p's Service that has a projection key: it waits on the pod
// queues, whose workers then queue the Service (evPodMapped). A change to a created Service
// is pending from the event on.
func (e *Engine) podEvent(p *podState) {
	s := p.svc()
	if s.created {
		for _, c := range e.ctls {
			c.markPending(s)
		}
	}
	it := podItem{group: e.podGroup, ns: e.namespaces.ofService[s.idx], svc: int32(s.idx), listings: 1}
	for _, q := range e.podQueues {
		e.mapPod(q, it)
	}
}

// mapPod queues item it on pod queue q: its worker takes it now, or, before the caches
// have synced, when the workers start (startPods). It returns the item's end (0 while it
// waits).
func (e *Engine) mapPod(q *podQueue, it podItem) Time {
	if !e.cachesSynced {
		q.waiting = append(q.waiting, it)
		return 0
	}
	end := q.take(e.now, it.group, e.namespaces.count[it.ns], int(it.listings))
	if it.svc >= 0 {
		e.schedule(end, q.mapped.put(evPodMapped{q: q, svc: int(it.svc)}))
	}
	return end
}

// startPods starts the pod workers as the caches sync: they take the items queued during
// the listing, in order, with the namespaces' Services as listed. It returns when the
// last of them is mapped (0: none), and holds the phase open until then
// (evListingMapped): the items of pods no Service selects schedule nothing of their own.
func (e *Engine) startPods() Time {
	var last Time
	for _, q := range e.podQueues {
		for _, it := range q.waiting {
			last = max(last, e.mapPod(q, it))
		}
		q.waiting = nil
	}
	if last > e.now {
		e.schedule(last, evListingMapped{})
	}
	return last
}

// evListingMapped is the end of the pod workers' mapping of the listing: a warm replay's
// start-up lasts until then, as every change after it waits behind the listing.
type evListingMapped struct{}

func (evListingMapped) String() string  { return "listing mapped" }
func (evListingMapped) apply(e *Engine) {}

// evPodMapped is the end of a pod event's mapping on a pod queue: the pod's Service, if it
// is created by then, is queued after the batch period with the queue's controllers.
// (Scheduled as a pointer into an arena: two words would be an allocation each.)
type evPodMapped struct {
	q   *podQueue
	svc int
}

func (ev *evPodMapped) String() string { return fmt.Sprintf("pod mapped to service %d", ev.svc) }

func (ev *evPodMapped) apply(e *Engine) {
	m := takeEvent(ev)
	if !e.services[m.svc].created {
		return
	}
	for _, c := range m.q.ctls {
		c.addAfter(m.svc, Time(c.cfg.BatchPeriod))
	}
}

// namespaces counts the Services of each namespace that exist (created, in the
// Service informer's cache), which each pod event's mapping lists.
type namespaces struct {
	index map[string]int32
	count []int32
	// ofService is each Service's namespace, by index. (Apart from serviceState, whose
	// size class it would move up.)
	ofService []int32
}

// add notes Service s's namespace; s must be the last Service added to the engine.
func (n *namespaces) add(s *serviceState) {
	n.ofService = append(n.ofService, n.of(s.svc.Namespace))
}

// of returns the index of namespace ns, adding it if new.
func (n *namespaces) of(ns string) int32 {
	if i, ok := n.index[ns]; ok {
		return i
	}
	if n.index == nil {
		n.index = map[string]int32{}
	}
	i := int32(len(n.count))
	n.index[ns] = i
	n.count = append(n.count, 0)
	return i
}

// serviceExists counts Service s in its namespace from now on.
func (e *Engine) serviceExists(s *serviceState) {
	e.namespaces.count[e.namespaces.ofService[s.idx]]++
}

// openPodEvent starts one recorded pod event of a replay that has a projection key: each
// pod queue takes one item for it, listings listings of namespace ns (two when
// its labels changed: the Services of the old labels and of the new), which the Services of
// the event's pod states then share (podQueue.take). closePodEvent ends it.
func (e *Engine) openPodEvent(ns string, listings int) {
	e.podGroups++
	e.podGroup = e.podGroups
	it := podItem{group: e.podGroup, ns: e.namespaces.of(ns), svc: -1, listings: int32(listings)}
	for _, q := range e.podQueues {
		e.mapPod(q, it)
	}
}

// closePodEvent ends the recorded pod event openPodEvent started.
func (e *Engine) closePodEvent() { e.podGroup = 0 }
