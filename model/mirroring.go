package model

import (
	"slices"
	"strconv"
	"strings"
)

// lastAppliedConfigAnnotation is kubectl's annotation, never mirrored to slices.
// upstream: k8s.io/api core/v1 LastAppliedConfigAnnotation.
const lastAppliedConfigAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// ShouldMirror reports whether the mirroring controller mirrors ep into EndpointSlices: ep
// exists, is not labelled endpointslice.kubernetes.io/skip-mirror=true, carries no
// leader-election annotation, and its Service exists (svc != nil) without a selector. When it
// returns false the controller deletes every slice it mirrored for ep.
// upstream: endpointslicemirroring_controller.go syncEndpoints, shouldMirror; utils.go
// skipMirror, hasLeaderElection.
func ShouldMirror(ep *Endpoints, svc *Service) bool {
	if ep == nil || ep.Labels.Get(LabelSkipMirror) == "true" {
		return false
	}
	if ep.Annotations.Has(AnnotationLeaderElection) {
		return false
	}
	return svc != nil && svc.Selector == nil
}

// MirroringPlan is one mirroring sync's writes, in upstream's call order (creates, updates,
// deletes), plus the skipped-address counts upstream reports as events and metrics.
type MirroringPlan struct {
	ToCreate []*EndpointSlice
	ToUpdate []*EndpointSlice
	ToDelete []*EndpointSlice
	// AddressesSkipped counts addresses not mirrored: over the per-subset cap or invalid.
	AddressesSkipped int
	// InvalidAddresses counts addresses whose IP does not parse (event InvalidIPAddress).
	InvalidAddresses int
}

