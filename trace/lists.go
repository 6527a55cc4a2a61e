package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"epsim/model"
)

// ReadServices reads Services as 'kubectl get services -A -o json' prints them: a List (or
// ServiceList) of Services, or bare Service objects, one or more after another. Objects of
// other kinds are skipped and counted in the returned Stats.
func ReadServices(r io.Reader, name string) ([]*model.Service, *Stats, error) {
	return readObjects(r, name, serviceType, serviceFromJSON, true)
}

// ReadNodes reads Nodes as 'kubectl get nodes -o json' prints them: a List (or NodeList) of
// Nodes, or bare Node objects. Zones come from the topology.kubernetes.io/zone label.
func ReadNodes(r io.Reader, name string) ([]*model.Node, *Stats, error) {
	return readObjects(r, name, nodeType, nodeFromJSON, true)
}

// readObjects reads every object of type t in r and converts it, the fast way when fast
// is set (tests turn it off).
func readObjects[T, M any](r io.Reader, name string, t objectType[T], convert func(*T) M, fast bool) ([]M, *Stats, error) {
	objs, stats, err := readList(r, name, t, fast)
	if err != nil {
		return nil, nil, err
	}
	var out []M
	for i := range objs {
		out = append(out, convert(&objs[i]))
	}
	return out, stats, nil
}

// objectType is a kind of object the lists hold, decoded into a T.
type objectType[T any] struct {
	kind string
	// decode is the parser's decoding of a T (see listfast.go).
	decode func(*podParser, *T) bool
	// kindOf returns the kind a decoded object says it is.
	kindOf func(*T) string
}

var (
	serviceType = objectType[serviceJSON]{"Service", (*podParser).service, func(s *serviceJSON) string { return s.Kind }}
	nodeType    = objectType[nodeJSON]{"Node", (*podParser).node, func(n *nodeJSON) string { return n.Kind }}
)

// listReader reads the objects of one type from a stream of lists and bare objects. Each
// value goes the fast way (the parser) when the parser takes it whole, else the
// encoding/json way, which tells what is wrong with it.
type listReader[T any] struct {
	objectType[T]
	s     *jsonStream
	out   []T
	stats Stats
}

// readList reads every object of type t in r, the fast way when fast is set (tests turn
// it off).
func readList[T any](r io.Reader, name string, t objectType[T], fast bool) ([]T, *Stats, error) {
	l := &listReader[T]{objectType: t}
	if fast {
		l.s = newListStream(r, name)
	} else {
		l.s = newJSONStream(r, name)
	}
	l.s.expected = "a " + t.kind + " or a List of them"
	for {
		raw, taken, err := l.next()
		if err != nil {
			if err == io.EOF {
				return l.out, &l.stats, nil
			}
			return nil, nil, err
		}
		if taken {
			continue
		}
		if err := l.value(raw, l.s.valueStart); err != nil {
			return nil, nil, err
		}
	}
}

// next reads the next value: taken is set when the fast way read it, else raw is the value
// for the encoding/json way.
func (l *listReader[T]) next() (raw []byte, taken bool, err error) {
	if l.s.dec != nil {
		return l.decoded()
	}
	raw, err = l.s.nextRaw()
	switch {
	case errors.Is(err, errUnframed):
		return l.decoded()
	case err != nil:
		return nil, false, err
	}
	if l.fastValue(raw) {
		return nil, true, nil
	}
	if !json.Valid(raw) {
		l.s.unread()
		l.s.unframe()
		return l.decoded()
	}
	return raw, false, nil
}

// decoded reads the next value with the stream's decoder.
func (l *listReader[T]) decoded() ([]byte, bool, error) {
	var raw json.RawMessage
	err := l.s.next(&raw)
	return raw, false, err
}

// fastValue reads raw the fast way, as value would, and reports whether it could: when it
// could not, nothing has been kept of it. A list's items are decoded as the head is read
// (kubectl prints "kind" after "items"), and dropped if the head says it is no list.
func (l *listReader[T]) fastValue(raw []byte) bool {
	mark := len(l.out)
	var skipped []string
	drop := func() {
		clear(l.out[mark:])
		l.out = l.out[:mark]
		skipped = skipped[:0]
	}
	h, ok := decodeListHead(raw, func(p *podParser) bool { return l.fastItems(p, &skipped) })
	switch {
	case !ok:
	case h.kind == l.kind:
		drop()
		l.out = append(l.out, *new(T))
		ok = decodeObject(raw, l.decode, &l.out[mark])
	case h.hasItems || strings.HasSuffix(h.kind, "List"):
	case h.typ != "":
		ok = false // an error, which the encoding/json way words
	default:
		k := h.kind
		if k == "" {
			k = "(none)"
		}
		skipped = append(skipped, "kind "+k)
	}
	if !ok {
		drop()
		return false
	}
	l.stats.Events += int64(len(l.out) - mark)
	for _, k := range skipped {
		l.stats.skip(k)
	}
	return true
}

