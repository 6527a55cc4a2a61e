package model

import (
	"slices"
	"strconv"
	"strings"
)

// ServiceEndpoints is the incremental legacy Endpoints controller for one Service. It receives
// the Service and its pods as they change (SetService, SetPod, DeletePod, DeleteService) and on
// Sync returns the same decision as BuildEndpoints would for the same inputs, doing work
// proportional to what changed: each distinct resolved port keeps its ready and not-ready
// addresses in sorted lists with running byte sums, and a record of each (port, address)
// changed since the stored object was written (stored and current side) makes the skip test
// O(1) while holding nothing for the addresses that did not change.
//
// Call Applied after the engine has stored the write a Sync decided (not after a failed write):
// the skip test compares against the stored object.
//
// Preconditions: the pods given are the ones the Service's selector matches in its namespace,
// and distinct pods have distinct UIDs (upstream deduplicates addresses by (IP, UID); two pods
// sharing both would be one address upstream). The caller must not modify a *Pod after passing
// it, nor its PodIdentity, which addresses point into; pass a new Pod for every change.
//
// Costs: SetPod is O(ports × log n) (the address lists are chunked: addrList); Sync is O(subsets ×
// ports), except that with two or more subsets upstream orders them by an fnv128a hash of their full
// dump, which costs O(addresses) and is done only when truncating (or in Object).
type ServiceEndpoints struct {
	svc          *Service
	addressBytes func(EndpointAddress) ByEncoding
	buf          *EndpointsBuffers // shared with the controller's other Services (nil: none)

	// pods are the kept pods' slots, in no particular order (endpointsPodSlot.at).
	pods  []*endpointsPodSlot
	ports []*endpointsPortState
	// sigs are the signatures in use, in no particular order (usually there is one).
	sigs []*endpointsSignature
	// rare holds what few Services need (nil until one does): see endpointsRare.
	rare *endpointsRare

	// entries holds the (port, address) records changed since the stored object was last
	// committed; a record absent from it has its stored side equal to its current side, so
	// between syncs it holds only what changed (see setEntry). It is usually a few records,
	// made and dropped around every write: a list, scanned while short and indexed
	// (endpointsRare.entryIndex) past endpointsEntryScan records; a big Service keeps the
	// list and its index across writes (commitTouched). mismatch counts the records whose
	// sides differ.
	entries  []endpointsEntry
	mismatch int32

	// storedCount is the stored object's address count (with stored, below).
	storedCount int32

	// labels is legacyEndpointsLabels of the Service, made when first needed after each
	// SetService (labelsValid): the stored object's labels and the ones ObjectMeta returns
	// share it.
	labels StringMap

	storedLabels  StringMap
	storedTrigger Timestamp

	last        lastDecision
	lastTrigger Timestamp
	layout      []endpointsSubsetLayout

	// The flags are kept together, in one word (a Service's builder was 416 bytes).
	truncate           bool // EndpointsOptions.Truncate
	deleted            bool
	stored             bool
	storedOverCapacity bool
	layoutOrdered      bool
	// layoutValid: layout's subsets are those of the current signatures (only their keep
	// counts and order are per sync). A signature made or dropped clears it.
	layoutValid   bool
	truncateReady bool
	labelsValid   bool
}

// endpointsRare is what few Services' builders need, made on first need: kept apart, it
// costs the others a pointer (a builder is 256 bytes instead of 320).
type endpointsRare struct {
	// storedUnlisted is the stored object's subsets made by ports none of which it lists
	// (unlistedSubsets), for a Service with such a port.
	storedUnlisted [][]string
	// byName indexes the pods' slots by podKey, made on the first call that names a pod
	// without a ref that applies (see EndpointsPodRef).
	byName map[string]*endpointsPodSlot
	// portIndex indexes ports once there are more than endpointsPortScan (see portID), and
	// sigIndex signatures by key likewise.
	portIndex map[repackPortValue]int
	sigIndex  map[string]*endpointsSignature
	// storedTruncated is the stored object's content when it was truncated (nil otherwise):
	// what TruncatedUnchanged compares the next truncated object with.
	storedTruncated []endpointsKeptSubset
	// entryIndex indexes ServiceEndpoints.entries once they are many (see entryIndex).
	entryIndex entryIndex
}

// rareFields returns s.rare, made now if need be.
func (s *ServiceEndpoints) rareFields() *endpointsRare {
	if s.rare == nil {
		s.rare = new(endpointsRare)
	}
	return s.rare
}

// lastDecision is the last Sync's EndpointsDecision as a builder keeps it: the verb as its
// index in decisionVerbs and the counts in 4 bytes each (a Service's pods), 24 bytes instead
// of 64 (a builder is 256 bytes instead of 296, which is in the 320-byte size class).
type lastDecision struct {
	verb      uint8
	truncated bool

	subsets, addresses, notReady, desired, desiredNotReady int32
}

// decisionVerbs are the values of EndpointsDecision.Verb.
var decisionVerbs = [...]string{"", EndpointsCreate, EndpointsUpdate, EndpointsDelete}

// keepDecision returns d as a builder keeps it.
func keepDecision(d EndpointsDecision) lastDecision {
	verb := slices.Index(decisionVerbs[:], d.Verb)
	if verb < 0 {
		panic("model: unknown Endpoints verb " + d.Verb)
	}
	return lastDecision{verb: uint8(verb), truncated: d.Truncated, subsets: int32(d.Subsets),
		addresses: int32(d.Addresses), notReady: int32(d.NotReadyAddresses),
		desired: int32(d.DesiredAddresses), desiredNotReady: int32(d.DesiredNotReadyAddresses)}
}

// Verb is the decision's verb (EndpointsDecision.Verb).
func (d lastDecision) Verb() string { return decisionVerbs[d.verb] }

// decision returns d as the EndpointsDecision it was kept from.
func (d lastDecision) decision() EndpointsDecision {
	return EndpointsDecision{Verb: d.Verb(), Truncated: d.truncated, Subsets: int(d.subsets),
		Addresses: int(d.addresses), NotReadyAddresses: int(d.notReady),
		DesiredAddresses: int(d.desired), DesiredNotReadyAddresses: int(d.desiredNotReady)}
}

// byName, portIndex and sigIndex return the index of that name (nil while there is none).
func (s *ServiceEndpoints) byName() map[string]*endpointsPodSlot {
	if s.rare == nil {
		return nil
	}
	return s.rare.byName
}

func (s *ServiceEndpoints) portIndex() map[repackPortValue]int {
	if s.rare == nil {
		return nil
	}
	return s.rare.portIndex
}

func (s *ServiceEndpoints) sigIndex() map[string]*endpointsSignature {
	if s.rare == nil {
		return nil
	}
	return s.rare.sigIndex
}

