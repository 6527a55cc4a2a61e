package trace

import (
	"bytes"
	"encoding/json"
	"time"

	"epsim/internal/jsonparse"
)

// The pod watch events of a recording are decoded by the hand-written parser here rather
// than by encoding/json, which scans each event four times (the Decoder's framing, the skip
// into the event's raw object, Unmarshal's validity check, the decoding) through reflection:
// replay spent most of its time there. The parser takes what it can decode exactly as
// encoding/json would into podJSON and refuses the rest, which then goes the encoding/json
// way as before, so results and errors do not depend on which way an event went
// (FuzzPodFastPath compares the two on any input).
//
// The parser (jsonparse.Parser, whose doc lists what it refuses) refuses besides an event
// without an object or whose object is not a Pod, and an event type other than ADDED,
// MODIFIED and DELETED.

// podParser is a jsonparse.Parser with the decoders of this package's types.
type podParser struct {
	jsonparse.Parser
	cache *decodeCache
	// annotations is set to decode metadata.annotations, and allMeta to decode the owner
	// references and managedFields too, which a Pod's decoding only checks (a Service's
	// annotations are read; an EndpointSlice's metadata is sized whole).
	annotations, allMeta bool
}

// decodeCache holds what the events of one stream repeat: the strings many pods share
// (namespaces, node names, phases, label keys and values), once each, and the labels maps,
// by their JSON. Replay then allocates less and the replayed pods hold one copy of each.
// Its maps are emptied when they reach decodeCacheMax entries. (Interning every string, a
// pod's name, UID and IPs too, cost more in lookups of a large table than it saved: 11% of
// a day's replay in map lookups.)
type decodeCache struct {
	strings map[string]string
	labels  map[string]map[string]string
	// times holds the times decoded (timeField), by their text: the times of an event
	// are to the second, and a pod's events repeat its creation and transition times.
	times map[string]time.Time
	// internFunc is intern, made a func value once (jsonparse.Parser.Intern).
	internFunc func([]byte) string
}

// decodeCacheMax bounds each map of a decodeCache: a table that stays in the processor's
// caches, and still holds the nodes of a large cluster.
const decodeCacheMax = 1 << 14

func newDecodeCache() *decodeCache {
	c := &decodeCache{strings: map[string]string{}, labels: map[string]map[string]string{}, times: map[string]time.Time{}}
	c.internFunc = c.intern
	return c
}

// newPodParser returns a parser of raw that interns shared strings in cache (nil: none).
func newPodParser(raw []byte, cache *decodeCache) podParser {
	p := podParser{Parser: jsonparse.NewParser(raw), cache: cache}
	if cache != nil {
		p.Intern = cache.internFunc
	}
	return p
}

// intern returns b as a string, the cached copy if there is one.
func (c *decodeCache) intern(b []byte) string {
	if s, ok := c.strings[string(b)]; ok {
		return s
	}
	if len(c.strings) >= decodeCacheMax {
		clear(c.strings)
	}
	s := string(b)
	c.strings[s] = s
	return s
}

