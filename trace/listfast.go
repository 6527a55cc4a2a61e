package trace

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
	serviceSpecFields   = []string{"selector", "clusterIP", "type", "publishNotReadyAddresses", "trafficDistribution", "ipFamilies", "ports"}
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
	p := podParser{b: raw, annotations: true}
	ok = p.object(listHeadFields, func(f int) bool {
		switch f {
		case 0:
			return p.skipString() // checked, not read
		case 1:
			return p.stringField(&h.kind)
		case 2:
			return p.stringField(&h.typ)
		default:
			h.hasItems = true
			return items(&p)
		}
	})
	p.ws()
	return h, ok && p.i == len(raw)
}

// decodeObject decodes the object raw into out with decode, which must take all of it.
func decodeObject[T any](raw []byte, decode func(*podParser, *T) bool, out *T) bool {
	p := podParser{b: raw, annotations: true}
	if p.peek() != '{' || !decode(&p, out) {
		return false
	}
	p.ws()
	return p.i == len(raw)
}

// service decodes a Service (serviceJSON); an apiVersion that is not a string is refused,
// as readItems' typeMeta refuses it.
func (p *podParser) service(out *serviceJSON) bool {
	return p.object(serviceFields, func(f int) bool {
		switch f {
		case 0:
			return p.stringField(&out.Kind)
		case 1:
			return p.skipString() // checked, not read
		case 2:
			return p.meta(&out.Metadata)
		default:
			return p.serviceSpec(out)
		}
	})
}

func (p *podParser) serviceSpec(out *serviceJSON) bool {
	spec := &out.Spec
	return p.object(serviceSpecFields, func(f int) bool {
		switch f {
		case 0:
			return p.stringMap(&spec.Selector)
		case 1:
			return p.stringField(&spec.ClusterIP)
		case 2:
			return p.sharedField(&spec.Type)
		case 3:
			return p.boolField(&spec.PublishNotReadyAddresses)
		case 4:
			return p.stringPointer(&spec.TrafficDistribution)
		case 5:
			return decodeSlice(p, &spec.IPFamilies, p.sharedField)
		default:
			return decodeSlice(p, &spec.Ports, p.servicePort)
		}
	})
}

func (p *podParser) servicePort(out *servicePort) bool {
	return p.object(servicePortFields, func(f int) bool {
		switch f {
		case 0:
			return p.sharedField(&out.Name)
		case 1:
			return p.sharedField(&out.Protocol)
		case 2:
			return p.stringPointer(&out.AppProtocol)
		case 3:
			var v int64
			ok := p.intField(&v, 32)
			out.Port = int32(v)
			return ok
		default:
			return p.unmarshaler(&out.TargetPort)
		}
	})
}

// node decodes a Node (nodeJSON); an apiVersion that is not a string is refused.
func (p *podParser) node(out *nodeJSON) bool {
	return p.object(nodeFields, func(f int) bool {
		switch f {
		case 0:
			return p.stringField(&out.Kind)
		case 1:
			return p.skipString() // checked, not read
		case 2:
			return p.meta(&out.Metadata)
		default:
			return p.nodeStatus(out)
		}
	})
}

func (p *podParser) nodeStatus(out *nodeJSON) bool {
	st := &out.Status
	return p.object(nodeStatusFields, func(f int) bool {
		switch f {
		case 0:
			return p.quantityMap(&st.Capacity)
		case 1:
			return p.quantityMap(&st.Allocatable)
		default:
			return decodeSlice(p, &st.Conditions, func(c *nodeCondition) bool {
				return p.object(nodeConditionFields, func(f int) bool {
					if f == 0 {
						return p.sharedField(&c.Type)
					}
					return p.sharedField(&c.Status)
				})
			})
		}
	})
}

// quantityMap decodes an object of quantities as encoding/json does: null makes the map
// nil, and each value goes to quantity's UnmarshalJSON.
func (p *podParser) quantityMap(out *map[string]quantity) bool {
	if p.null() {
		*out = nil
		return true
	}
	if p.peek() != '{' {
		return false
	}
	m := map[string]quantity{}
	*out = m
	return p.members(func(key, token []byte, plain bool) bool {
		var k string
		var q quantity
		if !p.setString(&k, token, key, plain, true) || !p.unmarshaler(&q) {
			return false
		}
		m[k] = q
		return true
	})
}

// unmarshaler decodes the value at p.i with v's UnmarshalJSON, given the value's bytes as
// encoding/json gives them (null too).
func (p *podParser) unmarshaler(v interface{ UnmarshalJSON([]byte) error }) bool {
	from := p.i
	return p.skip() && v.UnmarshalJSON(p.b[from:p.i]) == nil
}

// stringPointer decodes a string into a new string; null makes the pointer nil.
func (p *podParser) stringPointer(out **string) bool {
	if p.null() {
		*out = nil
		return true
	}
	*out = new(string)
	return p.sharedField(*out)
}

// decodeSlice decodes an array as encoding/json decodes it into a nil slice: null leaves
// it nil, [] makes it empty, and each element is decoded by elem into a new zero value.
func decodeSlice[E any](p *podParser, out *[]E, elem func(*E) bool) bool {
	if p.null() {
		*out = nil
		return true
	}
	if p.peek() != '[' {
		return false
	}
	*out = []E{}
	return p.array(func() bool {
		var zero E
		*out = append(*out, zero)
		return elem(&(*out)[len(*out)-1])
	})
}