// storedTruncated is endpointsRare.storedTruncated (nil while there is none).
func (s *ServiceEndpoints) storedTruncated() []endpointsKeptSubset {
	if s.rare == nil {
		return nil
	}
	return s.rare.storedTruncated
}

// endpointsPodState is what one pod contributes: an address at its ports (a pod that
// contributes nothing has none, endpointsPodSlot.ps). The address is the pod's, derived from
// it when read (address): its IP (podIPAt(pod, ip)), its node name and target reference, and
// its hostname if named. Where the Service decides (which IP, whether the hostname is set),
// the state records what was decided, so that a stored state keeps its address whatever the
// Service becomes. It is immutable once built, and so are its ports (addContribution sets sig
// and shares its port list); an update that keeps the address points pod at the new pod in
// place (setSlot), one that changes the address makes a new state.
//
// Deriving the address, rather than keeping a copy of it, makes a state 32 bytes instead of
// 64, one per pod that has an address. Its readiness is its slot's (endpointsPodSlot).
type endpointsPodState struct {
	pod   *Pod
	bytes addressBytes
	// sig is the signature of the pod's resolved ports; its port ids are the pod's.
	// addContribution looks it up again, as it may have been dropped meanwhile (when the
	// pod's old state was its last user).
	sig *endpointsSignature
	ip  int32 // where the IP is (legacyPodIPIndex)
	// named: the address has the pod's hostname (legacyPodHostname).
	named bool
}

// ipOf is the IP of ps's address.
func (ps *endpointsPodState) ipOf() string { return podIPAt(ps.pod, ps.ip) }

// hostname is the hostname of ps's address.
func (ps *endpointsPodState) hostname() string {
	if ps.named {
		return ps.pod.Hostname
	}
	return ""
}

// address returns ps's address. Its target reference is the pod's own when the pod's
// identity is a Pod reference (always, but for pods built by hand), else a new one.
func (ps *endpointsPodState) address() EndpointAddress {
	return EndpointAddress{
		IP:        ps.ipOf(),
		Hostname:  ps.hostname(),
		NodeName:  &ps.pod.NodeName,
		TargetRef: ps.pod.targetRef(),
	}
}

// sameAddress is legacyAddressesEqual of the addresses of a and b: the same IP, hostname,
// node name and target reference (always a Pod reference to the pod).
func sameAddress(a, b *endpointsPodState) bool {
	if a == b {
		return true
	}
	p, q := a.pod, b.pod
	return a.ipOf() == b.ipOf() && p.NodeName == q.NodeName && p.UID == q.UID && p.Name == q.Name &&
		p.Namespace == q.Namespace && a.hostname() == b.hostname()
}

// compareStates orders states as their addresses sort (LessEndpointAddress): by IP, then by
// the target reference's UID, which every state has.
func compareStates(a, b *endpointsPodState) int {
	if c := strings.Compare(a.ipOf(), b.ipOf()); c != 0 {
		return c
	}
	return strings.Compare(a.pod.UID, b.pod.UID)
}

// addressBytes is one address's encoded size per encoding, in 4 bytes each: an address is
// a few strings that are each an IP or a Kubernetes name, far below 2³¹ bytes encoded. It
// makes a pod state 80 bytes instead of 96.
type addressBytes [numEncodings]int32

func compactBytes(b ByEncoding) addressBytes {
	var c addressBytes
	for i, v := range b {
		c[i] = int32(v)
	}
	return c
}

// full returns the sizes as ByEncoding.
func (c addressBytes) full() ByEncoding {
	var b ByEncoding
	for i, v := range c {
		b[i] = int64(v)
	}
	return b
}

// endpointsPortState is one distinct resolved port (or the no-ports sentinel) with the sorted
// addresses that offer it.
type endpointsPortState struct {
	port     EndpointsPort // its value (repackPortValueOf) is the port's identity, portID's key
	sentinel bool
	digest   [digestSize]byte
	ready    addrList
	notReady addrList
	// proxyKey is Σ proxyEntryHash over the ready addresses (0 for a port a kube-proxy
	// skips: see listed), kept as they come and go: see ProxyKey.
	proxyKey uint64
}

// listed reports whether the object lists p under its own name: a port numbered above 0.
// The others (the sentinel of a Service without ports, a port numbered 0 or less, which
// RepackSubsets drops) list their addresses in subsets without ports. A kube-proxy that
// watches Endpoints programs the listed ports only (it skips 0 too).
func (p *endpointsPortState) listed() bool { return !p.sentinel && p.port.Port > 0 }

// endpointsSignature is a distinct set of resolved ports and how many pods resolve exactly it.
// Ports offered by exactly the same signatures have identical address sets, so RepackSubsets
// would merge them into one subset.
type endpointsSignature struct {
	key     string
	portIDs []int
	pods    int
}

// endpointsSubsetLayout is one subset of the object: its ports (in hash order) and the port
// whose address lists it shares; keep is the kept count of the truncated list (-1: all).
type endpointsSubsetLayout struct {
	portIDs []int
	list    *endpointsPortState
	keep    int
	digest  [digestSize]byte
}

// endpointsKeptSubset is one subset of a truncated object as written: its ports and the pod
// states of the addresses it kept, in order. A state's address is immutable, so the same
// pointer is the same address; its readiness may have changed since, which the list it is in
// now tells.
type endpointsKeptSubset struct {
	portIDs         []int
	ready, notReady []*endpointsPodState
	// list is the port whose lists the addresses were kept from, each marked then
	// (addrList.keepFirst): while the subset is stored, their unchanged prefixes are kept's.
	list *endpointsPortState
}

// endpointsEntry records one (port, address) of the current desired state (cur) and of the
// stored object (stored), each an address and its readiness, nil when absent; mismatch counts
// the records whose two sides differ. key is an address of the record's IP and UID, which
// with port is its identity (see is): 32 bytes a record. It is one of the two sides when
// either is set (setEntry moves it), so that a record does not keep alive a pod state that
// neither side holds: while writes fail (an Endpoints object over the etcd limit) records
// stay until the next commit, and the first state of every pod changed meanwhile did.
//
// A record whose two sides are both absent says what no record says (the stored side is
// the current one), and its key is nil: it is dead, matches nothing, and the list drops it
// when it is full and half dead (entry). A pod made and deleted between two commits left
// one that kept its pod state, the pod and its name alive: a 100k-pod Service without
// truncation, whose writes all fail once it passes 12,550 addresses, peaked 22 MB higher
// (106.4 MB) with the pods its rolling update had replaced.
type endpointsEntry struct {
	key, cur, stored      *endpointsPodState
	port                  int32
	curReady, storedReady bool
}

// is reports whether e is the record of (port, ps's IP and UID); ip is ps.ipOf(), which the
// caller derives once for a scan of the records.
func (e *endpointsEntry) is(port int, ps *endpointsPodState, ip string) bool {
	return int(e.port) == port && (e.key == ps || e.key != nil && e.key.pod.UID == ps.pod.UID && e.key.ipOf() == ip)
}

