package kubeimport

import (
	"strings"

	"epsim/internal/jsonparse"
)

// A cluster's lists are large (a node is 15–30 KB with its images, conditions and
// managedFields), and encoding/json scanned each about eight times over: the Decoder, the
// head with its items, each item's head, the item. The objects are decoded here in one
// pass with jsonparse, each value only where the parser decodes exactly what add would; a
// value it refuses is read by add, and an input that is not valid JSON from there on by the
// Decoder, so results and errors do not depend on the way taken (FuzzReadFastPath).

// Field names of the types decoded, in the order of the switch in each decoding function.
var (
	// headFields are the keys of an object read in one walk: add's head, and the fields of
	// every type it decodes (decoded once the kind is known).
	headFields           = []string{"kind", "items", "type", "metadata", "spec", "status", "subsets", "addressType", "endpoints", "ports"}
	metaFields           = []string{"name", "namespace", "labels", "annotations", "ownerReferences"}
	ownerFields          = []string{"kind", "name", "controller"}
	nodeStatusFields     = []string{"allocatable", "conditions"}
	conditionFields      = []string{"type", "status"}
	serviceSpecFields    = []string{"type", "selector", "clusterIP", "ports", "ipFamilies", "publishNotReadyAddresses", "trafficDistribution", "externalName", "internalTrafficPolicy", "externalIPs"}
	servicePortFields    = []string{"name", "protocol", "port", "targetPort", "appProtocol"}
	workloadSpecFields   = []string{"replicas", "minReadySeconds", "template", "strategy", "updateStrategy", "serviceName", "podManagementPolicy"}
	templateFields       = []string{"metadata", "spec"}
	containersFields     = []string{"containers", "initContainers"}
	containerFields      = []string{"ports", "restartPolicy"}
	containerPortFields  = []string{"name", "containerPort", "protocol"}
	strategyFields       = []string{"type", "rollingUpdate"}
	rollingUpdateFields  = []string{"maxSurge", "maxUnavailable", "partition"}
	workloadStatusFields = []string{"desiredNumberScheduled"}
	subsetFields         = []string{"addresses", "notReadyAddresses"}
	ipFields             = []string{"ip"}
	sliceEndpointFields  = []string{"addresses", "conditions"}
	conditionsFields     = []string{"terminating"}
	slicePortFields      = []string{"name", "port", "protocol"}
)

// fastReader decodes the values of one input into o.
type fastReader struct {
	o *objects
	// skipped are the kinds skipped in the value being read, counted once it is taken.
	skipped []string
}

// mark is how far o's lists reached before a value, to drop what a refused value added.
type mark struct{ nodes, services, workloads, endpoints, slices int }

func (f *fastReader) mark() mark {
	o := f.o
	return mark{len(o.nodes), len(o.services), len(o.workloads), len(o.endpoints), len(o.slices)}
}

func (f *fastReader) drop(m mark) {
	o := f.o
	o.nodes, o.services, o.workloads = o.nodes[:m.nodes], o.services[:m.services], o.workloads[:m.workloads]
	o.endpoints, o.slices = o.endpoints[:m.endpoints], o.slices[:m.slices]
}

// value decodes the top-level object raw as add(raw, src, 0, "") would, and reports
// whether it could; when it could not, nothing of it is kept.
func (f *fastReader) value(raw []byte) bool {
	m := f.mark()
	f.skipped = f.skipped[:0]
	p := jsonparse.NewParser(raw)
	if !f.object(&p, 0, "") || !p.End() {
		f.drop(m)
		return false
	}
	for _, k := range f.skipped {
		f.o.skipped[k]++
	}
	return true
}

