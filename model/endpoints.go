package model

import (
	"net/netip"
	"slices"
	"strings"
)

// Endpoints write verbs, as returned in EndpointsDecision.Verb. The empty string means "no write".
const (
	EndpointsCreate = "create"
	EndpointsUpdate = "update"
	EndpointsDelete = "delete"
)

// EndpointsOptions configures the legacy Endpoints controller model.
type EndpointsOptions struct {
	// Truncate enables today's upstream behaviour (Kubernetes 1.22+): at most
	// EndpointsMaxCapacity addresses, the over-capacity annotation, and the capacity check in
	// the skip test. False models the controller before the over-capacity work (before 1.21):
	// no cap, no annotation and no capacity check — the behaviour the published 5 GB figures
	// describe.
	Truncate bool
	// Buffers, when set, are shared by every ServiceEndpoints made with these options
	// (NewServiceEndpoints), which must then not be used at the same time; nil: none.
	// BuildEndpoints ignores them.
	Buffers *EndpointsBuffers
}

// EndpointsDecision is what one sync of the legacy Endpoints controller decides for a Service.
type EndpointsDecision struct {
	// Verb is EndpointsCreate, EndpointsUpdate, EndpointsDelete or "" (no write).
	Verb string
	// Truncated is true when the object to write was cut to EndpointsMaxCapacity addresses
	// (and so carries the over-capacity annotation).
	Truncated bool
	// Subsets, Addresses and NotReadyAddresses count the object to write, after truncation.
	Subsets           int
	Addresses         int
	NotReadyAddresses int
	// DesiredAddresses and DesiredNotReadyAddresses count the subsets before truncation.
	DesiredAddresses         int
	DesiredNotReadyAddresses int
}

// EndpointsPlan is the full builder's result: the decision plus the object to write.
type EndpointsPlan struct {
	EndpointsDecision
	// Object is the object to POST or PUT; for a delete it is the current object (nil if none);
	// for no write it is nil.
	Object *Endpoints
}

// BuildEndpoints is one sync of the legacy Endpoints controller for svc, rebuilding the desired
// object from every pod: the straightforward twin of ServiceEndpoints. pods are the pods the
// Service's selector matches in its namespace, in lister order; current is the stored
// Endpoints (nil: not found); trigger is the trigger time computed for this sync (zero: none).
// svc == nil means the Service was not found, which deletes the Endpoints.
//
// upstream: pkg/controller/endpoint/endpoints_controller.go syncService.
func BuildEndpoints(svc *Service, pods []*Pod, current *Endpoints, opts EndpointsOptions, trigger Timestamp) EndpointsPlan {
	// upstream step 1: the Service is gone; DELETE (NotFound ignored).
	if svc == nil {
		return EndpointsPlan{EndpointsDecision: EndpointsDecision{Verb: EndpointsDelete}, Object: current}
	}
	// upstream step 2: ExternalName services and services without a selector are left alone.
	if svc.ExternalName || svc.Selector == nil {
		return EndpointsPlan{}
	}

	// upstream step 4: one single-address, single-port subset per (pod, resolved port).
	subsets := []EndpointSubset{}
	for _, pod := range pods {
		if !legacyPodIncluded(pod, svc.PublishNotReadyAddresses) {
			continue
		}
		addr, ok := legacyPodAddress(svc, pod)
		if !ok {
			continue
		}
		ready := svc.PublishNotReadyAddresses || pod.Ready
		add := func(ports []EndpointsPort) {
			s := EndpointSubset{Ports: ports}
			if ready {
				s.Addresses = []EndpointAddress{addr}
			} else {
				s.NotReadyAddresses = []EndpointAddress{addr}
			}
			subsets = append(subsets, s)
		}
		if len(svc.Ports) == 0 {
			// Headless services may have no ports (ClusterIP exactly "None"); others get nothing.
			if svc.ClusterIP == "None" {
				add([]EndpointsPort{})
			}
			continue
		}
		for i := range svc.Ports {
			sp := &svc.Ports[i]
			port, ok := resolveTargetPortForEndpoints(pod, sp)
			if !ok {
				continue
			}
			add([]EndpointsPort{{Name: sp.Name, Port: port, Protocol: sp.Protocol, AppProtocol: sp.AppProtocol}})
		}
	}
	// upstream step 5.
	subsets = RepackSubsets(subsets)

	var d EndpointsDecision
	for _, s := range subsets {
		d.DesiredAddresses += len(s.Addresses)
		d.DesiredNotReadyAddresses += len(s.NotReadyAddresses)
	}

	// upstream step 6: the current object, or a stub that means "create".
	create := current == nil
	if create {
		current = &Endpoints{ObjectMeta: ObjectMeta{Name: svc.Name, Namespace: svc.Namespace, Labels: StringMapOf(svc.Labels)}}
	}

	// upstream step 7: the skip test. Stored subsets that differ are compared again once
	// repacked (as read from the API server: asDecoded): an object written under another
	// order (upstream's ports and subsets were ordered by md5 before fnv128a) or by someone
	// else is not rewritten for that alone.
	if !create &&
		(legacySubsetsEqual(current.Subsets, subsets) || legacySubsetsEqual(RepackSubsets(asDecoded(current.Subsets)), subsets)) &&
		labelsCorrectForEndpoints(current.Labels, svc.Labels) &&
		(!opts.Truncate || capacityAnnotationSetCorrectly(current.Annotations, current.Subsets)) {
		return EndpointsPlan{EndpointsDecision: EndpointsDecision{
			Subsets: len(subsets), Addresses: d.DesiredAddresses, NotReadyAddresses: d.DesiredNotReadyAddresses,
			DesiredAddresses: d.DesiredAddresses, DesiredNotReadyAddresses: d.DesiredNotReadyAddresses,
		}}
	}

	// upstream step 8: a copy of the current object with the new subsets, labels, annotations.
	obj := &Endpoints{ObjectMeta: cloneEndpointsMeta(&current.ObjectMeta), Subsets: subsets}
	obj.Labels = legacyEndpointsLabels(svc)
	if trigger.IsZero() {
		obj.Annotations.Delete(AnnotationTriggerTime)
	} else {
		obj.Annotations.Set(AnnotationTriggerTime, trigger.RFC3339Nano())
	}
	if opts.Truncate {
		if truncateEndpoints(obj) {
			d.Truncated = true
			obj.Annotations.Set(AnnotationOverCapacity, truncatedAnnotationValue)
		} else {
			obj.Annotations.Delete(AnnotationOverCapacity)
		}
	}
	d.Verb = EndpointsUpdate
	if create {
		d.Verb = EndpointsCreate
	}
	d.Subsets = len(obj.Subsets)
	for _, s := range obj.Subsets {
		d.Addresses += len(s.Addresses)
		d.NotReadyAddresses += len(s.NotReadyAddresses)
	}
	return EndpointsPlan{EndpointsDecision: d, Object: obj}
}

