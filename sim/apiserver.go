package sim

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"epsim/model"
)

// committed is the accounting of one write as the API server stores and sends it.
type committed struct {
	kind      string // "EndpointSlice" or "Endpoints"
	namespace string
	name      string
	endpoints int
	// objectBytes is the stored object (managedFields included) per encoding; for a delete,
	// the last stored state.
	objectBytes model.ByEncoding
	// oldBytes is the previously stored object (updates and deletes).
	oldBytes model.ByEncoding
	// goneBytes is what a DELETED event carries (a delete's, or an update's to a watcher
	// whose selector the object left): the previous object with this write's
	// resourceVersion. upstream: apiserver storage/etcd3/watcher.go prepareObjects (the
	// deleted object decoded at the delete's revision), storage/cacher/cache_watcher.go
	// convertToWatchEvent (updateResourceVersion on the previous object).
	goneBytes model.ByEncoding
	// requestBytes is the request body the controller sent (protobuf, no managedFields).
	requestBytes int64
	// selected and wasSelected say whether kube-proxy's label selector matches the new and
	// the old object.
	selected, wasSelected bool
	// watched and wasWatched say whether the extra watcher groups' selector
	// (watcherSelection: headless Services' objects left out, unless includeHeadless)
	// matches the new and the old object. It is not kube-proxy's: in the Endpoints mode
	// kube-proxy's also leaves out a service-proxy-name Service's object, theirs does not.
	watched, wasWatched bool
	// noop is an update whose encoding equals the stored bytes: no revision, no event.
	noop      bool
	truncated bool
	// hidden is the number of addresses truncation left out of the object.
	hidden int64
	// trigger is the object's endpoints.kubernetes.io/last-change-trigger-time annotation
	// as virtual time; hasTrigger is false when the object has none.
	trigger    Time
	hasTrigger bool
	// ready is how many of the object's endpoints kube-proxy programs: those ready (an
	// EndpointSlice endpoint whose ready condition is unset counts as ready; an Endpoints
	// object's addresses, not its notReadyAddresses). upstream: pkg/proxy/endpointslicecache.go
	// addEndpoints (Ready == nil || *Ready); the iptables proxier writes chains for them.
	ready int
	// fallback is how many are serving and terminating: what kube-proxy programs for a
	// Service with no ready endpoint (upstream: pkg/proxy/topology.go CategorizeEndpoints).
	// Endpoints objects have none (the Endpoints controller leaves terminating pods out).
	fallback int
	// hints counts the ready endpoints with topology hints, and those hinted for the
	// representative kube-proxy's node and zone (Engine.proxyAt): kube-proxy may program
	// only those (kubeProxy.programmed). Endpoints objects have no hints.
	hints topologyHints
	// byPort, for an object that does not give every port of its Service the same
	// endpoints, is its counts by port (objectEndpoints.byPort; ready, fallback and hints
	// are then not kube-proxy's); nil for the others.
	byPort []objectEndpoints
	// proxyKey is, for an Endpoints object, the key of the endpoints map a kube-proxy that
	// watches Endpoints builds of it (model.EndpointsProxyKey).
	proxyKey uint64
	// family is the IP family (0 IPv4, 1 IPv6) of the kube-proxy proxier that programs the
	// object: an EndpointSlice's address type; for an Endpoints object, its Service's
	// primary family, the only one whose addresses the Endpoints controller writes
	// (model.BuildEndpoints). A user-written Endpoints object holding both families is
	// counted whole in the primary family's proxier.
	family int
}

// familyOf returns the family index of an EndpointSlice address type.
func familyOf(at model.AddressType) int {
	if at == model.AddressTypeIPv6 {
		return 1
	}
	return 0
}

// primaryFamily returns the family index of a Service's primary IP family.
func primaryFamily(svc *model.Service) int {
	if len(svc.IPFamilies) > 0 && svc.IPFamilies[0] == model.IPv6 {
		return 1
	}
	return 0
}

// parseTrigger parses a trigger-time annotation's value as virtual time, time 0 standing
// for the wall-clock instant epoch (Unix nanoseconds).
func parseTrigger(v string, epoch int64) (Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return 0, false
	}
	return Time(t.UnixNano() - epoch), true
}

// triggerReader reads trigger-time annotations, remembering the value it parsed last: the
// writes of a burst of syncs carry the same trigger. Its epoch is the wall-clock instant
// virtual time 0 stands for (Engine.epoch).
type triggerReader struct {
	epoch     int64
	last      string
	t         Time
	ok, valid bool // valid: last was parsed
}

