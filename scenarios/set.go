package scenarios

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// setStep is one step of a --set path: a field name or a list index.
type setStep struct {
	key   string
	index int
	isKey bool
	// quoted is a key written in brackets and quotes (["a.b"]), taken as written.
	quoted bool
}

// parseSetPath splits "services[0].ports[1].port" into steps. A key holding dots is
// written in brackets and quotes: expect["rolling-update.endpoints.fanoutBytes"].max.
func parseSetPath(path string) ([]setStep, error) {
	var steps []setStep
	i := 0
	for i < len(path) {
		switch c := path[i]; {
		case c == '.':
			if i == 0 || i == len(path)-1 || path[i+1] == '.' || path[i+1] == '[' {
				return nil, fmt.Errorf("misplaced '.' at offset %d", i)
			}
			i++
		case c == '[':
			end := strings.IndexByte(path[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("unclosed '[' at offset %d", i)
			}
			inner := path[i+1 : i+end]
			if strings.HasPrefix(inner, `"`) {
				// A quoted key may itself hold ']'; find the closing quote first.
				q, err := strconv.QuotedPrefix(path[i+1:])
				if err != nil || i+1+len(q) >= len(path) || path[i+1+len(q)] != ']' {
					return nil, fmt.Errorf("bad quoted key at offset %d", i)
				}
				key, _ := strconv.Unquote(q)
				steps = append(steps, setStep{key: key, isKey: true, quoted: true})
				i += 1 + len(q) + 1
				continue
			}
			n, err := strconv.Atoi(inner)
			if err != nil || n < 0 || strings.TrimLeft(inner, "0123456789") != "" {
				return nil, fmt.Errorf("list index %q is not a non-negative integer", inner)
			}
			steps = append(steps, setStep{index: n})
			i += end + 1
		default:
			if i > 0 && path[i-1] != '.' {
				return nil, fmt.Errorf("unexpected %q at offset %d (a field name follows '.')", c, i)
			}
			j := i
			for j < len(path) && path[j] != '.' && path[j] != '[' && path[j] != ']' {
				j++
			}
			if j == i {
				return nil, fmt.Errorf("unexpected %q at offset %d", c, i)
			}
			steps = append(steps, setStep{key: path[i:j], isKey: true})
			i = j
		}
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("empty path")
	}
	return steps, nil
}

// applySets applies --set flags to the document (creating it when the file is empty) and
// returns the new root. Values are YAML ("500", "[a, b]", "{median: 1s, p99: 2s}"). Every
// node a flag adds is remembered, so that a problem with it names the flag.
func (d *decoder) applySets(root *yaml.Node, sets []string) *yaml.Node {
	if len(sets) == 0 {
		return root
	}
	if root == nil {
		root = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: 1, Column: 1}
	}
	for _, set := range sets {
		fail := func(path, format string, args ...any) {
			d.errs = append(d.errs, &Error{File: d.file, Set: set, Path: path, Msg: fmt.Sprintf(format, args...)})
		}
		path, value, ok := strings.Cut(set, "=")
		if !ok {
			fail("", "expected path=value, like cluster.nodes=500")
			continue
		}
		steps, err := parseSetPath(path)
		if err != nil {
			fail("", "bad path %q: %v (like services[0].replicas or controlPlane.maxEndpointsPerSlice)", path, err)
			continue
		}
		val, err := parseYAML([]byte(value))
		if err != nil {
			if _, _, msg, ok := notText([]byte(value), err); ok {
				err = errors.New(msg)
			}
			fail(path, "bad value %q: %v", value, err)
			continue
		}
		if val == nil {
			val = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
		}
		steps = labelSteps(steps)
		if steps, err = expectSteps(steps, val); err != nil {
			fail(path, "%v", err)
			continue
		}
		d.markSet(val, set)
		cur := root
		walked := ""
		for si, st := range steps {
			cur = resolveAliases(cur)
			last := si == len(steps)-1
			if !st.isKey {
				walkedNext := index(walked, st.index)
				if cur.Kind != yaml.SequenceNode {
					fail(walkedNext, "%s is not a list", orDocument(walked))
					cur = nil
					break
				}
				if st.index >= len(cur.Content) {
					fail(walkedNext, "index %d out of range (the list has %s)", st.index, counted(len(cur.Content), "item", "items"))
					cur = nil
					break
				}
				if last {
					cur.Content[st.index] = val
				} else {
					cur = cur.Content[st.index]
				}
				walked = walkedNext
				continue
			}
			walkedNext := join(walked, st.key)
			if isNull(cur) && cur != root {
				cur.Kind, cur.Tag, cur.Value = yaml.MappingNode, "!!map", ""
				d.setOf[cur] = set
			}
			if cur.Kind != yaml.MappingNode {
				fail(walkedNext, "%s is not a mapping", orDocument(walked))
				cur = nil
				break
			}
			var next *yaml.Node
			for k := 0; k+1 < len(cur.Content); k += 2 {
				if key := resolveAliases(cur.Content[k]); key.Kind == yaml.ScalarNode && key.Value == st.key {
					if last {
						cur.Content[k+1] = val
					}
					next = cur.Content[k+1]
					break
				}
			}
			if next == nil {
				if !last && !steps[si+1].isKey {
					fail(index(walkedNext, steps[si+1].index), "%s is not in the file, so it has no items to index; set the whole list instead (%s=[…])", walkedNext, walkedNext)
					cur = nil
					break
				}
				key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: st.key}
				d.setOf[key] = set
				next = val
				if !last {
					next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
					d.setOf[next] = set
				}
				cur.Content = append(cur.Content, key, next)
			}
			cur = next
			walked = walkedNext
		}
	}
	return root
}