// legacyEndpointsLabels is the label set the Endpoints controller writes: the Service's labels,
// plus service.kubernetes.io/headless: "" for a Service without a cluster IP, else that label
// removed, and endpoints.kubernetes.io/managed-by: endpoint-controller.
// upstream: endpoints_controller.go syncService (CloneAndAddLabel/CloneAndRemoveLabel, then
// Labels[LabelManagedBy] = ControllerName).
//
// A Service without labels (most) gets one of two lists shared by every such Service (and by
// parallel runs): label lists of objects are never written through.
func legacyEndpointsLabels(svc *Service) StringMap {
	if len(svc.Labels) == 0 {
		if svc.IsHeadless() {
			return headlessEndpointsLabels
		}
		return plainEndpointsLabels
	}
	out := make(StringMap, 0, len(svc.Labels)+2)
	for k, v := range svc.Labels {
		if k != LabelHeadless && k != LabelEndpointsManagedBy {
			out = append(out, Label{Key: k, Value: v})
		}
	}
	if svc.IsHeadless() {
		out = append(out, Label{Key: LabelHeadless})
	}
	out = append(out, Label{Key: LabelEndpointsManagedBy, Value: EndpointsControllerName})
	slices.SortFunc(out, compareLabels)
	return out
}

// plainEndpointsLabels and headlessEndpointsLabels are legacyEndpointsLabels of a Service
// without labels, with and without a cluster IP.
var (
	plainEndpointsLabels    = StringMapFrom(LabelEndpointsManagedBy, EndpointsControllerName)
	headlessEndpointsLabels = StringMapFrom(LabelEndpointsManagedBy, EndpointsControllerName, LabelHeadless, "")
)

// labelsEqualForEndpoints reports whether stored equals legacyEndpointsLabels(svc), without
// building that list.
func labelsEqualForEndpoints(stored StringMap, svc *Service) bool {
	n := 1 // managed-by
	if v, ok := stored.Lookup(LabelEndpointsManagedBy); !ok || v != EndpointsControllerName {
		return false
	}
	if svc.IsHeadless() {
		n++
		if v, ok := stored.Lookup(LabelHeadless); !ok || v != "" {
			return false
		}
	}
	for k, v := range svc.Labels {
		if k == LabelHeadless || k == LabelEndpointsManagedBy {
			continue
		}
		n++
		if sv, ok := stored.Lookup(k); !ok || sv != v {
			return false
		}
	}
	return len(stored) == n
}

