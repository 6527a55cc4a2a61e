package model

import (
	"maps"
	"math"
	"slices"
	"strings"

	"epsim/internal/zeroing"
)

// overloadThreshold: upstream: topologycache/topologycache.go overloadThreshold
const overloadThreshold = 0.2

// TopologyCache holds the zone weights the topology-mode annotation ("mode A") hints
// allocates endpoints by, and which Services currently have hints. One cache serves a whole
// controller.
// upstream: topologycache/topologycache.go TopologyCache
type TopologyCache struct {
	// events counts the Events the hints passes record, since the sync that last took them
	// (takeEvents).
	events SyncEvents
	// zones lists the zones with their CPU ratio, sorted by name; nil when hints are disabled
	// cluster-wide (insufficient node information or fewer than 2 zones); spare is scratch
	// for the next weights. They are computed from the tallies of the counted nodes: cpu per
	// zone, sorted by name, their total, and how many are unusable (without a zone or CPU).
	zones, spare []zoneRatio
	// zonesGen numbers the zones' names as a list (not their ratios): it changes when a
	// zone comes or goes (typeHints.inZones).
	zonesGen uint32
	cpu      []zoneCPU
	total    int64
	unusable int
	// hinted holds the hints of each Service that has some, by "namespace/name" (upstream's
	// endpointsByService), and sorted the same in key order: OverloadedServices runs at
	// every node readiness change, and walks them in order rather than sorting their keys
	// each time (a zone going down changes 1,667 nodes of 5,000, one at a time).
	hinted map[string]*serviceHints
	sorted []*serviceHints
	key    []byte // lookup's key
	// forZone holds one hint per zone, shared by every endpoint hinted to that zone: hints
	// are never written through (a changed hint is a new object).
	forZone map[string]*EndpointHints
	// allocations holds getAllocations' answers by number of endpoints under the current
	// zones (at most allocationsKept; SetNodes forgets them when the weights change): its
	// callers only read them, and a cluster of small Services asks for the same few at
	// every sync.
	allocations map[int]map[string]allocation
	// allocatable and tally are addHintsTo's scratch: the slices it hints, and its count of
	// their endpoints by zone.
	allocatable []*EndpointSlice
	tally       []zoneCountHint
	// giving, receiving and moved are the endpoints each zone gives, receives and has moved
	// in addHintsTo's redistribution, by zone index.
	giving, receiving, moved []int
}

// serviceHints are one Service's hints: the hinted endpoints per zone of each address type
// that has hints.
type serviceHints struct {
	key   string
	types []typeHints
	// populated is upstream's hintsPopulatedByService: set by every record of hints, and
	// cleared by the removal of any address type's, even while another's stay.
	populated bool
}

// typeHints are the hinted endpoints per zone of one address type, and their sum.
type typeHints struct {
	at     AddressType
	byZone map[string]int
	total  int
	// inZones is byZone's count for each of the cache's zones, by index (-1: none), made
	// for the zones of generation gen (0: not made): OverloadedServices reads the counts of
	// every hinted Service at every node change, where looking them up by zone name was a
	// third of its cost.
	inZones []int32
	gen     uint32
}

// zoneCPU is a zone's counted nodes and their allocatable CPU, in millicores.
type zoneCPU struct {
	zone  string
	cpu   int64
	nodes int
}

// allocationsKept is the number of getAllocations answers a TopologyCache keeps.
const allocationsKept = 1024

// hintFor returns the shared hint "for zone".
func (t *TopologyCache) hintFor(zone string) *EndpointHints {
	h := t.forZone[zone]
	if h == nil {
		h = sharedHints(&EndpointHints{ForZones: []string{zone}})
		put(&t.forZone, zone, h)
	}
	return h
}

type zoneRatio struct {
	zone  string
	ratio float64
}

// NewTopologyCache returns an empty cache (hints disabled until SetNodes sees ≥ 2 zones).
func NewTopologyCache() *TopologyCache {
	return &TopologyCache{hinted: map[string]*serviceHints{}}
}

// SetNodes recomputes the zone weights from the nodes: Ready nodes without a control-plane
// role count; any counted node without a zone or allocatable CPU disables hints, as do fewer
// than two zones.
// upstream: topologycache/topologycache.go SetNodes
func (t *TopologyCache) SetNodes(nodes []*Node) {
	t.cpu, t.total, t.unusable = t.cpu[:0], 0, 0
	for _, n := range nodes {
		t.count(n, 1)
	}
	t.setWeights()
}

