package model

import (
	"iter"
	"maps"
	"math/bits"
	"slices"
	"strings"

	"epsim/internal/zeroing"
)

// ServiceSlices is the incremental EndpointSlice reconciler of one Service: it keeps the
// slices the API server has (following only successful writes, reported through Applied) and
// the desired endpoints (following SetPod/DeletePod), and Sync computes the same plan as
// ReconcileFull would for the same inputs, with work proportional to what changed since the
// last sync. A change of the Service (labels, ports, families, hint settings, the
// topology-mode annotation), which touches every slice anyway, makes the next Sync rebuild the
// indexes from the stored slices and then sync incrementally (O(N) once). States upstream
// treats specially (unowned or foreign-labelled slices, duplicate endpoints) take the full
// path, which calls ReconcileFull. Every hints mode, the topology-mode annotation's included,
// is applied incrementally.
type ServiceSlices struct {
	svc   *Service
	nodes NodeGetter
	// opts has its Buffers set: the controller's or the Service's own. Services with equal
	// options and buffers share one copy (SyncBuffers.sharedOptions).
	opts *ReconcilerOptions
	// meta is what every slice written shares: its labels and owner reference.
	meta *sliceMeta
	// rare holds what few Services need (nil until one does): see slicesRare.
	rare *slicesRare
	// types is the Service's address types (serviceTypes), inline the family index whose
	// identities podEntry holds itself: the first type's when the desired state was last
	// reset, which is when every identity is dropped.
	types  serviceTypes
	inline uint8
	mode   hintsMode
	full   bool // the next sync rebuilds the indexes from the stored slices first
	// zoned: stored slices carry zone-hint summaries (storedSlice.zones), kept while the
	// mode is hintsTopology; set when the stored state is indexed.
	zoned bool
	pass  uint32 // counts syncPortMap passes (storedSlice.changedIn)

	// Maps are allocated on first write: most Services are small, and a Service with two
	// pods should not pay for a dozen empty maps.
	// pods are the kept pods, in no particular order (podEntry.at).
	pods      []*podEntry
	dirtyPods []*podEntry // changed since the last sync, each once but for deleted ones (dropEntry)
	keyPods   keyCounts   // pods passing the filter, per port map

	stored smallMap[string, *storedSlice]
	// families are the IPv4 and IPv6 state (stored slices of either type are indexed), each
	// made when first needed (family): most Services have one family, and an empty one is
	// 240 bytes.
	families  [2]*family
	anomalies int32 // stored slices that force the full path
	dupHashes int32 // endpoint identities stored more than once

	// lastPorts is the last port list resolved for a pod, and lastPortsKey its key: pods of
	// a Service almost always resolve the same ports, and share that one list.
	lastPorts    []EndpointPort
	lastPortsKey PortMapKey
	// lastResolved is what each Service port resolved to for lastPorts (-1: not resolved).
	lastResolved []int64
	// fresh are the endpoint arrays (by their first element) and the slice objects the
	// last Sync allocated; a stored slice whose array or object came from there owns it
	// (storedSlice.owned, ownsObject). The arrays and objects of owned slices the API server
	// replaced or deleted go to buf's spares (SyncBuffers), for a rewritten slice to reuse
	// instead of allocating them again.
	//
	// An owned array holds nothing past its slice's length, so that it keeps no old
	// endpoint alive. A spare keeps the length it was stored with: the endpoints there are
	// overwritten when it is reused, and what the new slice does not overwrite is cleared
	// when its write is applied (freshItem.dirty), instead of the whole array when it is
	// taken back (which with write barriers was 2-3% of a run).
	fresh []freshItem
}

// slicesRare is what few Services' reconcilers need, made on first need: kept apart, it
// costs the others a pointer (a reconciler is 288 bytes instead of 312: the 288-byte size
// class instead of 320).
type slicesRare struct {
	// second holds the desired endpoint identity and base size of each pod's endpoint of
	// the family that is not inline (podEntry.id), for a dual-stack Service (nil: none).
	second map[*podEntry]podIdentity
	// byName indexes the pods by podKey, made on the first call that names a pod without a
	// ref that applies: a caller that passes refs (the simulator) never needs it.
	byName map[string]*podEntry
	// dirtyNodes are the nodes changed since the last sync (Sync scans the pods).
	dirtyNodes map[string]struct{}
	zoneWalks  int32 // syncs whose mode A pass walked every stored slice (for tests)
	missing    int32 // pods skipped for a missing node
}

// rareFields returns s.rare, made now if need be.
func (s *ServiceSlices) rareFields() *slicesRare {
	if s.rare == nil {
		s.rare = new(slicesRare)
	}
	return s.rare
}

// names returns the pods by podKey, nil while there is no such index (see index).
func (s *ServiceSlices) names() map[string]*podEntry {
	if s.rare == nil {
		return nil
	}
	return s.rare.byName
}

// secondIdentities returns the identities kept for the family that is not inline (nil: none).
func (s *ServiceSlices) secondIdentities() map[*podEntry]podIdentity {
	if s.rare == nil {
		return nil
	}
	return s.rare.second
}

// missingPods returns the number of pods skipped for a missing node.
func (s *ServiceSlices) missingPods() int32 {
	if s.rare == nil {
		return 0
	}
	return s.rare.missing
}

// SyncBuffers are the scratch lists of ServiceSlices.Sync and Applied, which no call keeps
// past its end, the last Sync's result, and spare endpoint arrays. The Services of one
// controller, synced one at a time, share one set (ReconcilerOptions.Buffers) instead of
// each keeping its own: the lists cost each of 50,000 small Services about 1 KB, and spares
// kept per Service were 13 MB of many-services' 226 MB peak, most in Services that had
// stopped changing.
type SyncBuffers struct {
	spares arrayPool // endpoint arrays of replaced slices, for any of the Services to reuse
	// spareObjects are the objects of replaced slices, for any of the Services to reuse
	// (at most spareObjectsMax).
	spareObjects []*EndpointSlice
	// spareFresh are the emptied fresh lists of Services whose writes were all applied
	// (dropTakenFresh), for the next Sync of any of them (at most spareObjectsMax, each
	// of at most spareFreshMaxCap items).
	spareFresh [][]freshItem

	kept          []*Endpoint      // syncPortMap's endpoints a touched slice keeps
	built         []Endpoint       // syncPortMap's desired endpoints of a touched slice
	touched       []endpointHash   // Applied's touched identities
	dirty         []endpointHash   // syncFamily's copy of a dirty set
	touchedSlices []*storedSlice   // syncFamily's touched slices
	pending       []*podEntry      // syncFamily's pods of pending endpoints
	oldKeys       []PortMapKey     // syncFamily's port maps that no pod has any more
	pairs         []endpointPair   // alignUpdate's answer, per endpoint of the update
	oldPaired     []bool           // alignUpdate's old endpoints that it paired
	order         []*EndpointSlice // syncPortMap's fill order
	plans         []SlicePlan      // the last Sync's result, reused by the next Sync

	closeHints closeHints // the hints trafficDistribution sets, shared
	// zoned is hintsTopology's view of the unchanged slices, its maps cleared for each
	// use: a sync of a Service with topology hints made three maps and the view.
	zoned zonedUnchanged
	zones *zoneSummary // setZones' spare summary

	// options is the last options sharedOptions handed out.
	options *ReconcilerOptions

	// freshArrayAt and freshObjectAt are where the last search of a fresh list found its
	// item (freshArray, freshObject): the next one starts there.
	freshArrayAt, freshObjectAt int
}

// sharedOptions returns a copy of opts (whose Buffers are b) that ServiceSlices may keep: the
// last one made, while the options are the same. The Services of a controller pass it the
// same options, which each kept a copy of (32 bytes a Service).
func (b *SyncBuffers) sharedOptions(opts ReconcilerOptions) *ReconcilerOptions {
	if b.options == nil || *b.options != opts {
		b.options = &opts
	}
	return b.options
}

// podPorts returns pod's resolved ports and their key. When every Service port resolves for
// pod as it did for the last list, that list is the answer (the same ports, the same
// order): no list is built and no key encoded, which is the common case.
func (s *ServiceSlices) podPorts(pod *Pod) ([]EndpointPort, PortMapKey) {
	if s.lastPorts != nil && len(s.lastResolved) == len(s.svc.Ports) && s.resolvesAsLast(pod) {
		return s.lastPorts, s.lastPortsKey
	}
	ports := s.internPorts(endpointPorts(s.svc, pod))
	s.lastResolved = s.lastResolved[:0]
	for i := range s.svc.Ports {
		num, ok := FindPort(pod, &s.svc.Ports[i])
		s.lastResolved = append(s.lastResolved, resolvedPort(num, ok))
	}
	return ports, s.lastPortsKey
}

func (s *ServiceSlices) resolvesAsLast(pod *Pod) bool {
	for i := range s.svc.Ports {
		if num, ok := FindPort(pod, &s.svc.Ports[i]); resolvedPort(num, ok) != s.lastResolved[i] {
			return false
		}
	}
	return true
}

func resolvedPort(num int32, ok bool) int64 {
	if !ok {
		return -1
	}
	return int64(num)
}

// internPorts returns the shared list for ports when it has the last list's key (port lists
// are never modified once resolved), else remembers ports as the last list. Either way
// s.lastPortsKey is the key of the returned list.
func (s *ServiceSlices) internPorts(ports []EndpointPort) []EndpointPort {
	k := NewPortMapKey(ports)
	if s.lastPorts != nil && k == s.lastPortsKey {
		return s.lastPorts
	}
	s.lastPorts, s.lastPortsKey = ports, k
	return ports
}

// podEntry is the reconciler's record of one pod: 48 bytes, a size class it fills (the
// key as keyPods' number of it and the flags in a byte make it so; it was 64).
type podEntry struct {
	pod *Pod

	// seen is the pod as of the last recomputePod. It is also a cache key: the resolved port
	// map's key is valid while flagPortsValid is set, for the container port lists of seen,
	// and the endpoints' identities for seen's IP list and identity. Pods are immutable once
	// passed, so an update that shares seen's lists has not changed them.
	seen *Pod

	// The pod's desired endpoint of family i (familyIndex), when has[i]: its identity and
	// protobuf base size, here for the Service's inline family and in ServiceSlices.second
	// for the other (see podIdentityOf): a dual-stack Service is rare, and the other family
	// made every pod entry 16 bytes larger. The endpoint itself is built again when it is
	// read (see desiredEndpoint), from seen and node, which it was built from: a desired
	// endpoint kept per pod cost 112 bytes, and most pods are clean, their endpoint only
	// read again when something changes it.
	id     endpointHash
	node   *Node // seen's node when the endpoints were built (nil: not found)
	pbBase int32

	at  int32 // position in ServiceSlices.pods; once deleted, in dirtyPods (dropEntry)
	key keyID // of the pod's resolved ports, in keyPods

	has   [2]bool
	flags entryFlags
}

// entryFlags are a pod entry's flags.
type entryFlags uint8

const (
	flagDeleted     entryFlags = 1 << iota // the pod is gone; the next sync drops it
	flagDirty                              // in ServiceSlices.dirtyPods
	flagIn                                 // counted in keyPods: it passes the filter
	flagNodeMissing                        // skipped for a missing node (slicesRare.missing)
	flagPortsValid                         // key is of seen's container ports
	flagOneIPv4                            // seen has one IP, IPv4 and canonical (seenAddresses)
)

// is reports whether every flag of f is set.
func (pe *podEntry) is(f entryFlags) bool { return pe.flags&f == f }

// set sets the flags of f, or clears them when on is false.
func (pe *podEntry) set(f entryFlags, on bool) {
	if on {
		pe.flags |= f
	} else {
		pe.flags &^= f
	}
}

// sameSlice reports whether a and b are the same slice: same length and backing array. Pods
// are immutable once passed, so an updated pod that still shares a list has not changed it.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// podIdentity is the identity and protobuf base size of a pod's desired endpoint of one
// family.
type podIdentity struct {
	id     endpointHash
	pbBase int32
}

// podIdentityOf returns pe's desired endpoint identity and base size of family i (pe.has[i]).
func (s *ServiceSlices) podIdentityOf(pe *podEntry, i int) podIdentity {
	if i == int(s.inline) {
		return podIdentity{pe.id, pe.pbBase}
	}
	return s.secondIdentities()[pe]
}

// setPodIdentity sets pe's desired endpoint identity and base size of family i.
func (s *ServiceSlices) setPodIdentity(pe *podEntry, i int, v podIdentity) {
	if i == int(s.inline) {
		pe.id, pe.pbBase = v.id, v.pbBase
		return
	}
	put(&s.rareFields().second, pe, v)
}

// serviceTypes is a Service's address types (addressTypesForService) as a set, in
// familyTypes order.
type serviceTypes uint8

// addressTypeSlices are the lists of address types by serviceTypes.
var addressTypeSlices = [4][]AddressType{nil, {AddressTypeIPv4}, {AddressTypeIPv6}, {AddressTypeIPv4, AddressTypeIPv6}}

// typesOf returns svc's address types as a set.
func typesOf(svc *Service) serviceTypes {
	var t serviceTypes
	for _, at := range addressTypesForService(svc) {
		t |= 1 << familyIndex(at)
	}
	return t
}

// list returns the address types, in familyTypes order (shared: not to be modified).
func (t serviceTypes) list() []AddressType { return addressTypeSlices[t] }

// desiredEndpoint returns pe's desired endpoint of family i (pe.has[i]), built as
// buildPodEndpoints built it: from the same pod, node and Service fields (a Service change
// that matters rebuilds every pod's endpoints first), so with the same values, identity and
// size.
func (s *ServiceSlices) desiredEndpoint(pe *podEntry, i int) Endpoint {
	var ep Endpoint
	fillEndpoint(&ep, pe.seen, pe.node, s.svc, seenAddresses(pe, i))
	v := s.podIdentityOf(pe, i)
	ep.identity, ep.hasIdentity, ep.pbBase = v.id, true, v.pbBase
	return ep
}

// seenAddresses is endpointAddresses(pe.seen, familyTypes[i]), without parsing the address
// again for the usual pod, whose one IP is IPv4 in canonical form (flagOneIPv4): it was
// parsed at every endpoint built, 1.5% of many-services' instructions.
func seenAddresses(pe *podEntry, i int) []string {
	if !pe.is(flagOneIPv4) {
		return endpointAddresses(pe.seen, familyTypes[i])
	}
	if familyTypes[i] != AddressTypeIPv4 {
		return nil
	}
	return pe.seen.IPs[:1:1]
}

