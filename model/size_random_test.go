package model

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Random EndpointSlice and Endpoints objects for the differential tests: every field the
// model carries, present and absent, nil and empty lists, IPv4 and IPv6, short and long
// names, and strings that JSON must escape.

type objectGen struct{ r *rand.Rand }

func newObjectGen(seed uint64) *objectGen {
	return &objectGen{r: rand.New(rand.NewPCG(seed, 0x5122))}
}

func (g *objectGen) chance(p float64) bool { return g.r.Float64() < p }

// awkward are fragments that exercise JSON escaping and multi-byte runes.
var awkward = []string{
	"<", ">", "&", `"`, `\`, "\n", "\t", "\r", "\b", "\f", "\x00", "\x1f", "\x7f",
	"\u2028", "\u2029", "\xff", "\xe2\x80", "ü", "日本", "😀", "\ufffd", "a/b", "-", ".",
}

// name returns a DNS-ish name, sometimes long, sometimes with awkward characters.
func (g *objectGen) name(prefix string) string {
	switch {
	case g.chance(0.05):
		return ""
	case g.chance(0.1):
		var b strings.Builder
		for range 1 + g.r.IntN(6) {
			b.WriteString(awkward[g.r.IntN(len(awkward))])
			b.WriteString(strconv.Itoa(g.r.IntN(100)))
		}
		return prefix + b.String()
	case g.chance(0.1):
		return prefix + strings.Repeat("x", g.r.IntN(260))
	default:
		return prefix + strconv.Itoa(g.r.IntN(1e6))
	}
}

func (g *objectGen) optString(prefix string, p float64) *string {
	if !g.chance(p) {
		return nil
	}
	return Ptr(g.name(prefix))
}

// optCondition is an endpoint condition: unset, true or false, a third each.
func (g *objectGen) optCondition() Condition { return ConditionFromPtr(g.optBool()) }

func (g *objectGen) optBool() *bool {
	switch g.r.IntN(3) {
	case 0:
		return nil
	case 1:
		return Ptr(true)
	default:
		return Ptr(false)
	}
}

func (g *objectGen) ip(family AddressType) string {
	if family == AddressTypeIPv6 {
		return fmt.Sprintf("fd00:%x::%x:%x", g.r.IntN(1<<16), g.r.IntN(1<<16), g.r.IntN(1<<16))
	}
	return fmt.Sprintf("10.%d.%d.%d", g.r.IntN(256), g.r.IntN(256), g.r.IntN(256))
}

func (g *objectGen) uid() string {
	if g.chance(0.1) {
		return ""
	}
	return realisticUID(g.r.IntN(1 << 30))
}

func (g *objectGen) timestamp() Timestamp {
	switch {
	case g.chance(0.2):
		return 0
	case g.chance(0.05):
		return Timestamp(-g.r.Int64N(1 << 61)) // before 1970: a negative varint
	default:
		return Timestamp(g.r.Int64N(4e18))
	}
}

func (g *objectGen) objectRef() *ObjectReference {
	if !g.chance(0.7) {
		return nil
	}
	return &ObjectReference{Kind: "Pod", Namespace: g.name("ns"), Name: g.name("pod-"), UID: g.uid()}
}

func (g *objectGen) stringMap(keys []string, n int) map[string]string {
	if n == 0 {
		if g.chance(0.5) {
			return map[string]string{}
		}
		return nil
	}
	m := make(map[string]string, n)
	for range n {
		k := keys[g.r.IntN(len(keys))]
		if g.chance(0.3) {
			k = g.name("k")
		}
		m[k] = g.name("")
	}
	return m
}

var labelKeys = []string{LabelServiceName, LabelManagedBy, LabelHeadless, "app", "app.kubernetes.io/name", "tier"}

var annotationKeys = []string{AnnotationTriggerTime, AnnotationOverCapacity, "example.com/note"}

// meta returns random metadata; managedFields are random raw entries or the helper's.
func (g *objectGen) meta() ObjectMeta {
	m := ObjectMeta{
		Name:              g.name("obj-"),
		GenerateName:      g.name("gen-"),
		Namespace:         g.name("ns"),
		UID:               g.uid(),
		CreationTimestamp: g.timestamp(),
		Labels:            StringMapOf(g.stringMap(labelKeys, g.r.IntN(6))),
		Annotations:       StringMapOf(g.stringMap(annotationKeys, g.r.IntN(3))),
	}
	if g.chance(0.8) {
		m.ResourceVersion = strconv.FormatUint(g.r.Uint64N(1<<40), 10)
	}
	switch g.r.IntN(4) {
	case 0:
	case 1:
		m.Generation = -g.r.Int64N(1 << 40)
	default:
		m.Generation = g.r.Int64N(1 << 40)
	}
	for range g.r.IntN(3) {
		m.OwnerReferences = append(m.OwnerReferences, OwnerReference{
			APIVersion: "v1", Kind: "Service", Name: g.name("svc"), UID: g.uid(),
			Controller: g.optBool(), BlockOwnerDeletion: g.optBool(),
		})
	}
	for range g.r.IntN(3) {
		e := ManagedFieldsEntry{
			Manager: g.name("mgr"), Operation: "Update", APIVersion: g.name("v"),
			Time: g.timestamp(), FieldsType: "FieldsV1",
		}
		if g.chance(0.7) {
			e.FieldsV1 = `{"f:metadata":{"f:labels":{".":{},"f:a<b>&c":{}}}, "f:x": {"` + "\u2028 \\\"" + `": {}} }`
		}
		m.ManagedFields = append(m.ManagedFields, e)
	}
	return m
}