// NodeChanged is SetNodes after one node of the nodes it was last given changed from old to
// now (nil old: a node added; nil now: one removed): the same weights, from the per-zone
// tallies SetNodes and NodeChanged keep, without reading every node again. The controller
// calls SetNodes at every node readiness change, and a zone going down changes 1,667 nodes
// of 5,000, one at a time.
func (t *TopologyCache) NodeChanged(old, now *Node) {
	t.count(old, -1)
	t.count(now, 1)
	t.setWeights()
}

// count adds (sign 1) or takes away (sign -1) node n in the tallies: a counted node, Ready
// and not of the control plane, adds its allocatable CPU to its zone's, or, without a zone
// or CPU, counts as unusable.
func (t *TopologyCache) count(n *Node, sign int) {
	if n == nil || n.ControlPlane || !n.Ready {
		return
	}
	if n.Zone == "" || n.AllocatableMilliCPU == 0 {
		t.unusable += sign
		return
	}
	i, found := slices.BinarySearchFunc(t.cpu, n.Zone, func(z zoneCPU, zone string) int { return strings.Compare(z.zone, zone) })
	if !found {
		t.cpu = slices.Insert(t.cpu, i, zoneCPU{zone: n.Zone})
	}
	z := &t.cpu[i]
	z.cpu += int64(sign) * n.AllocatableMilliCPU
	z.nodes += sign
	t.total += int64(sign) * n.AllocatableMilliCPU
	if z.nodes == 0 {
		t.cpu = slices.Delete(t.cpu, i, i+1)
	}
}

// setWeights sets the zone weights from the tallies: each zone's share of the CPU, or none
// when a counted node is unusable, no CPU is counted or fewer than two zones have any.
// (Upstream stops at the first unusable node; the tallies go on, for NodeChanged, and give
// the same weights.)
func (t *TopologyCache) setWeights() {
	if t.total == 0 || t.unusable > 0 || len(t.cpu) < 2 {
		t.zones, t.allocations = nil, nil
		return
	}
	next := t.spare[:0]
	for _, z := range t.cpu {
		next = append(next, zoneRatio{z.zone, float64(z.cpu) / float64(t.total)})
	}
	if !slices.Equal(next, t.zones) {
		// New weights: the memo's allocations were of the old ones. (A node that changes
		// and changes back, or one whose zone's share stays the same, keeps them.)
		t.allocations = nil
		if !slices.EqualFunc(next, t.zones, func(a, b zoneRatio) bool { return a.zone == b.zone }) {
			t.zonesGen++
		}
	}
	t.zones, t.spare = next, t.zones
}

// SyncEvents counts the Kubernetes Events a sync records about its Service, by type: the
// topology-mode hints pass's TopologyAwareHintsDisabled (Warning: hints could not be
// allocated, an endpoint has no zone, or the mode was turned off while hints were set) and
// TopologyAwareHintsEnabled (Normal: hints set where the Service had none). The controller
// sends them through its own client after the sync's writes.
// upstream: reconciler.go reconcileByAddressType (eventRecorder.Event after finalize);
// topologycache/topologycache.go AddHints, getAllocations.
type SyncEvents struct{ Warning, Normal int }

// takeEvents returns the Events counted since the last call, and starts again (none for a
// nil cache).
func (t *TopologyCache) takeEvents() SyncEvents {
	if t == nil {
		return SyncEvents{}
	}
	ev := t.events
	t.events = SyncEvents{}
	return ev
}

// removeHintsOff is the hints pass of a Service whose topology mode is off: had it hints
// recorded (of any address type), the controller records that they are disabled; its
// hints of this address type are forgotten.
// upstream: reconciler.go reconcileByAddressType (HasPopulatedHints, then RemoveHints).
func (t *TopologyCache) removeHintsOff(svc *Service, addressType AddressType) {
	if h := t.lookup(svc); h != nil {
		if h.populated {
			t.events.Warning++
		}
		t.removeType(h, addressType)
	}
}