// fastItems decodes the items of a list at the parser, an array of objects (or null); an item of
// another kind is skipped, as items skips it, if it decodes as a T.
func (l *listReader[T]) fastItems(p *podParser, skipped *[]string) bool {
	if p.Null() {
		return true
	}
	return p.Peek() == '[' && p.Array(func() bool {
		var v T
		if p.Peek() != '{' || !l.decode(p, &v) {
			return false
		}
		switch k := l.kindOf(&v); k {
		case l.kind, "":
			l.out = append(l.out, v)
		default:
			*skipped = append(*skipped, "kind "+k)
		}
		return true
	})
}

// value reads one value, raw, which starts at byte start of the stream, the encoding/json
// way: an object of the reader's kind, a list, or another kind (skipped).
func (l *listReader[T]) value(raw []byte, start int64) error {
	s, kind := l.s, l.kind
	var tm struct {
		typeMeta
		Type  string          `json:"type"`
		Items json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(raw, &tm); err != nil {
		// Not an object: say what it is, not which Go type it does not fit.
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) && typ.Field == "" {
			return s.errorf(start, "expected a %s or a List of them (a JSON object), got JSON %s", kind, typ.Value)
		}
		return s.errorf(start, "expected a %s or a List of them: %v", kind, err)
	}
	switch {
	case tm.Kind == kind:
		if err := l.object(raw); err != nil {
			return s.objectError(start, kind, err)
		}
	case tm.Items != nil || strings.HasSuffix(tm.Kind, "List"):
		return l.items(start, raw)
	case tm.Type != "":
		return s.errorf(start, "a watch event, expected a %s or a List of them ('kubectl get … -o json' without --watch)", kind)
	default:
		k := tm.Kind
		if k == "" {
			k = "(none)"
		}
		l.stats.skip("kind " + k)
	}
	return nil
}

// object decodes one object of the reader's kind with encoding/json.
func (l *listReader[T]) object(raw []byte) error {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	l.out = append(l.out, v)
	l.stats.Events++
	return nil
}

// items walks the "items" array of a list that starts at byte start of the stream.
func (l *listReader[T]) items(start int64, raw []byte) error {
	s, kind := l.s, l.kind
	d := json.NewDecoder(bytes.NewReader(raw))
	if _, err := d.Token(); err != nil { // {
		return s.errorf(start, "expected a JSON object: %v", err)
	}
	for d.More() {
		keyTok, err := d.Token()
		if err != nil {
			return s.errorf(start+d.InputOffset(), "malformed list: %v", err)
		}
		if key, _ := keyTok.(string); key != "items" {
			var skip json.RawMessage
			if err := d.Decode(&skip); err != nil {
				return s.errorf(start+d.InputOffset(), "malformed list: %v", err)
			}
			continue
		}
		if tok, err := d.Token(); err != nil || tok != json.Delim('[') {
			if tok == nil && err == nil {
				return nil // "items": null
			}
			return s.errorf(start+d.InputOffset(), "\"items\": expected an array")
		}
		for d.More() {
			var item json.RawMessage
			if err := d.Decode(&item); err != nil {
				return s.errorf(start+d.InputOffset(), "list item: %v", err)
			}
			// The item's first byte: the decoder's offset before it is the end of what
			// came before (the bracket, or the item before and not its comma).
			itemStart := start + d.InputOffset() - int64(len(item))
			var tm typeMeta
			if err := json.Unmarshal(item, &tm); err != nil {
				return s.errorf(itemStart, "list item: expected a %s object: %v", kind, err)
			}
			if tm.Kind != kind && tm.Kind != "" {
				l.stats.skip("kind " + tm.Kind)
				continue
			}
			if err := l.object(item); err != nil {
				return s.objectError(itemStart, kind, err)
			}
		}
		if _, err := d.Token(); err != nil { // ]
			return s.errorf(start+d.InputOffset(), "\"items\": %v", err)
		}
	}
	return nil
}
