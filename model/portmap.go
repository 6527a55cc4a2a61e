package model

import (
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

// endpointPorts builds the EndpointPorts of pod for svc, in Service port order, leaving out
// ports whose named targetPort does not resolve. The result is never nil.
// upstream: utils.go getEndpointPorts
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
	return ports
}
