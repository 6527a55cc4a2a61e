package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Setting is one value of a scenario file: its path, in the form --set takes
// (controlPlane.maxEndpointsPerSlice, services[0].replicas), and its value as written. A
// list of scalars (zones: [a, b]) is one setting, its value the list in flow form.
type Setting struct {
	Path, Value string
}

// SettingChange is a setting that two scenario files give different values, or that only
// one of them has (A or B nil).
type SettingChange struct {
	Path string
	A, B *string
}

// maxSettings bounds the settings read from one file: an effective scenario has a few
// hundred, and a file of a million is not one.
const maxSettings = 100_000

// Settings lists the values of the scenario file data (YAML) in the order they appear,
// one per leaf: the effective scenario 'sim run --out' writes beside summary.json
// (effective-scenario.yaml) has every field of the run, defaults and overrides applied, so
// that the settings of two runs say what their inputs differ in. An alias is the leaf
// *NAME: what two files say, not what it expands to.
func Settings(data []byte) ([]Setting, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("file larger than %d bytes", MaxFileBytes)
	}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("not a scenario file: %w", err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("not a scenario file: want a mapping at the top level")
	}
	var out []Setting
	var walk func(n *yaml.Node, path string) error
	walk = func(n *yaml.Node, path string) error {
		if len(out) >= maxSettings {
			return fmt.Errorf("more than %d settings", maxSettings)
		}
		switch n.Kind {
		case yaml.MappingNode:
			if len(n.Content) == 0 {
				out = append(out, Setting{path, "{}"})
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				key := n.Content[i].Value
				if path != "" {
					key = path + "." + key
				}
				if err := walk(n.Content[i+1], key); err != nil {
					return err
				}
			}
		case yaml.SequenceNode:
			if items, ok := scalarList(n); ok {
				out = append(out, Setting{path, items})
				return nil
			}
			for i, item := range n.Content {
				if err := walk(item, path+"["+strconv.Itoa(i)+"]"); err != nil {
					return err
				}
			}
		case yaml.AliasNode:
			out = append(out, Setting{path, "*" + n.Value})
		default:
			out = append(out, Setting{path, n.Value})
		}
		return nil
	}
	if err := walk(doc.Content[0], ""); err != nil {
		return nil, err
	}
	return out, nil
}

// scalarList renders a sequence of scalars in flow form, [a, b], quoting an item only where
// it would otherwise read as more than one; ok is false when some item is not a scalar.
func scalarList(n *yaml.Node) (string, bool) {
	items := make([]string, len(n.Content))
	for i, item := range n.Content {
		if item.Kind != yaml.ScalarNode {
			return "", false
		}
		items[i] = item.Value
		if item.Value == "" || strings.ContainsAny(item.Value, ",[]{}\"") {
			items[i] = strconv.Quote(item.Value)
		}
	}
	return "[" + strings.Join(items, ", ") + "]", true
}

// CompareSettings lists the settings a and b differ in: those whose values differ, in a's
// order, then those only b has, in b's. Nil when they agree.
func CompareSettings(a, b []Setting) []SettingChange {
	inB := make(map[string]string, len(b))
	for _, s := range b {
		inB[s.Path] = s.Value
	}
	inA := make(map[string]bool, len(a))
	var changes []SettingChange
	for _, s := range a {
		inA[s.Path] = true
		va := s.Value
		vb, ok := inB[s.Path]
		switch {
		case !ok:
			changes = append(changes, SettingChange{Path: s.Path, A: &va})
		case vb != va:
			changes = append(changes, SettingChange{Path: s.Path, A: &va, B: &vb})
		}
	}
	for _, s := range b {
		if !inA[s.Path] {
			vb := s.Value
			changes = append(changes, SettingChange{Path: s.Path, B: &vb})
		}
	}
	return changes
}
