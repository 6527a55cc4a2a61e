package model

import (
	"net"
	"slices"
	"sync/atomic"
	"time"
)

// isReservedLabelKey: labels the controller owns on a slice and never copies from the Service.
// upstream: utils.go isReservedLabelKey
func isReservedLabelKey(key string) bool {
	return slices.Contains(reservedLabelKeys[:], key)
}

// reservedLabelKeys are the keys isReservedLabelKey reports.
var reservedLabelKeys = [...]string{LabelServiceName, LabelManagedBy, LabelHeadless}

// SliceLabels returns the labels a controller-written slice of svc carries: the Service's
// non-reserved labels, the headless label when it has no cluster IP, the service-name label
// and the managed-by label.
// upstream: utils.go setEndpointSliceLabels (the label map it returns)
func SliceLabels(svc *Service) StringMap {
	n := 2 // service-name and managed-by
	for k := range svc.Labels {
		if !isReservedLabelKey(k) {
			n++
		}
	}
	if svc.IsHeadless() {
		n++
	}
	out := make(StringMap, 0, n) // exactly: every Service keeps its own
	for k, v := range svc.Labels {
		if !isReservedLabelKey(k) {
			out = append(out, Label{Key: k, Value: v})
		}
	}
	if svc.IsHeadless() {
		out = append(out, Label{Key: LabelHeadless})
	}
	out = append(out, Label{Key: LabelServiceName, Value: svc.Name}, Label{Key: LabelManagedBy, Value: ControllerName})
	slices.SortFunc(out, compareLabels)
	return out
}

// labelsChanged reports whether the non-reserved labels of a slice differ from the Service's.
// upstream: utils.go setEndpointSliceLabels (the "updated" result)
func labelsChanged(sliceLabels StringMap, svc *Service) bool {
	n := 0
	for _, l := range sliceLabels {
		if isReservedLabelKey(l.Key) {
			continue
		}
		n++
		if sv, ok := svc.Labels[l.Key]; !ok || sv != l.Value {
			return true
		}
	}
	m := 0
	for k := range svc.Labels {
		if !isReservedLabelKey(k) {
			m++
		}
	}
	return n != m
}

// ownedBy: a slice is owned when an ownerReference has the Service's UID, kind Service and
// apiVersion v1. upstream: utils.go ownedBy
func ownedBy(slice *EndpointSlice, svc *Service) bool {
	for i := range slice.OwnerReferences {
		o := &slice.OwnerReferences[i]
		if o.UID == svc.UID && o.Kind == "Service" && o.APIVersion == "v1" {
			return true
		}
	}
	return false
}

// controllerRef is metav1.NewControllerRef(svc, v1 Service).
func controllerRef(svc *Service) OwnerReference {
	return OwnerReference{
		APIVersion: "v1", Kind: "Service", Name: svc.Name, UID: svc.UID,
		Controller: Ptr(true), BlockOwnerDeletion: Ptr(true),
	}
}

// endpointSlicePrefix is the generateName of a Service's slices: "<name>-" when that passes
// upstream's check for a generateName prefix (its trailing dash masked: the name's last
// character replaced by "a", a DNS subdomain), which every valid Service name does; else the
// name alone. The API server then cuts the prefix to 58 characters.
// upstream: utils.go getEndpointSlicePrefix; apimachinery validation NameIsDNSSubdomain,
// maskTrailingDash.
func endpointSlicePrefix(svcName string) string {
	if !isDNS1123Subdomain(svcName, 'a') { // an empty name is not one
		return svcName
	}
	return svcName + "-"
}

// isDNS1123Subdomain reports whether s, its last character replaced by last, is a lowercase
// RFC 1123 subdomain of at most 253 characters: dot-separated labels of [a-z0-9-], each
// starting and ending alphanumeric.
// upstream: k8s.io/apimachinery validation IsDNS1123Subdomain.
func isDNS1123Subdomain(s string, last byte) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	at := func(i int) byte {
		if i == len(s)-1 {
			return last
		}
		return s[i]
	}
	start := 0 // of the current label
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			if c := at(i); c != '.' {
				if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
					return false
				}
				continue
			}
		}
		// A label ends before i.
		if i == start || at(start) == '-' || at(i-1) == '-' {
			return false
		}
		start = i + 1
	}
	return true
}

// newEndpointSlice builds a new, unnamed slice for svc with the given ports and labels.
// upstream: utils.go newEndpointSlice
func newEndpointSlice(svc *Service, ports []EndpointPort, addressType AddressType, labels StringMap) *EndpointSlice {
	o := new(EndpointSlice)
	setNewEndpointSlice(o, svc, ports, addressType, labels, []OwnerReference{controllerRef(svc)})
	return o
}

// setNewEndpointSlice makes o what newEndpointSlice returns, with owners (the Service's
// controller reference alone) as its ownerReferences: a list that, as the labels, may be
// shared by every slice of the Service (nothing writes through it).
func setNewEndpointSlice(o *EndpointSlice, svc *Service, ports []EndpointPort, addressType AddressType, labels StringMap, owners []OwnerReference) {
	*o = EndpointSlice{
		ObjectMeta: ObjectMeta{
			GenerateName:    endpointSlicePrefix(svc.Name),
			Namespace:       svc.Namespace,
			Labels:          labels,
			OwnerReferences: owners,
		},
		AddressType: addressType,
		Ports:       ports,
		Endpoints:   []Endpoint{},
	}
}

