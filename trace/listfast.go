package trace

import "epsim/internal/jsonparse"

// The lists of Services and Nodes ('kubectl get … -o json') are decoded by the parser of
// podfast.go too: a real cluster's node list is 15–30 KB a node (images, conditions,
// managedFields), which encoding/json scanned about ten times over (the stream's Decoder,
// the list's head, a Token decoder over the items, each item's kind, the item). As for pod
// events, the parser takes a value only where it decodes exactly what encoding/json would,
// and refuses the rest; a refused value is read the encoding/json way from its first byte,
// so results and errors do not depend on the way taken (FuzzListFastPath).

// Field names of the types decoded, in the order of the switch in each decoding function.
var (
	listHeadFields      = []string{"apiVersion", "kind", "type", "items"}
	serviceFields       = []string{"kind", "apiVersion", "metadata", "spec"}
	serviceSpecFields   = []string{"selector", "clusterIP", "type", "publishNotReadyAddresses", "trafficDistribution", "ipFamilies", "ports", "internalTrafficPolicy", "externalIPs"}
	servicePortFields   = []string{"name", "protocol", "appProtocol", "port", "targetPort"}
	nodeFields          = []string{"kind", "apiVersion", "metadata", "status"}
	nodeStatusFields    = []string{"capacity", "allocatable", "conditions"}
	nodeConditionFields = []string{"type", "status"}
)

// listHead is what listReader.value looks at first in a value: its kind, a watch event's
// type, and whether it has "items".
type listHead struct {
	kind, typ string
	hasItems  bool
}

// decodeListHead decodes the head of the value raw, as listReader.value's encoding/json
// decoding into typeMeta, type and items does, and calls items with the parser at the value
// of "items".
func decodeListHead(raw []byte, items func(p *podParser) bool) (h listHead, ok bool) {
	p := newPodParser(raw, nil)
	p.annotations = true
	ok = p.Object(listHeadFields, func(f int) bool {
		switch f {
		case 0:
			return p.SkipString() // checked, not read
		case 1:
			return p.String(&h.kind)
		case 2:
			return p.String(&h.typ)
		default:
			h.hasItems = true
			return items(&p)
		}
	})
	return h, ok && p.End()
}

// decodeObject decodes the object raw into out with decode, which must take all of it.
func decodeObject[T any](raw []byte, decode func(*podParser, *T) bool, out *T) bool {
	p := newPodParser(raw, nil)
	p.annotations = true
	return p.Peek() == '{' && decode(&p, out) && p.End()
}

// object decodes an object whose fields are kind, apiVersion (checked: one that is not a
// string is refused, as listReader.items' typeMeta and the watch readers refuse it),
// metadata, then others, decoded by body with their index in fields.
func (p *podParser) object(fields []string, kind *string, meta *objectMeta, body func(f int) bool) bool {
	return p.Object(fields, func(f int) bool {
		switch f {
		case 0:
			return p.Shared(kind)
		case 1:
			return p.SkipString() // checked, not read
		case 2:
			return p.meta(meta)
		default:
			return body(f)
		}
	})
}

// service decodes a Service (serviceJSON).
func (p *podParser) service(out *serviceJSON) bool {
	return p.object(serviceFields, &out.Kind, &out.Metadata, func(int) bool { return p.serviceSpec(out) })
}

func (p *podParser) serviceSpec(out *serviceJSON) bool {
	spec := &out.Spec
	return p.Object(serviceSpecFields, func(f int) bool {
		switch f {
		case 0:
			return p.StringMap(&spec.Selector)
		case 1:
			return p.String(&spec.ClusterIP)
		case 2:
			return p.Shared(&spec.Type)
		case 3:
			return p.Bool(&spec.PublishNotReadyAddresses)
		case 4:
			return p.StringPointer(&spec.TrafficDistribution)
		case 5:
			return jsonparse.Slice(&p.Parser, &spec.IPFamilies, p.Shared)
		case 6:
			return jsonparse.Slice(&p.Parser, &spec.Ports, p.servicePort)
		case 7:
			return p.Shared(&spec.InternalTrafficPolicy)
		default:
			return jsonparse.Slice(&p.Parser, &spec.ExternalIPs, p.Shared)
		}
	})
}

func (p *podParser) servicePort(out *servicePort) bool {
	return p.Object(servicePortFields, func(f int) bool {
		switch f {
		case 0:
			return p.Shared(&out.Name)
		case 1:
			return p.Shared(&out.Protocol)
		case 2:
			return p.StringPointer(&out.AppProtocol)
		case 3:
			return p.Int32(&out.Port)
		default:
			return p.Unmarshaler(&out.TargetPort)
		}
	})
}

// node decodes a Node (nodeJSON).
func (p *podParser) node(out *nodeJSON) bool {
	return p.object(nodeFields, &out.Kind, &out.Metadata, func(int) bool { return p.nodeStatus(out) })
}

func (p *podParser) nodeStatus(out *nodeJSON) bool {
	st := &out.Status
	return p.Object(nodeStatusFields, func(f int) bool {
		switch f {
		case 0:
			return p.quantityMap(&st.Capacity)
		case 1:
			return p.quantityMap(&st.Allocatable)
		default:
			return jsonparse.Slice(&p.Parser, &st.Conditions, func(c *nodeCondition) bool {
				return p.Object(nodeConditionFields, func(f int) bool {
					if f == 0 {
						return p.Shared(&c.Type)
					}
					return p.Shared(&c.Status)
				})
			})
		}
	})
}

// quantityMap decodes an object of quantities as encoding/json does: null makes the map
// nil, and each value goes to quantity's UnmarshalJSON.
func (p *podParser) quantityMap(out *map[string]quantity) bool {
	if p.Null() {
		*out = nil
		return true
	}
	if p.Peek() != '{' {
		return false
	}
	m := map[string]quantity{}
	*out = m
	return p.Members(func(key, token []byte, plain bool) bool {
		var k string
		var q quantity
		if !p.SetString(&k, token, key, plain, true) || !p.Unmarshaler(&q) {
			return false
		}
		m[k] = q
		return true
	})
}
