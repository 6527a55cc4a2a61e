package trace

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// The pod watch events of a recording are decoded by the hand-written parser here rather
// than by encoding/json, which scans each event four times (the Decoder's framing, the skip
// into the event's raw object, Unmarshal's validity check, the decoding) through reflection:
// replay spent most of its time there. The parser takes what it can decode exactly as
// encoding/json would into podJSON and refuses the rest, which then goes the encoding/json
// way as before, so results and errors do not depend on which way an event went
// (FuzzPodFastPath compares the two on any input).
//
// It refuses (returns false on) anything invalid, any type encoding/json would refuse, a
// key given twice in one object (encoding/json merges a repeated object into the first),
// a key that matches a field only case-insensitively (encoding/json's fallback match), an
// escaped key, a number that is not an integer where an integer goes, objects nested
// deeper than fastMaxDepth, an event without an object or whose object is not a Pod, and
// an event type other than ADDED, MODIFIED and DELETED. Null, as in encoding/json, leaves
// a field of a new object at its zero value (nil for pointers, slices and maps), and makes
// a map value the empty string.

// fastMaxDepth bounds the nesting the parser follows; deeper input goes the encoding/json
// way (whose own limit is 10,000).
const fastMaxDepth = 512

// podParser decodes one JSON value from b, reading at i.
type podParser struct {
	b     []byte
	i     int
	depth int
	cache *decodeCache
	// annotations is set to decode metadata.annotations, which a Pod's decoding only
	// checks (a Service's are read).
	annotations bool
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
}

// decodeCacheMax bounds each map of a decodeCache: a table that stays in the processor's
// caches, and still holds the nodes of a large cluster.
const decodeCacheMax = 1 << 14