// endpointsEntryScan is the number of records up to which entry scans s.entries.
const endpointsEntryScan = 16

// equal reports whether e's two sides are equal: both absent, or the same address and
// readiness.
func (e *endpointsEntry) equal() bool {
	if (e.cur == nil) != (e.stored == nil) {
		return false
	}
	if e.cur == nil {
		return true
	}
	return e.curReady == e.storedReady && sameAddress(e.cur, e.stored)
}

// NewServiceEndpoints returns the incremental builder for svc, with no pods and no stored
// Endpoints object. addressBytes gives an address's encoded size per encoding (the size model's
// EndpointAddressSize); SubsetSizes sums it. It takes the address by value: a pointer passed
// through a function value escapes, and made each new address a heap object (110,000 of
// them in many-services).
func NewServiceEndpoints(svc *Service, opts EndpointsOptions, addressBytes func(EndpointAddress) ByEncoding) *ServiceEndpoints {
	return &ServiceEndpoints{svc: svc, truncate: opts.Truncate, buf: opts.Buffers, addressBytes: addressBytes}
}

// SetService replaces the Service (also after DeleteService: a Service recreated with the same
// name). A change of ports, families, cluster IP or publishNotReadyAddresses recomputes every
// pod's contribution (O(pods)); label changes are O(1). Pass a new *Service for a changed
// one, as an informer does: a change to those fields made in place to the Service the
// builder holds goes unseen (the old and the new are one object). Only its labels may be
// changed in place.
func (s *ServiceEndpoints) SetService(svc *Service) {
	old := s.svc
	s.svc = svc
	s.deleted = false
	s.labelsValid = false // also when the same *Service was modified in place
	if s.rare != nil && old != nil && old.Namespace != svc.Namespace {
		s.rare.byName = nil // keyed without the old namespace (podKey): rebuilt when needed
	}
	if old != nil && !endpointsInputsChanged(old, svc) {
		return
	}
	// In the order of the pods' keys, which the index by name once gave.
	slots := slices.Clone(s.pods)
	slices.SortFunc(slots, func(a, b *endpointsPodSlot) int {
		return strings.Compare(s.podKey(a.pod.Namespace, a.pod.Name), s.podKey(b.pod.Namespace, b.pod.Name))
	})
	for _, slot := range slots {
		s.removeContribution(slot.ps, slot.ready)
		slot.ps, slot.ready = s.podState(slot.pod, slot.ps)
		s.addContribution(slot.ps, slot.ready)
	}
}

// endpointsInputsChanged reports whether a Service change can change any pod's address.
func endpointsInputsChanged(a, b *Service) bool {
	if a.Name != b.Name || a.Namespace != b.Namespace || a.ClusterIP != b.ClusterIP ||
		a.PublishNotReadyAddresses != b.PublishNotReadyAddresses ||
		!slices.Equal(a.IPFamilies, b.IPFamilies) || len(a.Ports) != len(b.Ports) {
		return true
	}
	for i := range a.Ports {
		pa, pb := &a.Ports[i], &b.Ports[i]
		if pa.Name != pb.Name || pa.Protocol != pb.Protocol || pa.TargetPort != pb.TargetPort ||
			(pa.AppProtocol == nil) != (pb.AppProtocol == nil) ||
			(pa.AppProtocol != nil && *pa.AppProtocol != *pb.AppProtocol) {
			return true
		}
	}
	return false
}

// DeleteService records that the Service is gone: the next Sync returns EndpointsDelete.
func (s *ServiceEndpoints) DeleteService() { s.deleted = true }

// endpointsPodSlot holds a kept pod and what it contributes. The slot stays the same while
// the pod is kept (an EndpointsPodRef points at it); deleting the pod empties it.
type endpointsPodSlot struct {
	// ps is what the pod contributes, nil while it contributes nothing (no IP yet, no port
	// resolved, terminal or terminating): a pod is so on its way in and out, and a state
	// made for each step was two allocations of 80 bytes a pod.
	ps  *endpointsPodState
	pod *Pod  // the pod as last set, which ps was built from; nil once the slot is emptied
	at  int32 // position in ServiceEndpoints.pods
	// ready is whether ps's address is ready (meaningless while ps is nil): the list of
	// each port it is in.
	ready bool
}

// SetPod adds or replaces a pod (keyed by namespace/name).
func (s *ServiceEndpoints) SetPod(pod *Pod) { s.setPod(pod) }

func (s *ServiceEndpoints) setPod(pod *Pod) *endpointsPodSlot {
	slot := s.index()[s.podKey(pod.Namespace, pod.Name)]
	if slot == nil {
		return s.addPod(pod)
	}
	s.setSlot(slot, pod)
	return slot
}

// Pods returns the number of pods s keeps.
func (s *ServiceEndpoints) Pods() int { return len(s.pods) }

// addPod keeps a pod that s does not have.
func (s *ServiceEndpoints) addPod(pod *Pod) *endpointsPodSlot {
	slot := &endpointsPodSlot{at: int32(len(s.pods))}
	s.pods = append(s.pods, slot)
	if byName := s.byName(); byName != nil {
		byName[s.podKey(pod.Namespace, pod.Name)] = slot
	}
	s.setSlot(slot, pod)
	return slot
}

// index returns the pods' slots by podKey, made now if need be.
func (s *ServiceEndpoints) index() map[string]*endpointsPodSlot {
	r := s.rareFields()
	if r.byName == nil {
		r.byName = make(map[string]*endpointsPodSlot, len(s.pods))
		for _, slot := range s.pods {
			r.byName[s.podKey(slot.pod.Namespace, slot.pod.Name)] = slot
		}
	}
	return r.byName
}

// setSlot is SetPod once the pod's slot is found.
func (s *ServiceEndpoints) setSlot(slot *endpointsPodSlot, pod *Pod) {
	old, oldPod, oldReady := slot.ps, slot.pod, slot.ready
	slot.pod = pod
	ip, addressable := s.addressIP(pod, old)
	if old == nil && !addressable {
		return // it contributed nothing and still does not (no IP yet, or terminal)
	}
	if addressable && s.keepsAddress(old, oldPod, pod, ip) {
		// The update keeps the pod's address (most do: a readiness change, or nothing
		// this controller reads), so the state is kept rather than replaced: the records
		// that refer to it hold its readiness apart (endpointsEntry), and a truncated
		// object's kept states are compared by the list they are in. It derives its
		// address from the new pod, which has the same, so that it does not keep the old
		// one alive.
		old.pod, old.ip = pod, ip
		if ready := s.svc.PublishNotReadyAddresses || pod.Ready; ready != oldReady {
			s.removeContribution(old, oldReady)
			slot.ready = ready
			s.addContribution(old, ready)
		}
		return
	}
	// Pods are never modified once passed: no copy needed.
	slot.ps, slot.ready = s.podStateAt(pod, old, ip, addressable)
	s.removeContribution(old, oldReady)
	s.addContribution(slot.ps, slot.ready)
}