// desiredEqualBeyondHash is EndpointsEqualBeyondHash(&d, b) for pe's desired endpoint d (of
// either family: the fields compared are the same), read from what fillEndpoint builds d
// from, without building it: every sync and write asks it of each changed identity.
// TestDesiredEqualBeyondHash holds it to the comparison of the built endpoint.
func (s *ServiceSlices) desiredEqualBeyondHash(pe *podEntry, b *Endpoint) bool {
	pod, node := pe.seen, pe.node
	serving, terminating := pod.Ready, pod.Terminating
	ready := s.svc.PublishNotReadyAddresses || (serving && !terminating)
	if b.Conditions != (EndpointConditions{Ready: ConditionOf(ready), Serving: ConditionOf(serving), Terminating: ConditionOf(terminating)}) {
		return false
	}
	// fillEndpoint sets nodeName to the pod's when it has one, zone to the node's when it
	// has one, and targetRef to a Pod reference of the pod.
	if !strPtrIs(b.NodeName, pod.NodeName) {
		return false
	}
	zone := ""
	if node != nil {
		zone = node.Zone
	}
	if !strPtrIs(b.Zone, zone) {
		return false
	}
	r := b.TargetRef
	return r != nil && (r == &pod.ObjectReference && r.Kind == "Pod" ||
		*r == ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID})
}

// strPtrIs reports whether p is what an optional field set from v holds: nil for "", else a
// pointer to v's value.
func strPtrIs(p *string, v string) bool {
	if v == "" {
		return p == nil
	}
	return p != nil && *p == v
}

// family is the state of one address type.
type family struct {
	at AddressType
	// ids holds, by identity, the pod whose desired endpoint it is and where it is stored:
	// one table for both (two tables took 40 bytes of slots an identity, this one 24).
	ids     identityMap[identityState]
	byID    []*storedSlice         // the stored slices by id − 1 (nil: a free id)
	freeIDs []uint32               // ids of removed slices, to reuse
	extra   map[endpointHash]int32 // identities stored more than once: the places beyond the first
	dirty   hashSet
	groups  smallMap[PortMapKey, *sliceGroup]
	// hints holds what the Service's hints mode keeps (nil until it keeps anything): most
	// Services have no hints, and keeping it apart makes a family 192 bytes, not 208.
	hints *familyHints
}

// familyHints is what a family's hints mode keeps.
type familyHints struct {
	// flagged are the slices the Service's hints mode would rewrite (flagForHints): those
	// with any hint (stripped, or mode C), or those PreferClose or PreferSameNode would
	// change. A mode is the Service's until its next change, which rebuilds the families,
	// so one map serves them all (three took 16 bytes more).
	flagged map[string]*storedSlice
	// Totals of the stored slices' zone-hint summaries (with ServiceSlices.zoned).
	zoneReady   int32          // ready endpoints
	zoneLacking int32          // slices with a ready endpoint without zone hints
	zoneHints   map[string]int // zone hints per zone, only positive counts
}

// hintsFields returns f.hints, made now if need be.
func (f *family) hintsFields() *familyHints {
	if f.hints == nil {
		f.hints = new(familyHints)
	}
	return f.hints
}

// flagged returns familyHints.flagged (nil while there is none).
func (f *family) flagged() map[string]*storedSlice {
	if f.hints == nil {
		return nil
	}
	return f.hints.flagged
}

// unflag forgets that the slice of that name is flagged.
func (f *family) unflag(name string) {
	if f.hints != nil {
		delete(f.hints.flagged, name)
	}
}

// storedLoc is where an endpoint identity is stored: the stored slice, by its id in the
// family (0: stored nowhere), and the endpoint's position in it.
type storedLoc struct {
	id  uint32
	pos uint32
}

// entryRef names a pod entry of the Service in an identity's state: 0 none, 1 + its
// position in ServiceSlices.pods for a kept pod (liveRef), or goneRefBase + its position in
// ServiceSlices.dirtyPods for a pod deleted since the last sync (goneRef), which that sync
// drops. A reference is 24 bits, where a pointer took 64 (see identityState).
type entryRef uint32

// goneRefBase is the first reference to a deleted pod: a Service keeps fewer than 2²³ pods.
const goneRefBase entryRef = 1 << (identityRefBits - 1)

// liveRef returns the reference to the kept pod at position at of ServiceSlices.pods.
func liveRef(at int32) entryRef {
	if entryRef(at)+1 >= goneRefBase {
		panic("model: a Service keeps more than 8,388,606 pods")
	}
	return entryRef(at) + 1
}

// goneRef returns the reference to the deleted pod at position i of ServiceSlices.dirtyPods.
func goneRef(i int) entryRef {
	if i > identityRefMax-int(goneRefBase) {
		panic("model: a Service has more than 8,388,608 pod changes between two syncs")
	}
	return goneRefBase + entryRef(i)
}

// entryOf returns the pod entry r names (nil for none).
func (s *ServiceSlices) entryOf(r entryRef) *podEntry {
	switch {
	case r == 0:
		return nil
	case r < goneRefBase:
		return s.pods[r-1]
	}
	return s.dirtyPods[r-goneRefBase]
}

// identityState is what a family knows of one endpoint identity: the pod whose desired
// endpoint it is (none: 0) and where it is stored, packed in 64 bits: the entryRef in the
// low 24, the stored slice's id in the next 24, the position in it in the top 16. A pointer
// and a storedLoc made a table slot 24 bytes; packed, it is 16, and the tables of
// many-services' Services held 4.7 MB at its peak. A family's slices (fewer than 2²⁴) and a
// slice's endpoints (the API server takes at most 1,000) fit. An identity neither desired
// nor stored has no entry. An identity stored more than once (an anomaly the next sync
// resolves) is found at its first place; family.extra counts its other places.
type identityState uint64

const (
	identityRefBits = 24
	identityIDBits  = 24
	identityRefMax  = 1<<identityRefBits - 1
	identityIDMax   = 1<<identityIDBits - 1
	identityPosMax  = 1<<(64-identityRefBits-identityIDBits) - 1
)

// ref returns the pod whose desired endpoint the identity is (0: none).
func (st identityState) ref() entryRef { return entryRef(st & identityRefMax) }

// loc returns where the identity is stored (id 0: nowhere).
func (st identityState) loc() storedLoc {
	return storedLoc{id: uint32(st>>identityRefBits) & identityIDMax, pos: uint32(st >> (identityRefBits + identityIDBits))}
}

// setRef sets the pod whose desired endpoint the identity is.
func (st *identityState) setRef(r entryRef) { *st = *st&^identityRefMax | identityState(r) }

// setLoc sets where the identity is stored.
func (st *identityState) setLoc(l storedLoc) {
	if l.id > identityIDMax || l.pos > identityPosMax {
		panic("model: a family holds more than 16,777,215 slices, or a slice more than 65,535 endpoints")
	}
	*st = *st&identityRefMax | identityState(l.id)<<identityRefBits | identityState(l.pos)<<(identityRefBits+identityIDBits)
}

// desiredRef returns the pod whose desired endpoint h is (0: none).
func (f *family) desiredRef(h endpointHash) entryRef {
	if st := f.ids.ref(h); st != nil {
		return st.ref()
	}
	return 0
}

// setDesired records that h is the desired endpoint of the pod r names.
func (f *family) setDesired(h endpointHash, r entryRef) {
	st, _ := f.ids.slot(h)
	st.setRef(r)
}

// repoint makes h's state name its pod as to, if it names it as from (the pod moved).
func (f *family) repoint(h endpointHash, from, to entryRef) {
	if st := f.ids.ref(h); st != nil && st.ref() == from {
		st.setRef(to)
	}
}

// dropDesired records that h is no pod's desired endpoint.
func (f *family) dropDesired(h endpointHash) {
	if st := f.ids.ref(h); st != nil {
		st.setRef(0)
		if st.loc().id == 0 {
			f.ids.delete(h)
		}
	}
}

// storedAt returns the stored slice holding h (nil: none) and h's position in it.
func (f *family) storedAt(h endpointHash) (*storedSlice, int) {
	if st := f.ids.ref(h); st != nil {
		return f.place(st.loc())
	}
	return nil, 0
}

// place returns the stored slice loc names (nil: none) and the position in it.
func (f *family) place(loc storedLoc) (*storedSlice, int) {
	if loc.id == 0 {
		return nil, 0
	}
	return f.byID[loc.id-1], int(loc.pos)
}

// occurrences returns how many times h is stored, knowing that it is stored.
func (f *family) occurrences(h endpointHash) int {
	return 1 + int(f.extra[h])
}

// store records that stored slice ss holds h at pos, and returns how many times h is
// stored now.
func (f *family) store(h endpointHash, ss *storedSlice, pos int) int {
	st, _ := f.ids.slot(h)
	if st.loc().id == 0 {
		st.setLoc(storedLoc{id: ss.id, pos: uint32(pos)})
		return 1
	}
	if f.extra == nil {
		f.extra = map[endpointHash]int32{}
	}
	f.extra[h]++
	return 1 + int(f.extra[h])
}

// unstoreOne records that one place holding h no longer does, and returns how many times h
// was stored before (0: not at all). The place dropped is an unnamed one: with h stored more
// than once, which place the table keeps is only right again after reindex.
func (f *family) unstoreOne(h endpointHash) int {
	st := f.ids.ref(h)
	if st == nil || st.loc().id == 0 {
		return 0
	}
	if n := f.extra[h]; n > 0 {
		if n == 1 {
			delete(f.extra, h)
		} else {
			f.extra[h] = n - 1
		}
		return 1 + int(n)
	}
	f.unstoreAll(h, st)
	return 1
}

// unstoreAll records that h, whose entry is st, is stored nowhere.
func (f *family) unstoreAll(h endpointHash, st *identityState) {
	st.setLoc(storedLoc{})
	if st.ref() == 0 {
		f.ids.delete(h)
	}
}

// moved records that stored slice ss holds h at pos now, if the table has h in ss.
func (f *family) moved(h endpointHash, ss *storedSlice, pos int) {
	if st := f.ids.ref(h); st != nil && st.loc().id == ss.id {
		st.setLoc(storedLoc{id: ss.id, pos: uint32(pos)})
	}
}

// addSlice gives ss an id in the family.
func (f *family) addSlice(ss *storedSlice) {
	if n := len(f.freeIDs); n > 0 {
		ss.id, f.freeIDs = f.freeIDs[n-1], f.freeIDs[:n-1]
		f.byID[ss.id-1] = ss
		return
	}
	f.byID = append(f.byID, ss)
	ss.id = uint32(len(f.byID))
}

// sliceCount returns the number of stored slices in the family.
func (f *family) sliceCount() int { return len(f.byID) - len(f.freeIDs) }

// removeSlice frees ss's id, which the table no longer names.
func (f *family) removeSlice(ss *storedSlice) {
	f.byID[ss.id-1] = nil
	f.freeIDs = append(f.freeIDs, ss.id)
	ss.id = 0
}

// dropAll forgets the desired endpoints (desired) or the places stored (!desired) of every
// identity, keeping the other half (and the slices' ids), and returns the identities whose
// half it dropped.
func (f *family) dropAll(desired bool) []endpointHash {
	var keys []endpointHash
	for h, st := range f.ids.all() {
		if desired && st.ref() != 0 || !desired && st.loc().id != 0 {
			keys = append(keys, h)
		}
	}
	for _, h := range keys {
		if desired {
			f.dropDesired(h)
		} else {
			f.unstoreAll(h, f.ids.ref(h))
		}
	}
	if !desired {
		f.extra = nil
	}
	return keys
}

// sliceGroup is the stored slices of one port map. Most groups hold a slice or two: they
// are a list, searched in place; a group of more than sliceGroupIndexMin slices also indexes
// them by endpoint count (for bestFitFast), which two maps per group cost every small
// Service before.
type sliceGroup struct {
	key     PortMapKey
	members []*storedSlice // in no particular order; storedSlice.inGroup is the position
	// bySize holds the slices by endpoint count, each list by name (nil while the group is
	// small).
	bySize map[int]nameList
}

// sliceGroupIndexMin is the most slices a group holds without its size index.
const sliceGroupIndexMin = 8

func (g *sliceGroup) add(ss *storedSlice) {
	ss.inGroup = int32(len(g.members))
	g.members = append(g.members, ss)
	switch {
	case g.bySize != nil:
		g.insertSize(ss)
	case len(g.members) > sliceGroupIndexMin:
		g.bySize = map[int]nameList{}
		for _, m := range g.members {
			g.insertSize(m)
		}
	}
}

// remove drops ss, whose endpoint count is still the one it was indexed under.
func (g *sliceGroup) remove(ss *storedSlice) {
	last := len(g.members) - 1
	if i := int(ss.inGroup); i != last {
		moved := g.members[last]
		g.members[i], moved.inGroup = moved, int32(i)
	}
	g.members[last] = nil
	g.members = g.members[:last]
	if g.bySize != nil {
		g.removeSize(ss, len(ss.s.Endpoints))
	}
}

// resized moves ss, indexed under oldSize endpoints, to its count now.
func (g *sliceGroup) resized(ss *storedSlice, oldSize int) {
	if g.bySize != nil && oldSize != len(ss.s.Endpoints) {
		g.removeSize(ss, oldSize)
		g.insertSize(ss)
	}
}

type storedSlice struct {
	s       *EndpointSlice
	fam     *family
	group   *sliceGroup
	anomaly bool
	// owned: s.Endpoints is an array syncPortMap allocated that nothing else refers to;
	// ownsObject: so is s itself.
	owned, ownsObject bool
	// inGroup is the slice's position in group.members.
	inGroup int32
	// changedIn is the syncPortMap pass (ServiceSlices.pass) that last changed the slice.
	changedIn uint32
	// id is the slice's id in its family (family.byID).
	id uint32
	// hashes are the identities of s's endpoints when one of them does not carry its own
	// (an endpoint the reconciler did not build: a replay's stored slices, a test's); nil
	// otherwise, as for every slice the reconciler wrote: see hash.
	hashes []endpointHash
	// dirtyPos are the positions whose identity is dirty, during one syncFamily.
	dirtyPos []int32
	zones    *zoneSummary // with ServiceSlices.zoned
}

// hash returns the identity of the slice's i-th endpoint: the one it carries (every
// endpoint the reconciler builds does), else hashes[i]. Keeping hashes for every stored slice
// took 8 bytes an endpoint, and up to twice that for a slice that grows.
func (ss *storedSlice) hash(i int) endpointHash {
	if e := &ss.s.Endpoints[i]; e.hasIdentity {
		return e.identity
	}
	return ss.hashes[i]
}

