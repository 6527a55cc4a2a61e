package model

import (
	"fmt"
	"strconv"
)

// Realistic controller-written objects with the naming of UPSTREAM.md §7.3: namespace
// "default", service "web", slice "web-abcde", pods "web-7d4b9c8f6d-NNNNN", nodes
// "ip-10-0-X-Y.ec2.internal", zone "us-east-1a", the trigger-time annotation and one
// kube-controller-manager managedFields entry.

const (
	realisticServiceUID = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"
	realisticTime       = Timestamp(1704067200 * 1e9) // 2024-01-01T00:00:00Z
)

// realisticUID is a deterministic 36-character UID for item i.
func realisticUID(i int) string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", i*2654435761&0xffffffff, i&0xffff, i&0xfff, (i>>12)&0xfff, i)
}

func realisticPodName(i int) string { return fmt.Sprintf("web-7d4b9c8f6d-%05d", i) }

// realisticNodeName spreads endpoints over nodes ip-10-0-X-Y.ec2.internal.
func realisticNodeName(i int) string {
	n := i / 10
	return "ip-10-0-" + strconv.Itoa(n/250) + "-" + strconv.Itoa(n%250+1) + ".ec2.internal"
}

// realisticIPv4 is pod i's IP, 10.1.X.Y.
func realisticIPv4(i int) string {
	return "10.1." + strconv.Itoa(i/250) + "." + strconv.Itoa(i%250+1)
}

func realisticSliceMeta() ObjectMeta {
	return ObjectMeta{
		Name:              "web-abcde",
		GenerateName:      "web-",
		Namespace:         "default",
		UID:               realisticUID(1 << 20),
		ResourceVersion:   "123456",
		Generation:        1,
		CreationTimestamp: realisticTime,
		Labels: StringMapOf(map[string]string{
			LabelServiceName: "web",
			LabelManagedBy:   ControllerName,
		}),
		Annotations: StringMapOf(map[string]string{AnnotationTriggerTime: realisticTime.RFC3339Nano()}),
		OwnerReferences: []OwnerReference{{
			APIVersion: "v1", Kind: "Service", Name: "web", UID: realisticServiceUID,
			Controller: Ptr(true), BlockOwnerDeletion: Ptr(true),
		}},
	}
}

func realisticEndpoint(i int, zoneHints bool) Endpoint {
	ep := Endpoint{
		Addresses:  []string{realisticIPv4(i)},
		Conditions: EndpointConditions{Ready: ConditionTrue, Serving: ConditionTrue, Terminating: ConditionFalse},
		TargetRef:  &ObjectReference{Kind: "Pod", Namespace: "default", Name: realisticPodName(i), UID: realisticUID(i)},
		NodeName:   Ptr(realisticNodeName(i)),
		Zone:       Ptr("us-east-1a"),
	}
	if zoneHints {
		ep.Hints = &EndpointHints{ForZones: []string{"us-east-1a"}}
	}
	return ep
}

// realisticSlice is a controller-written slice with n endpoints and one port "http" 8080/TCP.
func realisticSlice(n int, zoneHints, managedFields bool) *EndpointSlice {
	s := &EndpointSlice{
		ObjectMeta:  realisticSliceMeta(),
		AddressType: AddressTypeIPv4,
		Ports:       []EndpointPort{{Name: Ptr("http"), Protocol: Ptr(ProtocolTCP), Port: Ptr(int32(8080))}},
	}
	for i := range n {
		s.Endpoints = append(s.Endpoints, realisticEndpoint(i, zoneHints))
	}
	if managedFields {
		s.ManagedFields = []ManagedFieldsEntry{EndpointSliceManagedFields(s, realisticTime)}
	}
	return s
}

// realisticEndpoints is a controller-written legacy Endpoints object with n ready addresses
// in one subset with one port "http" 8080/TCP.
func realisticEndpoints(n int, managedFields bool) *Endpoints {
	e := &Endpoints{ObjectMeta: ObjectMeta{
		Name:              "web",
		Namespace:         "default",
		UID:               realisticUID(1 << 21),
		ResourceVersion:   "123456",
		CreationTimestamp: realisticTime,
		Labels:            StringMapOf(map[string]string{"app": "web"}),
		Annotations:       StringMapOf(map[string]string{AnnotationTriggerTime: realisticTime.RFC3339Nano()}),
	}}
	if n > 0 {
		sub := EndpointSubset{Ports: []EndpointsPort{{Name: "http", Port: 8080, Protocol: ProtocolTCP}}}
		for i := range n {
			sub.Addresses = append(sub.Addresses, EndpointAddress{
				IP:        realisticIPv4(i),
				NodeName:  Ptr(realisticNodeName(i)),
				TargetRef: &ObjectReference{Kind: "Pod", Namespace: "default", Name: realisticPodName(i), UID: realisticUID(i)},
			})
		}
		e.Subsets = []EndpointSubset{sub}
	}
	if managedFields {
		e.ManagedFields = []ManagedFieldsEntry{EndpointsManagedFields(e, realisticTime)}
	}
	return e
}