// MirrorEndpoints is one sync of the EndpointSlice mirroring controller for a user-written
// Endpoints object. existing are the slices it mirrored earlier (labels service-name = ep.Name
// and managed-by = the mirroring controller), in lister order; maxPerSubset is
// --mirroring-max-endpoints-per-subset (MirroringMaxEndpointsPerSubset by default). The whole
// desired state is rebuilt: user-written Endpoints are small.
//
// Slices to create have GenerateName set and Name empty; the caller assigns names.
//
// upstream: pkg/controller/endpointslicemirroring/reconciler.go reconcile,
// reconcileByPortMapping, finalize; reconciler_helpers.go; utils.go.
//
// Known deviations: endpoints inside a slice are in insertion order (upstream pops them from a
// set in random order, so this is one order upstream can produce); recycling pairs creates and
// deletes of one address type by position, without upstream's removeSlice quirk (it matches by
// name, and all creates have an empty name, so with creates of both address types upstream can
// drop the wrong one and then fail the sync; in a differential run about 1% of mirrored
// objects had a layout for which every one of 96 upstream syncs failed so, retried forever,
// where this writes the result upstream means to). `make upstream-mirroring` runs it against
// upstream's controller, live (model/testdata/upstream).
func MirrorEndpoints(ep *Endpoints, svc *Service, existing []*EndpointSlice, maxPerSubset int) MirroringPlan {
	var plan MirroringPlan
	if !ShouldMirror(ep, svc) {
		plan.ToDelete = append(plan.ToDelete, existing...)
		return plan
	}

	type desiredKey struct {
		ports    []EndpointPort
		addrType AddressType
		set      *mirrorEndpointSet
	}
	desired := map[string]*desiredKey{}
	var keys []string
	initKey := func(ports []EndpointPort, t AddressType) *desiredKey {
		k := mirrorKey(t, ports)
		d := desired[k]
		if d == nil {
			d = &desiredKey{addrType: t, set: newMirrorEndpointSet()}
			desired[k] = d
			keys = append(keys, k)
		}
		d.ports = ports
		return d
	}

	// upstream: reconcile, steps 1–4.
	// upstream repacks the object as decoded: ports with an appProtocol are never merged.
	for _, subset := range RepackSubsets(asDecoded(ep.Subsets)) {
		ports := mirrorPorts(subset.Ports)
		byType := map[AddressType]*desiredKey{
			AddressTypeIPv4: initKey(ports, AddressTypeIPv4),
			AddressTypeIPv6: initKey(ports, AddressTypeIPv6),
		}
		total := len(subset.Addresses) + len(subset.NotReadyAddresses)
		added := 0
		for _, list := range []struct {
			addrs []EndpointAddress
			ready bool
		}{{subset.Addresses, true}, {subset.NotReadyAddresses, false}} {
			for i := range list.addrs {
				if added >= maxPerSubset {
					break
				}
				e, t, ok := mirrorAddressToEndpoint(&list.addrs[i], list.ready)
				if !ok {
					plan.InvalidAddresses++
					continue
				}
				byType[t].set.insert(e)
				added++
			}
		}
		plan.AddressesSkipped += total - added
	}

	existingByKey := map[string][]*EndpointSlice{}
	var existingKeys []string
	for _, s := range existing {
		k := mirrorKey(s.AddressType, s.Ports)
		if _, ok := existingByKey[k]; !ok {
			existingKeys = append(existingKeys, k)
		}
		existingByKey[k] = append(existingByKey[k], s)
	}

	// upstream: reconcileByPortMapping, for each desired key (in a fixed order here).
	slices.Sort(keys)
	for _, k := range keys {
		d := desired[k]
		have := existingByKey[k]
		if d.set.len() == 0 {
			plan.ToDelete = append(plan.ToDelete, have...)
			continue
		}
		var name string
		if len(have) > 0 {
			plan.ToDelete = append(plan.ToDelete, have[1:]...)
			first := have[0]
			added, updated, removed := mirrorTotalChanges(first, d.set)
			if added == 0 && updated == 0 && removed == 0 &&
				ep.Labels.Equal(withoutKeys(first.Labels, LabelManagedBy, LabelServiceName)) &&
				withoutKeys(ep.Annotations, AnnotationTriggerTime, lastAppliedConfigAnnotation).Equal(first.Annotations) &&
				!mirrorOwnerChanged(ep, first) {
				continue
			}
			name = first.Name
		}
		s := newMirroredSlice(ep, d.ports, d.addrType, name)
		for _, e := range d.set.items {
			if len(s.Endpoints) >= maxPerSubset {
				break
			}
			s.Endpoints = append(s.Endpoints, *e)
		}
		if name != "" {
			plan.ToUpdate = append(plan.ToUpdate, s)
		} else {
			plan.ToCreate = append(plan.ToCreate, s)
		}
	}
	// Keys no longer desired: delete their slices.
	for _, k := range existingKeys {
		if _, ok := desired[k]; !ok {
			plan.ToDelete = append(plan.ToDelete, existingByKey[k]...)
		}
	}

	// upstream: reconciler_helpers.go recycleSlices — per address type, the i-th create takes
	// over the i-th delete's name and becomes an update.
	for _, t := range []AddressType{AddressTypeIPv4, AddressTypeIPv6} {
		var creates, deletes []int
		for i, s := range plan.ToCreate {
			if s != nil && s.AddressType == t {
				creates = append(creates, i)
			}
		}
		for i, s := range plan.ToDelete {
			if s != nil && s.AddressType == t {
				deletes = append(deletes, i)
			}
		}
		n := min(len(creates), len(deletes))
		for i := range n {
			c := plan.ToCreate[creates[i]]
			c.Name = plan.ToDelete[deletes[i]].Name
			plan.ToUpdate = append(plan.ToUpdate, c)
			plan.ToCreate[creates[i]] = nil
			plan.ToDelete[deletes[i]] = nil
		}
	}
	plan.ToCreate = slices.DeleteFunc(plan.ToCreate, func(s *EndpointSlice) bool { return s == nil })
	plan.ToDelete = slices.DeleteFunc(plan.ToDelete, func(s *EndpointSlice) bool { return s == nil })
	// upstream: finalize also skips creates while the Endpoints has a deletionTimestamp; the
	// model does not track one on Endpoints.
	return plan
}