// carryIdentities reports whether every endpoint of eps carries its identity.
func carryIdentities(eps []Endpoint) bool {
	for i := range eps {
		if !eps[i].hasIdentity {
			return false
		}
	}
	return true
}

// zoneSummary is what the mode A hints pass needs of one stored slice (see hintsByZone).
type zoneSummary struct {
	ready   int         // ready endpoints
	lacking bool        // some ready endpoint has no zone hint
	hints   []zoneCount // zone hints of ready endpoints per zone, by zone name
}

type zoneCount struct {
	zone string
	n    int
}

// summarizeZones reads a slice's ready endpoints' zone hints into z, reset first (its
// hints list reused). The endpoints are counted by hint object first: hints are shared,
// one per zone (TopologyCache.hintFor), so a few pointer comparisons an endpoint find its
// count, where a search of the zones by name took a tenth of the instructions of 10,000
// Services with topology hints. The counts go to the zones by name at the end.
func summarizeZones(z *zoneSummary, sl *EndpointSlice) {
	*z = zoneSummary{hints: z.hints[:0]}
	var byHint [8]struct {
		hints *EndpointHints
		n     int
	}
	seen := 0
	for i := range sl.Endpoints {
		ep := &sl.Endpoints[i]
		if !endpointReady(ep) {
			continue
		}
		z.ready++
		if ep.Hints == nil || len(ep.Hints.ForZones) == 0 {
			z.lacking = true
			continue
		}
		j := 0
		for j < seen && byHint[j].hints != ep.Hints {
			j++
		}
		if j == len(byHint) {
			z.addHints(ep.Hints.ForZones, 1) // more distinct hint objects than kept
			continue
		}
		if j == seen {
			byHint[j].hints = ep.Hints
			seen++
		}
		byHint[j].n++
	}
	for _, h := range byHint[:seen] {
		z.addHints(h.hints.ForZones, h.n)
	}
}

// addHints counts n endpoints hinted for each of zones.
func (z *zoneSummary) addHints(zones []string, n int) {
	for _, zone := range zones {
		j, found := slices.BinarySearchFunc(z.hints, zone, func(c zoneCount, zone string) int { return strings.Compare(c.zone, zone) })
		if !found {
			z.hints = slices.Insert(z.hints, j, zoneCount{zone: zone})
		}
		z.hints[j].n += n
	}
}

// addZones adds (sign 1) or removes (sign -1) a slice's zone summary to a family's totals.
func (f *family) addZones(z *zoneSummary, sign int) {
	h := f.hintsFields()
	h.zoneReady += int32(sign * z.ready)
	if z.lacking {
		h.zoneLacking += int32(sign)
	}
	for _, c := range z.hints {
		h.addZoneHints(c.zone, sign*c.n)
	}
}

// addZoneHints adds d to the count of zone hints of zone, keeping only positive counts.
func (h *familyHints) addZoneHints(zone string, d int) {
	if n := h.zoneHints[zone] + d; n == 0 {
		delete(h.zoneHints, zone)
	} else {
		put(&h.zoneHints, zone, n)
	}
}

// setZones replaces ss's zone summary by that of its current slice. The new summary is
// made in the sync buffers' spare one, the family's totals move by the difference (a write
// changes a zone's count or two, where taking out the old summary and adding the new one
// updated every zone's: 2% of many-services with hints on every Service), and the old
// summary becomes the spare: nothing else holds it.
func (s *ServiceSlices) setZones(ss *storedSlice) {
	old := ss.zones
	if !s.zoned {
		if old != nil {
			ss.fam.addZones(old, -1)
			ss.zones = nil
		}
		return
	}
	b := s.opts.Buffers
	next := b.zones
	if next == nil {
		next = new(zoneSummary)
	}
	summarizeZones(next, ss.s)
	if old == nil {
		ss.fam.addZones(next, 1)
	} else {
		ss.fam.moveZones(old, next)
	}
	ss.zones, b.zones = next, old
}

// moveZones changes a family's totals from a slice's zone summary old to next.
func (f *family) moveZones(old, next *zoneSummary) {
	h := f.hintsFields()
	h.zoneReady += int32(next.ready - old.ready)
	if old.lacking != next.lacking {
		if next.lacking {
			h.zoneLacking++
		} else {
			h.zoneLacking--
		}
	}
	// Both lists are sorted by zone: walk them together.
	i, j := 0, 0
	for i < len(old.hints) || j < len(next.hints) {
		var zone string
		var d int
		switch {
		case j == len(next.hints) || i < len(old.hints) && old.hints[i].zone < next.hints[j].zone:
			zone, d = old.hints[i].zone, -old.hints[i].n
			i++
		case i == len(old.hints) || next.hints[j].zone < old.hints[i].zone:
			zone, d = next.hints[j].zone, next.hints[j].n
			j++
		default:
			zone, d = next.hints[j].zone, next.hints[j].n-old.hints[i].n
			i++
			j++
		}
		if d != 0 {
			h.addZoneHints(zone, d)
		}
	}
}

// familyTypes is the address type of each family index.
var familyTypes = [2]AddressType{AddressTypeIPv4, AddressTypeIPv6}

func familyIndex(at AddressType) int {
	if at == AddressTypeIPv6 {
		return 1
	}
	return 0
}

// NewServiceSlices returns the incremental reconciler of svc, with no pods and no slices.
func NewServiceSlices(svc *Service, nodes NodeGetter, opts ReconcilerOptions) *ServiceSlices {
	if opts.Buffers == nil {
		opts.Buffers = new(SyncBuffers) // the scratch of Sync and Applied
	}
	s := &ServiceSlices{nodes: nodes, opts: opts.Buffers.sharedOptions(opts)}
	s.setServiceFields(svc)
	s.resetDesired()
	s.resetStored(nil)
	return s
}

func (s *ServiceSlices) setServiceFields(svc *Service) {
	s.svc = svc
	// A pod's list follows the Service's port order: a list resolved under an older Service
	// may have the same key in another order.
	s.lastPorts, s.lastPortsKey, s.lastResolved = nil, "", s.lastResolved[:0]
	s.meta = &sliceMeta{labels: SliceLabels(svc), owners: [1]OwnerReference{controllerRef(svc)}}
	s.meta.labelsChanged = labelsChanged(s.meta.labels, svc)
	s.types = typesOf(svc)
	s.mode = hintsModeFor(svc, s.opts)
}

// sliceMeta is the metadata a Service's slices share, made for each Service version: their
// labels, SliceLabels(svc), and their ownerReferences, the controller reference to svc.
// Nothing writes through it. (One pointer to both keeps a ServiceSlices in its 320-byte size
// class.)
type sliceMeta struct {
	labels StringMap
	owners [1]OwnerReference
	// labelsChanged is labelsChanged(labels, svc), which every write of the reconciler's
	// own asks of the labels it carries (sliceLabelsChanged).
	labelsChanged bool
}

// sliceLabelsChanged is labelsChanged(labels, s.svc). Labels that are the Service's slices'
// own list (s.meta.labels, which the reconciler's writes carry) are answered without reading
// the Service's labels, a map walked at every write otherwise.
func (s *ServiceSlices) sliceLabelsChanged(labels StringMap) bool {
	if own := s.meta.labels; len(labels) == len(own) && len(own) > 0 && &labels[0] == &own[0] {
		return s.meta.labelsChanged
	}
	return labelsChanged(labels, s.svc)
}

// newFamily returns an empty family; its maps are allocated on first write (put).
func newFamily(at AddressType) *family { return &family{at: at} }

// family returns the family of index i (familyIndex), made now if need be.
func (s *ServiceSlices) family(i int) *family {
	if s.families[i] == nil {
		s.families[i] = newFamily(familyTypes[i])
	}
	return s.families[i]
}

// emptied returns list emptied for reuse: its elements cleared, so that it keeps nothing
// alive, or nil when it is too big to keep for the small syncs that follow a big batch.
func emptied[T any](list []T) []T {
	if cap(list) > 256 {
		return nil
	}
	zeroing.Clear(list[:cap(list)]) // finalize may have shortened it past pointers
	return list[:0]
}

// put is m[k] = v for a map that may not be allocated yet.
func put[K comparable, V any](m *map[K]V, k K, v V) {
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
}

// SetService records a new version of the Service. Changes that matter to slices make the
// next Sync rebuild the indexes first (Sync then proceeds incrementally).
func (s *ServiceSlices) SetService(svc *Service) {
	old := s.svc
	relevant := old.Namespace != svc.Namespace || old.Name != svc.Name || old.UID != svc.UID ||
		!maps.Equal(old.Labels, svc.Labels) || old.ClusterIP != svc.ClusterIP ||
		!slices.Equal(old.IPFamilies, svc.IPFamilies) || !servicePortsEqual(old.Ports, svc.Ports) ||
		old.PublishNotReadyAddresses != svc.PublishNotReadyAddresses ||
		old.TrafficDistribution != svc.TrafficDistribution ||
		hintsAnnotationEnabled(old.Annotations) != hintsAnnotationEnabled(svc.Annotations)
	s.setServiceFields(svc)
	if relevant {
		s.full = true
	}
}

func servicePortsEqual(a, b []ServicePort) bool {
	return slices.EqualFunc(a, b, func(x, y ServicePort) bool {
		return x.Name == y.Name && x.Protocol == y.Protocol && x.Port == y.Port && x.TargetPort == y.TargetPort &&
			!strPtrChanged(x.AppProtocol, y.AppProtocol)
	})
}

// SetPod records a new or changed pod (selector-matched, in the Service's namespace). The
// caller must not modify p after passing it, nor its PodIdentity, which endpoints point
// into; a change is a new Pod.
func (s *ServiceSlices) SetPod(p *Pod) { s.setPod(p) }

func (s *ServiceSlices) setPod(p *Pod) *podEntry {
	pe := s.index()[s.podKey(p.Namespace, p.Name)]
	if pe == nil {
		return s.addPod(p)
	}
	pe.pod = p
	s.markDirty(pe)
	return pe
}

// Pods returns the number of pods s keeps.
func (s *ServiceSlices) Pods() int { return len(s.pods) }

// addPod keeps a pod that s does not have.
func (s *ServiceSlices) addPod(p *Pod) *podEntry {
	pe := &podEntry{pod: p, at: int32(len(s.pods))}
	s.pods = append(s.pods, pe)
	if byName := s.names(); byName != nil {
		byName[s.podKey(p.Namespace, p.Name)] = pe
	}
	s.markDirty(pe)
	return pe
}

// index returns the pods by podKey, made now if need be.
func (s *ServiceSlices) index() map[string]*podEntry {
	r := s.rareFields()
	if r.byName == nil {
		r.byName = make(map[string]*podEntry, len(s.pods))
		for _, pe := range s.pods {
			r.byName[s.podKey(pe.pod.Namespace, pe.pod.Name)] = pe
		}
	}
	return r.byName
}

// PodRef remembers where a ServiceSlices keeps a pod. A caller that tracks its pods keeps
// one per pod and Service and passes it with the pod's changes (SetPodRef, DeletePodRef),
// which then need no lookup by name: with a Service of 100,000 pods, that lookup is a
// cache miss on every change, and the index by name costs memory for every pod.
//
// The zero PodRef is empty, and an empty ref says the pod is new: SetPodRef adds it
// without looking for it by name. So a caller that passes refs passes every change of a
// pod with its ref, from the SetPodRef that adds the pod to the DeletePodRef that removes
// it. A ref that is not empty but does not apply (another ServiceSlices', another pod's, a
// deleted pod's) falls back to the lookup by name, exactly as SetPod and DeletePod do; once
// a ServiceSlices has looked a pod up by name it keeps an index by name, and from then on
// every ref, empty or not, is only a shortcut.
//
// A ref is the entry alone: an entry is its ServiceSlices' when it is in that one's list at
// its position (an owner pointer would cost every pod 8 bytes in each of its refs).
type PodRef struct {
	pe *podEntry
}

// entry returns the pod entry ref names for a pod of that namespace and name, or nil when
// the ref does not apply (the caller then looks the pod up by name).
func (s *ServiceSlices) entry(ref *PodRef, namespace, name string) *podEntry {
	if pe := ref.pe; pe != nil && !pe.is(flagDeleted) && int(pe.at) < len(s.pods) && s.pods[pe.at] == pe &&
		pe.pod.Name == name && pe.pod.Namespace == namespace {
		return pe
	}
	return nil
}

// SetPodRef is SetPod that uses and updates ref.
func (s *ServiceSlices) SetPodRef(ref *PodRef, p *Pod) {
	if pe := s.entry(ref, p.Namespace, p.Name); pe != nil {
		pe.pod = p
		s.markDirty(pe)
		return
	}
	if ref.pe == nil && s.names() == nil {
		*ref = PodRef{pe: s.addPod(p)} // an empty ref: a new pod
		return
	}
	*ref = PodRef{pe: s.setPod(p)}
}

// DeletePodRef is DeletePod for the pod of ref, last set with that namespace and name.
func (s *ServiceSlices) DeletePodRef(ref *PodRef, namespace, name string) {
	pe := s.entry(ref, namespace, name)
	*ref = PodRef{}
	if pe == nil {
		s.DeletePod(namespace, name)
		return
	}
	s.dropEntry(pe)
}

// markDirty queues pe for recomputation at the next sync.
func (s *ServiceSlices) markDirty(pe *podEntry) {
	if !pe.is(flagDirty) {
		pe.set(flagDirty, true)
		s.dirtyPods = append(s.dirtyPods, pe)
	}
}

// podKey keys a pod by name; the namespace is added only for a pod outside the Service's
// (which the controller never passes), so the common case builds no string.
func (s *ServiceSlices) podKey(namespace, name string) string {
	if namespace == s.svc.Namespace {
		return name
	}
	return namespace + "/" + name
}

// DeletePod records that a pod is gone (or no longer matches the selector).
func (s *ServiceSlices) DeletePod(namespace, name string) {
	if pe := s.index()[s.podKey(namespace, name)]; pe != nil {
		s.dropEntry(pe)
	}
}

