package trace

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"epsim/model"
)

// ReadServices reads Services as 'kubectl get services -A -o json' prints them: a List (or
// ServiceList) of Services, or bare Service objects, one or more after another. Objects of
// other kinds are skipped and counted in the returned Stats.
func ReadServices(r io.Reader, name string) ([]*model.Service, *Stats, error) {
	var out []*model.Service
	stats, err := readObjects(r, name, "Service", func(raw []byte) error {
		var s serviceJSON
		if err := json.Unmarshal(raw, &s); err != nil {
			return err
		}
		out = append(out, serviceFromJSON(&s))
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, stats, nil
}

// ReadNodes reads Nodes as 'kubectl get nodes -o json' prints them: a List (or NodeList) of
// Nodes, or bare Node objects. Zones come from the topology.kubernetes.io/zone label.
func ReadNodes(r io.Reader, name string) ([]*model.Node, *Stats, error) {
	var out []*model.Node
	stats, err := readObjects(r, name, "Node", func(raw []byte) error {
		var n nodeJSON
		if err := json.Unmarshal(raw, &n); err != nil {
			return err
		}
		out = append(out, nodeFromJSON(&n))
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, stats, nil
}

// readObjects calls fn with every object of kind in r, which holds lists and bare objects.
// A list's items are read one at a time, and an error names the item's byte offset.
func readObjects(r io.Reader, name, kind string, fn func(raw []byte) error) (*Stats, error) {
	s := newJSONStream(r, name)
	stats := &Stats{}
	for {
		var raw json.RawMessage
		if err := s.next(&raw); err != nil {
			if err == io.EOF {
				return stats, nil
			}
			return nil, err
		}
		start := s.valueStart
		var tm struct {
			typeMeta
			Type  string          `json:"type"`
			Items json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(raw, &tm); err != nil {
			return nil, s.errorf(start, "expected a %s or a List of them: %v", kind, err)
		}
		switch {
		case tm.Kind == kind:
			if err := fn(raw); err != nil {
				return nil, s.objectError(start, kind, err)
			}
			stats.Events++
		case tm.Items != nil || strings.HasSuffix(tm.Kind, "List"):
			if err := readItems(s, start, raw, kind, stats, fn); err != nil {
				return nil, err
			}
		case tm.Type != "":
			return nil, s.errorf(start, "a watch event, expected a %s or a List of them ('kubectl get … -o json' without --watch)", kind)
		default:
			k := tm.Kind
			if k == "" {
				k = "(none)"
			}
			stats.skip("kind " + k)
		}
	}
}

// readItems walks the "items" array of a list that starts at byte start of the stream.
func readItems(s *jsonStream, start int64, raw []byte, kind string, stats *Stats, fn func([]byte) error) error {
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
			itemStart := start + d.InputOffset()
			var item json.RawMessage
			if err := d.Decode(&item); err != nil {
				return s.errorf(itemStart, "list item: %v", err)
			}
			var tm typeMeta
			if err := json.Unmarshal(item, &tm); err != nil {
				return s.errorf(itemStart, "list item: expected a %s object: %v", kind, err)
			}
			if tm.Kind != kind && tm.Kind != "" {
				stats.skip("kind " + tm.Kind)
				continue
			}
			if err := fn(item); err != nil {
				return s.objectError(itemStart, kind, err)
			}
			stats.Events++
		}
		if _, err := d.Token(); err != nil { // ]
			return s.errorf(start+d.InputOffset(), "\"items\": %v", err)
		}
	}
	return nil
}