// HasPopulatedHints reports whether the Service has hints recorded.
// upstream: topologycache/topologycache.go HasPopulatedHints
func (t *TopologyCache) HasPopulatedHints(serviceKey string) bool {
	h := t.hinted[serviceKey]
	return h != nil && h.populated
}

// OverloadedServices returns the keys ("namespace/name", sorted) of the Services whose recorded
// hints no longer fit the zone weights: some address type leaves a zone with fewer hinted
// endpoints than its CPU share minus the overload threshold, hints a zone set that lacks one
// of the cluster's zones, or has hints while hints are disabled cluster-wide. The controller
// queues them after a node change.
// upstream: topologycache/topologycache.go GetOverloadedServices, utils.go serviceOverloaded.
func (t *TopologyCache) OverloadedServices() []string {
	var keys []string
	for _, h := range t.sorted {
		for i := range h.types {
			if t.overloaded(&h.types[i]) {
				keys = append(keys, h.key)
				break
			}
		}
	}
	return keys
}

func (t *TopologyCache) overloaded(h *typeHints) bool {
	if len(h.byZone) == 0 {
		return false
	}
	if len(t.zones) == 0 {
		return true
	}
	if h.gen != t.zonesGen || len(h.inZones) != len(t.zones) {
		h.inZones = h.inZones[:0]
		for _, z := range t.zones {
			n, ok := h.byZone[z.zone]
			if !ok {
				n = -1
			}
			h.inZones = append(h.inZones, int32(n))
		}
		h.gen = t.zonesGen
	}
	total := float64(h.total)
	for i, z := range t.zones {
		n := int(h.inZones[i])
		if n < 0 {
			return true
		}
		if n < int(math.Ceil(total*z.ratio*(1/(1+overloadThreshold)))) {
			return true
		}
	}
	return false
}

// RemoveHints forgets the hints of one address type of a Service.
// upstream: topologycache/topologycache.go RemoveHints
func (t *TopologyCache) RemoveHints(serviceKey string, addressType AddressType) {
	if h := t.hinted[serviceKey]; h != nil {
		t.removeType(h, addressType)
	}
}

// removeServiceHints is RemoveHints of svc, without making its key: every sync of every
// Service asks it once some Service has hints.
func (t *TopologyCache) removeServiceHints(svc *Service, addressType AddressType) {
	if h := t.lookup(svc); h != nil {
		t.removeType(h, addressType)
	}
}

// lookup returns svc's hints, nil if it has none, looked up by its key's bytes (t.key
// holds them afterwards): a key made for each sync of a Service with hints, to look it up,
// was 1% of the instructions of many-services with hints on every Service.
func (t *TopologyCache) lookup(svc *Service) *serviceHints {
	t.key = append(append(append(t.key[:0], svc.Namespace...), '/'), svc.Name...)
	return t.hinted[string(t.key)]
}

// removeType forgets h's hints of one address type, and h when it has none left.
func (t *TopologyCache) removeType(h *serviceHints, addressType AddressType) {
	h.populated = false
	h.types = slices.DeleteFunc(h.types, func(th typeHints) bool { return th.at == addressType })
	if len(h.types) == 0 {
		delete(t.hinted, h.key)
		if i, found := t.find(h.key); found {
			t.sorted = slices.Delete(t.sorted, i, i+1)
		}
	}
}

// setServiceHints records the hinted endpoints per zone of one address type of svc (a copy
// of byZone, which the caller may go on using), making its key only when its hints are new.
func (t *TopologyCache) setServiceHints(svc *Service, addressType AddressType, byZone map[string]int) {
	h := t.lookup(svc)
	if h == nil {
		h = t.add(string(t.key))
	}
	h.set(addressType, byZone)
	h.populated = true
}

// add records a Service of that key without hints yet, and returns it.
func (t *TopologyCache) add(serviceKey string) *serviceHints {
	h := &serviceHints{key: serviceKey}
	put(&t.hinted, serviceKey, h)
	i, _ := t.find(serviceKey)
	t.sorted = slices.Insert(t.sorted, i, h)
	return h
}

// set records the hinted endpoints per zone of one address type: a copy of byZone.
func (h *serviceHints) set(addressType AddressType, byZone map[string]int) {
	for i := range h.types {
		if th := &h.types[i]; th.at == addressType {
			// The map recorded before is the cache's own: it takes the new counts, unless
			// they are the same (most syncs move no hint).
			if !maps.Equal(th.byZone, byZone) {
				clear(th.byZone)
				maps.Copy(th.byZone, byZone)
				th.total, th.gen = sum(byZone), 0
			}
			return
		}
	}
	h.types = append(h.types, typeHints{at: addressType, byZone: maps.Clone(byZone), total: sum(byZone)})
}