// dropEntry removes the pod kept in pe; the next Sync drops its endpoints. Until then the
// identity states name pe by its place in dirtyPods, where it is added even when it is there
// already (its first place recomputes it, as if it were there once; the second finds nothing
// left to do), and the pod moved into its place in pods by that place.
func (s *ServiceSlices) dropEntry(pe *podEntry) {
	at, last := pe.at, int32(len(s.pods)-1)
	gone := len(s.dirtyPods)
	s.repoint(pe, liveRef(at), goneRef(gone))
	moved := s.pods[last]
	if moved != pe {
		s.repoint(moved, liveRef(last), liveRef(at))
	}
	s.pods[at], moved.at = moved, at
	s.pods[last] = nil
	s.pods = s.pods[:last]
	if byName := s.names(); byName != nil {
		delete(byName, s.podKey(pe.pod.Namespace, pe.pod.Name))
	}
	pe.set(flagDeleted|flagDirty, true)
	s.dirtyPods = append(s.dirtyPods, pe)
	pe.at = int32(gone)
}

// repoint records that the identity states naming pe as from name it as to.
func (s *ServiceSlices) repoint(pe *podEntry, from, to entryRef) {
	for i, has := range pe.has {
		if has {
			s.families[i].repoint(s.podIdentityOf(pe, i).id, from, to)
		}
	}
}

// NodeChanged records that a Node was added, removed or relabelled. As upstream, this does not
// call for a sync by itself: the next sync re-reads the node for the pods on it.
func (s *ServiceSlices) NodeChanged(name string) { put(&s.rareFields().dirtyNodes, name, struct{}{}) }

// recomputePod brings the desired state of one pod up to date.
func (s *ServiceSlices) recomputePod(pe *podEntry) {
	prevHas := pe.has
	var prevIDs [2]endpointHash
	for i, has := range prevHas {
		if has {
			prevIDs[i] = s.podIdentityOf(pe, i).id
		}
	}
	pe.has = [2]bool{}
	s.buildPodEndpoints(pe, prevHas, prevIDs)
	if other := 1 - int(s.inline); prevHas[other] && !pe.has[other] {
		delete(s.rare.second, pe) // set for the other family: see setPodIdentity
	}
	// Update the desired index as "drop the old endpoints, add the new ones" would.
	for i := range pe.has {
		if !prevHas[i] && !pe.has[i] {
			continue
		}
		f := s.family(i)
		var id endpointHash
		if pe.has[i] {
			id = s.podIdentityOf(pe, i).id
		}
		if prevHas[i] && (!pe.has[i] || id != prevIDs[i]) {
			f.dropDesired(prevIDs[i])
			f.dirty.add(prevIDs[i])
		}
		if pe.has[i] {
			f.setDesired(id, liveRef(pe.at))
			f.dirty.add(id)
		}
	}
}

// buildPodEndpoints computes pe's desired endpoints (their identities and sizes), keeping an
// identity of the last build (prevHas, prevIDs) when the pod's addresses and identity are
// the same, and keeps the pod counts.
func (s *ServiceSlices) buildPodEndpoints(pe *podEntry, prevHas [2]bool, prevIDs [2]endpointHash) {
	if pe.is(flagIn) {
		s.keyPods.dec(pe.key)
		pe.set(flagIn, false)
	}
	if pe.is(flagNodeMissing) {
		s.rare.missing-- // counted there: see below
		pe.set(flagNodeMissing, false)
	}
	pod := pe.pod
	if pe.is(flagDeleted) || !shouldPodBeInEndpoints(pod) {
		return
	}
	pe.set(flagIn, true)
	seen := pe.seen
	pe.seen = pod
	if seen == nil || !sameSlice(seen.IPs, pod.IPs) {
		pe.set(flagOneIPv4, len(pod.IPs) == 1 && isCanonicalIPv4(pod.IPs[0]))
	}
	// The identity (a hash of the addresses, the hostname and the pod's name) is the last
	// one's while the IP list and the pod's identity are the same.
	sameIdentity := seen != nil && sameSlice(seen.IPs, pod.IPs) && seen.PodIdentity.Equal(pod.PodIdentity)
	if !pe.is(flagPortsValid) || !sameSlice(seen.ContainerPorts, pod.ContainerPorts) || !sameSlice(seen.SidecarPorts, pod.SidecarPorts) {
		ports, k := s.podPorts(pod)
		pe.key = s.keyPods.id(k, ports)
		pe.set(flagPortsValid, true)
	}
	s.keyPods.inc(pe.key)
	node, ok := s.nodes.Node(pod.NodeName)
	if !ok {
		if !s.svc.PublishNotReadyAddresses {
			pe.set(flagNodeMissing, true)
			s.rareFields().missing++
			return
		}
		node = nil
	}
	if sameIdentity && node == pe.node && pod.NodeName == seen.NodeName && (prevHas[0] || prevHas[1]) {
		// The last build's endpoints stand, identities and sizes: the same addresses, pod
		// identity, node and zone (the usual update, a readiness change), under the same
		// Service (a change of what the endpoints read of it rebuilds every pod with none
		// kept: resetDesired).
		pe.has = prevHas
		return
	}
	pe.node = node
	for _, at := range s.types.list() {
		i := familyIndex(at)
		addrs := seenAddresses(pe, i) // pe.seen is pod
		if len(addrs) == 0 {
			continue
		}
		var ep Endpoint
		fillEndpoint(&ep, pod, node, s.svc, addrs)
		id := prevIDs[i]
		if !sameIdentity || !prevHas[i] {
			id = hashEndpoint(&ep)
		}
		s.setPodIdentity(pe, i, podIdentity{id, int32(pbEndpointBase(&ep))})
		pe.has[i] = true
	}
}

// resetDesired recomputes every pod's desired state (after a Service change).
func (s *ServiceSlices) resetDesired() {
	for _, f := range s.families {
		if f != nil {
			for _, h := range f.dropAll(true) {
				f.dirty.add(h)
			}
		}
	}
	s.keyPods.reset()
	// Every identity is dropped: the inline family may change now (podEntry.id).
	if s.rare != nil {
		s.rare.missing = 0
		s.rare.second = nil
	}
	s.inline = 0
	if types := s.types.list(); len(types) > 0 {
		s.inline = uint8(familyIndex(types[0]))
	}
	for _, pe := range s.dirtyPods { // includes deleted pods, whose counts are dropped here
		pe.has = [2]bool{}
		pe.set(flagIn|flagNodeMissing, false)
	}
	for _, pe := range s.pods {
		pe.has = [2]bool{}
		pe.set(flagIn|flagNodeMissing|flagPortsValid, false)
		s.markDirty(pe)
	}
}

// SetStoredSlices replaces the stored state (O(N); for tests and reseeding).
func (s *ServiceSlices) SetStoredSlices(stored []*EndpointSlice) { s.resetStored(stored) }

func (s *ServiceSlices) resetStored(stored []*EndpointSlice) {
	// The families are made again, keeping the desired endpoints.
	var old [2]*family
	for i, f := range s.families {
		if f != nil {
			f.dropAll(false)
			old[i] = f
		}
	}
	s.stored = smallMap[string, *storedSlice]{}
	s.anomalies, s.dupHashes = 0, 0
	s.zoned = s.mode == hintsTopology
	for i, at := range []AddressType{AddressTypeIPv4, AddressTypeIPv6} {
		if old[i] == nil {
			continue // made when first needed
		}
		f := newFamily(at)
		f.ids = old[i].ids
		for h := range f.ids.all() {
			f.dirty.add(h)
		}
		s.families[i] = f
	}
	for _, sl := range stored {
		s.addStored(sl, nil)
	}
	s.shareStored(stored)
}

// wholeBatchMin is the size up to which a batch of all of a Service's pods or identities
// keeps its buffers.
const wholeBatchMin = 4

// shareOwners makes an update c, a copy of a stored slice, hold s's owner references when
// they are equal to the slice's: the updates of a reconciler made again for its stored
// slices kept the old reconciler's sliceMeta alive besides its own (5 MB at 50,000
// Services of 10 pods).
func (s *ServiceSlices) shareOwners(c *EndpointSlice) {
	own := s.meta.owners[:]
	if len(c.OwnerReferences) != 1 || &c.OwnerReferences[0] == &own[0] {
		return
	}
	o, m := &c.OwnerReferences[0], &own[0]
	if o.APIVersion == m.APIVersion && o.Kind == m.Kind && o.Name == m.Name && o.UID == m.UID &&
		boolPtrEqual(o.Controller, m.Controller) && boolPtrEqual(o.BlockOwnerDeletion, m.BlockOwnerDeletion) {
		c.OwnerReferences = own
	}
}

// boolPtrEqual reports whether two optional booleans are both unset or both set and equal.
func boolPtrEqual(a, b *bool) bool { return a == b || a != nil && b != nil && *a == *b }

// shareStored makes s write the labels and the port list of a stored slice where they are
// the ones it would write (lists that are never modified): a reconciler made again for its
// stored slices (the simulator makes a settled Service's again at its next change) held a
// copy of each besides theirs, which the slices it rewrote kept (6 MB at 50,000 Services of
// 10 pods).
func (s *ServiceSlices) shareStored(stored []*EndpointSlice) {
	for _, sl := range stored {
		if len(sl.Labels) > 0 && sl.Labels.Equal(s.meta.labels) {
			s.meta.labels = sl.Labels // meta's fields are copied into slices: none changes
			break
		}
	}
	if s.lastPorts == nil {
		for _, sl := range stored {
			if len(sl.Ports) > 0 {
				s.lastPorts, s.lastPortsKey = sl.Ports, NewPortMapKey(sl.Ports)
				break
			}
		}
	}
}

// Stored returns the stored slices, sorted by name.
func (s *ServiceSlices) Stored() []*EndpointSlice {
	out := make([]*EndpointSlice, 0, s.stored.len())
	for _, ss := range s.stored.all() {
		out = append(out, ss.s)
	}
	slices.SortFunc(out, byName)
	return out
}

// Applied records one successful write: verb is "create", "update" or "delete"; slice is the
// object as the API server now has it (for a create, with the name it assigned).
//
// A slice that a Sync made, once written, is the stored object: the caller may keep it while
// it is stored. When a later write replaces or deletes it, Applied takes it back, its object
// and its endpoint array, for a later Sync to reuse: keep no reference to it past that
// Applied (copy it to keep it), as the API server's store keeps none.
func (s *ServiceSlices) Applied(verb string, slice *EndpointSlice) {
	old := s.stored.at(slice.Name)
	var prev []Endpoint
	var prevObject *EndpointSlice
	prevOwned, prevOwnsObject := false, false
	if old != nil {
		prev, prevOwned = old.s.Endpoints, old.owned
		prevObject, prevOwnsObject = old.s, old.ownsObject
	}
	s.applied(verb, slice, old)
	shared := sameArray(prev, slice.Endpoints)
	if ss := s.stored.at(slice.Name); verb != "delete" && ss != nil {
		ss.owned = s.takeFresh(slice.Endpoints) || (prevOwned && shared)
		ss.ownsObject = s.takeFreshObject(slice) || (prevOwnsObject && prevObject == slice)
	}
	if prevOwned && (verb == "delete" || !shared) {
		// The replaced (or deleted) object is gone from the API server's store: its
		// endpoint array can serve a later rewrite. (A write that keeps the array, a
		// metadata-only update, keeps its endpoints too: nothing is left past the slice.)
		s.recycle(prev)
	}
	if prevOwnsObject && (verb == "delete" || prevObject != slice) {
		s.recycleObject(prevObject)
	}
	s.dropTakenFresh()
}

// dropTakenFresh hands the fresh list to the shared buffers once Applied has taken every
// array and object in it, rather than keep it to the Service's next Sync: most Services
// write once a sync and then wait, and 10,000 of them kept 0.4 MB of lists naming nothing.
// A later Applied of the same sync then bounds the spares it recycles by sparesPerClass
// alone.
func (s *ServiceSlices) dropTakenFresh() {
	if s.fresh == nil || cap(s.fresh) > spareFreshMaxCap {
		// A large Service's list stays: it writes many slices a sync, and would grow a
		// new list again at each.
		return
	}
	// From the last: Applied takes the items about in the order Sync made them, so until
	// the last write is applied the first item looked at is one not taken.
	for i := len(s.fresh) - 1; i >= 0; i-- {
		if f := &s.fresh[i]; f.first != nil || f.object != nil {
			return
		}
	}
	if b := s.opts.Buffers; len(b.spareFresh) < spareObjectsMax {
		b.spareFresh = append(b.spareFresh, s.fresh[:0])
	}
	s.fresh = nil
}

// spareFreshMaxCap is the largest fresh list handed to the shared buffers: one that wrote
// a slice has two items (its array and object). A larger list stays with its Service: it
// would be grown again at the next sync, and would stay with a small Service that took it.
const spareFreshMaxCap = 4

func (s *ServiceSlices) applied(verb string, slice *EndpointSlice, old *storedSlice) {
	touched := s.opts.Buffers.touched[:0]
	defer func() { s.opts.Buffers.touched = touched[:0] }()
	var fam *family
	// An update usually keeps most endpoints, unchanged, in their order: their clean/dirty
	// state cannot change, so only the others are marked and checked again.
	if old != nil && verb != "delete" && s.updatesInPlace(old, slice) {
		if f := s.noted(old.s, slice); f != nil && f.edits.recorded() && old.hashes == nil {
			touched = s.updateStoredByEdits(old, slice, f.edits, touched)
		} else {
			touched = s.updateStored(old, slice, s.alignUpdate(old, slice, f), touched)
		}
		if s.dupHashes == 0 {
			for _, h := range touched {
				s.checkClean(old.fam, h)
			}
		}
		return
	}
	if old != nil {
		fam = old.fam
		touched = s.removeStored(old, touched)
	}
	if verb != "delete" {
		touched = s.addStored(slice, touched)
		fam = s.stored.at(slice.Name).fam
	}
	if fam != nil && s.dupHashes == 0 {
		for _, h := range touched {
			s.checkClean(fam, h)
		}
	}
}

func (s *ServiceSlices) addStored(sl *EndpointSlice, touched []endpointHash) []endpointHash {
	f := s.family(familyIndex(sl.AddressType))
	ss := &storedSlice{s: sl, fam: f}
	if !carryIdentities(sl.Endpoints) {
		ss.hashes = make([]endpointHash, len(sl.Endpoints))
	}
	f.addSlice(ss)
	s.stored.set(sl.Name, ss)
	supported := slices.Contains(s.types.list(), sl.AddressType)
	ss.anomaly = !supported || !ownedBy(sl, s.svc) || s.sliceLabelsChanged(sl.Labels)
	if ss.anomaly {
		s.anomalies++
	}
	k := NewPortMapKey(sl.Ports)
	g := f.groups.at(k)
	if g == nil {
		g = &sliceGroup{key: k}
		f.groups.set(k, g)
	}
	ss.group = g
	g.add(ss)
	for i := range sl.Endpoints {
		h := hashEndpoint(&sl.Endpoints[i])
		if ss.hashes != nil {
			ss.hashes[i] = h
		}
		s.indexStored(f, ss, i, h)
		f.dirty.add(h)
		touched = append(touched, h)
	}
	s.flagForHints(f, sl.Name, ss)
	s.setZones(ss)
	return touched
}