// of reads the trigger-time annotation as kube-proxy does (RFC 3339, nanoseconds allowed);
// a missing or malformed one is none. upstream: pkg/proxy/endpointschangetracker.go
// getLastChangeTriggerTime.
func (r *triggerReader) of(annotations model.StringMap) (Time, bool) {
	v, ok := annotations.Lookup(model.AnnotationTriggerTime)
	if !ok {
		return 0, false
	}
	if !r.valid || v != r.last {
		r.last, r.valid = v, true
		r.t, r.ok = parseTrigger(v, r.epoch)
	}
	return r.t, r.ok
}

// watchGroup is a set of identical watchers: they receive the same events.
type watchGroup struct {
	name            string
	count           int // fixed count (extra watchers)
	kubeProxy       bool
	encoding        model.Encoding
	slices          bool
	endpoints       bool
	includeHeadless bool
}

// apiServer commits writes and fans each one out to the watchers that select it. Fan-out is
// accounted once per write and group (bytes × watchers), never per node.
type apiServer struct {
	e *Engine
	// revs are the etcd revisions of each mode's cluster (by modeIndex): the pods' writes
	// take one in both, a control plane's writes in its own only, so that one mode's writes
	// never change the sizes (the resourceVersions' lengths) of the other's objects.
	revs     [2]revisions
	groups   []watchGroup
	needJSON bool
	limit    int64
	// proxies are, per mode (modeIndex), the kube-proxies watching: one on each node up,
	// but those still getting through again after their node came back (Engine.proxyAway).
	proxies [2]int
	net     *network
	// listed is, per mode, everything kube-proxy lists: what a relist costs each watcher.
	listed [2]listing
	// triggers reads the trigger-time annotation of committed objects.
	triggers triggerReader
	// events counts, per mode, the events the resource's watch cache has taken (every
	// stored write), and proxyBytes the bytes of the watch events sent to one kube-proxy:
	// what a kube-proxy that stopped receiving missed since (rewatch).
	events     [2]int64
	proxyBytes [2]int64
	// proxyEvents counts, per mode, the watch events sent to each kube-proxy: what fills the
	// buffers of a failed node's watch (network.dead).
	proxyEvents [2]int64
	// watchLists are, per mode, the kube-proxies' watches gzipped since they listed with a
	// watch list, and watchTimeouts the stream their timeouts are drawn from.
	watchLists    [2]watchLists
	watchTimeouts *rand.Rand
}

// revisions is one cluster's etcd revision counter, the source of resourceVersions.
type revisions struct {
	resourceVersion int64
	// digits[digitsFrom:] is digitsOf in decimal, the version next formatted last (none
	// while digitsFrom is 0: an int64 has at most 19 digits).
	digits     [maxVersionDigits]byte
	digitsFrom int
	digitsOf   int64
	// formatted holds the resourceVersions next formatted, one after the other: each is a
	// substring of it (see next).
	formatted strings.Builder
}

func newAPIServer(e *Engine) *apiServer {
	a := &apiServer{e: e, limit: e.cfg.APIServer.ObjectSizeLimitBytes, proxies: [2]int{len(e.nodes), len(e.nodes)}, triggers: triggerReader{epoch: e.epoch}}
	a.revs[0].resourceVersion, a.revs[1].resourceVersion = 1000, 1000
	enc := encodingOf(e.cfg.APIServer.KubeProxyEncoding)
	a.groups = append(a.groups, watchGroup{name: "kube-proxy", kubeProxy: true, encoding: enc, slices: true, endpoints: true})
	for _, w := range e.cfg.APIServer.Watchers {
		a.groups = append(a.groups, watchGroup{
			name: w.Name, count: w.Count, encoding: encodingOf(w.Encoding),
			slices: w.EndpointSlices, endpoints: w.Endpoints, includeHeadless: w.IncludeHeadless,
		})
	}
	for _, g := range a.groups {
		if g.encoding == model.JSON {
			a.needJSON = true
		}
	}
	a.net = newNetwork(e)
	a.watchTimeouts = newStream(e.cfg.Seed, streamWatchTimeouts)
	return a
}

func encodingOf(e Encoding) model.Encoding {
	if e == EncodingJSON {
		return model.JSON
	}
	return model.Protobuf
}

// watchers returns how many watchers of mode m exist now.
func (a *apiServer) watchers(m Mode) int64 {
	var n int64
	for i := range a.groups {
		g := &a.groups[i]
		if g.watches(m) {
			n += int64(a.groupCount(g, m))
		}
	}
	return n
}