// sum returns the sum of m's values.
func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// find returns where the Service of key is or would be in sorted, and whether it is there.
func (t *TopologyCache) find(key string) (int, bool) {
	return slices.BinarySearchFunc(t.sorted, key, func(h *serviceHints, key string) int { return strings.Compare(h.key, key) })
}

type allocation struct {
	minimum, maximum int
	desired          float64
}

// getAllocations: upstream: topologycache/topologycache.go getAllocations. The map returned
// is shared: read it only.
func (t *TopologyCache) getAllocations(numEndpoints int) (map[string]allocation, bool) {
	if len(t.zones) < 2 || len(t.zones) > numEndpoints {
		return nil, false
	}
	if out, ok := t.allocations[numEndpoints]; ok {
		return out, out != nil
	}
	out, ok := t.allocate(numEndpoints)
	if len(t.allocations) >= allocationsKept || t.allocations == nil {
		t.allocations = make(map[int]map[string]allocation)
	}
	t.allocations[numEndpoints] = out // nil when not ok
	return out, ok
}

// allocate is getAllocations without the memo.
func (t *TopologyCache) allocate(numEndpoints int) (map[string]allocation, bool) {
	remaining := numEndpoints
	minTotal := 0
	out := make(map[string]allocation, len(t.zones))
	for _, z := range t.zones {
		desired := z.ratio * float64(numEndpoints)
		minimum := int(math.Ceil(desired * (1 / (1 + overloadThreshold))))
		out[z.zone] = allocation{minimum: minimum, desired: math.Max(desired, float64(minimum))}
		minTotal += minimum
		remaining -= minimum
		if remaining < 0 {
			return nil, false
		}
	}
	for z, a := range out {
		a.maximum = a.minimum + numEndpoints - minTotal
		out[z] = a
	}
	return out, true
}

// addHints (mode A) assigns zone hints to what is written, moving unchanged slices with
// invalid hints to toUpdate. On failure it falls back to mode C. Non-ready endpoints keep
// whatever hints they carry (upstream clears a loop copy, not the endpoint).
// upstream: topologycache/topologycache.go AddHints
func (t *TopologyCache) addHints(si *sliceInfo) {
	t.addHintsTo(si, (*unchangedList)(&si.unchanged))
}

// unchangedHints is what the mode A pass needs of the slices a sync leaves alone: the full
// reconciler holds them as a list (unchangedList), the incremental one as per-slice
// summaries, so that a sync does not walk every endpoint of a large Service.
type unchangedHints interface {
	// readyEndpoints counts their ready endpoints.
	readyEndpoints() int
	// claim walks them in name order as upstream's getAllocatedHintsByZone does: it returns
	// copies of the slices whose hints are invalid under allocations (they are rewritten),
	// and the per-zone hint counts of the others, which stay unchanged.
	claim(allocations map[string]allocation) (invalid []*EndpointSlice, allocated map[string]int)
	// withHints returns the slices still unchanged (after claim, if it ran) that carry any
	// hint, in name order.
	withHints() []*EndpointSlice
}