// expectSteps rewrites a dotted path under expect, whose keys are "phase.mode.figure"
// themselves, into the key and its bound: expect.total.endpoints.fanoutBytes.max=1KB is
// expect["total.endpoints.fanoutBytes"].max=1KB. The reading is unambiguous because phase
// and mode names have no dots and a budget is a mapping: a trailing max or min is the
// bound when the value is not a mapping and a phase, mode and figure come before it;
// otherwise the whole rest is the key (expect.total.endpoints.fanoutBytes={max: 1KB}). A
// bracketed key, or any index, leaves the path as written. A figure whose own name ends in
// .max (the alias propagation.max) bounded as propagation.max=V is refused, naming the
// forms that work, rather than read as the unknown figure "propagation".
func expectSteps(steps []setStep, val *yaml.Node) ([]setStep, error) {
	if len(steps) < 3 || steps[0].key != "expect" || !steps[0].isKey || steps[0].quoted {
		return steps, nil
	}
	var parts []string
	for _, st := range steps[1:] {
		if !st.isKey || st.quoted {
			return steps, nil
		}
		parts = append(parts, st.key)
	}
	bound := ""
	if last := parts[len(parts)-1]; (last == "max" || last == "min") && len(parts) >= 4 && resolveAliases(val).Kind != yaml.MappingNode {
		bound, parts = last, parts[:len(parts)-1]
	}
	key := strings.Join(parts, ".")
	if bound != "" {
		mode, figure := parts[1], strings.Join(parts[2:], ".")
		if _, _, known := CanonicalFigure(mode, figure); !known {
			if canonical, _, asFigure := CanonicalFigure(mode, figure+"."+bound); asFigure {
				return nil, fmt.Errorf("%s.%s is the figure %s: bound it as expect.%s.%s.max=VALUE (or .min), or expect[%q]={max: VALUE}",
					figure, bound, canonical, key, bound, key+"."+bound)
			}
		}
	}
	out := []setStep{steps[0], {key: key, isKey: true, quoted: true}}
	if bound != "" {
		out = append(out, setStep{key: bound, isKey: true})
	}
	return out, nil
}

// labelSteps reads the rest of a --set path after a labels step (a Service's or a
// labelService action's, both string maps) as one key: label keys hold dots, so
// services[0].labels.app.kubernetes.io/name=x is services[0].labels["app.kubernetes.io/name"]=x.
// A label's value is a string, so nothing can follow its key. A bracketed key, or any
// index, leaves the path as written.
func labelSteps(steps []setStep) []setStep {
	for i, st := range steps {
		if !st.isKey || st.quoted || st.key != "labels" || i == 0 || len(steps)-i < 3 {
			continue
		}
		var parts []string
		for _, rest := range steps[i+1:] {
			if !rest.isKey || rest.quoted {
				return steps
			}
			parts = append(parts, rest.key)
		}
		return append(steps[:i+1:i+1], setStep{key: strings.Join(parts, "."), isKey: true, quoted: true})
	}
	return steps
}

// markSet records every node of a --set value as coming from that flag.
func (d *decoder) markSet(n *yaml.Node, set string) {
	if n == nil || d.setOf[n] != "" {
		return
	}
	d.setOf[n] = set
	for _, c := range n.Content {
		d.markSet(c, set)
	}
}

// resolveAliases follows aliases (bounded, for --set navigation).
func resolveAliases(n *yaml.Node) *yaml.Node {
	for i := 0; i < 100 && n.Kind == yaml.AliasNode && n.Alias != nil; i++ {
		n = n.Alias
	}
	return n
}

func orDocument(path string) string {
	if path == "" {
		return "the document"
	}
	return path
}