func (g *watchGroup) watches(m Mode) bool {
	if g.kubeProxy {
		return true // kube-proxy watches EndpointSlices in one mode and Endpoints in the other
	}
	if m == ModeEndpoints {
		return g.endpoints
	}
	return g.slices
}

func (a *apiServer) groupCount(g *watchGroup, m Mode) int {
	if g.kubeProxy {
		return a.proxies[modeIndex(m)]
	}
	return g.count
}

// next takes the next resourceVersion and returns it formatted. The versions are written one
// after the other into a shared chunk of versionChunk bytes, of which each is a substring
// (a strings.Builder's text never changes once returned): a string per write was 8% of
// many-services' allocations. A stored object's version keeps its chunk alive, at most
// versionChunk bytes. (Batches of eight consecutive versions were formatted before, but
// the pods' writes, which take a version without formatting it, ended two batches in three
// early: 1.7% of many-services' instructions.)
func (a *revisions) next() string {
	a.resourceVersion++
	b := &a.formatted
	if b.Cap()-b.Len() < maxVersionDigits {
		*b = strings.Builder{}
		b.Grow(versionChunk)
	}
	from := b.Len()
	b.Write(a.decimal())
	return b.String()[from:]
}

// decimal returns the current resourceVersion in decimal. The digits of the last one
// formatted are carried up to it, a digit or two as a rule, since the versions between were
// taken without a string (bump) or not at all: strconv.AppendInt took 151 instructions a
// version, 0.7% of many-services'.
func (a *revisions) decimal() []byte {
	v := a.resourceVersion
	if a.digitsFrom > 0 && v >= a.digitsOf {
		carry, i := v-a.digitsOf, len(a.digits)-1
		for ; carry > 0 && i >= a.digitsFrom; i-- {
			d := int64(a.digits[i]-'0') + carry
			a.digits[i], carry = '0'+byte(d%10), d/10
		}
		if carry == 0 {
			a.digitsOf = v
			return a.digits[a.digitsFrom:]
		}
		// v has more digits than the last one: formatted anew.
	}
	n := len(strconv.AppendInt(a.digits[:0], v, 10))
	a.digitsFrom = len(a.digits) - n
	copy(a.digits[a.digitsFrom:], a.digits[:n])
	a.digitsOf = v
	return a.digits[a.digitsFrom:]
}

// maxVersionDigits is the longest a resourceVersion (an int64) is formatted.
const maxVersionDigits = 20

// versionChunk is how many bytes of versions revisions.next formats into one string.
const versionChunk = 160

// bump takes the next resourceVersion for a stored update whose own version nothing reads:
// it moves the counter, and so the length of every later object's, as next does, without
// formatting a string.
func (a *revisions) bump() { a.resourceVersion++ }

// podResourceVersion takes the next resourceVersion for a pod write, in both modes' clusters,
// and returns it formatted (the first mode's: the pods' own writes number alike in both).
func (a *apiServer) podResourceVersion() string {
	a.revs[1].bump()
	return a.revs[0].next()
}

// bumpPodResourceVersion is podResourceVersion without the string.
func (a *apiServer) bumpPodResourceVersion() {
	a.revs[0].bump()
	a.revs[1].bump()
}

// followRecorded moves both modes' revision counters up to rv, a resourceVersion a replay's
// recording carries (not a number: nothing), so that the simulated writes continue the
// recorded cluster's revisions: a resourceVersion's width counts in every object's size,
// and a cluster's are 8 to 10 digits where a run's start at 4.
func (a *apiServer) followRecorded(rv string) {
	v, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		return
	}
	for i := range a.revs {
		a.revs[i].resourceVersion = max(a.revs[i].resourceVersion, v)
	}
}

// writeOutcome is what the API server did with a write.
type writeOutcome uint8

const (
	writeCommitted writeOutcome = iota // stored: a new resourceVersion and watch events
	writeNoop                          // an update equal to the stored object: nothing changed
	writeFailed                        // refused (over the object size limit)
)