// EndpointsPodRef remembers where a ServiceEndpoints keeps a pod, as PodRef does for
// ServiceSlices: a caller that keeps one per pod and passes it with the pod's changes
// (SetPodRef, DeletePodRef) saves the lookup by name, and the index by name. The zero
// EndpointsPodRef is empty, and an empty ref says the pod is new to the builder, under the
// same rules as PodRef's (see there); a ref that is not empty but is another builder's,
// another pod's or a deleted pod's falls back to the lookup by name. As a PodRef, it is the
// slot alone: a slot is its builder's when it is in that one's list at its position.
type EndpointsPodRef struct {
	slot *endpointsPodSlot
}

// slotOf returns the slot ref names for a pod of that namespace and name, or nil.
func (s *ServiceEndpoints) slotOf(ref *EndpointsPodRef, namespace, name string) *endpointsPodSlot {
	if slot := ref.slot; slot != nil && slot.pod != nil && int(slot.at) < len(s.pods) && s.pods[slot.at] == slot &&
		slot.pod.Name == name && slot.pod.Namespace == namespace {
		return slot
	}
	return nil
}

// SetPodRef is SetPod that uses and updates ref.
func (s *ServiceEndpoints) SetPodRef(ref *EndpointsPodRef, pod *Pod) {
	if slot := s.slotOf(ref, pod.Namespace, pod.Name); slot != nil {
		s.setSlot(slot, pod)
		return
	}
	if ref.slot == nil && s.byName() == nil {
		*ref = EndpointsPodRef{slot: s.addPod(pod)} // an empty ref: a new pod
		return
	}
	*ref = EndpointsPodRef{slot: s.setPod(pod)}
}

// DeletePodRef is DeletePodOf for the pod of ref, last set with that namespace and name.
func (s *ServiceEndpoints) DeletePodRef(ref *EndpointsPodRef, namespace, name string) {
	slot := s.slotOf(ref, namespace, name)
	*ref = EndpointsPodRef{}
	if slot == nil {
		s.DeletePodOf(namespace, name)
		return
	}
	s.dropSlot(slot)
}

// podKey is the pods map's key: the name for a pod of the Service's namespace (the common
// case builds no key string), else "namespace/name".
func (s *ServiceEndpoints) podKey(namespace, name string) string {
	if namespace == s.svc.Namespace {
		return name
	}
	return namespace + "/" + name
}

// DeletePod removes the pod with key "namespace/name", if present.
func (s *ServiceEndpoints) DeletePod(podKey string) {
	if ns, name, ok := strings.Cut(podKey, "/"); ok {
		podKey = s.podKey(ns, name)
	}
	s.deletePod(podKey)
}

// DeletePodOf is DeletePod for the pod namespace/name, without building its key.
func (s *ServiceEndpoints) DeletePodOf(namespace, name string) {
	s.deletePod(s.podKey(namespace, name))
}

func (s *ServiceEndpoints) deletePod(podKey string) {
	if slot := s.index()[podKey]; slot != nil {
		s.dropSlot(slot)
	}
}

// dropSlot removes the pod kept in slot.
func (s *ServiceEndpoints) dropSlot(slot *endpointsPodSlot) {
	if byName := s.byName(); byName != nil {
		delete(byName, s.podKey(slot.pod.Namespace, slot.pod.Name))
	}
	last := len(s.pods) - 1
	moved := s.pods[last]
	s.pods[slot.at], moved.at = moved, slot.at
	s.pods[last] = nil
	s.pods = s.pods[:last]
	s.removeContribution(slot.ps, slot.ready)
	slot.ps, slot.pod, slot.ready = nil, nil, false
}

// podState computes what a pod contributes under the current Service, and whether its
// address is ready: nil for nothing. prev, if not nil, is the pod's previous state, whose
// sizes are reused when its address is the same.
// upstream: endpoints_controller.go syncService, the per-pod loop.
func (s *ServiceEndpoints) podState(pod *Pod, prev *endpointsPodState) (ps *endpointsPodState, ready bool) {
	ip, ok := s.addressIP(pod, nil)
	return s.podStateAt(pod, prev, ip, ok)
}

// podStateAt is podState given addressIP's answer for the pod (ip, addressable).
func (s *ServiceEndpoints) podStateAt(pod *Pod, prev *endpointsPodState, ip int32, addressable bool) (ps *endpointsPodState, ready bool) {
	if !addressable {
		return nil, false
	}
	svc := s.svc
	ps = &endpointsPodState{pod: pod, ip: ip, named: legacyPodHostname(svc, pod) != ""}
	ready = svc.PublishNotReadyAddresses || pod.Ready
	var buf [8]int // signature keeps a copy of a new list: this one can stay on the stack
	portIDs := buf[:0]
	if len(svc.Ports) == 0 {
		if svc.ClusterIP == "None" {
			portIDs = append(portIDs, s.portID(EndpointsPort{Port: -1}, true))
		}
	} else {
		for i := range svc.Ports {
			sp := &svc.Ports[i]
			port, ok := resolveTargetPortForEndpoints(pod, sp)
			if !ok {
				continue
			}
			portIDs = append(portIDs, s.portID(EndpointsPort{Name: sp.Name, Port: port, Protocol: sp.Protocol, AppProtocol: sp.AppProtocol}, false))
		}
		slices.Sort(portIDs)
		portIDs = slices.Compact(portIDs)
	}
	if len(portIDs) == 0 {
		return nil, false
	}
	ps.sig = s.signature(portIDs)
	if prev != nil && sameAddress(prev, ps) {
		ps.bytes = prev.bytes // most updates change the readiness, not the address
	} else {
		ps.bytes = compactBytes(s.addressBytes(ps.address()))
	}
	return ps, ready
}

// keepsAddress reports whether podState(pod, old) would be old with another readiness at
// most, old being the state of oldPod (nil: no state), given that pod is addressable with
// its IP at ip (addressIP): pod has oldPod's identity (so the same spec fields, hence the
// same ports, hostname and target reference, under the Service old was built for: a Service
// change rebuilds every state), and it is still on old's node with old's IP.
func (s *ServiceEndpoints) keepsAddress(old *endpointsPodState, oldPod, pod *Pod, ip int32) bool {
	if old == nil || pod.PodIdentity != oldPod.PodIdentity || pod.NodeName != old.pod.NodeName {
		return false
	}
	return sameIPList(pod.IPs, old.pod.IPs) || podIPAt(pod, ip) == old.ipOf()
}