// labelsCorrectForEndpoints reports whether stored Endpoints labels are what the controller
// would write for a Service with svcLabels: managed-by is the Endpoints controller, and every
// other label but the headless one is the Service's, with nothing missing.
// upstream: endpoints_controller.go labelsCorrectForEndpoints.
func labelsCorrectForEndpoints(epLabels StringMap, svcLabels map[string]string) bool {
	if v, ok := epLabels.Lookup(LabelEndpointsManagedBy); !ok || v != EndpointsControllerName {
		return false
	}
	if len(svcLabels) == 0 {
		// The usual case: correct when managed-by and the headless label are all there is.
		skipped := 1
		if epLabels.Has(LabelHeadless) {
			skipped++
		}
		return len(epLabels) == skipped
	}
	skipped := 0
	for _, l := range epLabels {
		if l.Key == LabelHeadless || l.Key == LabelEndpointsManagedBy {
			skipped++
		} else if sv, ok := svcLabels[l.Key]; !ok || sv != l.Value {
			return false
		}
	}
	return len(svcLabels) == len(epLabels)-skipped
}

// legacyPodIncluded reports whether a pod may be an Endpoints address: not Succeeded or
// Failed, has an IP, and not terminating unless includeTerminating (publishNotReadyAddresses).
// upstream: k8s.io/endpointslice util/controller_utils.go ShouldPodBeInEndpoints.
func legacyPodIncluded(pod *Pod, includeTerminating bool) bool {
	if pod.Phase.Terminal() {
		return false
	}
	if len(pod.IPs) == 0 {
		return false
	}
	if !includeTerminating && pod.Terminating {
		return false
	}
	return true
}

// legacyPodAddress builds a pod's EndpointAddress for svc; ok is false when the pod has no IP
// of the Service's (first) family. The family is spec.ipFamilies[0], so Endpoints are
// single-stack even for dual-stack Services; without ipFamilies it comes from the cluster IP,
// or for a headless Service from the pod's first IP. The IP is used as the pod reports it.
// upstream: endpoints_controller.go podToEndpointAddressForService; util ShouldSetHostname.
func legacyPodAddress(svc *Service, pod *Pod) (EndpointAddress, bool) {
	ip, ok := legacyPodIP(svc, pod)
	if !ok {
		return EndpointAddress{}, false
	}
	a := EndpointAddress{
		IP:        ip,
		Hostname:  legacyPodHostname(svc, pod),
		NodeName:  Ptr(pod.NodeName),
		TargetRef: &ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
	}
	return a, true
}

// legacyPodHostname is the hostname of a pod's address: set only for a pod whose subdomain
// is the Service's name, in its namespace.
func legacyPodHostname(svc *Service, pod *Pod) string {
	if len(pod.Hostname) > 0 && pod.Subdomain == svc.Name && svc.Namespace == pod.Namespace {
		return pod.Hostname
	}
	return ""
}

// legacyPodIP is the IP of a pod's address for svc: the first of the pod's IPs of the
// Service's family; ok is false when it has none.
func legacyPodIP(svc *Service, pod *Pod) (string, bool) {
	i, ok := legacyPodIPIndex(svc, pod)
	if !ok {
		return "", false
	}
	return podIPAt(pod, i), true
}

// legacyPodIPIndex is legacyPodIP as where the IP is: podIPAt(pod, i) is the IP. i is the
// index in pod.IPs when that IP is canonical (≥ 0, the usual case), else -1 - the index.
func legacyPodIPIndex(svc *Service, pod *Pod) (i int32, ok bool) {
	wantIPv6 := false
	switch {
	case len(svc.IPFamilies) > 0:
		wantIPv6 = svc.IPFamilies[0] == IPv6
	case svc.ClusterIP != "" && svc.ClusterIP != "None":
		wantIPv6 = legacyIsIPv6String(svc.ClusterIP)
	case len(pod.IPs) > 0:
		wantIPv6 = legacyIsIPv6String(pod.IPs[0])
	}
	for j, s := range pod.IPs {
		if ip, isIPv6 := canonicalPodIP(s); wantIPv6 == isIPv6 {
			if ip != s {
				return -1 - int32(j), true
			}
			return int32(j), true
		}
	}
	return 0, false
}

// podIPAt is the IP legacyPodIPIndex found at i: pod.IPs[i], or the canonical form of
// pod.IPs[-1-i] (made again at each call: a pod IP not in canonical form is rare).
func podIPAt(pod *Pod, i int32) string {
	if i >= 0 {
		return pod.IPs[i]
	}
	ip, _ := canonicalPodIP(pod.IPs[-1-i])
	return ip
}