func newDecodeCache() *decodeCache {
	return &decodeCache{strings: map[string]string{}, labels: map[string]map[string]string{}}
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
	p := podParser{b: raw, cache: cache}
	pod.reset()
	sawObject := false
	ok = p.object(eventFields, func(f int) bool {
		switch f {
		case 0:
			return p.stringField(&ev.Time)
		case 1:
			return p.sharedField(&ev.Type)
		case 2:
			sawObject = true
			return p.peek() == '{' && p.pod(pod)
		default:
			return p.skipString() // not read
		}
	})
	p.ws()
	if !ok || p.i != len(raw) || !sawObject || pod.Kind != "Pod" {
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
	return p.object(podFields, func(f int) bool {
		switch f {
		case 0:
			return p.sharedField(&out.Kind)
		case 1:
			return p.skipString() // not read
		case 2:
			return p.meta(&out.Metadata)
		case 3:
			return p.spec(&out.Spec)
		default:
			return p.status(&out.Status)
		}
	})
}

func (p *podParser) meta(out *objectMeta) bool {
	return p.object(metaFields, func(f int) bool {
		switch f {
		case 0:
			return p.stringField(&out.Name)
		case 1:
			return p.skipString() // not read
		case 2:
			return p.sharedField(&out.Namespace)
		case 3:
			return p.stringField(&out.UID)
		case 4:
			return p.stringField(&out.ResourceVersion)
		case 5:
			return p.intField(&out.Generation, 64)
		case 6:
			return p.timeField(&out.CreationTimestamp)
		case 7:
			return p.timePointer(&out.DeletionTimestamp)
		case 8:
			if p.null() {
				return true
			}
			v := new(int64)
			out.DeletionGracePeriodSeconds = v
			return p.intField(v, 64)
		case 9:
			return p.labels(&out.Labels)
		case 10:
			if p.annotations {
				return p.stringMap(&out.Annotations)
			}
			return p.stringMap(nil) // not read: checked only
		case 11:
			return p.null() || p.array(p.ownerReference)
		default:
			return p.null() || p.array(p.managedFieldsEntry)
		}
	})
}

// ownerReference checks an owner reference, which epsim does not read.
func (p *podParser) ownerReference() bool {
	var b bool
	return p.object(ownerFields, func(f int) bool {
		if f >= 4 {
			return p.boolField(&b)
		}
		return p.skipString()
	})
}

// managedFieldsEntry checks a managedFields entry, which epsim does not read.
func (p *podParser) managedFieldsEntry() bool {
	var t apiTime
	return p.object(managedFields, func(f int) bool {
		switch f {
		case 3:
			return p.timeField(&t)
		case 5:
			return p.skip() // raw JSON, any value
		}
		return p.skipString()
	})
}

func (p *podParser) spec(out *podSpecJSON) bool {
	return p.object(specFields, func(f int) bool {
		switch f {
		case 0:
			return p.containers(&out.InitContainers)
		case 1:
			return p.containers(&out.Containers)
		case 2:
			return p.sharedField(&out.NodeName)
		case 3:
			return p.sharedField(&out.Hostname)
		default:
			return p.sharedField(&out.Subdomain)
		}
	})
}

func (p *podParser) containers(out *[]container) bool {
	if p.null() {
		return true
	}
	return p.array(func() bool {
		c := extend(out, func(old *container) container { return container{Ports: old.Ports[:0]} })
		return p.object(containerFields, func(f int) bool {
			switch f {
			case 0:
				return p.skipString() // not read
			case 1:
				return p.ports(&c.Ports)
			case 2:
				return p.object(noFields, nil)
			default:
				if p.null() {
					return true
				}
				c.RestartPolicy = new(string)
				return p.sharedField(c.RestartPolicy)
			}
		})
	})
}

func (p *podParser) ports(out *[]containerPort) bool {
	if p.null() {
		return true
	}
	return p.array(func() bool {
		cp := extend(out, func(*containerPort) containerPort { return containerPort{} })
		return p.object(portFields, func(f int) bool {
			switch f {
			case 0:
				return p.sharedField(&cp.Name)
			case 1:
				var v int64
				ok := p.intField(&v, 32)
				cp.ContainerPort = int32(v)
				return ok
			default:
				return p.sharedField(&cp.Protocol)
			}
		})
	})
}

func (p *podParser) status(out *podStatus) bool {
	return p.object(statusFields, func(f int) bool {
		switch f {
		case 0:
			return p.sharedField(&out.Phase)
		case 1:
			if p.null() {
				return true
			}
			return p.array(func() bool {
				c := extend(&out.Conditions, func(*podCondition) podCondition { return podCondition{} })
				return p.object(conditionFields, func(f int) bool {
					switch f {
					case 0:
						return p.sharedField(&c.Type)
					case 1:
						return p.sharedField(&c.Status)
					case 2:
						return p.timeField(&c.LastProbeTime)
					default:
						return p.timeField(&c.LastTransitionTime)
					}
				})
			})
		case 2:
			return p.stringField(&out.PodIP)
		default:
			if p.null() {
				return true
			}
			return p.array(func() bool {
				ip := extend(&out.PodIPs, func(*podIP) podIP { return podIP{} })
				return p.object(podIPFields, func(int) bool { return p.stringField(&ip.IP) })
			})
		}
	})
}

// object decodes an object of a struct type whose JSON field names are names, calling
// field with the index of each field met (the value is next), skipping other keys. Null
// leaves the struct as it is.
func (p *podParser) object(names []string, field func(f int) bool) bool {
	if p.null() {
		return true
	}
	var seen uint64
	return p.members(func(key, _ []byte, plain bool) bool {
		if !plain {
			return false
		}
		switch f := fieldIndex(names, key); {
		case f >= 0:
			if seen&(1<<f) != 0 {
				return false
			}
			seen |= 1 << f
			return field(f)
		case foldsToField(names, key):
			return false
		}
		return p.skip()
	})
}

// members walks the object at p.i, calling member for each key — its text between the
// quotes, its whole token, and whether the text is the key itself (no escapes, valid UTF-8)
// — with p.i at the member's value, which member decodes.
func (p *podParser) members(member func(key, token []byte, plain bool) bool) bool {
	return p.list('{', '}', func() bool {
		from := p.i
		key, plain, ok := p.str()
		if !ok {
			return false
		}
		token := p.b[from:p.i]
		p.ws()
		if p.peek() != ':' {
			return false
		}
		p.i++
		p.ws()
		return member(key, token, plain)
	})
}

// array decodes an array, calling elem for each element (next at p.i). The caller has
// handled null.
func (p *podParser) array(elem func() bool) bool { return p.list('[', ']', elem) }

// list walks the comma-separated items between open and close at p.i, calling item with
// p.i at each.
func (p *podParser) list(open, close byte, item func() bool) bool {
	if p.peek() != open || p.depth >= fastMaxDepth {
		return false
	}
	p.depth++
	p.i++
	p.ws()
	if p.peek() == close {
		p.i++
		p.depth--
		return true
	}
	for {
		p.ws()
		if !item() {
			return false
		}
		p.ws()
		switch p.peek() {
		case ',':
			p.i++
		case close:
			p.i++
			p.depth--
			return true
		default:
			return false
		}
	}
}

func fieldIndex(names []string, key []byte) int {
	for i, n := range names {
		if string(key) == n {
			return i
		}
	}
	return -1
}

// foldsToField reports whether key matches a field name case-insensitively (as
// bytes.EqualFold, which encoding/json's fallback match equals).
func foldsToField(names []string, key []byte) bool {
	ascii := true
	for _, c := range key {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	for _, n := range names {
		if (!ascii || len(n) == len(key)) && bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}

// stringMap decodes an object of strings into *out (a new map, as encoding/json makes
// one for a nil map), or only checks it when out is nil.
func (p *podParser) stringMap(out *map[string]string) bool {
	if p.null() {
		if out != nil {
			*out = nil
		}
		return true
	}
	var m map[string]string
	if out != nil && p.peek() == '{' {
		m = map[string]string{}
		*out = m
	}
	return p.members(func(key, token []byte, plain bool) bool {
		var k, v string
		if m != nil && !p.setString(&k, token, key, plain, true) {
			return false
		}
		if !p.null() && !p.stringValue(&v, m != nil, true) {
			return false
		}
		if m != nil {
			m[k] = v
		}
		return true
	})
}

// skipString checks a string (or null) that is not read.
func (p *podParser) skipString() bool {
	if p.null() {
		return true
	}
	_, _, ok := p.str()
	return ok
}

// labels decodes a pod's labels. Pods of one workload carry the same labels, byte for byte:
// with a cache, their events share one map (built once).
func (p *podParser) labels(out *map[string]string) bool {
	c := p.cache
	if c == nil || p.peek() != '{' {
		return p.stringMap(out)
	}
	from := p.i
	if !p.skip() {
		return false
	}
	raw := p.b[from:p.i]
	if m, ok := c.labels[string(raw)]; ok {
		*out = m
		return true
	}
	end := p.i
	p.i = from
	if !p.stringMap(out) {
		return false
	}
	p.i = end
	if len(c.labels) >= decodeCacheMax {
		clear(c.labels)
	}
	c.labels[string(raw)] = *out
	return true
}

// stringField decodes a string into *out; null leaves it.
func (p *podParser) stringField(out *string) bool {
	if p.null() {
		return true
	}
	return p.stringValue(out, true, false)
}

// sharedField decodes a string that many pods share (a namespace, a node, a phase) into
// *out, interned; null leaves it.
func (p *podParser) sharedField(out *string) bool {
	if p.null() {
		return true
	}
	return p.stringValue(out, true, true)
}

// stringValue decodes the string at p.i into *out when store is set (see setString), else
// only checks it.
func (p *podParser) stringValue(out *string, store, shared bool) bool {
	from := p.i
	s, plain, ok := p.str()
	if !ok {
		return false
	}
	return !store || p.setString(out, p.b[from:p.i], s, plain, shared)
}

// setString sets *out to the string of JSON token (text its content between the quotes,
// plain when that is the string itself), interned when shared. A string with escapes or
// bytes that are not UTF-8 is decoded by encoding/json.
func (p *podParser) setString(out *string, token, text []byte, plain, shared bool) bool {
	if !plain {
		// Into a string of its own, so that out does not escape (the event's own fields
		// would be on the heap for every event).
		var v string
		if json.Unmarshal(token, &v) != nil {
			return false
		}
		*out = v
		return true
	}
	if shared && p.cache != nil {
		*out = p.cache.intern(text)
	} else {
		*out = string(text)
	}
	return true
}

// intField decodes an integer that fits in bits into *out; null leaves it.
func (p *podParser) intField(out *int64, bits int) bool {
	if p.null() {
		return true
	}
	tok, integer, ok := p.number()
	if !ok || !integer {
		return false
	}
	v, err := strconv.ParseInt(string(tok), 10, bits)
	if err != nil {
		return false
	}
	*out = v
	return true
}

// boolField decodes true or false into *out; null leaves it.
func (p *podParser) boolField(out *bool) bool {
	switch {
	case p.null():
		return true
	case p.literal("true"):
		*out = true
		return true
	case p.literal("false"):
		*out = false
		return true
	}
	return false
}

// timeField decodes an RFC 3339 time as apiTime.UnmarshalJSON does; null is the zero
// time.
func (p *podParser) timeField(out *apiTime) bool {
	if p.null() {
		out.Time = time.Time{}
		return true
	}
	s, plain, ok := p.str()
	if !ok || !plain {
		return false
	}
	t, err := time.Parse(time.RFC3339, string(s))
	if err != nil {
		return false
	}
	out.Time = t.Local()
	return true
}

// timePointer decodes a time into a new apiTime; null leaves the pointer nil.
func (p *podParser) timePointer(out **apiTime) bool {
	if p.null() {
		*out = nil
		return true
	}
	*out = &apiTime{}
	return p.timeField(*out)
}

func (p *podParser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *podParser) ws() {
	for p.i < len(p.b) && isJSONSpace(p.b[p.i]) {
		p.i++
	}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// null consumes a null at p.i, if there is one.
func (p *podParser) null() bool { return p.literal("null") }

func (p *podParser) literal(lit string) bool {
	if len(p.b)-p.i >= len(lit) && string(p.b[p.i:p.i+len(lit)]) == lit {
		p.i += len(lit)
		return true
	}
	return false
}

// str reads the JSON string at p.i: its content between the quotes, whether that content
// is the string itself (no escapes, valid UTF-8), and whether it is a valid string.
func (p *podParser) str() (content []byte, plain, ok bool) {
	if p.peek() != '"' {
		return nil, false, false
	}
	start := p.i + 1
	plain = true
	ascii := true
	for i := start; i < len(p.b); i++ {
		switch c := p.b[i]; {
		case c == '"':
			p.i = i + 1
			content = p.b[start:i]
			if !ascii && plain && !utf8.Valid(content) {
				plain = false
			}
			return content, plain, true
		case c == '\\':
			plain = false
			i++
			if i >= len(p.b) {
				return nil, false, false
			}
			switch p.b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(p.b) {
					return nil, false, false
				}
				for _, h := range p.b[i+1 : i+5] {
					if !isHexDigit(h) {
						return nil, false, false
					}
				}
				i += 4
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false, false
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number reads the JSON number at p.i, and tells whether it is an integer (no fraction or
// exponent).
func (p *podParser) number() (tok []byte, integer, ok bool) {
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return nil, false, false
	}
	integer = true
	if i < len(b) && b[i] == '.' {
		integer = false
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return nil, false, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		integer = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return nil, false, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	tok = b[p.i:i]
	p.i = i
	return tok, integer, true
}

// skip checks and passes over the value at p.i, of any type.
func (p *podParser) skip() bool {
	switch c := p.peek(); {
	case c == '{':
		return p.members(func(_, _ []byte, _ bool) bool { return p.skip() })
	case c == '[':
		return p.array(p.skip)
	case c == '"':
		_, _, ok := p.str()
		return ok
	case c == '-' || isDigit(c):
		_, _, ok := p.number()
		return ok
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	}
	return p.null()
}