// addressIP is where pod's address's IP is (legacyPodIPIndex), and whether it has an
// address at all: it is included (legacyPodIncluded) and has an IP of the Service's family.
// When its IPs are the very list of the pod old was built from (a pod version that kept
// its predecessor's status.podIPs), whose IPs never change, it has old's IP: old was built
// under the current Service, as every state is (a Service change rebuilds them all). An
// update that keeps a pod's IPs, as most do, so finds them without parsing the IPs again.
func (s *ServiceEndpoints) addressIP(pod *Pod, old *endpointsPodState) (int32, bool) {
	if !legacyPodIncluded(pod, s.svc.PublishNotReadyAddresses) {
		return 0, false
	}
	if old != nil && sameIPList(pod.IPs, old.pod.IPs) {
		return old.ip, true
	}
	return legacyPodIPIndex(s.svc, pod)
}

// sameIPList reports whether a and b are the same list, not just equal: the same length
// and array. (A pod included has at least one IP.)
func sameIPList(a, b []string) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

// endpointsPortScan is the number of distinct ports up to which portID scans s.ports.
const endpointsPortScan = 8

// portID returns the dense id of a port value, creating its state on first use.
func (s *ServiceEndpoints) portID(p EndpointsPort, sentinel bool) int {
	v := repackPortValueOf(&p)
	index := s.portIndex()
	if index == nil {
		// A Service has a few distinct ports: a scan costs less than a map, which is built
		// only past endpointsPortScan of them.
		for id, st := range s.ports {
			if repackPortValueOf(&st.port) == v {
				return id
			}
		}
	} else if id, ok := index[v]; ok {
		return id
	}
	id := len(s.ports)
	st := &endpointsPortState{port: p, sentinel: sentinel}
	if p.AppProtocol != nil {
		st.port.AppProtocol = Ptr(*p.AppProtocol)
	}
	h := newFNV128() // the dump hashed as it is written, not built as a string first
	writePortHashDump(&h, &st.port, true)
	st.digest = h.sum()
	s.ports = append(s.ports, st)
	switch {
	case index != nil:
		index[v] = id
	case len(s.ports) > endpointsPortScan:
		index = make(map[repackPortValue]int, len(s.ports))
		for i, p := range s.ports {
			index[repackPortValueOf(&p.port)] = i
		}
		s.rareFields().portIndex = index
	}
	return id
}

// signature returns the signature of portIDs, making it (with a copy of portIDs) if new.
func (s *ServiceEndpoints) signature(portIDs []int) *endpointsSignature {
	index := s.sigIndex()
	if index == nil {
		for _, sig := range s.sigs {
			if slices.Equal(sig.portIDs, portIDs) {
				return sig
			}
		}
	}
	var b strings.Builder
	for _, id := range portIDs {
		b.WriteString(strconv.Itoa(id))
		b.WriteByte(',')
	}
	k := b.String()
	if sig := index[k]; sig != nil {
		return sig
	}
	sig := &endpointsSignature{key: k, portIDs: slices.Clone(portIDs)}
	s.sigs = append(s.sigs, sig)
	s.layoutValid = false
	switch {
	case index != nil:
		index[k] = sig
	case len(s.sigs) > endpointsPortScan:
		index = make(map[string]*endpointsSignature, len(s.sigs))
		for _, sig := range s.sigs {
			index[sig.key] = sig
		}
		s.rareFields().sigIndex = index
	}
	return sig
}

// dropSignature forgets a signature no pod resolves any more.
func (s *ServiceEndpoints) dropSignature(sig *endpointsSignature) {
	i := slices.Index(s.sigs, sig)
	last := len(s.sigs) - 1
	s.sigs[i], s.sigs[last] = s.sigs[last], nil
	s.sigs = s.sigs[:last]
	delete(s.sigIndex(), sig.key)
	s.layoutValid = false
}

// addContribution adds what ps contributes (nothing when nil), ready or not.
func (s *ServiceEndpoints) addContribution(ps *endpointsPodState, ready bool) {
	if ps == nil {
		return
	}
	ps.sig = s.signature(ps.sig.portIDs)
	ps.sig.pods++
	for _, id := range ps.sig.portIDs {
		p := s.ports[id]
		if ready {
			ipHash := p.ready.insert(ps, s.buf)
			if p.listed() {
				p.proxyKey += proxyPortHash(&p.port) * ipHash
			}
		} else {
			p.notReady.insert(ps, s.buf)
		}
		s.setEntry(id, ps, ready, true)
	}
}

// removeContribution removes what ps contributes (nothing when nil), as added: ready or not.
func (s *ServiceEndpoints) removeContribution(ps *endpointsPodState, ready bool) {
	if ps == nil {
		return
	}
	ps.sig.pods--
	if ps.sig.pods == 0 {
		s.dropSignature(ps.sig)
	}
	for _, id := range ps.sig.portIDs {
		p := s.ports[id]
		if ready {
			ipHash := p.ready.remove(ps, s.buf)
			if p.listed() {
				p.proxyKey -= proxyPortHash(&p.port) * ipHash
			}
		} else {
			p.notReady.remove(ps, s.buf)
		}
		s.setEntry(id, ps, ready, false)
	}
}

// setEntry records that ps's address at port, ready or not, is now present or absent in the
// desired state.
// A record not in s.entries has its stored side equal to its current side, which before this
// change is ps's address when ps is being removed, and nothing when it is being added: a
// (port, IP, UID) is contributed by one pod at most (distinct pods have distinct UIDs), and
// SetPod removes a pod's old state before adding its new one. So records are kept only from
// a change to the next commit, not for every address of the Service.
func (s *ServiceEndpoints) setEntry(port int, ps *endpointsPodState, ready, present bool) {
	e, ok := s.entry(port, ps)
	if !ok && !present {
		e.stored, e.storedReady = ps, ready
		e.cur, e.curReady = e.stored, e.storedReady
	}
	if !e.equal() {
		s.mismatch--
	}
	if present {
		e.cur, e.curReady = ps, ready
		e.key = e.cur
	} else {
		e.cur, e.curReady = nil, false
		e.key = e.stored
		if e.key == nil {
			s.killEntry(e) // it had a key: a record found or made has one
		}
	}
	if !e.equal() {
		s.mismatch++
	}
}

func endpointsBytesAdd(a *ByEncoding, b ByEncoding) {
	for i := range a {
		a[i] += b[i]
	}
}

func endpointsBytesSub(a *ByEncoding, b ByEncoding) {
	for i := range a {
		a[i] -= b[i]
	}
}