// canonicalPodIP returns a pod IP as upstream writes it, ParseIPSloppy(s).String() (an IP
// in an irregular form, such as "010.0.0.1" or "FD00::A", in canonical form; "<nil>" when it
// does not parse), and whether the parsed IP is IPv6 (utilnet.IsIPv6: an unparsable one is
// not). An address already canonical, the usual case, is returned as is, found so without
// allocating.
// upstream: endpoints_controller.go podToEndpointAddressForService.
func canonicalPodIP(s string) (ip string, isIPv6 bool) {
	if isCanonicalIPv4(s) {
		return s, false
	}
	if a, err := netip.ParseAddr(s); err == nil && a.Is6() && !a.Is4In6() && a.Zone() == "" {
		var buf [64]byte
		if string(a.AppendTo(buf[:0])) == s {
			return s, true // net.IP's String writes IPv6 as netip does
		}
	}
	parsed := parseIPSloppy(s)
	isIPv6 = parsed != nil && parsed.To4() == nil
	if c := parsed.String(); c != s {
		return c, isIPv6
	}
	return s, isIPv6
}

// resolveTargetPortForEndpoints resolves a Service port's targetPort against a pod: a number
// is used as-is; a name is looked up (name and protocol) in the regular containers' ports, then
// in the sidecar (restartable init) containers' ports; ok is false when nothing matches.
// upstream: k8s.io/endpointslice utils.go FindPort (the same rules as podutil.FindPort).
func resolveTargetPortForEndpoints(pod *Pod, sp *ServicePort) (int32, bool) {
	if !sp.TargetPort.IsString {
		return sp.TargetPort.IntVal, true
	}
	for _, list := range [][]ContainerPort{pod.ContainerPorts, pod.SidecarPorts} {
		for _, cp := range list {
			if cp.Name == sp.TargetPort.StrVal && cp.Protocol == sp.Protocol {
				return cp.ContainerPort, true
			}
		}
	}
	return 0, false
}

// legacyIsIPv6String reports whether s is a valid IPv6 (not IPv4) address.
// upstream: k8s.io/utils/net IsIPv6String.
func legacyIsIPv6String(s string) bool {
	if !strings.Contains(s, ":") {
		return false // parseIPSloppy gives an IPv4 address or nil
	}
	ip := parseIPSloppy(s)
	return ip != nil && ip.To4() == nil
}

// legacySubsetsEqual is apimachinery's semantic deep equality of two subset lists (nil and
// empty lists are equal; pointers compare by value); targetRef resourceVersion, which the
// model does not carry, is ignored as upstream ignores it.
// upstream: endpoints_controller.go endpointSubsetsEqualIgnoreResourceVersion.
func legacySubsetsEqual(a, b []EndpointSubset) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !legacyAddressListsEqual(a[i].Addresses, b[i].Addresses) ||
			!legacyAddressListsEqual(a[i].NotReadyAddresses, b[i].NotReadyAddresses) ||
			len(a[i].Ports) != len(b[i].Ports) {
			return false
		}
		for j := range a[i].Ports {
			if !legacyPortsEqual(&a[i].Ports[j], &b[i].Ports[j]) {
				return false
			}
		}
	}
	return true
}

func legacyAddressListsEqual(a, b []EndpointAddress) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !legacyAddressesEqual(&a[i], &b[i]) {
			return false
		}
	}
	return true
}

func legacyAddressesEqual(a, b *EndpointAddress) bool {
	if a.IP != b.IP || a.Hostname != b.Hostname {
		return false
	}
	if (a.NodeName == nil) != (b.NodeName == nil) || (a.NodeName != nil && *a.NodeName != *b.NodeName) {
		return false
	}
	if (a.TargetRef == nil) != (b.TargetRef == nil) || (a.TargetRef != nil && *a.TargetRef != *b.TargetRef) {
		return false
	}
	return true
}

func legacyPortsEqual(a, b *EndpointsPort) bool {
	return repackPortValueOf(a) == repackPortValueOf(b)
}

// cloneEndpointsMeta deep-copies object metadata (maps and lists are not shared).
func cloneEndpointsMeta(m *ObjectMeta) ObjectMeta {
	out := *m
	out.Labels = m.Labels.Clone()
	out.Annotations = m.Annotations.Clone()
	if m.OwnerReferences != nil {
		out.OwnerReferences = append([]OwnerReference(nil), m.OwnerReferences...)
	}
	if m.ManagedFields != nil {
		out.ManagedFields = append([]ManagedFieldsEntry(nil), m.ManagedFields...)
	}
	return out
}