// addHintsTo is addHints over any view of the unchanged slices.
// upstream: topologycache/topologycache.go AddHints
func (t *TopologyCache) addHintsTo(si *sliceInfo, unchanged unchangedHints) {
	total := readyCount(si.toCreate) + readyCount(si.toUpdate) + unchanged.readyEndpoints()
	allocations, ok := t.getAllocations(total)
	if !ok {
		t.events.Warning++
		t.removeServiceHints(si.service, si.addressType)
		removeHintsFrom(si, unchanged)
		return
	}
	invalid, allocated := unchanged.claim(allocations)
	si.toUpdate = append(si.toUpdate, invalid...)
	allocatable := append(append(t.allocatable[:0], si.toCreate...), si.toUpdate...)
	t.allocatable = allocatable
	defer zeroing.Clear(allocatable) // keeps no slice alive
	// Counted by zone in a short list (t.tally, reused), then added to allocated: a map
	// update and a map lookup an endpoint were a third of this pass.
	tally := t.tally[:0]
	for _, s := range allocatable {
		for i := range s.Endpoints {
			ep := &s.Endpoints[i]
			if !endpointReady(ep) {
				continue
			}
			if ep.Zone == nil || *ep.Zone == "" {
				t.events.Warning++
				t.removeServiceHints(si.service, si.addressType)
				removeHintsFrom(si, unchanged)
				return
			}
			j, zone := 0, *ep.Zone
			for j < len(tally) && !sameZone(tally[j].zone, zone) {
				j++
			}
			if j == len(tally) {
				tally = append(tally, zoneCountHint{zone: zone, hint: t.hintFor(zone)})
			}
			tally[j].n++
			ep.Hints = tally[j].hint
		}
	}
	t.tally = tally
	for _, z := range tally {
		allocated[z.zone] += z.n
	}
	if giving, receiving, moves := t.givingAndReceivingZones(allocations, allocated); moves {
		// A zone gives or receives, never both: its net change is never 0.
		for i, d := range t.redistributeHints(allocatable, giving, receiving) {
			if d != 0 {
				allocated[t.zones[i].zone] += d
			}
		}
	}
	if len(allocated) == 0 {
		t.events.Warning++
		t.removeServiceHints(si.service, si.addressType)
		removeHintsFrom(si, unchanged)
		return
	}
	if h := t.lookup(si.service); h == nil || !h.populated {
		t.events.Normal++ // hints enabled
	}
	t.setServiceHints(si.service, si.addressType, allocated)
}

// sameZone reports whether zone names a and b (not empty) are equal. Zone names of a
// cluster tend to differ in their last byte ("us-east-1a", "us-east-1b"): comparing it
// first settles most unequal pairs without a call to compare the bytes.
func sameZone(a, b string) bool {
	return len(a) == len(b) && a[len(a)-1] == b[len(b)-1] && a == b
}

// zoneCountHint is a zone's count of endpoints in addHintsTo, with the zone's shared hint
// (hintFor).
type zoneCountHint struct {
	zone string
	n    int
	hint *EndpointHints
}

// readyCount counts the ready endpoints of the slices.
func readyCount(l []*EndpointSlice) int {
	n := 0
	for _, s := range l {
		for i := range s.Endpoints {
			if endpointReady(&s.Endpoints[i]) {
				n++
			}
		}
	}
	return n
}

// removeHintsFrom is removeHintsFromSlices with the unchanged slices seen through unchanged.
// upstream: topologycache/utils.go RemoveHintsFromSlices
func removeHintsFrom(si *sliceInfo, unchanged unchangedHints) {
	for _, s := range si.toCreate {
		stripHints(s)
	}
	for _, s := range si.toUpdate {
		stripHints(s)
	}
	for _, s := range unchanged.withHints() {
		c := copySlice(s)
		stripHints(c)
		si.toUpdate = append(si.toUpdate, c)
	}
}

// unchangedList is the full reconciler's unchanged slices, in name order; claim keeps the
// valid ones in it.
type unchangedList []*EndpointSlice

func (l *unchangedList) readyEndpoints() int { return readyCount(*l) }

// upstream: topologycache/sliceinfo.go getAllocatedHintsByZone
func (l *unchangedList) claim(allocations map[string]allocation) ([]*EndpointSlice, map[string]int) {
	allocated := map[string]int{}
	var keep, invalid []*EndpointSlice
	for _, s := range *l {
		byZone := hintsByZone(s, allocated, allocations)
		if byZone == nil {
			invalid = append(invalid, copySlice(s))
			continue
		}
		keep = append(keep, s)
		for z, n := range byZone {
			allocated[z] += n
		}
	}
	*l = keep
	return invalid, allocated
}

func (l *unchangedList) withHints() []*EndpointSlice {
	var out []*EndpointSlice
	for _, s := range *l {
		if sliceHasHints(s) {
			out = append(out, s)
		}
	}
	return out
}

