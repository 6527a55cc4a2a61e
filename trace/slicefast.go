package trace

import "epsim/internal/jsonparse"

// EndpointSlice watch events are decoded by the parser too ('sim replay --endpointslices'
// reads a stream of every slice write, tens of KB each): as for pods, an event is taken
// only where it decodes exactly as encoding/json would into sliceJSON, and refused
// otherwise (FuzzSliceFastPath compares the two).

// Field names of the types decoded, in the order of the switch in each decoding function.
var (
	sliceFields        = []string{"kind", "apiVersion", "metadata", "addressType", "endpoints", "ports"}
	endpointFields     = []string{"addresses", "conditions", "hostname", "targetRef", "deprecatedTopology", "nodeName", "zone", "hints"}
	endpointCondFields = []string{"ready", "serving", "terminating"}
	targetRefFields    = []string{"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"}
	hintsFields        = []string{"forZones", "forNodes"}
	nameFields         = []string{"name"}
	endpointPortFields = []string{"name", "protocol", "port", "appProtocol"}
)

// decodeSliceEvent decodes a watch event of an EndpointSlice: its "time" and "type", and
// the slice. ok is false when the event is not one the parser takes.
func decodeSliceEvent(raw []byte, cache *decodeCache) (ev wireEvent, s *sliceJSON, ok bool) {
	p := newPodParser(raw, cache)
	p.allMeta = true
	s = &sliceJSON{}
	ev, ok = p.watchEvent(func() bool { return p.slice(s) })
	return ev, s, ok && s.Kind == "EndpointSlice"
}

func (p *podParser) slice(out *sliceJSON) bool {
	return p.object(sliceFields, &out.Kind, &out.Metadata, func(f int) bool {
		switch f {
		case 3:
			return p.Shared(&out.AddressType)
		case 4:
			return jsonparse.Slice(&p.Parser, &out.Endpoints, p.endpoint)
		default:
			return jsonparse.Slice(&p.Parser, &out.Ports, p.endpointPort)
		}
	})
}

func (p *podParser) endpoint(out *endpointJSON) bool {
	return p.Object(endpointFields, func(f int) bool {
		switch f {
		case 0:
			return jsonparse.Slice(&p.Parser, &out.Addresses, p.String)
		case 1:
			c := &out.Conditions
			return p.Object(endpointCondFields, func(f int) bool {
				switch f {
				case 0:
					return p.BoolPointer(&c.Ready)
				case 1:
					return p.BoolPointer(&c.Serving)
				default:
					return p.BoolPointer(&c.Terminating)
				}
			})
		case 2:
			return p.StringPointer(&out.Hostname)
		case 3:
			return p.targetRef(out)
		case 4:
			return p.StringMap(&out.DeprecatedTopology)
		case 5:
			return p.StringPointer(&out.NodeName)
		case 6:
			return p.StringPointer(&out.Zone)
		default:
			return p.hints(out)
		}
	})
}

func (p *podParser) targetRef(out *endpointJSON) bool {
	if p.Null() {
		out.TargetRef = nil
		return true
	}
	r := &targetRefJSON{}
	out.TargetRef = r
	return p.Object(targetRefFields, func(f int) bool {
		switch f {
		case 0:
			return p.Shared(&r.Kind)
		case 1:
			return p.Shared(&r.Namespace)
		case 2:
			return p.String(&r.Name)
		case 3:
			return p.String(&r.UID)
		case 4:
			return p.Shared(&r.APIVersion)
		case 5:
			return p.String(&r.ResourceVersion)
		default:
			return p.String(&r.FieldPath)
		}
	})
}

func (p *podParser) hints(out *endpointJSON) bool {
	if p.Null() {
		out.Hints = nil
		return true
	}
	h := &hintsJSON{}
	out.Hints = h
	name := func(n *hintJSON) bool {
		return p.Object(nameFields, func(int) bool { return p.Shared(&n.Name) })
	}
	return p.Object(hintsFields, func(f int) bool {
		if f == 0 {
			return jsonparse.Slice(&p.Parser, &h.ForZones, name)
		}
		return jsonparse.Slice(&p.Parser, &h.ForNodes, name)
	})
}

func (p *podParser) endpointPort(out *endpointPortJSON) bool {
	return p.Object(endpointPortFields, func(f int) bool {
		switch f {
		case 0:
			return p.StringPointer(&out.Name)
		case 1:
			return p.StringPointer(&out.Protocol)
		case 2:
			if p.Null() {
				out.Port = nil
				return true
			}
			out.Port = new(int32)
			return p.Int32(out.Port)
		default:
			return p.StringPointer(&out.AppProtocol)
		}
	})
}