// flagForHints records stored slice ss in the family's flag map of the current hints mode
// when the mode rewrites it (see hintsFast and zonedUnchanged.withHints): slices with any
// hint for modes C and A, slices PreferClose or PreferSameNode would change for those.
// Only the current mode's map is kept: a change of mode is a change of the Service, which
// rebuilds the indexes.
func (s *ServiceSlices) flagForHints(f *family, name string, ss *storedSlice) {
	switch s.mode {
	case hintsStrip, hintsTopology:
		if sliceHasHints(ss.s) {
			put(&f.hintsFields().flagged, name, ss)
		}
	case hintsPreferClose:
		if preferCloseNeedsUpdate(ss.s, false) {
			put(&f.hintsFields().flagged, name, ss)
		}
	case hintsPreferSameNode:
		if preferCloseNeedsUpdate(ss.s, true) {
			put(&f.hintsFields().flagged, name, ss)
		}
	}
}

// updateStored replaces ss's slice with slice, an update of it that updatesInPlace found
// to keep its family, group and standing (so no anomaly and no duplicates before), paired
// with it by alignUpdate: an endpoint paired with an equal one keeps its index entry (moved
// to its new position) and its clean or dirty state; the others are removed and added as
// removeStored and addStored would. It returns the hashes whose state may change.
func (s *ServiceSlices) updateStored(ss *storedSlice, slice *EndpointSlice, a alignment, touched []endpointHash) []endpointHash {
	pairs, kept := a.pairs, a.kept
	f := ss.fam
	oldPaired := s.opts.Buffers.oldPaired
	for i := kept; i < len(ss.s.Endpoints); i++ {
		if oldPaired[i] {
			continue
		}
		h := ss.hash(i)
		if f.unstoreOne(h) == 2 {
			s.dupHashes--
		}
		f.dirty.add(h)
		touched = append(touched, h)
	}
	name := slice.Name
	oldSize := len(ss.s.Endpoints)
	var hashes []endpointHash
	if !a.carried {
		hashes = ss.hashes
		if n := len(slice.Endpoints); cap(hashes) < n {
			hashes = make([]endpointHash, n)
		}
		hashes = hashes[:len(slice.Endpoints)]
		for i := range kept {
			hashes[i] = ss.hash(i) // the kept prefix's, unchanged (and in place if hashes is ss's)
		}
	}
	ss.s, ss.hashes = slice, hashes
	ss.group.resized(ss, oldSize)
	for j := kept; j < len(pairs); j++ { // the old hashes are read: the array can be rewritten
		pr := &pairs[j]
		h := pr.hash
		if hashes != nil {
			hashes[j] = h
		}
		if pr.old < 0 {
			s.indexStored(f, ss, j, h)
			f.dirty.add(h)
			touched = append(touched, h)
			continue
		}
		if int(pr.old) != j {
			f.moved(h, ss, j)
		}
		if !pr.same {
			// The same identity, other fields (a readiness change, most often).
			f.dirty.add(h)
			touched = append(touched, h)
		}
	}
	f.unflag(name)
	if !a.hintless || s.mode != hintsStrip && s.mode != hintsTopology {
		// (A slice without hints is not flagged in modes C and A: sliceHasHints need not
		// walk it, which was 0.8% of many-services' instructions.)
		s.flagForHints(f, name, ss)
	}
	s.setZones(ss)
	return touched
}

// updateStoredByEdits is updateStored for an update keptByRuns made of ss's slice with the
// edits e, or a fill that only appends to it (noted with it: see sliceEdits), every stored
// endpoint carrying its identity: the update's endpoints are paired with the stored ones by
// the edits, not by their identities. It marks and re-indexes what updateStored would, in
// the same order: the dropped endpoints, then the update's endpoints by position, moved,
// changed or added.
// Most of an update is runs of copies, which cost nothing before the first drop, and a
// move of their index entry after it. (Pairing every endpoint after the first change by
// its identity cost many-services 4.7% more instructions.)
func (s *ServiceSlices) updateStoredByEdits(ss *storedSlice, slice *EndpointSlice, e sliceEdits, touched []endpointHash) []endpointHash {
	f := ss.fam
	oldEps := ss.s.Endpoints
	edits := e.at[:e.n] // none for an update that only appends: every old endpoint kept
	for _, ed := range edits {
		if !ed.dropped() {
			continue
		}
		h := oldEps[ed.pos()].identity
		if f.unstoreOne(h) == 2 {
			s.dupHashes--
		}
		f.dirty.add(h)
		touched = append(touched, h)
	}
	ss.s, ss.hashes = slice, nil
	ss.group.resized(ss, len(oldEps))
	eps := slice.Endpoints
	// i walks the stored endpoints from the first edit, j the update's.
	i := len(oldEps)
	if len(edits) > 0 {
		i = edits[0].pos()
	}
	j := i
	for _, ed := range edits {
		for ; i < ed.pos(); i, j = i+1, j+1 { // a run of copies
			if i != j {
				f.moved(eps[j].identity, ss, j)
			}
		}
		i++
		if ed.dropped() {
			continue
		}
		o, ep := &oldEps[ed.pos()], &eps[j]
		h := ep.identity // its identity's desired endpoint: the stored one's
		if ed.pos() != j {
			f.moved(h, ss, j)
		}
		if !copiesAlike(o, ep) && !EndpointsEqualBeyondHash(o, ep) {
			f.dirty.add(h)
			touched = append(touched, h)
		}
		j++
	}
	for ; i < len(oldEps); i, j = i+1, j+1 {
		if i != j {
			f.moved(eps[j].identity, ss, j)
		}
	}
	for ; j < len(eps); j++ { // added by syncPortMap's step 2
		h := hashEndpoint(&eps[j])
		s.indexStored(f, ss, j, h)
		f.dirty.add(h)
		touched = append(touched, h)
	}
	f.unflag(slice.Name)
	if s.mode == hintsTopology {
		// (An update noted in mode C has no hint, see updateStored; one noted in modes B
		// went through their hints pass, which left no ready endpoint for it to update.)
		s.flagForHints(f, slice.Name, ss)
	}
	s.setZones(ss)
	return touched
}

// updatesInPlace reports whether slice, an update of old, keeps its family, group and
// standing, with no duplicate identity stored: then updateStored can re-index only what
// changed.
func (s *ServiceSlices) updatesInPlace(old *storedSlice, slice *EndpointSlice) bool {
	return s.dupHashes == 0 && !old.anomaly && old.fam.at == slice.AddressType &&
		(slices.Equal(old.s.Ports, slice.Ports) || NewPortMapKey(slice.Ports) == old.group.key) &&
		ownedBy(slice, s.svc) && !s.sliceLabelsChanged(slice.Labels)
}

// endpointPair is one endpoint of an update and the old endpoint of the same identity it
// was paired with (old −1: none), and whether the two are equal beyond the identity.
type endpointPair struct {
	hash endpointHash
	old  int32
	same bool
}

// alignment is how alignUpdate paired an update with the stored slice it replaces.
type alignment struct {
	// pairs[j] pairs the update's endpoint j with an old one, for j >= kept (the others are
	// not set).
	pairs []endpointPair
	// kept is the length of the update's prefix of copies of the old endpoints in their
	// places.
	kept int
	// carried is carryIdentities of the update's endpoints.
	carried bool
	// hintless: the Sync that made the update noted that none of its endpoints carries a
	// hint (so no flag for modes C and A: see flagForHints).
	hintless bool
}

// alignLookahead is how far past the next unpaired old endpoint alignUpdate looks for an
// update's endpoint before it asks the index: the run of old endpoints an update usually
// drops between two it keeps.
const alignLookahead = 8

// alignUpdate pairs each endpoint of slice, an update of old, with the old endpoint of the
// same identity (Buffers.oldPaired marks the old ones paired). The reconciler writes an
// update as the endpoints it keeps, in their order, some changed in place, then the ones it
// adds, so a walk of both lists pairs most kept endpoints however far a removal before them
// moved them; the index finds the others. A check by position would take every endpoint
// after the first one removed as changed: about half of a slice's, for each pod a rollout
// deletes.
//
// An update changes a slice from some position on: the endpoints before it are copies of
// the old ones in their places, each paired with its own place and equal. alignUpdate
// returns the length of that prefix, kept, and pairs (and marks in oldPaired) only the
// endpoints after it: pairs[j] and oldPaired[j] for j < kept are not set. The walk also
// finds whether every endpoint carries its identity. The part of the prefix the Sync noted
// as copied (noteCopied; noted is slice's fresh item, or nil) is taken as it is; the walk
// compares from there: in many-services, comparing every endpoint of slices of 100 was 3.5%
// of the run's instructions.
func (s *ServiceSlices) alignUpdate(old *storedSlice, slice *EndpointSlice, noted *freshItem) alignment {
	b := s.opts.Buffers
	pairs := slices.Grow(b.pairs[:0], len(slice.Endpoints))[:len(slice.Endpoints)]
	oldN := len(old.s.Endpoints)
	oldPaired := slices.Grow(b.oldPaired[:0], oldN)[:oldN]
	b.pairs, b.oldPaired = pairs, oldPaired
	kept, hintless := copiedPrefix(noted, old, slice)
	carried := true
	if kept > 0 && old.hashes != nil {
		carried = carryIdentities(slice.Endpoints[:kept])
	}
	for kept < min(len(slice.Endpoints), oldN) {
		ep, o := &slice.Endpoints[kept], &old.s.Endpoints[kept]
		if hashEndpoint(ep) != old.hash(kept) || !copiesAlike(o, ep) {
			break
		}
		carried = carried && ep.hasIdentity
		kept++
	}
	clear(oldPaired[kept:])
	next := kept // the old endpoint after the last one paired
	for j := kept; j < len(slice.Endpoints); j++ {
		ep := &slice.Endpoints[j]
		h := hashEndpoint(ep)
		carried = carried && ep.hasIdentity
		k := -1
		if next < oldN && old.hash(next) == h {
			k = next // the usual case: the old endpoint after the last one paired
		} else {
			for i := next + 1; i < min(oldN, next+alignLookahead); i++ {
				if old.hash(i) == h {
					k = i
					break
				}
			}
		}
		if k < 0 {
			// Not near: added, or moved further than the walk looks. The index still
			// holds the old slice (and no identity twice: see updatesInPlace).
			if at, pos := old.fam.storedAt(h); at == old && pos >= kept && !oldPaired[pos] {
				k = pos
			}
		}
		pr := endpointPair{hash: h, old: -1}
		if k >= 0 {
			o := &old.s.Endpoints[k]
			pr.old, pr.same = int32(k), copiesAlike(o, ep) || EndpointsEqualBeyondHash(o, ep)
			oldPaired[k] = true
			next = k + 1
		}
		pairs[j] = pr
	}
	return alignment{pairs: pairs, kept: kept, carried: carried, hintless: hintless}
}

func (s *ServiceSlices) removeStored(ss *storedSlice, touched []endpointHash) []endpointHash {
	f := ss.fam
	name := ss.s.Name
	s.stored.delete(name)
	if ss.anomaly {
		s.anomalies--
	}
	g := ss.group
	g.remove(ss)
	if len(g.members) == 0 {
		f.groups.delete(g.key)
	}
	reindex := false
	for i := range ss.s.Endpoints {
		h := ss.hash(i)
		switch f.unstoreOne(h) {
		case 0, 1:
		case 2:
			s.dupHashes--
			reindex = true
		default:
			reindex = true
		}
		f.dirty.add(h)
		touched = append(touched, h)
	}
	f.unflag(name)
	if ss.zones != nil {
		f.addZones(ss.zones, -1)
		ss.zones = nil
	}
	f.removeSlice(ss)
	if reindex {
		s.reindex(f)
	}
	return touched
}

// indexStored records that stored slice ss holds the endpoint with identity h at pos, and
// counts a second holder of one identity as a duplicate.
func (s *ServiceSlices) indexStored(f *family, ss *storedSlice, pos int, h endpointHash) {
	if f.store(h, ss, pos) == 2 {
		s.dupHashes++
	}
}