// commit applies w for controller c: assigns metadata, enforces the size limit, drops no-op
// updates, and fans the event out.
func (a *apiServer) commit(c *controller, s *serviceState, w *write, since Time) writeOutcome {
	e := a.e
	meta := apiMeta{now: e.timestamp(e.now)}
	revs := &a.revs[modeIndex(c.mode)]
	meta.resourceVersion = revs.next() // a delete's is the revision its DELETED event carries
	if w.verb == "create" {
		meta.uid = c.names.uid()
		meta.created = e.timestamp(e.now)
		meta.generation = 1
	}
	cm := c.syncer.commit(s, w, meta)
	rec := WriteRecord{
		At: e.now, Mode: c.mode, Verb: w.verb, Kind: cm.kind, Namespace: cm.namespace, Name: cm.name,
		Endpoints: cm.endpoints, ObjectBytes: cm.objectBytes[model.Protobuf], Outcome: "ok",
	}
	if w.verb != "delete" && a.limit > 0 && cm.objectBytes[model.Protobuf] > a.limit {
		// etcd refuses requests over --max-request-bytes; the controller gets an error.
		rec.Outcome = "failed"
		e.stats.write(&rec, &cm, s.idx)
		revs.resourceVersion-- // etcd stored nothing: no revision
		return writeFailed
	}
	if cm.noop {
		// GuaranteedUpdate returns before etcd: no revision. (The version string taken
		// stays in its batch, so the next write takes the same one.)
		revs.resourceVersion--
		rec.Outcome = "noop"
		e.stats.write(&rec, &cm, s.idx)
		return writeNoop
	}
	a.events[modeIndex(c.mode)]++
	var fanout, perNode, events int64
	var kubeProxyEvent int64
	var kubeProxyType model.EventType
	var encoded [2]bool // encodings serialized (once each: the watch cache's cachingObject)
	// perWatcher is what is serialized for each watcher by encoding: the old object a
	// DELETED event of an update carries, which the cache does not share.
	var perWatcher [2]int64
	// gzipBytes is the bytes of the event gzipped for the kube-proxies that get it gzipped.
	var gzipBytes int64
	gzipLive := a.gzipsLiveEvents(c.mode)
	proxySelected := false // the kube-proxies select the event, connected or not
	for i := range a.groups {
		g := &a.groups[i]
		if !g.watches(c.mode) {
			continue
		}
		// kube-proxy selects with its own informers' selectors (proxySelection); the extra
		// watchers filter headless Services' objects only, and with includeHeadless nothing.
		sel, was := cm.selected, cm.wasSelected
		if !g.kubeProxy {
			sel, was = cm.watched, cm.wasWatched
			if g.includeHeadless {
				sel, was = true, true
			}
		}
		typ, bytes, ok := eventFor(w.verb, sel, was, &cm)
		if !ok {
			continue
		}
		proxySelected = proxySelected || g.kubeProxy
		n := int64(a.groupCount(g, c.mode))
		ev := model.WatchEventSize(bytes[g.encoding], typ, g.encoding)
		var z int64 // the kube-proxies whose watch began as a watch list: they get it gzipped
		if g.kubeProxy && gzipLive {
			z = min(a.watchLists[modeIndex(c.mode)].live(e.now), n)
		}
		if z > 0 {
			// A member of its own, or, when the events back up (the one before it is
			// still on its way: the watcher's channel is not empty), a part of the
			// member they began.
			gz := model.WatchGzipMemberBytes(ev)
			if a.net.backedUp(c.mode) {
				gz = model.WatchGzipSharedBytes(ev)
			}
			fanout += mulChecked(gz, z) + mulChecked(ev, n-z)
			gzipBytes += mulChecked(ev, z)
		} else {
			fanout += mulChecked(ev, n) // -1 on overflow: the collector reports it
		}
		events += n
		if w.verb == "update" && typ == model.EventDeleted {
			// The watcher's selector stopped matching: each watcher deep-copies and encodes
			// the previous object. upstream: cacher.go setCachingObjects (PrevObject not
			// wrapped), cache_watcher.go convertToWatchEvent (getMutableObject).
			perWatcher[g.encoding] += mulChecked(bytes[g.encoding], n)
		} else {
			encoded[g.encoding] = true
		}
		if g.kubeProxy && n > 0 {
			// (No node's kube-proxy is connected when every node is down.)
			perNode = ev
			kubeProxyEvent = ev
			kubeProxyType = typ
		}
	}
	rec.EventBytes = kubeProxyEvent
	rec.Watchers = events
	mi := modeIndex(c.mode)
	a.proxyBytes[mi] += kubeProxyEvent
	if proxySelected {
		a.proxyEvents[mi]++ // into the failed nodes' watches too (network.dead)
	}
	if cm.wasSelected {
		a.listed[mi].remove(cm.oldBytes[model.Protobuf])
	}
	if cm.selected && w.verb != "delete" {
		a.listed[mi].add(cm.objectBytes[model.Protobuf])
	}
	var d delivery
	if events > 0 {
		d = a.net.deliver(c.mode, fanout, kubeProxyEvent, events, a.listed[mi])
		rec.Latency = d.done - since
		if d.terminated > 0 {
			a.watchLists[mi].endAll()
			a.listedAgain(c.mode, min(d.relists, int64(a.proxies[mi])))
		}
	} else {
		a.net.record(c.mode)
		// No watcher is connected (every node is down): a failed node's watch that this
		// event fills is closed all the same, with no one to stall.
		d.deadClosed = a.net.closeDead(c.mode)
	}
	cpu := a.watchCPU(&cm, encoded, perWatcher, events, fanout, d)
	cpu += Time(float64(gzipBytes) * e.cfg.APIServer.Costs.GzipNanosPerByte)
	e.stats.apiserverCPU(c.mode, cpu)
	if kubeProxyEvent > 0 {
		deleted := kubeProxyType == model.EventDeleted
		// A relisting watcher decodes its relist too, as serialized (a replayed event is
		// decoded once).
		decodeBytes := kubeProxyEvent + d.relistRawBytes/events
		e.kubeProxies[mi].proxier(cm.family).receive(cm.name, kubeProxyChange{
			phase: e.phase, svc: s.idx, trigger: cm.trigger, hasTrigger: cm.hasTrigger && !deleted && cm.trigger > e.proxyStart, delivered: d.done,
			readyKey: cm.proxyKey, unserved: !e.kubeProxyServesService(s, cm.family),
		}, len(s.svc.Ports), decodeBytes, a.groups[0].encoding == model.JSON, deleted, cm.proxyEndpoints())
	}
	e.stats.committed(&rec, &cm, s.idx, fanout, perNode, events, d)
	return writeCommitted
}