// withTriggerTime returns annotations with the trigger-time annotation set, or removed when
// at is zero. It always returns a new list (the input is shared with stored objects).
// upstream: utils.go addtriggerTimeAnnotation
func withTriggerTime(annotations StringMap, at Timestamp) StringMap {
	out := annotations.Clone()
	if at.IsZero() {
		out.Delete(AnnotationTriggerTime)
	} else {
		out.Set(AnnotationTriggerTime, at.RFC3339Nano())
	}
	return out
}

// triggerOnly returns annotations holding only the trigger-time annotation for at (none when
// at is zero). Syncs close in time share a trigger, timestamps being whole seconds, and the
// syncs of many Services interleave: the maps are kept by second, in triggerCacheSize slots
// (a window of minutes of virtual time), and handed out again. In many-services nearly every
// trigger was made before; with one slot (the last map only) a third of them were made
// again, a map and a formatted time each. They are never written through, so the
// goroutines of parallel runs (sim plan) may share them.
func triggerOnly(at Timestamp) StringMap {
	slot := &triggerCache[uint64(at)/uint64(time.Second)%triggerCacheSize]
	if t := slot.Load(); t != nil && t.at == at {
		return t.annotations
	}
	m := withTriggerTime(nil, at)
	slot.Store(&triggerAnnotations{at: at, annotations: m})
	return m
}

// triggerTimeAnnotation returns at formatted as the trigger-time annotation's value
// (Timestamp.RFC3339Nano), shared with triggerOnly's maps: the same string is not
// formatted again for every object written with that trigger. at must not be zero.
func triggerTimeAnnotation(at Timestamp) string { return triggerOnly(at).Get(AnnotationTriggerTime) }

type triggerAnnotations struct {
	at          Timestamp
	annotations StringMap
}

// triggerCacheSize is the number of seconds triggerOnly remembers (a power of two).
const triggerCacheSize = 256

var triggerCache [triggerCacheSize]atomic.Pointer[triggerAnnotations]

// placeholderEqual reports whether slice equals the placeholder p on the fields upstream
// compares: namespace, labels (labelsEqualAsMaps: a key one lacks counts as the other's ""),
// ports, addressType and endpoints; nil and empty lists are equal. All other metadata is
// ignored, ownerReferences included: upstream's ObjectMeta equality function compares only
// namespace and labels, so its OwnerReference function is never reached, and an unowned
// placeholder left by a previous Service of the same name is kept (checked against
// upstream by TestReconcileFullMatchesUpstream, seed 69).
// upstream: reconciler.go placeholderSliceCompare
func placeholderEqual(slice, p *EndpointSlice) bool {
	if slice.Namespace != p.Namespace || slice.AddressType != p.AddressType {
		return false
	}
	if !labelsEqualAsMaps(slice.Labels, p.Labels) {
		return false
	}
	// The placeholder has no ports and no endpoints.
	return len(slice.Ports) == 0 && len(slice.Endpoints) == 0 && len(p.Ports) == 0 && len(p.Endpoints) == 0
}

// labelsEqualAsMaps reports whether a and b are equal as upstream's placeholder comparison
// sees two label maps: each checks b[k] == v for every pair of a and the other way round,
// and a Go map yields "" for a key it lacks, so a label with the empty value equals no label
// (a Service that gains or loses `canary: ""`, or the placeholder of a Service that was
// headless, keeps its `service.kubernetes.io/headless: ""`, and is not written again).
// upstream: reconciler.go placeholderSliceCompare (its ObjectMeta function)
func labelsEqualAsMaps(a, b StringMap) bool {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i].Key < b[j].Key:
			if a[i].Value != "" {
				return false
			}
			i++
		case i == len(a) || b[j].Key < a[i].Key:
			if b[j].Value != "" {
				return false
			}
			j++
		default:
			if a[i].Value != b[j].Value {
				return false
			}
			i, j = i+1, j+1
		}
	}
	return true
}

// addressTypesForService returns the address types svc supports, IPv4 first.
// upstream: utils.go getAddressTypesForService
func addressTypesForService(svc *Service) []AddressType {
	var v4, v6 bool
	for _, f := range svc.IPFamilies {
		switch f {
		case IPv4:
			v4 = true
		case IPv6:
			v6 = true
		}
	}
	if !v4 && !v6 {
		if svc.ClusterIP != "" && svc.ClusterIP != "None" {
			ip := net.ParseIP(svc.ClusterIP)
			if ip != nil && ip.To4() == nil {
				v6 = true
			} else {
				v4 = true
			}
		} else {
			v4, v6 = true, true
		}
	}
	var out []AddressType
	if v4 {
		out = append(out, AddressTypeIPv4)
	}
	if v6 {
		out = append(out, AddressTypeIPv6)
	}
	return out
}

// hintsAnnotationEnabled: the topology-aware-hints annotation (if present) or else the
// topology-mode annotation is "Auto" or "auto". upstream: utils.go hintsEnabled
func hintsAnnotationEnabled(annotations map[string]string) bool {
	v, ok := annotations[AnnotationTopologyHints]
	if !ok {
		v, ok = annotations[AnnotationTopologyMode]
		if !ok {
			return false
		}
	}
	return v == "Auto" || v == "auto"
}