// reindex rebuilds a family's endpoint index (after duplicates are resolved; rare).
func (s *ServiceSlices) reindex(f *family) {
	f.dropAll(false)
	s.dupHashes = 0
	for _, ff := range s.families {
		if ff != nil && ff != f {
			s.dupHashes += int32(len(ff.extra))
		}
	}
	names := make([]string, 0, s.stored.len())
	for name, ss := range s.stored.all() {
		if ss.fam == f {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		ss := s.stored.at(name)
		for i := range ss.s.Endpoints {
			h := ss.hash(i)
			s.indexStored(f, ss, i, h)
			f.dirty.add(h)
		}
	}
}

// insertSize indexes ss under its endpoint count, in name order.
func (g *sliceGroup) insertSize(ss *storedSlice) {
	size := len(ss.s.Endpoints)
	l := g.bySize[size]
	l.insert(ss)
	g.bySize[size] = l
}

// removeSize drops ss from the index of size endpoints.
func (g *sliceGroup) removeSize(ss *storedSlice, size int) {
	l := g.bySize[size]
	l.remove(ss)
	if l.empty() {
		delete(g.bySize, size)
	} else {
		g.bySize[size] = l
	}
}

func byStoredName(ss *storedSlice, name string) int { return strings.Compare(ss.s.Name, name) }

// cleanHintedCheck, when set (by tests), sees each desired endpoint syncPortMap takes from a
// clean stored endpoint with hints (d), with its family and identity.
var cleanHintedCheck func(s *ServiceSlices, f *family, h endpointHash, d *Endpoint)

// checkClean drops h from the dirty set when the stored state already matches the desired
// one for it: not desired and not stored, or stored once, under its port map, equal beyond
// the hash.
func (s *ServiceSlices) checkClean(f *family, h endpointHash) bool {
	clean, _, _, _ := s.checkCleanState(f, h)
	return clean
}

// checkCleanState is checkClean that also returns what it read: the pod whose desired
// endpoint h is, and where h is stored.
func (s *ServiceSlices) checkCleanState(f *family, h endpointHash) (clean bool, pe *podEntry, at *storedSlice, pos int) {
	clean, pe, at, pos = s.cleanState(f, h)
	if clean {
		f.dirty.remove(h)
	} else {
		f.dirty.add(h)
	}
	return clean, pe, at, pos
}

// cleanState is checkCleanState without the dirty set's update.
func (s *ServiceSlices) cleanState(f *family, h endpointHash) (clean bool, pe *podEntry, at *storedSlice, pos int) {
	if st := f.ids.ref(h); st != nil {
		pe = s.entryOf(st.ref())
		at, pos = f.place(st.loc())
	}
	switch {
	case pe == nil && at == nil:
		clean = true
	case pe != nil && at != nil && (s.dupHashes == 0 || f.occurrences(h) == 1) && !at.anomaly && at.group.key == s.keyPods.key(pe.key):
		clean = s.desiredEqualBeyondHash(pe, &at.s.Endpoints[pos])
	}
	return clean, pe, at, pos
}

// Sync computes the writes that bring the stored slices to the desired state, as
// ReconcileFull would. It does not change the stored state: report successful writes with
// Applied. The result's plans and their lists (not the slices in them) are reused by the
// next Sync, of this Service or of any sharing its ReconcilerOptions.Buffers: read them
// before calling Sync again.
func (s *ServiceSlices) Sync(trigger Timestamp) SyncResult {
	// The arrays and objects of the last Sync's writes that were not applied are garbage now.
	clear(s.fresh)
	s.fresh = s.fresh[:0]
	if s.fresh == nil {
		s.fresh = takeSpare(&s.opts.Buffers.spareFresh)
	}
	if s.mode == hintsTopology && !s.zoned {
		s.full = true // the zone summaries are built with the indexes
	}
	if s.full {
		s.full = false
		stored := s.Stored()
		s.resetDesired()
		s.resetStored(stored)
	}
	if s.rare != nil && len(s.rare.dirtyNodes) > 0 {
		// Node changes are rare: a scan of the pods costs less than an index per node.
		for _, pe := range s.pods {
			if _, ok := s.rare.dirtyNodes[pe.pod.NodeName]; ok {
				s.markDirty(pe)
			}
		}
		clear(s.rare.dirtyNodes)
	}
	for _, pe := range s.dirtyPods {
		pe.set(flagDirty, false)
		s.recomputePod(pe)
	}
	zeroing.Clear(s.dirtyPods)
	if n := len(s.dirtyPods); cap(s.dirtyPods) > 1024 || n > wholeBatchMin && n >= len(s.pods) {
		// Not kept: a big batch's array, for the small syncs after it, or one of every pod
		// (the first sync, a Service change, a reconciler made again: with the dirty
		// identities' list, 200 bytes for each of 50,000 remade Services of 10 pods).
		s.dirtyPods = nil
	} else {
		s.dirtyPods = s.dirtyPods[:0]
	}
	if s.anomalies > 0 || s.dupHashes > 0 {
		return s.fullSync(trigger)
	}
	res := SyncResult{Plans: s.opts.Buffers.plans[:0]}
	for _, at := range s.types.list() {
		var last SlicePlan
		if i := len(res.Plans); i < cap(res.Plans) {
			last = res.Plans[:i+1][i]
		}
		plan := s.syncFamily(s.family(familyIndex(at)), last)
		finalize(s.svc, &plan, trigger)
		res.Plans = append(res.Plans, plan)
	}
	s.opts.Buffers.plans = res.Plans
	if n := s.missingPods(); n > 0 {
		res.Err = missingErr(s.svc, int(n)*len(s.types.list()))
	}
	res.Events = s.opts.Topology.takeEvents()
	return res
}

func missingErr(svc *Service, n int) error {
	return &nodeNotFoundError{svc.Key(), n}
}

type nodeNotFoundError struct {
	service string
	n       int
}

func (e *nodeNotFoundError) Error() string {
	return "service " + e.service + ": pod endpoints skipped: " + ErrNodeNotFound.Error()
}

func (e *nodeNotFoundError) Unwrap() error { return ErrNodeNotFound }

// fullSync runs ReconcileFull on the stored state (O(N)).
func (s *ServiceSlices) fullSync(trigger Timestamp) SyncResult {
	pods := make([]*Pod, 0, len(s.pods))
	for _, pe := range s.pods {
		pods = append(pods, pe.pod)
	}
	slices.SortFunc(pods, func(a, b *Pod) int { return strings.Compare(a.Name, b.Name) })
	return ReconcileFull(s.svc, pods, s.Stored(), s.nodes, *s.opts, trigger)
}

// syncFamily is reconcileAddressTypeFull restricted to what changed. The plan's lists reuse
// the arrays of last, the family's plan of the previous Sync.
// upstream: reconciler.go reconcileByAddressType
func (s *ServiceSlices) syncFamily(f *family, last SlicePlan) SlicePlan {
	plan := SlicePlan{AddressType: f.at, ToCreate: emptied(last.ToCreate), ToUpdate: emptied(last.ToUpdate), ToDelete: emptied(last.ToDelete)}
	// touched are the stored slices holding a dirty identity (each once: its first dirty
	// position adds it), pending the pods whose desired endpoint no stored slice of its port
	// map has.
	fi := familyIndex(f.at)
	touched, pending := s.opts.Buffers.touchedSlices[:0], s.opts.Buffers.pending[:0]
	// Every member is either clean, and leaves the set, or stays: the set is emptied and the
	// others put back, which costs less than removing the clean ones one by one.
	s.opts.Buffers.dirty = f.dirty.takeAll(s.opts.Buffers.dirty[:0])
	if n := len(s.opts.Buffers.dirty); n > wholeBatchMin && n >= f.ids.len() {
		// A batch of every identity (the first sync, a Service change, a reconciler made
		// again) is not the kind whose buffers the next syncs reuse.
		f.dirty = hashSet{}
	}
	for _, h := range s.opts.Buffers.dirty {
		clean, pe, at, pos := s.cleanState(f, h)
		if clean {
			continue
		}
		f.dirty.add(h)
		if at != nil {
			if len(at.dirtyPos) == 0 {
				touched = append(touched, at)
			}
			at.dirtyPos = append(at.dirtyPos, int32(pos))
		}
		if pe != nil && (at == nil || at.group.key != s.keyPods.key(pe.key)) {
			pending = append(pending, pe)
		}
	}
	if cap(s.opts.Buffers.dirty) > 1024 {
		s.opts.Buffers.dirty = nil // do not keep a big batch's array for the small syncs after it
	}
	// By port map, then as syncPortMap takes them: touched by name, pending by identity.
	slices.SortFunc(touched, func(a, b *storedSlice) int {
		if c := strings.Compare(string(a.group.key), string(b.group.key)); c != 0 {
			return c
		}
		return strings.Compare(a.s.Name, b.s.Name)
	})
	slices.SortFunc(pending, func(a, b *podEntry) int {
		if c := strings.Compare(string(s.keyPods.key(a.key)), string(s.keyPods.key(b.key))); c != 0 {
			return c
		}
		return s.podIdentityOf(a, fi).id.compare(s.podIdentityOf(b, fi).id)
	})
	// Every port map with pending endpoints, and every other one with touched slices that
	// still has pods, in key order.
	for i, j := 0, 0; i < len(touched) || j < len(pending); {
		var k PortMapKey
		if j == len(pending) || i < len(touched) && touched[i].group.key < s.keyPods.key(pending[j].key) {
			k = touched[i].group.key
		} else {
			k = s.keyPods.key(pending[j].key)
		}
		ti, pj := i, j
		for i < len(touched) && touched[i].group.key == k {
			i++
		}
		for j < len(pending) && s.keyPods.key(pending[j].key) == k {
			j++
		}
		if j == pj && s.keyPods.get(k) == 0 {
			continue // the group's slices are all deleted below
		}
		s.syncPortMap(f, k, touched[ti:i], pending[pj:j], &plan)
	}
	for _, ss := range touched {
		ss.dirtyPos = ss.dirtyPos[:0]
	}
	zeroing.Clear(touched)
	clear(pending)
	s.opts.Buffers.touchedSlices, s.opts.Buffers.pending = touched[:0], pending[:0]
	if cap(touched) > 1024 || cap(pending) > 1024 {
		s.opts.Buffers.touchedSlices, s.opts.Buffers.pending = nil, nil
	}
	// The port maps no pod has (a placeholder's, old ports'), whose slices go: a list of
	// their keys was an allocation at each sync that has one (30,771 syncs of
	// many-services, 3.8 a Service in 2,000 Services of 10 pods).
	oldKeys := s.opts.Buffers.oldKeys[:0]
	for k := range f.groups.all() {
		if s.keyPods.get(k) == 0 {
			oldKeys = append(oldKeys, k)
		}
	}
	slices.Sort(oldKeys)
	for _, k := range oldKeys {
		g := f.groups.at(k)
		start := len(plan.ToDelete)
		for _, ss := range g.members {
			plan.ToDelete = append(plan.ToDelete, ss.s)
		}
		slices.SortFunc(plan.ToDelete[start:], byName)
	}
	clear(oldKeys)
	s.opts.Buffers.oldKeys = oldKeys[:0]
	// upstream: reconciler.go reconcileByAddressType (placeholder)
	if f.sliceCount() == len(plan.ToDelete) && len(plan.ToCreate) == 0 {
		p := s.sliceObject()
		setNewEndpointSlice(p, s.svc, []EndpointPort{}, f.at, s.meta.labels, s.meta.owners[:])
		if len(plan.ToDelete) == 1 && placeholderEqual(plan.ToDelete[0], p) {
			plan.ToDelete = plan.ToDelete[:0]
			s.takeFreshObject(p) // not written: a spare again
			s.recycleObject(p)
		} else {
			plan.ToCreate = append(plan.ToCreate, p)
		}
	}
	if s.mode == hintsTopology {
		s.hintsTopology(f, &plan)
	} else {
		s.hintsFast(f, &plan)
	}
	return plan
}

// hintsFast applies hint modes B and C using the per-slice flags kept at Applied time.
func (s *ServiceSlices) hintsFast(f *family, plan *SlicePlan) {
	if t := s.opts.Topology; t != nil && len(t.sorted) > 0 {
		t.removeHintsOff(s.svc, f.at)
	}
	var flagged map[string]*storedSlice
	switch s.mode {
	case hintsStrip, hintsPreferClose, hintsPreferSameNode:
		flagged = f.flagged()
	}
	var moved []*EndpointSlice
	if len(flagged) > 0 {
		changed := make(map[string]bool, len(plan.ToUpdate)+len(plan.ToDelete))
		for _, sl := range plan.ToUpdate {
			changed[sl.Name] = true
		}
		for _, sl := range plan.ToDelete {
			changed[sl.Name] = true
		}
		for name, ss := range flagged {
			if !changed[name] {
				moved = append(moved, ss.s)
			}
		}
		slices.SortFunc(moved, byName)
		for i, sl := range moved {
			moved[i] = copySlice(sl)
		}
	}
	plan.ToUpdate = append(plan.ToUpdate, moved...)
	for _, l := range [][]*EndpointSlice{plan.ToCreate, plan.ToUpdate} {
		for _, sl := range l {
			switch s.mode {
			case hintsStrip:
				// Only a stored slice with hints, flagged, gives the plan endpoints with
				// hints (its copies): the reconciler builds endpoints without. Most
				// Services have none, and clearing every endpoint's field costs a store
				// (and its write barrier's check) per endpoint written.
				if len(flagged) > 0 {
					stripHints(sl)
				}
			case hintsPreferClose, hintsPreferSameNode:
				s.opts.Buffers.closeHints.update(sl, s.mode == hintsPreferSameNode, s.hintsKept(sl))
			}
		}
	}
}

// hintsTopology applies hint mode A (the topology-mode annotation) as placeholderAndHints
// does, seeing the slices the plan leaves alone through their zone summaries: O(slices
// written) when the unchanged slices' hints stay valid, O(stored slices) when some may not.
// upstream: reconciler.go reconcileByAddressType → topologycache.go AddHints
func (s *ServiceSlices) hintsTopology(f *family, plan *SlicePlan) {
	u := &s.opts.Buffers.zoned
	*u = zonedUnchanged{s: s, f: f, changed: u.changed, hints: u.hints}
	if u.changed == nil {
		u.changed, u.hints = map[string]bool{}, map[string]int{}
	}
	clear(u.changed)
	clear(u.hints)
	if h := f.hints; h != nil {
		u.ready, u.lacking = int(h.zoneReady), int(h.zoneLacking)
		maps.Copy(u.hints, h.zoneHints)
	}
	for _, l := range [][]*EndpointSlice{plan.ToUpdate, plan.ToDelete} {
		for _, sl := range l {
			u.changed[sl.Name] = true
			z := s.stored.at(sl.Name).zones
			u.ready -= z.ready
			if z.lacking {
				u.lacking--
			}
			for _, c := range z.hints {
				if u.hints[c.zone] -= c.n; u.hints[c.zone] == 0 {
					delete(u.hints, c.zone)
				}
			}
		}
	}
	si := sliceInfo{service: s.svc, addressType: f.at, toCreate: plan.ToCreate, toUpdate: plan.ToUpdate}
	s.opts.Topology.addHintsTo(&si, u)
	plan.ToCreate, plan.ToUpdate = si.toCreate, si.toUpdate
	u.s, u.f = nil, nil // the maps are kept, not the Service
}

// zonedUnchanged is a family's stored slices minus those a plan changes, for the mode A
// hints pass (unchangedHints); its totals are the family's minus the changed slices'.
type zonedUnchanged struct {
	s       *ServiceSlices
	f       *family
	changed map[string]bool // written by the plan, or invalid (claimed)
	ready   int
	lacking int
	// hints are the hints per zone, which claim may return as its allocation: it is
	// scratch, which setServiceHints copies.
	hints map[string]int
}

func (u *zonedUnchanged) readyEndpoints() int { return u.ready }

// claim: when no unchanged slice lacks hints and every zone's total is within its maximum,
// every prefix in name order is too, so every slice is valid and the allocation is the
// totals; otherwise the slices are walked in name order as upstream does.
// upstream: topologycache/sliceinfo.go getAllocatedHintsByZone
func (u *zonedUnchanged) claim(allocations map[string]allocation) ([]*EndpointSlice, map[string]int) {
	valid := u.lacking == 0
	for z, n := range u.hints {
		if a, ok := allocations[z]; !ok || n > a.maximum {
			valid = false
			break
		}
	}
	if valid {
		return nil, u.hints
	}
	u.s.rareFields().zoneWalks++
	allocated := map[string]int{}
	var invalid []*EndpointSlice
	for _, ss := range u.sorted(u.s.stored.all()) {
		z := ss.zones
		ok := !z.lacking
		for _, c := range z.hints {
			if a, in := allocations[c.zone]; !ok || !in || c.n+allocated[c.zone] > a.maximum {
				ok = false
				break
			}
		}
		if !ok {
			invalid = append(invalid, copySlice(ss.s))
			u.changed[ss.s.Name] = true
			continue
		}
		for _, c := range z.hints {
			allocated[c.zone] += c.n
		}
	}
	return invalid, allocated
}

func (u *zonedUnchanged) withHints() []*EndpointSlice {
	var out []*EndpointSlice
	for _, ss := range u.sorted(maps.All(u.f.flagged())) {
		out = append(out, ss.s)
	}
	return out
}

// sorted returns the family's slices of m that are not changed, in name order.
func (u *zonedUnchanged) sorted(m iter.Seq2[string, *storedSlice]) []*storedSlice {
	var out []*storedSlice
	for name, ss := range m {
		if ss.fam == u.f && !u.changed[name] {
			out = append(out, ss)
		}
	}
	slices.SortFunc(out, func(a, b *storedSlice) int { return strings.Compare(a.s.Name, b.s.Name) })
	return out
}

// syncPortMap is reconcileByPortMappingFull for one port map, visiting only the touched
// slices; every other slice of the group is unchanged. Its writes are appended to plan.
// upstream: reconciler.go reconcileByPortMapping
func (s *ServiceSlices) syncPortMap(f *family, k PortMapKey, touched []*storedSlice, pending []*podEntry, plan *SlicePlan) {
	fi := familyIndex(f.at)
	firstUpdate := len(plan.ToUpdate)
	slices.SortFunc(touched, func(a, b *storedSlice) int { return strings.Compare(a.s.Name, b.s.Name) })
	pass := s.nextPass()
	// With no hint on any stored endpoint of the family (mode C flags every slice with one),
	// the endpoints between the dirty positions are kept as they are: keptByRuns copies them
	// in runs. So they are with hints too when every stored endpoint of the slice carries
	// its identity, the copies' hints then cleared or kept for the hints pass
	// (clearCopiedHints).
	byRuns := s.mode == hintsStrip && len(f.flagged()) == 0
	for _, ss := range touched {
		sl := ss.s
		// First find out whether the slice changes at all, and which endpoints it keeps.
		// Only the dirty positions can differ from what is desired: an endpoint whose
		// identity is clean is desired under this port map and equal beyond the hash (see
		// checkClean), so the stored copy is the desired endpoint, unless it carries hints,
		// which the desired endpoint has not yet.
		slices.Sort(ss.dirtyPos)
		if byRuns || s.mode != hintsStrip && ss.hashes == nil {
			kept, prefix, edits, write := s.keptByRuns(f, k, ss, len(pending), fi)
			if write {
				var hints hintNotes
				if s.mode != hintsStrip {
					// In modes B the ready copies keep their hints, which are what the
					// hints pass sets unless the slice is flagged.
					cleared := s.clearCopiedHints(f, kept)
					_, flagged := f.flagged()[sl.Name]
					right := s.mode != hintsTopology && !flagged
					hints = hintNotes{hinted: true, rehinted: cleared || !right, kept: right}
				}
				s.writeTouched(ss, kept, prefix, edits, hints, pass, plan)
			}
			continue
		}
		keep, changed, dirty := s.opts.Buffers.kept[:0], false, ss.dirtyPos
		// The endpoints before the first dirty one that carry no hints are kept as they
		// are: a prefix, copied in one piece below rather than listed one by one.
		prefix, limit := 0, len(sl.Endpoints)
		if len(dirty) > 0 {
			limit = int(dirty[0])
		}
		for prefix < limit && sl.Endpoints[prefix].Hints == nil {
			prefix++
		}
		// built holds the desired endpoints read here; keep points into it, so it is given
		// room for all of them first.
		built := slices.Grow(s.opts.Buffers.built[:0], len(sl.Endpoints))
		for i := prefix; i < len(sl.Endpoints); i++ {
			ep := &sl.Endpoints[i]
			if len(dirty) > 0 && int(dirty[0]) == i {
				dirty = dirty[1:]
			} else if ep.Hints == nil {
				keep = append(keep, ep)
				continue
			} else if ep.hasIdentity {
				// Clean, with hints and the identity this reconciler gave it: its desired
				// endpoint is the stored one without hints (equal beyond the hash, and the
				// hash's fields equal). Building it again read the pod, its identity and
				// its node for every endpoint of a touched slice of a Service with
				// trafficDistribution or topology hints: 14% of the CPU of one of 100,000
				// pods with PreferClose.
				built = append(built, *ep)
				d := &built[len(built)-1]
				d.Hints = nil
				if cleanHintedCheck != nil {
					cleanHintedCheck(s, f, ss.hash(i), d)
				}
				keep = append(keep, d)
				continue
			}
			pe := s.entryOf(f.desiredRef(ss.hash(i)))
			if pe != nil && s.keyPods.key(pe.key) == k {
				built = append(built, s.desiredEndpoint(pe, fi))
				d := &built[len(built)-1]
				keep = append(keep, d)
				if !changed && !EndpointsEqualBeyondHash(d, ep) {
					changed = true
				}
			}
		}
		s.opts.Buffers.kept, s.opts.Buffers.built = keep, built
		if !changed && prefix+len(keep) == len(sl.Endpoints) {
			zeroing.Clear(keep)
			zeroing.Clear(built)
			continue
		}
		// Room for the pending endpoints step 2 may add, so filling does not regrow it.
		n := prefix + len(keep)
		kept := s.endpointArray(max(n, min(s.opts.maxPerSlice(), n+len(pending))))[:n]
		copy(kept, sl.Endpoints[:prefix])
		for i, ep := range keep {
			kept[prefix+i] = *ep
		}
		zeroing.Clear(keep)
		zeroing.Clear(built)
		hinted := s.mode != hintsStrip
		s.writeTouched(ss, kept, prefix, sliceEdits{}, hintNotes{hinted: hinted, rehinted: hinted}, pass, plan)
	}
	plan.Added += len(pending)
	slices.SortFunc(pending, func(a, b *podEntry) int {
		return s.podIdentityOf(a, fi).id.compare(s.podIdentityOf(b, fi).id)
	})
	next := 0
	// Step 2.
	if len(pending) > 0 && len(plan.ToUpdate) > firstUpdate {
		order := append(s.opts.Buffers.order[:0], plan.ToUpdate[firstUpdate:]...)
		slices.SortStableFunc(order, fillOrder)
		for _, sl := range order {
			for next < len(pending) && len(sl.Endpoints) < s.opts.maxPerSlice() {
				sl.Endpoints = append(sl.Endpoints, s.desiredEndpoint(pending[next], fi))
				next++
			}
		}
		clear(order)
		s.opts.Buffers.order = order[:0]
	}
	// Step 3.
	g := f.groups.at(k)
	for next < len(pending) {
		remaining := len(pending) - next
		var target *EndpointSlice
		if remaining < s.opts.maxPerSlice() && g != nil {
			if ss := s.bestFitFast(g, remaining, pass); ss != nil {
				target = s.sliceObject()
				*target = *ss.s
				if byRuns {
					// Every endpoint of ss is copied in its place, and no hints pass
					// changes them (no stored endpoint of the family has a hint): the
					// update only appends, which Applied and ChangedEndpoints read from
					// the note rather than from every endpoint. (Such fills were
					// 120,169 of many-services' 420,007 slice writes.)
					s.noteCopied(target, ss.s, len(ss.s.Endpoints), sliceEdits{appendOnly: true}, hintNotes{})
				}
				s.shareOwners(target)
				target.Endpoints = append(s.endpointArray(len(ss.s.Endpoints)+remaining), ss.s.Endpoints...)
				ss.changedIn = pass
			}
		}
		if target == nil {
			var ports []EndpointPort
			if len(pending) > 0 {
				ports = s.keyPods.ports(pending[0].key)
			}
			target = s.sliceObject()
			setNewEndpointSlice(target, s.svc, ports, f.at, s.meta.labels, s.meta.owners[:])
			target.Endpoints = s.endpointArray(min(s.opts.maxPerSlice(), remaining))
		}
		for next < len(pending) && len(target.Endpoints) < s.opts.maxPerSlice() {
			target.Endpoints = append(target.Endpoints, s.desiredEndpoint(pending[next], fi))
			next++
		}
		if target.Name != "" {
			plan.ToUpdate = append(plan.ToUpdate, target)
		} else {
			plan.ToCreate = append(plan.ToCreate, target)
		}
	}
	slices.SortStableFunc(plan.ToUpdate[firstUpdate:], byName)
}

// keptByRuns is syncPortMap's first pass over touched slice ss when no stored endpoint of
// the family carries a hint, or in a hints mode when every endpoint of ss carries its
// identity (syncPortMap then sees to the copies' hints: clearCopiedHints): only the
// endpoints at the dirty positions (each listed once: a dirty identity adds the one
// position the index has for it) can change, each to the desired endpoint of its identity
// or to nothing (its pod gone, or under another port map).
// It reports whether the slice is written, and then the endpoints it keeps, the others
// copied in runs between the dirty positions, how many of them come before the first
// (syncPortMap's prefix) and, when there are few, the edits at the dirty positions, for
// Applied (see sliceEdits). pending is the number of endpoints step 2 may add. The
// endpoints between dirty positions were walked one by one, and listed, before: 2% of
// many-services' instructions.
func (s *ServiceSlices) keptByRuns(f *family, k PortMapKey, ss *storedSlice, pending, fi int) (kept []Endpoint, prefix int, edits sliceEdits, write bool) {
	sl, dirty := ss.s, ss.dirtyPos
	// built[j] is what position dirty[j] becomes; an endpoint without identity marks one
	// dropped (every desired endpoint has its identity).
	built := slices.Grow(s.opts.Buffers.built[:0], len(dirty))
	dropped, changed := 0, false
	for _, d := range dirty {
		pe := s.entryOf(f.desiredRef(ss.hash(int(d))))
		if pe == nil || s.keyPods.key(pe.key) != k {
			built = append(built, Endpoint{})
			dropped++
			continue
		}
		built = append(built, s.desiredEndpoint(pe, fi))
		if !changed && !EndpointsEqualBeyondHash(&built[len(built)-1], &sl.Endpoints[d]) {
			changed = true
		}
	}
	s.opts.Buffers.built = built
	defer zeroing.Clear(built)
	if !changed && dropped == 0 {
		return nil, 0, edits, false
	}
	n := len(sl.Endpoints) - dropped
	kept = s.endpointArray(max(n, min(s.opts.maxPerSlice(), n+pending)))[:n]
	at, from := 0, 0
	if len(dirty) <= len(edits.at) {
		edits.n = int8(len(dirty))
	}
	for j, d := range dirty {
		at += copy(kept[at:], sl.Endpoints[from:d])
		if j < int(edits.n) {
			edits.at[j] = newSliceEdit(d, !built[j].hasIdentity)
		}
		if built[j].hasIdentity {
			kept[at] = built[j]
			at++
		}
		from = int(d) + 1
	}
	copy(kept[at:], sl.Endpoints[from:])
	return kept, int(dirty[0]), edits, true
}

// clearCopiedHints clears the hints of the copies keptByRuns made in a hints mode (kept),
// and reports whether it cleared any. The desired endpoints have no hints yet: the hints
// pass gives them theirs. A copy is the desired endpoint of its clean identity but for its
// hints (see checkClean), and every stored endpoint carries its identity (syncPortMap). In
// modes B the pass sets the hints of every ready endpoint and leaves the others alone: a
// ready copy keeps its hint for it (closeHints.update).
func (s *ServiceSlices) clearCopiedHints(f *family, kept []Endpoint) (cleared bool) {
	keepReady := s.mode != hintsTopology
	for i := range kept {
		ep := &kept[i]
		if ep.Hints == nil {
			continue
		}
		if cleanHintedCheck != nil {
			d := *ep
			d.Hints = nil
			cleanHintedCheck(s, f, ep.identity, &d)
		}
		if !keepReady || !endpointReady(ep) {
			ep.Hints, cleared = nil, true
		}
	}
	return cleared
}

// sliceEdit is one position of a stored slice that keptByRuns rewrote: the endpoint there
// dropped, or replaced by the desired endpoint of its identity (equal to it or not).
type sliceEdit int32

func newSliceEdit(pos int32, dropped bool) sliceEdit {
	e := sliceEdit(pos) << 1
	if dropped {
		e |= 1
	}
	return e
}

func (e sliceEdit) pos() int      { return int(e >> 1) }
func (e sliceEdit) dropped() bool { return e&1 != 0 }

// sliceEdits are the edits of one update keptByRuns made, in position order, when there
// are at most four (n 0 and not appendOnly: not noted): the update holds the stored
// slice's endpoints with these edits, the others copied in runs between them, then
// whatever step 2 appended. Applied then re-indexes the update from them
// (updateStoredByEdits) without pairing its endpoints with the stored ones. appendOnly,
// with n 0, notes an update that edits none: it holds every stored endpoint in its place,
// then the ones step 3 appended (a fill of the best-fitting slice).
type sliceEdits struct {
	at         [4]sliceEdit
	n          int8
	appendOnly bool
}

// recorded reports whether the edits say how their update was made: some edits, or none
// but appends.
func (e sliceEdits) recorded() bool { return e.n > 0 || e.appendOnly }

// writeTouched adds the write of touched slice ss keeping the endpoints kept, the first
// prefix of them copies of its own in their places, to plan: an update, or a delete when it
// keeps none. edits, if any, are how keptByRuns made kept, noted with the update.
func (s *ServiceSlices) writeTouched(ss *storedSlice, kept []Endpoint, prefix int, edits sliceEdits, hints hintNotes, pass uint32, plan *SlicePlan) {
	sl := ss.s
	ss.changedIn = pass
	plan.Removed += len(sl.Endpoints) - len(kept)
	if len(kept) == 0 {
		plan.ToDelete = append(plan.ToDelete, sl)
		return
	}
	c := s.sliceObject()
	*c = *sl
	c.Endpoints = kept
	c.Labels = s.meta.labels
	s.shareOwners(c)
	s.noteCopied(c, sl, prefix, edits, hints)
	plan.ToUpdate = append(plan.ToUpdate, c)
}

// endpointArray returns an empty endpoint array of at least the given capacity, a spare one
// when one fits, and notes it as fresh.
func (s *ServiceSlices) endpointArray(capacity int) []Endpoint {
	if capacity == 0 {
		return []Endpoint{}
	}
	if capacity > s.opts.maxPerSlice()/2 {
		// Round up: a slice that is more than half full is likely to be filled up later, and
		// a full-size array fits any rewrite of it.
		capacity = max(capacity, s.opts.maxPerSlice())
	}
	a := s.opts.Buffers.spares.take(capacity) // its length is how far it holds old endpoints
	if a == nil {
		// Grown, not made: its capacity is all that its allocator size class holds, at no
		// cost, so that more of the sizes later rewrites ask for fit it when it is a spare
		// (a third fewer new arrays in a create and rollout of 2,000 Services of 10 pods).
		a = slices.Grow([]Endpoint(nil), capacity)
	}
	s.fresh = append(s.fresh, freshItem{first: &a[:1][0], dirty: int32(len(a))})
	return a[:0]
}

// freshItem is an array the last Sync allocated, by its first element, and how far it still
// holds old endpoints (a reused spare's length); or (dirty -1) an object it allocated. An
// item taken by Applied keeps its dirty, so that the arrays are still counted (recycle).
//
// An object the Sync made as an update of a stored slice, from, whose first copied endpoints
// it copied in their places and left alone after (see noteCopied), says so: alignUpdate
// then pairs that prefix without comparing it endpoint by endpoint. With the edits it was
// made by, Applied pairs none (updateStoredByEdits).
type freshItem struct {
	first  *Endpoint
	object *EndpointSlice
	from   *EndpointSlice
	copied int32
	dirty  int32
	// edits, if any, are how the update was made from from (keptByRuns): see sliceEdits.
	edits sliceEdits
	// hints say how the update's hints relate to from's.
	hints hintNotes
}

// hintNotes say how the hints of an update a Sync noted relate to those of the stored slice
// it copied endpoints from (noteCopied).
type hintNotes struct {
	// hinted: the update's endpoints may carry hints (modes A and B; in mode C none does).
	hinted bool
	// rehinted: the hints of the copies may not be the stored ones: cleared, or set by the
	// hints pass after the update was noted (mode A's sets them all; modes B's those of a
	// flagged slice). The copies are still copies beyond their hints, which pairing
	// ignores, but not as a writer summing sizes reads them (ChangedEndpoints).
	rehinted bool
	// kept: modes B, and each ready endpoint of the update with a hint carries the one the
	// pass sets (a touched slice not flagged, its ready copies' hints kept): the pass sets
	// only those it lacks (see hintsFast).
	kept bool
}

// takeFresh reports whether a, a stored slice's endpoints, is in an array the last Sync
// allocated, and then forgets it there and clears the old endpoints the slice did not
// overwrite.
func (s *ServiceSlices) takeFresh(a []Endpoint) bool {
	if cap(a) == 0 {
		return false
	}
	i := s.freshArray(&a[:1][0])
	if i < 0 {
		return false
	}
	if d := int(s.fresh[i].dirty); d > len(a) {
		clear(a[len(a):d])
	}
	s.fresh[i].first = nil
	return true
}

// freshArray returns the index of the item of the array whose first element is first, or
// -1; freshObject that of object o. An item is in the list once, and Applied looks the
// items up about in the order Sync made them, each a few times (noted, takeFresh,
// takeFreshObject): a search starts where the last one found its item and wraps around, so
// that a sync's k writes cost O(k) where searches from the start cost O(k²) (a sync of a
// Service with maxEndpointsPerSlice 1 writes a slice an endpoint changed).
func (s *ServiceSlices) freshArray(first *Endpoint) int {
	b := s.opts.Buffers
	if first == nil {
		b.freshArrayAt = 0
	}
	return searchAround(len(s.fresh), &b.freshArrayAt, func(i int) bool { return s.fresh[i].first == first })
}

func (s *ServiceSlices) freshObject(o *EndpointSlice) int {
	b := s.opts.Buffers
	if o == nil {
		b.freshObjectAt = 0
	}
	return searchAround(len(s.fresh), &b.freshObjectAt, func(i int) bool { return s.fresh[i].object == o })
}

// searchAround returns the first index of [0, n) for which match holds, looking from *at to
// the end and then from the start, and leaves *at there; -1 (and *at as it was) when none
// does.
func searchAround(n int, at *int, match func(int) bool) int {
	from := *at
	if from >= n {
		from = 0
	}
	for k := range n {
		i := from + k
		if i >= n {
			i -= n
		}
		if match(i) {
			*at = i
			return i
		}
	}
	return -1
}

func sameArray(a, b []Endpoint) bool {
	return cap(a) > 0 && cap(b) > 0 && &a[:1][0] == &b[:1][0]
}

// recycle keeps a, the endpoints of an owned slice the API server no longer stores, for
// reuse. Nothing else refers to its array: the engine drops the old object when the write
// is applied, and every plan copies the endpoints it writes into arrays of its own. The
// endpoints stay until the array is reused (see ServiceSlices.fresh). A Service that
// rewrites many slices per sync may keep as many as its last Sync allocated.
func (s *ServiceSlices) recycle(a []Endpoint) {
	arrays := 0
	for _, f := range s.fresh {
		if f.dirty >= 0 {
			arrays++
		}
	}
	s.opts.Buffers.spares.put(a, arrays)
}

// spareObjectsMax bounds the spare slice objects kept. As with arrays, a write gives its
// slice's old object back once applied, so a few serve every Service of a controller.
const spareObjectsMax = 64

// sliceObject returns an object for a slice this Sync writes, a spare one when there is
// one, and notes it as fresh. The caller sets every field (a spare holds an old slice).
func (s *ServiceSlices) sliceObject() *EndpointSlice {
	o := takeSpare(&s.opts.Buffers.spareObjects)
	if o == nil {
		o = new(EndpointSlice)
	}
	s.fresh = append(s.fresh, freshItem{object: o, dirty: -1})
	return o
}

// takeFreshObject reports whether o is an object the last Sync allocated, and then forgets
// it there.
func (s *ServiceSlices) takeFreshObject(o *EndpointSlice) bool {
	i := s.freshObject(o)
	if i < 0 {
		return false
	}
	s.fresh[i].object, s.fresh[i].from = nil, nil
	return true
}

// noteCopied records that o, the object sliceObject returned last, is an update of the
// stored slice from whose first n endpoints it holds as they are in from, in their places,
// and will hold when written (and, with edits, the rest as they say). In mode C none of its
// endpoints carries a hint: the hint pass leaves those endpoints alone and every endpoint
// written without a hint (it strips the plan's slices when a stored slice has some,
// flagged, and no endpoint of the plan can have one otherwise). In the other modes the
// hints pass then sets hints on the update's endpoints: hints says what it may change.
func (s *ServiceSlices) noteCopied(o, from *EndpointSlice, n int, edits sliceEdits, hints hintNotes) {
	if f := &s.fresh[len(s.fresh)-1]; f.object == o {
		f.from, f.copied, f.edits, f.hints = from, int32(n), edits, hints
	}
}

// hintsKept reports whether sl is an update this Sync noted as holding, on each ready
// endpoint with a hint, the hint modes B set: a touched slice that was not flagged, whose
// ready copies keep theirs (keptByRuns), all its other endpoints built without.
func (s *ServiceSlices) hintsKept(sl *EndpointSlice) bool {
	if i := s.freshObject(sl); i >= 0 {
		return s.fresh[i].hints.kept
	}
	return false
}

// copiedPrefix returns how many of slice's first endpoints the Sync that made it copied
// from old's stored slice in their places, and whether it noted slice (noteCopied) in mode
// C, so that none of its endpoints carries a hint; f is slice's fresh item as noted returns
// it.
func copiedPrefix(f *freshItem, old *storedSlice, slice *EndpointSlice) (n int, hintless bool) {
	if f != nil {
		return min(int(f.copied), len(slice.Endpoints), len(old.s.Endpoints)), !f.hints.hinted
	}
	return 0, false
}

// EndpointChange is an endpoint that an update changed: Was is the stored endpoint it
// dropped or rewrote (nil: none, an endpoint added), Now the one it holds instead (nil: the
// stored one dropped).
type EndpointChange struct{ Was, Now *Endpoint }

// ChangedEndpoints tells how the last Sync made slice, one of its updates, from stored, the
// slice it updates as the caller has it stored, when the Sync noted that: it appends to buf
// the endpoints slice changed (in stored's order, then the ones added) and reports true;
// every other endpoint of slice is a copy of one of stored's, in stored's order. Otherwise
// it returns buf as it is and false, and the caller must read the whole slice. A writer
// keeping sums over a stored slice's endpoints (sizes, counts) can update them from the
// changes alone.
func (s *ServiceSlices) ChangedEndpoints(slice, stored *EndpointSlice, buf []EndpointChange) ([]EndpointChange, bool) {
	item := s.noted(stored, slice)
	if item == nil || !item.edits.recorded() || item.hints.rehinted {
		return buf, false
	}
	was, now := stored.Endpoints, slice.Endpoints
	dropped := 0
	for _, ed := range item.edits.at[:item.edits.n] {
		c := EndpointChange{Was: &was[ed.pos()]}
		if ed.dropped() {
			dropped++
		} else {
			c.Now = &now[ed.pos()-dropped]
		}
		buf = append(buf, c)
	}
	for j := len(was) - dropped; j < len(now); j++ {
		buf = append(buf, EndpointChange{Now: &now[j]})
	}
	return buf, true
}

// noted returns the fresh item of slice if the Sync noted it as an update of stored slice
// from (noteCopied), or nil.
func (s *ServiceSlices) noted(from, slice *EndpointSlice) *freshItem {
	if from == nil {
		return nil
	}
	if i := s.freshObject(slice); i >= 0 {
		if f := &s.fresh[i]; f.from == from {
			return f
		}
	}
	return nil
}

// recycleObject keeps o, the object of an owned slice the API server no longer stores, for
// reuse by a later Sync. Nothing else refers to it: the engine drops the old object when
// the write that replaces it is applied (see Applied). It is not cleared here: the caller
// may still read the slice it has just deleted.
func (s *ServiceSlices) recycleObject(o *EndpointSlice) {
	if b := s.opts.Buffers; len(b.spareObjects) < spareObjectsMax {
		b.spareObjects = append(b.spareObjects, o)
	}
}

// arrayPool holds spare endpoint arrays by capacity class: class k holds the arrays whose
// capacity has bit length k, that is from 2^(k-1) to 2^k-1.
type arrayPool struct {
	classes [][][]Endpoint
	n       int // arrays held
}

// sparesPerClass bounds the arrays a class holds. One controller's Services sync one at a
// time and each write gives its array back once applied, so a few per class serve them all
// (5000-nodes allocates 174 MB a run keeping 2 per Service, 159 MB with 4, 158 MB with 8).
const sparesPerClass = 16

// take returns a spare array of capacity at least c from c's class, or any from the next
// class up (at most four times c), or nil.
func (p *arrayPool) take(c int) []Endpoint {
	k := bits.Len(uint(c))
	if k < len(p.classes) {
		for i, a := range p.classes[k] {
			if cap(a) >= c {
				return p.remove(k, i)
			}
		}
	}
	if k+1 < len(p.classes) && len(p.classes[k+1]) > 0 {
		return p.remove(k+1, len(p.classes[k+1])-1)
	}
	return nil
}

func (p *arrayPool) remove(k, i int) []Endpoint {
	class := p.classes[k]
	a, last := class[i], len(class)-1
	class[i], class[last] = class[last], nil
	p.classes[k] = class[:last]
	p.n--
	return a
}

// put keeps a, unless its class holds max(sparesPerClass, atLeast) arrays already: then a
// takes the place of the smallest of them if it is larger. A class spans capacities up to
// twice each other, and a request takes only an array that fits it: kept first come, a
// full class of small arrays turned away the larger ones that later requests needed (a
// rollout of 10,000 Services of 10 pods made 66,000 new arrays and dropped 56,000; keeping
// the larger, 23,000 and 13,000).
func (p *arrayPool) put(a []Endpoint, atLeast int) {
	k := bits.Len(uint(cap(a)))
	for len(p.classes) <= k {
		p.classes = append(p.classes, nil)
	}
	if class := p.classes[k]; len(class) >= max(sparesPerClass, atLeast) {
		smallest := 0
		for i := range class {
			if cap(class[i]) < cap(class[smallest]) {
				smallest = i
			}
		}
		if cap(class[smallest]) < cap(a) {
			class[smallest] = a
		}
		return
	}
	p.classes[k] = append(p.classes[k], a)
	p.n++
}

// all yields every array held.
func (p *arrayPool) all() iter.Seq[[]Endpoint] {
	return func(yield func([]Endpoint) bool) {
		for _, class := range p.classes {
			for _, a := range class {
				if !yield(a) {
					return
				}
			}
		}
	}
}

// bestFitFast finds, among the group's unchanged slices, the one that ends closest to full
// after taking n endpoints, ties broken by name (as bestFit over name order).
// upstream: utils.go getSliceToFill
func (s *ServiceSlices) bestFitFast(g *sliceGroup, n int, pass uint32) *storedSlice {
	if g.bySize == nil {
		var best *storedSlice
		for _, ss := range g.members {
			size := len(ss.s.Endpoints)
			if ss.changedIn == pass || size > s.opts.maxPerSlice()-n {
				continue
			}
			if best == nil || size > len(best.s.Endpoints) || size == len(best.s.Endpoints) && ss.s.Name < best.s.Name {
				best = ss
			}
		}
		return best
	}
	for size := s.opts.maxPerSlice() - n; size >= 0; size-- {
		l := g.bySize[size]
		for _, c := range l.chunks {
			for _, ss := range c {
				if ss.changedIn != pass {
					return ss
				}
			}
		}
	}
	return nil
}

// nextPass starts a syncPortMap pass: the slices it changes are marked with the number it
// returns, which no stored slice carries yet.
func (s *ServiceSlices) nextPass() uint32 {
	s.pass++
	if s.pass == 0 { // wrapped: forget the old marks
		for _, ss := range s.stored.all() {
			ss.changedIn = 0
		}
		s.pass = 1
	}
	return s.pass
}