// newMirroredSlice builds the slice for one key: all Endpoints labels with service-name and
// managed-by overwritten, all annotations but the trigger time and kubectl's last-applied,
// and a controller reference to the Endpoints.
// upstream: endpointslicemirroring/utils.go newEndpointSlice.
func newMirroredSlice(ep *Endpoints, ports []EndpointPort, t AddressType, name string) *EndpointSlice {
	labels := ep.Labels.Clone()
	labels.Set(LabelServiceName, ep.Name)
	labels.Set(LabelManagedBy, MirroringControllerName)
	annotations := withoutKeys(ep.Annotations, AnnotationTriggerTime, lastAppliedConfigAnnotation)
	s := &EndpointSlice{
		ObjectMeta: ObjectMeta{
			Namespace:   ep.Namespace,
			Labels:      labels,
			Annotations: annotations,
			OwnerReferences: []OwnerReference{{
				APIVersion: "v1", Kind: "Endpoints", Name: ep.Name, UID: ep.UID,
				Controller: Ptr(true), BlockOwnerDeletion: Ptr(true),
			}},
		},
		AddressType: t,
		Ports:       ports,
		Endpoints:   []Endpoint{},
	}
	if name == "" {
		s.GenerateName = mirrorSlicePrefix(ep.Name)
	} else {
		s.Name = name
	}
	return s
}

// mirrorOwnerChanged reports whether slice names ep as its Endpoints owner by another UID: the
// Endpoints was deleted and made again, and the slice is rewritten to name the new one.
// upstream: endpointslicemirroring/reconciler.go needRebuildExistingSlices.
func mirrorOwnerChanged(ep *Endpoints, slice *EndpointSlice) bool {
	for _, o := range slice.OwnerReferences {
		if o.Kind == "Endpoints" && o.Name == ep.Name && o.UID != ep.UID {
			return true
		}
	}
	return false
}

// mirrorSlicePrefix is the generateName of the slices mirrored for an Endpoints object.
// upstream: endpointslicemirroring/utils.go getEndpointSlicePrefix (as the EndpointSlice
// controller's).
func mirrorSlicePrefix(name string) string { return endpointSlicePrefix(name) }

// mirrorPorts converts Endpoints ports to slice ports (name always set, even ""), in the order
// upstream writes them: sorted as NewPortMapKey sorts the list it keys (sortPortsAsUpstream).
// upstream: endpointslicemirroring/utils.go epPortsToEpsPorts; reconciler_helpers.go initPorts.
func mirrorPorts(in []EndpointsPort) []EndpointPort {
	out := []EndpointPort{}
	for _, p := range in {
		ep := EndpointPort{Name: Ptr(p.Name), Port: Ptr(p.Port), Protocol: Ptr(p.Protocol)}
		if p.AppProtocol != nil {
			ep.AppProtocol = Ptr(*p.AppProtocol)
		}
		out = append(out, ep)
	}
	sortPortsAsUpstream(out)
	return out
}

// mirrorAddressToEndpoint converts one Endpoints address; ok is false for an invalid IP.
// The IP is parsed and re-stringified; the address type comes from the parsed IP.
// upstream: endpointslicemirroring/utils.go addressToEndpoint.
func mirrorAddressToEndpoint(a *EndpointAddress, ready bool) (*Endpoint, AddressType, bool) {
	ip := parseIPSloppy(a.IP)
	if ip == nil {
		return nil, "", false
	}
	t := AddressTypeIPv4
	if ip.To4() == nil {
		t = AddressTypeIPv6
	}
	e := &Endpoint{Addresses: []string{ip.String()}, Conditions: EndpointConditions{Ready: ConditionOf(ready)}}
	if a.TargetRef != nil {
		r := *a.TargetRef
		e.TargetRef = &r
	}
	if a.NodeName != nil {
		e.NodeName = Ptr(*a.NodeName)
	}
	if a.Hostname != "" {
		e.Hostname = Ptr(a.Hostname)
	}
	return e, t, true
}