// Field names of the types decoded, in the order of the switch in each decoding function.
var (
	eventFields      = []string{"time", "type", "object", "kind"}
	podFields        = []string{"kind", "apiVersion", "metadata", "spec", "status"}
	metaFields       = []string{"name", "generateName", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences", "managedFields"}
	ownerFields      = []string{"apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"}
	managedFields    = []string{"manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"}
	specFields       = []string{"initContainers", "containers", "nodeName", "hostname", "subdomain"}
	containerFields  = []string{"name", "ports", "resources", "restartPolicy"}
	portFields       = []string{"name", "containerPort", "protocol"}
	statusFields     = []string{"phase", "conditions", "podIP", "podIPs"}
	conditionFields  = []string{"type", "status", "lastProbeTime", "lastTransitionTime"}
	podIPFields      = []string{"ip"}
	noFields         = []string{}
	fastWatchedTypes = []string{"ADDED", "MODIFIED", "DELETED"}
)

// decodePodEvent decodes a watch event of a Pod: its "time" and "type", and the pod, into
// pod (emptied first; see podJSON.reset). ok is false when the event is not one the parser
// takes (see above).
func decodePodEvent(raw []byte, cache *decodeCache, pod *podJSON) (ev wireEvent, ok bool) {
	p := newPodParser(raw, cache)
	pod.reset()
	ev, ok = p.watchEvent(func() bool { return p.pod(pod) })
	return ev, ok && pod.Kind == "Pod"
}

// watchEvent decodes a watch event of the types replayed, with object decoding its object
// (the parser at it). ok is false when the event has no object or another type.
func (p *podParser) watchEvent(object func() bool) (ev wireEvent, ok bool) {
	sawObject := false
	ok = p.Object(eventFields, func(f int) bool {
		switch f {
		case 0:
			return p.String(&ev.Time)
		case 1:
			return p.Shared(&ev.Type)
		case 2:
			sawObject = true
			return p.Peek() == '{' && object()
		default:
			return p.SkipString() // not read
		}
	})
	if !ok || !p.End() || !sawObject {
		return wireEvent{}, false
	}
	for _, t := range fastWatchedTypes {
		if ev.Type == t {
			return ev, true
		}
	}
	return wireEvent{}, false
}

// reset empties p for the next event and keeps the arrays of its lists (and of its
// containers' ports) for it: a replay decodes millions of events one after another, each
// converted (podFromJSON) before the next, and the garbage of a new pod each time was a
// fifth of the replay's CPU in the collector.
func (p *podJSON) reset() {
	spec, status := &p.Spec, &p.Status
	inits, containers := spec.InitContainers[:0], spec.Containers[:0]
	conditions, ips := status.Conditions[:0], status.PodIPs[:0]
	*p = podJSON{}
	spec.InitContainers, spec.Containers = inits, containers
	status.Conditions, status.PodIPs = conditions, ips
}

// extend appends a zero element to *s, reusing the array (and, through keep, whatever
// the element there kept: its own arrays), and returns it.
func extend[E any](s *[]E, keep func(old *E) E) *E {
	n := len(*s)
	if n < cap(*s) {
		*s = (*s)[:n+1]
		e := &(*s)[n]
		*e = keep(e)
		return e
	}
	var zero E
	*s = append(*s, zero)
	return &(*s)[n]
}

func (p *podParser) pod(out *podJSON) bool {
	return p.object(podFields, &out.Kind, &out.Metadata, func(f int) bool {
		if f == 3 {
			return p.spec(&out.Spec)
		}
		return p.status(&out.Status)
	})
}

func (p *podParser) meta(out *objectMeta) bool {
	return p.Object(metaFields, func(f int) bool {
		switch f {
		case 0:
			return p.String(&out.Name)
		case 1:
			if p.allMeta {
				return p.String(&out.GenerateName)
			}
			return p.SkipString() // not read
		case 2:
			return p.Shared(&out.Namespace)
		case 3:
			return p.String(&out.UID)
		case 4:
			return p.String(&out.ResourceVersion)
		case 5:
			return p.Int(&out.Generation, 64)
		case 6:
			return p.timeField(&out.CreationTimestamp)
		case 7:
			return p.timePointer(&out.DeletionTimestamp)
		case 8:
			if p.Null() {
				return true
			}
			v := new(int64)
			out.DeletionGracePeriodSeconds = v
			return p.Int(v, 64)
		case 9:
			return p.labels(&out.Labels)
		case 10:
			if p.annotations || p.allMeta {
				return p.StringMap(&out.Annotations)
			}
			return p.StringMap(nil) // not read: checked only
		case 11:
			if p.allMeta {
				return jsonparse.Slice(&p.Parser, &out.OwnerReferences, p.ownerReference)
			}
			return p.Null() || p.Array(func() bool { return p.ownerReference(nil) })
		default:
			if p.allMeta {
				return jsonparse.Slice(&p.Parser, &out.ManagedFields, p.managedFieldsEntry)
			}
			return p.Null() || p.Array(func() bool { return p.managedFieldsEntry(nil) })
		}
	})
}

// ownerReference decodes an owner reference into out, or only checks it when out is nil
// (a pod's, read on every event of a replay: nothing is kept of it).
func (p *podParser) ownerReference(out *ownerReference) bool {
	return p.Object(ownerFields, func(f int) bool {
		switch {
		case out == nil && f >= 4:
			var b bool
			return p.Bool(&b)
		case out == nil:
			return p.SkipString()
		}
		switch f {
		case 0:
			return p.Shared(&out.APIVersion)
		case 1:
			return p.Shared(&out.Kind)
		case 2:
			return p.String(&out.Name)
		case 3:
			return p.String(&out.UID)
		case 4:
			return p.BoolPointer(&out.Controller)
		default:
			return p.BoolPointer(&out.BlockOwnerDeletion)
		}
	})
}

// managedFieldsEntry decodes a managedFields entry into out, or only checks it when out
// is nil.
func (p *podParser) managedFieldsEntry(out *managedFieldsEntry) bool {
	return p.Object(managedFields, func(f int) bool {
		switch {
		case out == nil && f == 3:
			var t apiTime
			return p.timeField(&t)
		case out == nil && f == 5:
			return p.Skip() // raw JSON, any value
		case out == nil:
			return p.SkipString()
		}
		switch f {
		case 0:
			return p.Shared(&out.Manager)
		case 1:
			return p.Shared(&out.Operation)
		case 2:
			return p.Shared(&out.APIVersion)
		case 3:
			return p.timePointer(&out.Time)
		case 4:
			return p.Shared(&out.FieldsType)
		case 5:
			if p.Null() {
				out.FieldsV1 = nil
				return true
			}
			raw, ok := p.Raw() // any value, kept as it is (json.RawMessage)
			v := json.RawMessage(bytes.Clone(raw))
			out.FieldsV1 = &v
			return ok
		default:
			return p.Shared(&out.Subresource)
		}
	})
}

func (p *podParser) spec(out *podSpecJSON) bool {
	return p.Object(specFields, func(f int) bool {
		switch f {
		case 0:
			return p.containers(&out.InitContainers)
		case 1:
			return p.containers(&out.Containers)
		case 2:
			return p.Shared(&out.NodeName)
		case 3:
			return p.Shared(&out.Hostname)
		default:
			return p.Shared(&out.Subdomain)
		}
	})
}

func (p *podParser) containers(out *[]container) bool {
	if p.Null() {
		return true
	}
	return p.Array(func() bool {
		c := extend(out, func(old *container) container { return container{Ports: old.Ports[:0]} })
		return p.Object(containerFields, func(f int) bool {
			switch f {
			case 0:
				return p.SkipString() // not read
			case 1:
				return p.ports(&c.Ports)
			case 2:
				return p.Object(noFields, nil)
			default:
				if p.Null() {
					return true
				}
				c.RestartPolicy = new(string)
				return p.Shared(c.RestartPolicy)
			}
		})
	})
}

func (p *podParser) ports(out *[]containerPort) bool {
	if p.Null() {
		return true
	}
	return p.Array(func() bool {
		cp := extend(out, func(*containerPort) containerPort { return containerPort{} })
		return p.Object(portFields, func(f int) bool {
			switch f {
			case 0:
				return p.Shared(&cp.Name)
			case 1:
				return p.Int32(&cp.ContainerPort)
			default:
				return p.Shared(&cp.Protocol)
			}
		})
	})
}

func (p *podParser) status(out *podStatus) bool {
	return p.Object(statusFields, func(f int) bool {
		switch f {
		case 0:
			return p.Shared(&out.Phase)
		case 1:
			if p.Null() {
				return true
			}
			return p.Array(func() bool {
				c := extend(&out.Conditions, func(*podCondition) podCondition { return podCondition{} })
				return p.Object(conditionFields, func(f int) bool {
					switch f {
					case 0:
						return p.Shared(&c.Type)
					case 1:
						return p.Shared(&c.Status)
					case 2:
						return p.timeField(&c.LastProbeTime)
					default:
						return p.timeField(&c.LastTransitionTime)
					}
				})
			})
		case 2:
			return p.String(&out.PodIP)
		default:
			if p.Null() {
				return true
			}
			return p.Array(func() bool {
				ip := extend(&out.PodIPs, func(*podIP) podIP { return podIP{} })
				return p.Object(podIPFields, func(int) bool { return p.String(&ip.IP) })
			})
		}
	})
}

// labels decodes a pod's labels. Pods of one workload carry the same labels, byte for byte:
// with a cache, their events share one map (built once).
func (p *podParser) labels(out *map[string]string) bool {
	c := p.cache
	if c == nil || p.Peek() != '{' {
		return p.StringMap(out)
	}
	raw, ok := p.Raw()
	if !ok {
		return false
	}
	if m, ok := c.labels[string(raw)]; ok {
		*out = m
		return true
	}
	q := newPodParser(raw, c)
	if !q.StringMap(out) {
		return false
	}
	if len(c.labels) >= decodeCacheMax {
		clear(c.labels)
	}
	c.labels[string(raw)] = *out
	return true
}

// timeField decodes an RFC 3339 time as apiTime.UnmarshalJSON does; null is the zero
// time.
func (p *podParser) timeField(out *apiTime) bool {
	if p.Null() {
		out.Time = time.Time{}
		return true
	}
	s, plain, ok := p.Str()
	if !ok || !plain {
		return false
	}
	c := p.cache
	if c != nil {
		if t, ok := c.times[string(s)]; ok {
			out.Time = t
			return true
		}
	}
	t, err := time.Parse(time.RFC3339, string(s))
	if err != nil {
		return false
	}
	out.Time = t.Local()
	if c != nil {
		if len(c.times) >= decodeCacheMax {
			clear(c.times)
		}
		c.times[string(s)] = out.Time
	}
	return true
}

// timePointer decodes a time into a new apiTime; null leaves the pointer nil.
func (p *podParser) timePointer(out **apiTime) bool {
	if p.Null() {
		*out = nil
		return true
	}
	*out = &apiTime{}
	return p.timeField(*out)
}