// object decodes the object at p as add does: a List's items, or an object of a kind read.
// itemKind is the kind of a typed list's items.
func (f *fastReader) object(p *jsonparse.Parser, depth int, itemKind string) bool {
	if p.Peek() != '{' {
		return false
	}
	var kind, typ string
	kindSeen, hasItems := false, false
	parts := make([][]byte, len(headFields)) // the values of the typed fields, by index
	ok := p.Object(headFields, func(fi int) bool {
		switch fi {
		case 0:
			kindSeen = true
			return p.String(&kind)
		case 1:
			if p.Null() {
				return true
			}
			hasItems = true
			// Items are decoded as they come: kubectl prints "kind" after "items", and an
			// item names its own kind. One that does not needs the list's kind, known here
			// only if it came first (a typed list from the API server).
			inner := ""
			if kindSeen {
				inner = strings.TrimSuffix(kind, "List")
			}
			return p.Array(func() bool {
				return f.object(p, depth+1, inner)
			})
		case 2:
			return p.String(&typ)
		default:
			raw, ok := p.Raw()
			parts[fi] = raw
			return ok
		}
	})
	if !ok {
		return false
	}
	if hasItems || strings.HasSuffix(kind, "List") {
		return depth <= 4 // deeper: add's error, lists nested too deep
	}
	if typ != "" && kind == "" {
		return false // a watch event: add's error
	}
	if kind == "" {
		if itemKind == "" && depth > 0 {
			return false // the list's kind was not known yet
		}
		kind = itemKind
	}
	part := func(fi int, decode func(p *jsonparse.Parser) bool) bool {
		if parts[fi] == nil {
			return true
		}
		q := jsonparse.NewParser(parts[fi])
		return decode(&q)
	}
	const metadata, spec, status, subsets, addressType, endpointsField, portsField = 3, 4, 5, 6, 7, 8, 9 // in headFields
	o := f.o
	switch kind {
	case "Node":
		var v node
		ok = part(metadata, v.Metadata.decode) && part(status, func(p *jsonparse.Parser) bool {
			return p.Object(nodeStatusFields, func(f int) bool {
				if f == 0 {
					return p.StringMap(&v.Status.Allocatable)
				}
				return jsonparse.Slice(p, &v.Status.Conditions, func(c *nodeCondition) bool {
					return p.Object(conditionFields, func(f int) bool {
						if f == 0 {
							return p.String(&c.Type)
						}
						return p.String(&c.Status)
					})
				})
			})
		})
		o.nodes = append(o.nodes, v)
	case "Service":
		var v service
		ok = part(metadata, v.Metadata.decode) && part(spec, v.decodeSpec)
		o.services = append(o.services, v)
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet":
		v := workload{Kind: kind}
		ok = part(metadata, v.Metadata.decode) && part(spec, v.decodeSpec) && part(status, func(p *jsonparse.Parser) bool {
			return p.Object(workloadStatusFields, func(int) bool { return p.Int(&v.Status.DesiredNumberScheduled, 64) })
		})
		o.workloads = append(o.workloads, v)
	case "Endpoints":
		var v endpoints
		ok = part(metadata, v.Metadata.decode) && part(subsets, v.decodeSubsets)
		o.endpoints = append(o.endpoints, v)
	case "EndpointSlice":
		var v endpointSlice
		ok = part(metadata, v.Metadata.decode) && part(addressType, func(p *jsonparse.Parser) bool { return p.String(&v.AddressType) }) &&
			part(endpointsField, v.decodeEndpoints) && part(portsField, v.decodePorts)
		o.slices = append(o.slices, v)
	default:
		k := kind
		if k == "" {
			k = "(no kind)"
		}
		f.skipped = append(f.skipped, k)
	}
	return ok
}

func (m *objectMeta) decode(p *jsonparse.Parser) bool {
	return p.Object(metaFields, func(f int) bool {
		switch f {
		case 0:
			return p.String(&m.Name)
		case 1:
			return p.String(&m.Namespace)
		case 2:
			return p.StringMap(&m.Labels)
		case 3:
			return p.StringMap(&m.Annotations)
		default:
			return jsonparse.Slice(p, &m.OwnerReferences, func(r *ownerReference) bool {
				return p.Object(ownerFields, func(f int) bool {
					switch f {
					case 0:
						return p.String(&r.Kind)
					case 1:
						return p.String(&r.Name)
					default:
						return p.BoolPointer(&r.Controller)
					}
				})
			})
		}
	})
}

func (s *service) decodeSpec(p *jsonparse.Parser) bool {
	spec := &s.Spec
	return p.Object(serviceSpecFields, func(f int) bool {
		switch f {
		case 0:
			return p.String(&spec.Type)
		case 1:
			return p.StringMap(&spec.Selector)
		case 2:
			return p.String(&spec.ClusterIP)
		case 3:
			return jsonparse.Slice(p, &spec.Ports, func(sp *servicePort) bool {
				return p.Object(servicePortFields, func(f int) bool {
					switch f {
					case 0:
						return p.String(&sp.Name)
					case 1:
						return p.String(&sp.Protocol)
					case 2:
						return p.Int(&sp.Port, 64)
					case 3:
						return decodeIntOrString(p, &sp.TargetPort)
					default:
						return p.StringPointer(&sp.AppProtocol)
					}
				})
			})
		case 4:
			return jsonparse.Slice(p, &spec.IPFamilies, p.String)
		case 5:
			return p.Bool(&spec.PublishNotReadyAddresses)
		case 6:
			return p.StringPointer(&spec.TrafficDistribution)
		case 7:
			return p.String(&spec.ExternalName)
		case 8:
			return p.String(&spec.InternalTrafficPolicy)
		default:
			return jsonparse.Slice(p, &spec.ExternalIPs, p.String)
		}
	})
}