func (g *objectGen) endpoint(family AddressType) Endpoint {
	ep := Endpoint{
		Conditions: EndpointConditions{Ready: g.optCondition(), Serving: g.optCondition(), Terminating: g.optCondition()},
		Hostname:   g.optString("host-", 0.2),
		TargetRef:  g.objectRef(),
		NodeName:   g.optString("ip-10-0-", 0.7),
		Zone:       g.optString("zone-", 0.6),
	}
	switch n := g.r.IntN(8); {
	case n == 0:
		// nil addresses
	case n == 1:
		ep.Addresses = []string{}
	case n == 2:
		ep.Addresses = []string{g.ip(family), g.ip(family)}
	default:
		ep.Addresses = []string{g.ip(family)}
	}
	if g.chance(0.3) {
		ep.Hints = &EndpointHints{}
		for range g.r.IntN(3) {
			ep.Hints.ForZones = append(ep.Hints.ForZones, g.name("zone-"))
		}
		for range g.r.IntN(2) {
			ep.Hints.ForNodes = append(ep.Hints.ForNodes, g.name("node-"))
		}
	}
	return ep
}

func (g *objectGen) port() int32 {
	switch g.r.IntN(5) {
	case 0:
		return int32(g.r.Uint32()) // any int32, negative too
	case 1:
		return 80
	default:
		return int32(g.r.IntN(65536))
	}
}

// slice returns a random EndpointSlice with up to maxEndpoints endpoints.
func (g *objectGen) slice(maxEndpoints int) *EndpointSlice {
	s := &EndpointSlice{ObjectMeta: g.meta(), AddressType: AddressTypeIPv4}
	if g.chance(0.3) {
		s.AddressType = AddressTypeIPv6
	}
	n := g.r.IntN(maxEndpoints + 1)
	if n == 0 && g.chance(0.5) {
		s.Endpoints = []Endpoint{}
	}
	for range n {
		s.Endpoints = append(s.Endpoints, g.endpoint(s.AddressType))
	}
	switch k := g.r.IntN(5); k {
	case 0:
	case 1:
		s.Ports = []EndpointPort{}
	default:
		for range k - 1 {
			p := EndpointPort{Name: g.optString("p", 0.7), AppProtocol: g.optString("http", 0.2)}
			if g.chance(0.8) {
				p.Protocol = Ptr(ProtocolTCP)
			}
			if g.chance(0.9) {
				p.Port = Ptr(g.port())
			}
			s.Ports = append(s.Ports, p)
		}
	}
	if g.chance(0.3) {
		s.ManagedFields = append(s.ManagedFields, EndpointSliceManagedFields(s, g.timestamp()))
	}
	return s
}

func (g *objectGen) address(family AddressType) EndpointAddress {
	a := EndpointAddress{IP: g.ip(family), NodeName: g.optString("ip-10-0-", 0.7), TargetRef: g.objectRef()}
	if g.chance(0.2) {
		a.Hostname = g.name("host-")
	}
	return a
}

func (g *objectGen) addresses(family AddressType, n int) []EndpointAddress {
	if n == 0 {
		if g.chance(0.5) {
			return []EndpointAddress{}
		}
		return nil
	}
	out := make([]EndpointAddress, n)
	for i := range out {
		out[i] = g.address(family)
	}
	return out
}

// endpoints returns a random Endpoints object with up to maxAddresses addresses per list,
// sometimes truncated with the over-capacity annotation.
func (g *objectGen) endpoints(maxAddresses int) *Endpoints {
	e := &Endpoints{ObjectMeta: g.meta()}
	family := AddressTypeIPv4
	if g.chance(0.3) {
		family = AddressTypeIPv6
	}
	if g.chance(0.2) {
		if e.Annotations == nil {
			e.Annotations = StringMapOf(map[string]string{})
		}
		e.Annotations.Set(AnnotationOverCapacity, "truncated")
	}
	subsets := g.r.IntN(4)
	if subsets == 0 && g.chance(0.5) {
		e.Subsets = []EndpointSubset{}
	}
	for range subsets {
		sub := EndpointSubset{
			Addresses:         g.addresses(family, g.r.IntN(maxAddresses+1)),
			NotReadyAddresses: g.addresses(family, g.r.IntN(maxAddresses/4+1)),
		}
		for range g.r.IntN(4) {
			p := EndpointsPort{Name: g.name("p"), Port: g.port(), AppProtocol: g.optString("h2c", 0.2)}
			if g.chance(0.9) {
				p.Protocol = ProtocolUDP
			}
			sub.Ports = append(sub.Ports, p)
		}
		e.Subsets = append(e.Subsets, sub)
	}
	if g.chance(0.3) {
		e.ManagedFields = append(e.ManagedFields, EndpointsManagedFields(e, g.timestamp()))
	}
	return e
}