// proxyEndpoints is what kube-proxy counts of the object cm committed. A kube-proxy of
// Endpoints maps an object's ready addresses only, so they are all its endpoints.
// upstream (v1.18): pkg/proxy/endpoints.go endpointsToEndpointsMap (subset.Addresses).
func (cm *committed) proxyEndpoints() objectEndpoints {
	if cm.byPort != nil {
		return objectEndpoints{byPort: cm.byPort}
	}
	all := cm.endpoints
	if cm.kind == "Endpoints" {
		all = cm.ready
	}
	return objectEndpoints{ready: int32(cm.ready), fallback: int32(cm.fallback), all: int32(all), hints: cm.hints}
}

// eventFor returns the watch event a watcher gets for a write, given whether its selector
// matches the new and the old object. upstream: apiserver storage/cacher/cache_watcher.go
// convertToWatchEvent (selector transitions become ADDED/DELETED; DELETED carries the last
// stored object).
func eventFor(verb string, sel, was bool, cm *committed) (model.EventType, model.ByEncoding, bool) {
	switch verb {
	case "create":
		return model.EventAdded, cm.objectBytes, sel
	case "delete":
		return model.EventDeleted, cm.goneBytes, was
	}
	switch {
	case sel && was:
		return model.EventModified, cm.objectBytes, true
	case sel:
		return model.EventAdded, cm.objectBytes, true
	case was:
		return model.EventDeleted, cm.goneBytes, true
	}
	return "", cm.objectBytes, false
}

// watchCPU is the API server CPU one committed write costs on the watch path: one
// serialization per encoding any watcher asked for (upstream: apiserver
// storage/cacher/caching_object.go, shared by every watcher), one per watcher of what the
// cache does not share (perWatcher bytes: an update's DELETED; replayed events), then per
// watcher and event a fixed cost and TLS over its bytes, and for relisting watchers a
// relist serialized, gzipped and sent per request (sendCPU).
func (a *apiServer) watchCPU(cm *committed, encoded [2]bool, perWatcher [2]int64, events, fanout int64, d delivery) Time {
	costs := a.e.cfg.APIServer.Costs
	perByte := [2]float64{costs.EncodeProtobufNanosPerByte, costs.EncodeJSONNanosPerByte}
	var ns float64
	for enc, ok := range encoded {
		if ok {
			ns += float64(cm.objectBytes[enc]) * perByte[enc]
		}
		ns += float64(perWatcher[enc]) * perByte[enc]
	}
	ns += float64(events)*costs.PerEventNanos + float64(fanout)*costs.TLSNanosPerByte
	// A replayed event is serialized for each watcher it is replayed to: the cache shares
	// an object's serialization only among the watchers of its live dispatch.
	// upstream: cacher.go dispatchEvent (cachingObject for live events only).
	ns += float64(d.replayedBytes) * costs.EncodeProtobufNanosPerByte
	ns += a.sendCPU(d.relistRawBytes, d.resentBytes)
	return Time(ns)
}