// Sync decides this sync's write, as BuildEndpoints would with the pods given so far and the
// stored object as of the last Applied. trigger is the trigger time for this sync.
// upstream: endpoints_controller.go syncService.
func (s *ServiceEndpoints) Sync(trigger Timestamp) EndpointsDecision {
	s.lastTrigger = trigger
	s.layoutOrdered, s.truncateReady = false, false
	if s.deleted {
		s.layout, s.layoutValid = s.layout[:0], false
		d := EndpointsDecision{Verb: EndpointsDelete}
		s.last = keepDecision(d)
		return d
	}
	svc := s.svc
	if svc.ExternalName || svc.Selector == nil {
		s.layout, s.layoutValid = s.layout[:0], false
		s.last = lastDecision{}
		return EndpointsDecision{}
	}
	s.buildLayout()

	var d EndpointsDecision
	for _, l := range s.layout {
		d.DesiredAddresses += l.list.ready.len()
		d.DesiredNotReadyAddresses += l.list.notReady.len()
	}
	d.Subsets, d.Addresses, d.NotReadyAddresses = len(s.layout), d.DesiredAddresses, d.DesiredNotReadyAddresses

	// upstream step 7: the skip test.
	if s.stored && (s.mismatch == 0 || s.onlyUnlistedDiffer()) &&
		labelsCorrectForEndpoints(s.storedLabels, svc.Labels) &&
		(!s.truncate || (int(s.storedCount) <= EndpointsMaxCapacity && !s.storedOverCapacity)) {
		s.commitTouched()
		s.last = keepDecision(d)
		return d
	}
	d.Verb = EndpointsUpdate
	if !s.stored {
		d.Verb = EndpointsCreate
	}
	if s.truncate && d.DesiredAddresses+d.DesiredNotReadyAddresses > EndpointsMaxCapacity {
		s.orderLayout()
		ready := make([]int, len(s.layout))
		notReady := make([]int, len(s.layout))
		for i, l := range s.layout {
			ready[i], notReady[i] = l.list.ready.len(), l.list.notReady.len()
		}
		_, truncateReady, keep := truncateKeepCounts(ready, notReady)
		s.truncateReady = truncateReady
		d.Truncated = true
		d.Addresses, d.NotReadyAddresses = 0, 0
		for i := range s.layout {
			s.layout[i].keep = keep[i]
			if truncateReady {
				d.Addresses += keep[i]
			} else {
				d.Addresses += ready[i]
				d.NotReadyAddresses += keep[i]
			}
		}
	}
	s.last = keepDecision(d)
	return d
}

// onlyUnlistedDiffer reports whether the records whose sides differ are all of ports the
// object does not list (numbered 0 or less, which group addresses but are dropped, or the
// sentinel of a Service without ports), and the subsets without ports they make (of
// addresses no listed port shares) are those of the stored object, or of the stored object
// repacked (which merges its subsets without ports into one, or into the listed subset of
// the same addresses): the object a write would make is then the stored one as upstream
// compares them, and the write is skipped. A Service given such a port beside its others,
// or whose only ports are such and change, or a Service without ports given one numbered
// 0, is one. Services without such a port answer at once.
// upstream: endpoints_controller.go syncService (endpointSubsetsEqualIgnoreResourceVersion
// of the subsets, or of RepackSubsets of the stored ones); pkg/api/v1/endpoints/util.go
// RepackSubsets (if port.Port > 0; a subset without ports under the sentinel port).
func (s *ServiceEndpoints) onlyUnlistedDiffer() bool {
	if !s.hasUnlistedPort() {
		return false
	}
	for i := range s.entries {
		if e := &s.entries[i]; !e.equal() && s.ports[e.port].listed() {
			return false
		}
	}
	var stored [][]string
	if s.rare != nil {
		stored = s.rare.storedUnlisted
	}
	now := s.unlistedSubsets()
	if slices.EqualFunc(now, stored, slices.Equal) {
		return true
	}
	if len(stored) < 2 {
		return false // repacked, the stored subsets are the same
	}
	var union []string
	for _, sub := range stored {
		union = append(union, sub...)
	}
	slices.Sort(union)
	union = slices.Compact(union)
	for i := range s.layout {
		if l := &s.layout[i]; len(l.portIDs) > 0 && slices.Equal(addressKeys(l.list), union) {
			return len(now) == 0 // merged into the listed subset of the same addresses
		}
	}
	return len(now) == 1 && slices.Equal(now[0], union)
}

// hasUnlistedPort reports whether a port of s (of any Service version) is not listed under
// its own name (listed): the sentinel, or a port numbered 0 or less.
func (s *ServiceEndpoints) hasUnlistedPort() bool {
	return slices.ContainsFunc(s.ports, func(p *endpointsPortState) bool { return !p.listed() })
}

// unlistedSubsets returns the subsets the layout makes of ports none of which is listed
// (listed without ports), each as its addresses' keys (addressKeys), in a fixed order. Nil
// when there is none.
func (s *ServiceEndpoints) unlistedSubsets() [][]string {
	var subs [][]string
	for i := range s.layout {
		if l := &s.layout[i]; len(l.portIDs) == 0 {
			subs = append(subs, addressKeys(l.list))
		}
	}
	slices.SortFunc(subs, slices.Compare)
	return subs
}

// addressKeys returns a key of each address of p, ready and not, sorted: what an address
// of the object is made of, and its readiness.
func addressKeys(p *endpointsPortState) []string {
	var keys []string
	for k, list := range []*addrList{&p.ready, &p.notReady} {
		list.each(-1, func(_ int, ps *endpointsPodState) {
			var b strings.Builder
			for _, f := range [...]string{ps.ipOf(), ps.hostname(), ps.pod.NodeName, ps.pod.Namespace, ps.pod.Name, ps.pod.UID} {
				b.WriteString(f)
				b.WriteByte(' ')
			}
			b.WriteByte("rn"[k])
			keys = append(keys, b.String())
		})
	}
	slices.Sort(keys)
	return keys
}

// buildLayout groups the ports into subsets: ports offered by the same set of pod signatures
// have identical address sets (upstream: util.go RepackSubsets merges them). The order is a
// fixed one (by the first port's digest); orderLayout puts it into upstream's hash order.
// The subsets depend only on the set of signatures: while it is unchanged, the last sync's
// are reused.
func (s *ServiceEndpoints) buildLayout() {
	if s.layoutValid {
		for i := range s.layout {
			s.layout[i].keep = -1
		}
		if len(s.layout) > 1 { // orderLayout may have reordered them
			s.sortLayout()
		}
		return
	}
	s.layoutValid = true
	s.layout = s.layout[:0]
	sigs := slices.Clone(s.sigs)
	slices.SortFunc(sigs, func(a, b *endpointsSignature) int { return strings.Compare(a.key, b.key) })
	membership := map[int][]int{}
	var portIDs []int
	for si, sig := range sigs {
		for _, id := range sig.portIDs {
			if _, ok := membership[id]; !ok {
				portIDs = append(portIDs, id)
			}
			membership[id] = append(membership[id], si)
		}
	}
	slices.Sort(portIDs)
	classIndex := map[string]int{}
	for _, id := range portIDs {
		var b strings.Builder
		for _, si := range membership[id] {
			b.WriteString(strconv.Itoa(si))
			b.WriteByte(',')
		}
		ci, ok := classIndex[b.String()]
		if !ok {
			ci = len(s.layout)
			classIndex[b.String()] = ci
			s.layout = append(s.layout, endpointsSubsetLayout{list: s.ports[id], keep: -1})
		}
		if st := s.ports[id]; !st.sentinel && st.port.Port > 0 {
			// A port numbered 0 or less groups addresses as the sentinel does, and is not
			// written either. upstream: pkg/api/v1/endpoints/util.go RepackSubsets
			// (if port.Port > 0).
			s.layout[ci].portIDs = append(s.layout[ci].portIDs, id)
		}
	}
	for i := range s.layout {
		slices.SortFunc(s.layout[i].portIDs, func(a, b int) int {
			return slices.Compare(s.ports[a].digest[:], s.ports[b].digest[:])
		})
	}
	s.sortLayout()
}