// mirrorKey is a canonical "<addressType>-<port set>" key: it partitions port lists exactly as
// upstream's hashed addrTypePortMapKey does (order-insensitive, value-sensitive).
func mirrorKey(t AddressType, ports []EndpointPort) string {
	enc := make([]string, 0, len(ports))
	for i := range ports {
		p := &ports[i]
		var b strings.Builder
		for _, s := range []*string{p.Name, (*string)(p.Protocol), p.AppProtocol} {
			if s == nil {
				b.WriteString("\x00nil")
			} else {
				b.WriteString(strconv.Quote(*s))
			}
			b.WriteByte('|')
		}
		if p.Port == nil {
			b.WriteString("nil")
		} else {
			b.WriteString(strconv.Itoa(int(*p.Port)))
		}
		enc = append(enc, b.String())
	}
	slices.Sort(enc)
	return string(t) + "-" + strings.Join(enc, ",")
}

// mirrorEndpointSet is upstream's EndpointSet keyed by endpoint identity (hashEndpoint: sorted
// addresses, hostname, targetRef namespace and name, a missing targetRef being one with empty
// ones); a later insert replaces an earlier one in place.
// upstream: k8s.io/endpointslice util/endpointset.go.
type mirrorEndpointSet struct {
	index map[endpointHash]int
	items []*Endpoint
}

func newMirrorEndpointSet() *mirrorEndpointSet {
	return &mirrorEndpointSet{index: map[endpointHash]int{}}
}

func (s *mirrorEndpointSet) len() int { return len(s.items) }

func (s *mirrorEndpointSet) insert(e *Endpoint) {
	k := hashEndpoint(e)
	if i, ok := s.index[k]; ok {
		s.items[i] = e
		return
	}
	s.index[k] = len(s.items)
	s.items = append(s.items, e)
}

func (s *mirrorEndpointSet) get(e *Endpoint) *Endpoint {
	if i, ok := s.index[hashEndpoint(e)]; ok {
		return s.items[i]
	}
	return nil
}

// mirrorTotalChanges counts what writing the desired set over slice would add, update and
// remove. upstream: endpointslicemirroring/reconciler.go totalChanges.
func mirrorTotalChanges(slice *EndpointSlice, desired *mirrorEndpointSet) (added, updated, removed int) {
	matches := 0
	for i := range slice.Endpoints {
		got := desired.get(&slice.Endpoints[i])
		if got == nil {
			removed++
			continue
		}
		matches++
		if mirrorEndpointChanged(got, &slice.Endpoints[i]) {
			updated++
		}
	}
	return desired.len() - matches, updated, removed
}

// mirrorEndpointChanged is the negation of upstream's EndpointsEqualBeyondHash: nodeName,
// zone, the three conditions and targetRef.
// upstream: k8s.io/endpointslice util/controller_utils.go EndpointsEqualBeyondHash.
func mirrorEndpointChanged(a, b *Endpoint) bool {
	strChanged := func(x, y *string) bool { return (x == nil) != (y == nil) || (x != nil && *x != *y) }
	return strChanged(a.NodeName, b.NodeName) || strChanged(a.Zone, b.Zone) ||
		a.Conditions != b.Conditions ||
		(a.TargetRef == nil) != (b.TargetRef == nil) ||
		(a.TargetRef != nil && *a.TargetRef != *b.TargetRef)
}

// withoutKeys returns a copy of m without keys (semantic: nil and empty are equal).
// upstream: endpointslicemirroring/utils.go cloneAndRemoveKeys.
func withoutKeys(m StringMap, keys ...string) StringMap {
	out := m
	for _, k := range keys {
		out.Delete(k) // copies when it deletes: m is not changed
	}
	return out
}
