package model

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
)

// PortMapKey identifies a set of EndpointPorts: two port lists have the same key iff they hold
// the same multiset of (name, protocol, port, appProtocol), whatever their order.
// upstream: util/controller_utils.go NewPortMapKey (an fnv128a hash of the sorted list; this
// encoding is a readable string with the same equality semantics).
type PortMapKey string

// NewPortMapKey returns the key of ports. A nil list has the same key as an empty one.
// upstream: util/controller_utils.go NewPortMapKey
func NewPortMapKey(ports []EndpointPort) PortMapKey {
	switch len(ports) {
	case 0:
		return ""
	case 1:
		return PortMapKey(encodePort(&ports[0]))
	}
	encoded := make([]string, len(ports))
	for i := range ports {
		encoded[i] = encodePort(&ports[i])
	}
	slices.Sort(encoded)
	return PortMapKey(strings.Join(encoded, "\x01"))
}

// encodePort writes one port with presence markers, so that nil and "" differ as they do in
// upstream's deep dump.
func encodePort(p *EndpointPort) string {
	var b strings.Builder
	writeOpt := func(present bool, s string) {
		if present {
			b.WriteByte('+')
			b.WriteString(s)
		} else {
			b.WriteByte('-')
		}
		b.WriteByte(0)
	}
	writeOpt(p.Name != nil, deref(p.Name))
	if p.Protocol != nil {
		writeOpt(true, string(*p.Protocol))
	} else {
		writeOpt(false, "")
	}
	if p.Port != nil {
		writeOpt(true, strconv.Itoa(int(*p.Port)))
	} else {
		writeOpt(false, "")
	}
	writeOpt(p.AppProtocol != nil, deref(p.AppProtocol))
	return b.String()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// FindPort resolves a Service port's targetPort against a pod: a number is used as is; a name
// is looked up (name and protocol must match) in the regular containers' ports, then in the
// sidecar (restartable init) containers' ports. ok is false when a name does not resolve.
// upstream: utils.go FindPort
func FindPort(pod *Pod, svcPort *ServicePort) (port int32, ok bool) {
	if !svcPort.TargetPort.IsString {
		return svcPort.TargetPort.IntVal, true
	}
	name := svcPort.TargetPort.StrVal
	for _, cp := range pod.ContainerPorts {
		if cp.Name == name && cp.Protocol == svcPort.Protocol {
			return cp.ContainerPort, true
		}
	}
	for _, cp := range pod.SidecarPorts {
		if cp.Name == name && cp.Protocol == svcPort.Protocol {
			return cp.ContainerPort, true
		}
	}
	return 0, false
}

// sortPortsAsUpstream sorts ports as upstream's NewPortMapKey does in place, before the list is
// kept as a port map's ports and written to slices: by the fnv128a hash of each port's hash
// dump (k8s.io/utils/dump ForHash of a discovery/v1 EndpointPort). A list of one is left as is.
// upstream: k8s.io/endpointslice util/controller_utils.go NewPortMapKey, portsInOrder.
func sortPortsAsUpstream(ports []EndpointPort) {
	if len(ports) < 2 {
		return
	}
	type keyed struct {
		sum  [digestSize]byte
		port EndpointPort
	}
	var buf [8]keyed // most Services have a few ports: no allocation
	var dump [128]byte
	list := buf[:0]
	for i := range ports {
		list = append(list, keyed{sum: fnv128aSum(appendSlicePortHashDump(dump[:0], &ports[i])), port: ports[i]})
	}
	// Equal sums are equal ports (the dump holds every field): their order does not show.
	slices.SortStableFunc(list, func(a, b keyed) int { return bytes.Compare(a.sum[:], b.sum[:]) })
	for i := range list {
		ports[i] = list[i].port
	}
}

// portsInUpstreamOrder reports whether ports are in the order sortPortsAsUpstream gives.
func portsInUpstreamOrder(ports []EndpointPort) bool {
	if len(ports) < 2 {
		return true
	}
	var dump [128]byte
	var last [digestSize]byte
	for i := range ports {
		sum := fnv128aSum(appendSlicePortHashDump(dump[:0], &ports[i]))
		if i > 0 && bytes.Compare(last[:], sum[:]) > 0 {
			return false
		}
		last = sum
	}
	return true
}

// inUpstreamOrder returns s, or a copy of it with its ports, and each endpoint's addresses,
// in the order upstream's reconciler leaves them in the informer's object of a slice it
// owns: NewPortMapKey sorts the port list it keys in place, and hashEndpoint an endpoint's
// addresses (sort.Strings), so the slice's later writes (a DeepCopy updated, a copy for
// hints) carry that order. The slices the reconciler wrote are in that order already; one
// written by someone else (an import, a test) may not be.
// upstream: reconciler.go reconcileByAddressType (NewPortMapKey(existingSlice.Ports)),
// reconcileByPortMapping (desiredSet.Get(&endpoint)); util/endpointset.go hashEndpoint.
func inUpstreamOrder(s *EndpointSlice) *EndpointSlice {
	portsOK := portsInUpstreamOrder(s.Ports)
	addressesOK := true
	for i := range s.Endpoints {
		if a := s.Endpoints[i].Addresses; len(a) > 1 && !slices.IsSorted(a) {
			addressesOK = false
			break
		}
	}
	if portsOK && addressesOK {
		return s
	}
	c := *s
	if !portsOK {
		c.Ports = slices.Clone(s.Ports)
		sortPortsAsUpstream(c.Ports)
	}
	if !addressesOK {
		c.Endpoints = slices.Clone(s.Endpoints)
		for i := range c.Endpoints {
			if a := c.Endpoints[i].Addresses; len(a) > 1 && !slices.IsSorted(a) {
				c.Endpoints[i].Addresses = slices.Sorted(slices.Values(a))
			}
		}
	}
	return &c
}

// appendSlicePortHashDump appends a discovery/v1 EndpointPort as dump.ForHash prints it.
func appendSlicePortHashDump(b []byte, p *EndpointPort) []byte {
	b = append(b, "(v1.EndpointPort){Name:(*string)"...)
	b = appendOptDump(b, p.Name)
	b = append(b, " Protocol:(*v1.Protocol)"...)
	if p.Protocol == nil {
		b = append(b, "<nil>"...)
	} else {
		b = append(b, *p.Protocol...)
	}
	b = append(b, " Port:(*int32)"...)
	if p.Port == nil {
		b = append(b, "<nil>"...)
	} else {
		b = strconv.AppendInt(b, int64(*p.Port), 10)
	}
	b = append(b, " AppProtocol:(*string)"...)
	b = appendOptDump(b, p.AppProtocol)
	return append(b, '}')
}

func appendOptDump(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "<nil>"...)
	}
	return append(b, *s...)
}

// endpointPorts builds the EndpointPorts of pod for svc, leaving out ports whose named
// targetPort does not resolve, in upstream's order (sortPortsAsUpstream; Service port order
// before that). The result is never nil.
// upstream: utils.go getEndpointPorts, then reconciler.go reconcileByAddressType's
// NewPortMapKey(endpointPorts), which sorts the list it keeps for the slices.
func endpointPorts(svc *Service, pod *Pod) []EndpointPort {
	ports := make([]EndpointPort, 0, len(svc.Ports))
	for i := range svc.Ports {
		sp := &svc.Ports[i]
		num, ok := FindPort(pod, sp)
		if !ok {
			continue
		}
		ports = append(ports, EndpointPort{
			Name:        Ptr(sp.Name),
			Port:        Ptr(num),
			Protocol:    Ptr(sp.Protocol),
			AppProtocol: sp.AppProtocol,
		})
	}
	sortPortsAsUpstream(ports)
	return ports
}