// decodeIntOrString decodes a *intOrString: null makes it nil, anything else a new one
// given to its UnmarshalJSON.
func decodeIntOrString(p *jsonparse.Parser, out **intOrString) bool {
	if p.Null() {
		*out = nil
		return true
	}
	*out = new(intOrString)
	return p.Unmarshaler(*out)
}

func (w *workload) decodeSpec(p *jsonparse.Parser) bool {
	spec := &w.Spec
	return p.Object(workloadSpecFields, func(f int) bool {
		switch f {
		case 0:
			return p.IntPointer(&spec.Replicas, 64)
		case 1:
			return p.Int(&spec.MinReadySeconds, 64)
		case 2:
			t := &spec.Template
			return p.Object(templateFields, func(f int) bool {
				if f == 0 {
					return t.Metadata.decode(p)
				}
				return p.Object(containersFields, func(f int) bool {
					list := &t.Spec.Containers
					if f == 1 {
						list = &t.Spec.InitContainers
					}
					return jsonparse.Slice(p, list, func(c *container) bool {
						return p.Object(containerFields, func(f int) bool {
							if f == 1 {
								return p.String(&c.RestartPolicy)
							}
							return jsonparse.Slice(p, &c.Ports, func(cp *containerPort) bool {
								return p.Object(containerPortFields, func(f int) bool {
									switch f {
									case 0:
										return p.String(&cp.Name)
									case 1:
										return p.Int(&cp.ContainerPort, 64)
									default:
										return p.String(&cp.Protocol)
									}
								})
							})
						})
					})
				})
			})
		case 3:
			return spec.Strategy.decode(p)
		case 4:
			return spec.UpdateStrategy.decode(p)
		case 5:
			return p.String(&spec.ServiceName)
		default:
			return p.String(&spec.PodManagementPolicy)
		}
	})
}

func (s *updateStrategy) decode(p *jsonparse.Parser) bool {
	return p.Object(strategyFields, func(f int) bool {
		if f == 0 {
			return p.String(&s.Type)
		}
		if p.Null() {
			s.RollingUpdate = nil
			return true
		}
		ru := new(rollingUpdate)
		s.RollingUpdate = ru
		return p.Object(rollingUpdateFields, func(f int) bool {
			switch f {
			case 0:
				return decodeIntOrString(p, &ru.MaxSurge)
			case 1:
				return decodeIntOrString(p, &ru.MaxUnavailable)
			default:
				return p.IntPointer(&ru.Partition, 64)
			}
		})
	})
}

func (e *endpoints) decodeSubsets(p *jsonparse.Parser) bool {
	return jsonparse.Slice(p, &e.Subsets, func(s *struct {
		Addresses         []endpointAddress `json:"addresses"`
		NotReadyAddresses []endpointAddress `json:"notReadyAddresses"`
	}) bool {
		address := func(a *endpointAddress) bool {
			return p.Object(ipFields, func(int) bool { return p.String(&a.IP) })
		}
		return p.Object(subsetFields, func(f int) bool {
			if f == 0 {
				return jsonparse.Slice(p, &s.Addresses, address)
			}
			return jsonparse.Slice(p, &s.NotReadyAddresses, address)
		})
	})
}

func (s *endpointSlice) decodeEndpoints(p *jsonparse.Parser) bool {
	return jsonparse.Slice(p, &s.Endpoints, func(ep *sliceEndpoint) bool {
		return p.Object(sliceEndpointFields, func(f int) bool {
			if f == 0 {
				return jsonparse.Slice(p, &ep.Addresses, p.String)
			}
			return p.Object(conditionsFields, func(int) bool { return p.BoolPointer(&ep.Conditions.Terminating) })
		})
	})
}

func (s *endpointSlice) decodePorts(p *jsonparse.Parser) bool {
	return jsonparse.Slice(p, &s.Ports, func(sp *slicePort) bool {
		return p.Object(slicePortFields, func(f int) bool {
			switch f {
			case 0:
				return p.String(&sp.Name)
			case 1:
				return p.Int(&sp.Port, 64)
			default:
				return p.String(&sp.Protocol)
			}
		})
	})
}
