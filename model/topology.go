package model

import (
	"math"
	"slices"
)

// overloadThreshold: upstream: topologycache/topologycache.go overloadThreshold
const overloadThreshold = 0.2

// TopologyCache holds the zone weights the topology-mode annotation ("mode A" hints) allocates
// endpoints by, and which Services currently have hints. One cache serves a whole controller.
// upstream: topologycache/topologycache.go TopologyCache
type TopologyCache struct {
	// zones lists the zones with their CPU ratio, sorted by name; nil when hints are disabled
	// cluster-wide (insufficient node information or fewer than 2 zones).
	zones []zoneRatio
	// hintsByService records, per "namespace/name", the address types that have hints.
	hintsByService map[string]map[AddressType]map[string]int
	// forZone holds one hint per zone, shared by every endpoint hinted to that zone: hints
	// are never written through (a changed hint is a new object).
	forZone map[string]*EndpointHints
	// allocations holds getAllocations' answers by number of endpoints under the current
	// zones (at most allocationsKept; SetNodes forgets them): its callers only read them,
	// and a cluster of small Services asks for the same few at every sync.
	allocations map[int]map[string]allocation
}

// allocationsKept is the number of getAllocations answers a TopologyCache keeps.
const allocationsKept = 1024

// hintFor returns the shared hint "for zone".
func (t *TopologyCache) hintFor(zone string) *EndpointHints {
	h := t.forZone[zone]
	if h == nil {
		h = &EndpointHints{ForZones: []string{zone}}
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
	return &TopologyCache{hintsByService: map[string]map[AddressType]map[string]int{}}
}

// SetNodes recomputes the zone weights from the nodes: Ready nodes without a control-plane
// role count; any counted node without a zone or allocatable CPU disables hints, as do fewer
// than two zones. upstream: topologycache/topologycache.go SetNodes
func (t *TopologyCache) SetNodes(nodes []*Node) {
	cpuByZone := map[string]int64{}
	var total int64
	sufficient := true
	for _, n := range nodes {
		if n.ControlPlane || !n.Ready {
			continue
		}
		if n.Zone == "" || n.AllocatableMilliCPU == 0 {
			sufficient = false
			break
		}
		total += n.AllocatableMilliCPU
		cpuByZone[n.Zone] += n.AllocatableMilliCPU
	}
	t.allocations = nil
	if total == 0 || !sufficient || len(cpuByZone) < 2 {
		t.zones = nil
		return
	}
	t.zones = t.zones[:0]
	for z, cpu := range cpuByZone {
		t.zones = append(t.zones, zoneRatio{z, float64(cpu) / float64(total)})
	}
	slices.SortFunc(t.zones, func(a, b zoneRatio) int {
		if a.zone < b.zone {
			return -1
		}
		if a.zone > b.zone {
			return 1
		}
		return 0
	})
}

// HasPopulatedHints reports whether the Service has hints recorded.
// upstream: topologycache/topologycache.go HasPopulatedHints
func (t *TopologyCache) HasPopulatedHints(serviceKey string) bool {
	return len(t.hintsByService[serviceKey]) > 0
}

// OverloadedServices returns the keys ("namespace/name", sorted) of the Services whose recorded
// hints no longer fit the zone weights: some address type leaves a zone with fewer hinted
// endpoints than its CPU share minus the overload threshold, hints a zone set that lacks one
// of the cluster's zones, or has hints while hints are disabled cluster-wide. The controller
// queues them after a node change.
// upstream: topologycache/topologycache.go GetOverloadedServices, utils.go serviceOverloaded.
func (t *TopologyCache) OverloadedServices() []string {
	var keys []string
	for key, byType := range t.hintsByService {
		for _, byZone := range byType {
			if t.overloaded(byZone) {
				keys = append(keys, key)
				break
			}
		}
	}
	slices.Sort(keys)
	return keys
}

func (t *TopologyCache) overloaded(byZone map[string]int) bool {
	if len(byZone) == 0 {
		return false
	}
	if len(t.zones) == 0 {
		return true
	}
	total := 0.0
	for _, n := range byZone {
		total += float64(n)
	}
	for _, z := range t.zones {
		n, ok := byZone[z.zone]
		if !ok {
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
	if m, ok := t.hintsByService[serviceKey]; ok {
		delete(m, addressType)
		if len(m) == 0 {
			delete(t.hintsByService, serviceKey)
		}
	}
}

func (t *TopologyCache) setHints(serviceKey string, addressType AddressType, byZone map[string]int) {
	m := t.hintsByService[serviceKey]
	if m == nil {
		m = map[AddressType]map[string]int{}
		t.hintsByService[serviceKey] = m
	}
	m[addressType] = byZone
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
		t.RemoveHints(si.serviceKey, si.addressType)
		removeHintsFrom(si, unchanged)
		return
	}
	invalid, allocated := unchanged.claim(allocations)
	si.toUpdate = append(si.toUpdate, invalid...)
	allocatable := append(append([]*EndpointSlice(nil), si.toCreate...), si.toUpdate...)
	// Counted by zone in a short list, then added to allocated: a map update and a map
	// lookup an endpoint were a third of this pass.
	var tally zoneTally
	for _, s := range allocatable {
		for i := range s.Endpoints {
			ep := &s.Endpoints[i]
			if !endpointReady(ep) {
				continue
			}
			if ep.Zone == nil || *ep.Zone == "" {
				t.RemoveHints(si.serviceKey, si.addressType)
				removeHintsFrom(si, unchanged)
				return
			}
			z := tally.of(t, *ep.Zone)
			z.n++
			ep.Hints = z.hint
		}
	}
	for _, z := range tally.zones {
		allocated[z.zone] += z.n
	}
	giving, receiving := t.givingAndReceivingZones(allocations, allocated)
	for z, d := range t.redistributeHints(allocatable, giving, receiving) {
		allocated[z] += d
	}
	if len(allocated) == 0 {
		t.RemoveHints(si.serviceKey, si.addressType)
		removeHintsFrom(si, unchanged)
		return
	}
	t.setHints(si.serviceKey, si.addressType, allocated)
}

// zoneTally counts endpoints by zone, with each zone's shared hint (hintFor): a cluster has
// a few zones, which a scan finds sooner than a map.
type zoneTally struct {
	zones []zoneCountHint
	buf   [4]zoneCountHint
}

type zoneCountHint struct {
	zone string
	n    int
	hint *EndpointHints
}

// of returns zone's entry, added if new.
func (z *zoneTally) of(t *TopologyCache, zone string) *zoneCountHint {
	for i := range z.zones {
		if z.zones[i].zone == zone {
			return &z.zones[i]
		}
	}
	if z.zones == nil {
		z.zones = z.buf[:0]
	}
	z.zones = append(z.zones, zoneCountHint{zone: zone, hint: t.hintFor(zone)})
	return &z.zones[len(z.zones)-1]
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
// The desired amounts are kept by zone index, in t.zones' order (upstream's maps by zone,
// read in that order): only a zone with a positive amount is ever the most. giving and
// receiving are nil when no endpoint moves (most syncs).
func (t *TopologyCache) givingAndReceivingZones(allocations map[string]allocation, allocated map[string]int) (giving, receiving map[string]int) {
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
		if giving == nil {
			giving, receiving = map[string]int{}, map[string]int{}
		}
		giving[t.zones[gz].zone]++
		givingDesired[gz]--
		receiving[t.zones[rz].zone]++
		receivingDesired[rz]--
	}
	return giving, receiving
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

// redistributeHints moves hints from giving to receiving zones, walking the slices in order.
// The receiving zone chosen is the first in name order. upstream: topologycache/utils.go
// redistributeHints
func (t *TopologyCache) redistributeHints(slices []*EndpointSlice, giving, receiving map[string]int) map[string]int {
	if len(giving) == 0 || len(receiving) == 0 {
		return nil // the loop below would return its empty map at the first ready endpoint
	}
	out := map[string]int{}
	var recvOrder []string
	for z := range receiving {
		recvOrder = append(recvOrder, z)
	}
	slicesSortStrings(recvOrder)
	for _, s := range slices {
		for i := range s.Endpoints {
			ep := &s.Endpoints[i]
			if !endpointReady(ep) {
				continue
			}
			if len(giving) == 0 || len(receiving) == 0 {
				return out
			}
			if ep.Zone == nil || *ep.Zone == "" {
				continue
			}
			gz := *ep.Zone
			if n, ok := giving[gz]; ok && n > 0 {
				for _, rz := range recvOrder {
					nr, ok := receiving[rz]
					if !ok || nr <= 0 {
						continue
					}
					ep.Hints = t.hintFor(rz)
					if n == 1 {
						delete(giving, gz)
					} else {
						giving[gz]--
					}
					if nr == 1 {
						delete(receiving, rz)
					} else {
						receiving[rz]--
					}
					out[rz]++
					out[gz]--
					break
				}
			}
		}
	}
	return out
}

func slicesSortStrings(s []string) { slices.Sort(s) }
