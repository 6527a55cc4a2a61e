package model

import (
	"net"
	"slices"
	"strconv"
	"strings"
)

// endpointHash is an endpoint's identity: its sorted addresses, hostname and targetRef
// namespace/name. UID, node, zone, conditions and hints are not part of it.
// upstream: util/endpointset.go hashEndpoint (an fnv128a hash; this is the readable string).
type endpointHash string

// hashEndpoint returns ep's identity. ep.Addresses must already be sorted (every endpoint
// this package builds is); upstream sorts them in place here.
// upstream: util/endpointset.go hashEndpoint
func hashEndpoint(ep *Endpoint) endpointHash {
	var b strings.Builder
	addrs := ep.Addresses
	if !slices.IsSorted(addrs) {
		addrs = slices.Sorted(slices.Values(addrs))
	}
	for _, a := range addrs {
		b.WriteString(a)
		b.WriteByte(1)
	}
	b.WriteByte(0)
	if ep.Hostname != nil {
		b.WriteString(*ep.Hostname)
	}
	b.WriteByte(0)
	if ep.TargetRef != nil {
		b.WriteString(ep.TargetRef.Namespace)
		b.WriteByte(0)
		b.WriteString(ep.TargetRef.Name)
	} else {
		b.WriteByte(0)
	}
	return endpointHash(b.String())
}

// EndpointsEqualBeyondHash reports whether two endpoints with the same identity also agree on
// nodeName, zone, the three conditions and targetRef (ignoring nothing else: hints are not
// compared). nil and a value differ; nil and nil are equal.
// upstream: util/controller_utils.go EndpointsEqualBeyondHash
func EndpointsEqualBeyondHash(a, b *Endpoint) bool {
	if strPtrChanged(a.NodeName, b.NodeName) || strPtrChanged(a.Zone, b.Zone) {
		return false
	}
	if boolPtrChanged(a.Conditions.Ready, b.Conditions.Ready) ||
		boolPtrChanged(a.Conditions.Serving, b.Conditions.Serving) ||
		boolPtrChanged(a.Conditions.Terminating, b.Conditions.Terminating) {
		return false
	}
	if (a.TargetRef == nil) != (b.TargetRef == nil) {
		return false
	}
	return a.TargetRef == nil || *a.TargetRef == *b.TargetRef
}

func strPtrChanged(a, b *string) bool {
	return (a == nil) != (b == nil) || (a != nil && *a != *b)
}

func boolPtrChanged(a, b *bool) bool {
	return (a == nil) != (b == nil) || (a != nil && *a != *b)
}

// shouldPodBeInEndpoints: terminal pods and pods without an IP are left out; terminating pods
// are kept. upstream: util/controller_utils.go ShouldPodBeInEndpoints(pod, true)
func shouldPodBeInEndpoints(pod *Pod) bool {
	if pod.Phase == PodSucceeded || pod.Phase == PodFailed {
		return false
	}
	return len(pod.IPs) > 0
}

// shouldSetHostname: upstream: util/controller_utils.go ShouldSetHostname
func shouldSetHostname(pod *Pod, svc *Service) bool {
	return pod.Hostname != "" && pod.Subdomain == svc.Name && svc.Namespace == pod.Namespace
}

// parseIPSloppy parses an IP, accepting IPv4 octets with leading zeros as upstream's
// k8s.io/utils/net ParseIPSloppy does. It returns nil for garbage.
func parseIPSloppy(s string) net.IP {
	if ip := net.ParseIP(s); ip != nil {
		return ip
	}
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return nil
	}
	var o [4]byte
	for i, p := range parts {
		if p == "" || len(p) > 3 {
			return nil
		}
		v, err := strconv.ParseUint(p, 10, 8)
		if err != nil {
			return nil
		}
		o[i] = byte(v)
	}
	return net.IPv4(o[0], o[1], o[2], o[3])
}

// endpointAddresses returns the pod IPs of one family, canonicalised, sorted.
// upstream: utils.go getEndpointAddresses (and the in-place sort of hashEndpoint)
func endpointAddresses(pod *Pod, addressType AddressType) []string {
	var addrs []string
	for _, s := range pod.IPs {
		ip := parseIPSloppy(s)
		isV6 := ip != nil && ip.To4() == nil
		if isV6 == (addressType == AddressTypeIPv6) {
			addrs = append(addrs, ip.String())
		}
	}
	if len(addrs) > 1 {
		slices.Sort(addrs)
	}
	return addrs
}

// podToEndpoint builds the endpoint of pod for one address family. node may be nil.
// upstream: utils.go podToEndpoint
func podToEndpoint(pod *Pod, node *Node, svc *Service, addressType AddressType) Endpoint {
	serving := pod.Ready
	terminating := pod.Terminating
	ready := svc.PublishNotReadyAddresses || (serving && !terminating)
	ep := Endpoint{
		Addresses: endpointAddresses(pod, addressType),
		Conditions: EndpointConditions{
			Ready:       &ready,
			Serving:     &serving,
			Terminating: &terminating,
		},
		TargetRef: &ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
	}
	if pod.NodeName != "" {
		ep.NodeName = Ptr(pod.NodeName)
	}
	if node != nil && node.Zone != "" {
		ep.Zone = Ptr(node.Zone)
	}
	if shouldSetHostname(pod, svc) {
		ep.Hostname = Ptr(pod.Hostname)
	}
	return ep
}

// endpointReady: upstream: topologycache/utils.go EndpointReady
func endpointReady(ep *Endpoint) bool {
	return ep.Conditions.Ready != nil && *ep.Conditions.Ready
}