// hintsByZone counts a slice's ready endpoints' hints per zone, or nil when they are invalid.
// upstream: topologycache/utils.go getHintsByZone
func hintsByZone(s *EndpointSlice, allocated map[string]int, allocations map[string]allocation) map[string]int {
	out := map[string]int{}
	for i := range s.Endpoints {
		ep := &s.Endpoints[i]
		if !endpointReady(ep) {
			continue
		}
		if ep.Hints == nil || len(ep.Hints.ForZones) == 0 {
			return nil
		}
		for _, z := range ep.Hints.ForZones {
			if _, ok := allocations[z]; !ok {
				return nil
			}
			out[z]++
		}
	}
	for z, n := range out {
		a, ok := allocations[z]
		if !ok || n+allocated[z] > a.maximum {
			return nil
		}
	}
	return out
}

// givingAndReceivingZones: upstream: topologycache/utils.go getGivingAndReceivingZones.
// Ties in getMost go to the first zone in name order.
// The amounts are kept by zone index, in t.zones' order (upstream's maps by zone, read in
// that order): only a zone with a positive amount is ever the most. It returns the number
// of endpoints each zone gives and receives, by zone index (the cache's scratch, valid until
// the next call), and whether any moves (most syncs move none).
func (t *TopologyCache) givingAndReceivingZones(allocations map[string]allocation, allocated map[string]int) (giving, receiving []int, moves bool) {
	var buf [2][8]float64
	givingDesired, receivingDesired := buf[0][:0], buf[1][:0]
	for _, z := range t.zones {
		a := allocations[z.zone]
		got := float64(allocated[z.zone])
		var g, r float64
		if got > a.desired {
			g = got - a.desired
		} else if got < a.desired {
			r = a.desired - got
		}
		givingDesired, receivingDesired = append(givingDesired, g), append(receivingDesired, r)
	}
	for {
		gz, ng := most(givingDesired)
		rz, nr := most(receivingDesired)
		if gz < 0 || rz < 0 || (ng < 1.0 && nr < 1.0) || ng < 0.5 || nr < 0.5 {
			break
		}
		if !moves {
			moves = true
			t.giving = append(t.giving[:0], make([]int, len(t.zones))...)
			t.receiving = append(t.receiving[:0], make([]int, len(t.zones))...)
		}
		t.giving[gz]++
		givingDesired[gz]--
		t.receiving[rz]++
		receivingDesired[rz]--
	}
	if !moves {
		return nil, nil, false
	}
	return t.giving, t.receiving, true
}

// most returns the index of the largest positive amount (the first of equals), and the
// amount; -1 when none is positive.
func most(amounts []float64) (int, float64) {
	at, num := -1, 0.0
	for i, n := range amounts {
		if n > num {
			at, num = i, n
		}
	}
	return at, num
}

// redistributeHints moves hints from giving to receiving zones (counts by zone index),
// walking the slices in order, and returns the change of each zone's count (by index; the
// cache's scratch). The receiving zone chosen is the first in name order (index order).
// upstream: topologycache/utils.go redistributeHints
func (t *TopologyCache) redistributeHints(slices []*EndpointSlice, giving, receiving []int) []int {
	out := append(t.moved[:0], make([]int, len(t.zones))...)
	t.moved = out
	givers, receivers := 0, 0
	for i := range t.zones {
		if giving[i] > 0 {
			givers++
		}
		if receiving[i] > 0 {
			receivers++
		}
	}
	for _, s := range slices {
		for i := range s.Endpoints {
			ep := &s.Endpoints[i]
			if !endpointReady(ep) {
				continue
			}
			if givers == 0 || receivers == 0 {
				return out
			}
			if ep.Zone == nil || *ep.Zone == "" {
				continue
			}
			gz := t.zoneIndex(*ep.Zone)
			if gz < 0 || giving[gz] <= 0 {
				continue
			}
			for rz, nr := range receiving {
				if nr <= 0 {
					continue
				}
				ep.Hints = t.hintFor(t.zones[rz].zone)
				if giving[gz]--; giving[gz] == 0 {
					givers--
				}
				if receiving[rz]--; receiving[rz] == 0 {
					receivers--
				}
				out[rz]++
				out[gz]--
				break
			}
		}
	}
	return out
}

// zoneIndex returns the index of zone in t.zones, -1 if it is not there.
func (t *TopologyCache) zoneIndex(zone string) int {
	if i, found := slices.BinarySearchFunc(t.zones, zone, func(z zoneRatio, zone string) int { return strings.Compare(z.zone, zone) }); found {
		return i
	}
	return -1
}