// sortLayout puts the subsets into buildLayout's fixed order.
func (s *ServiceEndpoints) sortLayout() {
	slices.SortFunc(s.layout, func(a, b endpointsSubsetLayout) int {
		return slices.Compare(s.layoutKey(&a), s.layoutKey(&b))
	})
}

func (s *ServiceEndpoints) layoutKey(l *endpointsSubsetLayout) []byte {
	if len(l.portIDs) == 0 {
		return nil
	}
	return s.ports[l.portIDs[0]].digest[:]
}

// orderLayout sorts the subsets by the fnv128a hash of their dump, as upstream's SortSubsets does. It
// costs O(addresses) and is needed only when there are two or more subsets.
func (s *ServiceEndpoints) orderLayout() {
	if s.layoutOrdered {
		return
	}
	s.layoutOrdered = true
	if len(s.layout) < 2 {
		return
	}
	for i := range s.layout {
		l := &s.layout[i]
		h := newFNV128()
		w := &h
		w.WriteString("(v1.EndpointSubset){Addresses:([]v1.EndpointAddress)")
		endpointsWriteListDump(w, &l.list.ready)
		w.WriteString(" NotReadyAddresses:([]v1.EndpointAddress)")
		endpointsWriteListDump(w, &l.list.notReady)
		w.WriteString(" Ports:([]v1.EndpointPort)")
		if len(l.portIDs) == 0 {
			w.WriteString("<nil>")
		} else {
			w.WriteString("[")
			for j, id := range l.portIDs {
				if j > 0 {
					w.WriteString(" ")
				}
				writePortHashDump(w, &s.ports[id].port, false)
			}
			w.WriteString("]")
		}
		w.WriteString("}")
		l.digest = h.sum()
	}
	slices.SortStableFunc(s.layout, func(a, b endpointsSubsetLayout) int {
		return slices.Compare(a.digest[:], b.digest[:])
	})
}

// endpointsWriteListDump writes a list as RepackSubsets leaves it: empty lists are nil.
func endpointsWriteListDump(w hashDumpWriter, list *addrList) {
	if list.len() == 0 {
		w.WriteString("<nil>")
		return
	}
	w.WriteString("[")
	list.each(-1, func(i int, ps *endpointsPodState) {
		if i > 0 {
			w.WriteString(" ")
		}
		a := ps.address()
		writeAddressHashDump(w, &a)
	})
	w.WriteString("]")
}

// Applied tells the builder that the write the last Sync decided has been stored (for a
// delete: the object is gone). Without it, the next Sync compares against the older object.
func (s *ServiceEndpoints) Applied() {
	switch s.last.Verb() {
	case EndpointsCreate, EndpointsUpdate:
		s.stored = true
		s.storedLabels = s.endpointsLabels()
		s.storedOverCapacity = s.last.truncated
		s.storedCount = s.last.addresses + s.last.notReady
		s.storedTrigger = s.lastTrigger
		if kept := s.keptSubsets(s.storedTruncated()); kept != nil || s.rare != nil {
			s.rareFields().storedTruncated = kept
		}
		if s.hasUnlistedPort() || s.rare != nil {
			s.rareFields().storedUnlisted = s.unlistedSubsets()
		}
		s.commitTouched()
	case EndpointsDelete:
		s.stored = false
		s.storedLabels = nil
		s.storedOverCapacity = false
		s.storedCount = 0
		s.storedTrigger = 0
		if s.rare != nil {
			s.rare.storedTruncated = nil
		}
		// Nothing is stored: every current address differs from the stored side. Records
		// not kept had equal sides, so they are made from the pods' current contributions.
		for _, slot := range s.pods {
			ps := slot.ps
			if ps == nil {
				continue
			}
			for _, id := range ps.sig.portIDs {
				if e, ok := s.entry(id, ps); !ok {
					e.cur, e.curReady = ps, slot.ready
					e.stored, e.storedReady = e.cur, e.curReady
				}
			}
		}
		s.mismatch = 0
		for i := range s.entries {
			e := &s.entries[i]
			e.stored, e.storedReady = nil, false
			if e.cur == nil && e.key != nil {
				s.killEntry(e) // both sides absent
			}
			if !e.equal() {
				s.mismatch++
			}
		}
	}
}

// keptSubsets returns the subsets of the last Sync's object when it was truncated (nil when
// it was not): the ports and the kept addresses' pod states, in the object's order. They are
// made in the array of stored, the subsets stored before.
func (s *ServiceEndpoints) keptSubsets(stored []endpointsKeptSubset) []endpointsKeptSubset {
	if !s.last.truncated {
		return nil
	}
	out := stored[:0]
	s.orderLayout()
	for i, l := range s.layout {
		readyK, notReadyK := -1, l.keep
		if s.truncateReady {
			readyK, notReadyK = l.keep, 0
		}
		// Reuse the buffers of the previous stored object: a truncated Service is re-PUT on
		// every sync.
		var k endpointsKeptSubset
		if i < cap(out) {
			k = out[:i+1][i]
		}
		// Only a stored subset's lists were marked for it (the array past len(stored) holds
		// older subsets).
		fromMark := i < len(stored) && k.list == l.list
		k.portIDs = slices.Clone(l.portIDs)
		k.ready = l.list.ready.keepFirst(k.ready, fromMark, readyK)
		k.notReady = l.list.notReady.keepFirst(k.notReady, fromMark, notReadyK)
		k.list = l.list
		out = append(out, k)
	}
	return out
}

// TruncatedUnchanged reports, after a Sync that decided a truncated write, whether the
// truncated object equals the stored one in labels, annotations and subsets: an over-capacity
// object is re-PUT on every sync (the skip test never passes), and the API server drops a PUT
// whose encoding equals the stored one's (etcd3 store GuaranteedUpdate). It is what comparing
// the encodings of Object() and the stored object would say — an empty address list and an
// absent one encode alike — in O(kept addresses) pointer comparisons and without building
// either object.
func (s *ServiceEndpoints) TruncatedUnchanged() bool {
	stored := s.storedTruncated()
	if !s.last.truncated || stored == nil || s.lastTrigger != s.storedTrigger ||
		!labelsEqualForEndpoints(s.storedLabels, s.svc) || len(s.layout) != len(stored) {
		return false
	}
	s.orderLayout()
	for i, l := range s.layout {
		st := &stored[i]
		if !slices.Equal(l.portIDs, st.portIDs) {
			return false
		}
		readyK, notReadyK := -1, l.keep
		if s.truncateReady {
			readyK, notReadyK = l.keep, 0
		}
		var knownReady, knownNotReady int
		if st.list == l.list {
			// Beyond the kept entries an unchanged prefix tells nothing (firstSameAs
			// compares as many).
			knownReady = l.list.ready.unchangedPrefixUpTo(len(st.ready))
			knownNotReady = l.list.notReady.unchangedPrefixUpTo(len(st.notReady))
		}
		if !l.list.ready.firstSameAs(readyK, st.ready, knownReady) ||
			!l.list.notReady.firstSameAs(notReadyK, st.notReady, knownNotReady) {
			return false
		}
	}
	return true
}

// Decision returns the last Sync's decision.
func (s *ServiceEndpoints) Decision() EndpointsDecision { return s.last.decision() }

// Object materialises the Endpoints object of the last Sync: the object to write for a
// create or update; for a skipped sync, the stored object (its labels and trigger annotation);
// nil after a delete or a no-op for a Service the controller ignores. Its metadata carries
// name, namespace, labels and annotations only (the engine owns resourceVersion, uid, …).
// It costs O(addresses).
func (s *ServiceEndpoints) Object() *Endpoints {
	if s.deleted || s.svc.ExternalName || s.svc.Selector == nil || (s.last.Verb() == "" && !s.stored) {
		return nil
	}
	s.orderLayout()
	obj := &Endpoints{ObjectMeta: ObjectMeta{Name: s.svc.Name, Namespace: s.svc.Namespace}}
	trigger := s.lastTrigger
	if s.last.Verb() == "" {
		obj.Labels = s.storedLabels.Clone()
		trigger = s.storedTrigger
	} else {
		obj.Labels = legacyEndpointsLabels(s.svc)
	}
	if !trigger.IsZero() {
		obj.Annotations.Set(AnnotationTriggerTime, trigger.RFC3339Nano())
	}
	if s.last.truncated {
		obj.Annotations.Set(AnnotationOverCapacity, truncatedAnnotationValue)
	}
	obj.Subsets = make([]EndpointSubset, 0, len(s.layout))
	for _, l := range s.layout {
		var sub EndpointSubset
		readyK, notReadyK := -1, -1
		if s.last.truncated {
			if s.truncateReady {
				readyK, notReadyK = l.keep, 0
			} else {
				notReadyK = l.keep
			}
		}
		sub.Addresses = endpointsMaterialise(&l.list.ready, readyK)
		sub.NotReadyAddresses = endpointsMaterialise(&l.list.notReady, notReadyK)
		if s.last.truncated && sub.NotReadyAddresses == nil && (s.truncateReady || l.list.notReady.len() > 0) {
			// upstream truncates a list to an empty, non-nil one: all not-ready lists when
			// it truncates the ready ones, else each not-ready list whose share is 0 (as
			// with exactly 1000 ready addresses). On the wire it is the same as nil.
			sub.NotReadyAddresses = []EndpointAddress{}
		}
		for _, id := range l.portIDs {
			p := s.ports[id].port
			if p.AppProtocol != nil {
				p.AppProtocol = Ptr(*p.AppProtocol)
			}
			sub.Ports = append(sub.Ports, p)
		}
		obj.Subsets = append(obj.Subsets, sub)
	}
	return obj
}

// endpointsLabels is legacyEndpointsLabels(s.svc), made once per Service version; callers
// must not modify it.
func (s *ServiceEndpoints) endpointsLabels() StringMap {
	if !s.labelsValid {
		s.labels, s.labelsValid = legacyEndpointsLabels(s.svc), true
	}
	return s.labels
}

// endpointsMaterialise copies the first k addresses of list (all when k < 0); nil if none.
func endpointsMaterialise(list *addrList, k int) []EndpointAddress {
	if k < 0 || k > list.len() {
		k = list.len()
	}
	if k == 0 {
		return nil
	}
	out := make([]EndpointAddress, k)
	list.each(k, func(i int, ps *endpointsPodState) {
		a := ps.address()
		a.NodeName = Ptr(*a.NodeName)
		r := *a.TargetRef
		a.TargetRef = &r
		out[i] = a
	})
	return out
}

// SubsetSizes summarises the object of the last Sync per subset (counts, ports and Σ address
// bytes per list) for the size model. When the object was truncated the subsets are in the
// object's order; otherwise they are in a fixed order that may differ from the object's, which
// the encoded size does not depend on. Cost: O(subsets × ports), plus O(min(k, n−k)) per
// truncated list.
func (s *ServiceEndpoints) SubsetSizes() []SubsetSize {
	if s.last.Verb() == EndpointsDelete || s.svc.ExternalName || s.svc.Selector == nil {
		return nil
	}
	return s.AppendSubsetSizes(make([]SubsetSize, 0, len(s.layout)))
}

// AppendSubsetSizes appends what SubsetSizes returns to out, for a caller that reuses one
// list across syncs: the Ports lists in out's spare capacity are reused too (so a caller
// must not keep them).
func (s *ServiceEndpoints) AppendSubsetSizes(out []SubsetSize) []SubsetSize {
	if s.last.Verb() == EndpointsDelete || s.svc.ExternalName || s.svc.Selector == nil {
		return out
	}
	for _, l := range s.layout {
		var ports []EndpointsPort
		if len(out) < cap(out) {
			ports = out[:len(out)+1][len(out)].Ports[:0]
		}
		ss := SubsetSize{
			Addresses:            l.list.ready.len(),
			NotReadyAddresses:    l.list.notReady.len(),
			AddressBytes:         l.list.ready.bytes,
			NotReadyAddressBytes: l.list.notReady.bytes,
		}
		if s.last.truncated {
			if s.truncateReady {
				ss.Addresses, ss.AddressBytes = l.keep, l.list.ready.prefixBytes(l.keep)
				ss.NotReadyAddresses, ss.NotReadyAddressBytes = 0, ByEncoding{}
			} else {
				ss.NotReadyAddresses, ss.NotReadyAddressBytes = l.keep, l.list.notReady.prefixBytes(l.keep)
			}
		}
		for _, id := range l.portIDs {
			ports = append(ports, s.ports[id].port)
		}
		if len(ports) > 0 {
			ss.Ports = ports
		}
		out = append(out, ss)
	}
	return out
}
