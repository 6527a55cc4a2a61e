package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"epsim/sim"
)

// maxNodeVisits bounds the work one scenario may cause through YAML aliases (an alias can
// point at a big subtree, and aliases of aliases multiply).
const maxNodeVisits = 500_000

// parseYAML parses one YAML document into its root node; nil for an empty document. A
// second document in the stream is an error. The YAML library is not supposed to panic on
// any input; should it ever do, the panic becomes an error rather than crashing the caller.
func parseYAML(data []byte) (root *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, fmt.Errorf("yaml: cannot parse: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("line %d: a scenario file holds one YAML document; found a second one", extra.Line)
	}
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return nil, nil
		}
		return doc.Content[0], nil
	}
	return &doc, nil
}

// decoder walks a yaml.Node tree against the schema, collecting every problem.
type decoder struct {
	file string
	errs Errors
	// setOf maps nodes that came from a --set flag to that flag's text.
	setOf  map[*yaml.Node]string
	visits int
	// phases are the names of the timeline's actions, valid or not (for expect keys).
	phases []string
	// rejected holds the service entries left out for their errors, by name, with their
	// count: the timeline's references to them are not reported again as unknown.
	rejected map[string]int
	// servicesIncomplete is set when a service entry was left out without a valid name of
	// its own, or the services list itself was rejected: the timeline's references then
	// cannot be checked against the names, and are not reported as unknown.
	servicesIncomplete bool
	// waits are the timeline's wait durations, in order, for the check against
	// guards.endTime.
	waits []waitAt
}

// waitAt is one wait action's duration and where it is written.
type waitAt struct {
	node     *yaml.Node
	path     string
	duration time.Duration
}

func newDecoder(file string) *decoder {
	return &decoder{file: file, setOf: map[*yaml.Node]string{}}
}

// errorf records a problem at node n (which may be nil: position unknown).
func (d *decoder) errorf(n *yaml.Node, path, format string, args ...any) {
	e := &Error{File: d.file, Path: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		if set, ok := d.setOf[n]; ok {
			e.Set = set
		} else {
			e.Line, e.Column = n.Line, n.Column
		}
	}
	d.errs = append(d.errs, e)
}

// resolve follows aliases. It returns nil once the visit budget is spent (after reporting it).
func (d *decoder) resolve(n *yaml.Node, path string) *yaml.Node {
	for hops := 0; n != nil && n.Kind == yaml.AliasNode; hops++ {
		if n.Alias == nil || hops > 100 {
			d.errorf(n, path, "alias does not resolve")
			return nil
		}
		n = n.Alias
	}
	d.visits++
	if d.visits == maxNodeVisits {
		d.errorf(n, path, "document too large or too much aliasing (more than %d nodes visited)", maxNodeVisits)
	}
	if d.visits >= maxNodeVisits {
		return nil
	}
	return n
}

// isNull reports a missing value ("key:" or "key: ~").
func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// describe names what a node is, for "expected X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		v := n.Value
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		switch n.ShortTag() {
		case "!!null":
			return "no value"
		case "!!int":
			return "the integer " + v
		case "!!float":
			return "the number " + v
		case "!!bool":
			return "the boolean " + v
		default:
			return strconv.Quote(v)
		}
	}
	return "an unsupported YAML node"
}

// entry is one key/value pair of a mapping.
type entry struct{ key, val *yaml.Node }

// fields checks that n is a mapping whose keys are all in allowed (each at most once) and
// returns the pairs by key. A null node counts as an empty mapping. ok is false when n is
// not a mapping at all.
func (d *decoder) fields(n *yaml.Node, path string, allowed []string) (map[string]entry, bool) {
	out := map[string]entry{}
	n = d.resolve(n, path)
	if isNull(n) {
		return out, n != nil
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "expected a mapping with fields %s, got %s", strings.Join(allowed, ", "), describe(n))
		return out, false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := d.resolve(n.Content[i], path)
		if k == nil {
			continue
		}
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, path, "field names must be plain strings, got %s", describe(k))
			continue
		}
		if k.Value == "<<" && k.ShortTag() == "!!merge" {
			d.errorf(k, path, "YAML merge keys (<<) are not supported; repeat the fields or use an alias for the whole value")
			continue
		}
		p := join(path, k.Value)
		if !slices.Contains(allowed, k.Value) {
			d.errorf(k, p, "%s", unknownField(k.Value, allowed))
			continue
		}
		if prev, dup := out[k.Value]; dup {
			if d.setOf[prev.key] == "" && d.setOf[k] == "" {
				d.errorf(k, p, "duplicate field (first at line %d)", prev.key.Line)
			}
			continue
		}
		out[k.Value] = entry{key: k, val: n.Content[i+1]}
	}
	return out, true
}

// join appends a field name to a path.
func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// index appends a list index to a path.
func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// list checks that n is a list (null = empty) and returns its items.
func (d *decoder) list(n *yaml.Node, path, what string) ([]*yaml.Node, bool) {
	n = d.resolve(n, path)
	if isNull(n) {
		return nil, n != nil
	}
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "expected a list of %s, got %s", what, describe(n))
		return nil, false
	}
	return n.Content, true
}

// scalar checks that n is a scalar with a value.
func (d *decoder) scalar(n *yaml.Node, path, want string) (*yaml.Node, bool) {
	n = d.resolve(n, path)
	if n == nil {
		return nil, false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		d.errorf(n, path, "expected %s, got %s", want, describe(n))
		return nil, false
	}
	return n, true
}

// str reads a string. Only YAML strings are accepted ("name: 123" is an error, so that a
// number is never silently read as a name).
func (d *decoder) str(n *yaml.Node, path string) (string, bool) {
	s, ok := d.scalar(n, path, "a string")
	if !ok {
		return "", false
	}
	if s.ShortTag() != "!!str" {
		d.errorf(s, path, "expected a string, got %s (quote it)", describe(s))
		return "", false
	}
	return s.Value, true
}

// integer reads an integer in lo..hi.
func (d *decoder) integer(n *yaml.Node, path string, lo, hi int64) (int64, bool) {
	want := fmt.Sprintf("an integer (%d..%d)", lo, hi)
	s, ok := d.scalar(n, path, want)
	if !ok {
		return 0, false
	}
	if s.ShortTag() != "!!int" {
		d.errorf(s, path, "expected %s, got %s", want, describe(s))
		return 0, false
	}
	v, err := strconv.ParseInt(s.Value, 0, 64)
	if err != nil || v < lo || v > hi {
		d.errorf(s, path, "%s out of range (%d..%d)", s.Value, lo, hi)
		return 0, false
	}
	return v, true
}

// number reads a finite number in lo..hi.
func (d *decoder) number(n *yaml.Node, path string, lo, hi float64) (float64, bool) {
	want := fmt.Sprintf("a number (%g..%g)", lo, hi)
	s, ok := d.scalar(n, path, want)
	if !ok {
		return 0, false
	}
	tag := s.ShortTag()
	if tag != "!!int" && tag != "!!float" {
		d.errorf(s, path, "expected %s, got %s", want, describe(s))
		return 0, false
	}
	var v float64
	var err error
	if tag == "!!int" {
		var i int64
		i, err = strconv.ParseInt(s.Value, 0, 64)
		v = float64(i)
	} else {
		v, err = strconv.ParseFloat(strings.ReplaceAll(s.Value, "_", ""), 64)
	}
	if err != nil || math.IsNaN(v) || v < lo || v > hi {
		d.errorf(s, path, "%s out of range (%g..%g)", s.Value, lo, hi)
		return 0, false
	}
	return v, true
}

// boolean reads true or false.
func (d *decoder) boolean(n *yaml.Node, path string) (bool, bool) {
	s, ok := d.scalar(n, path, "true or false")
	if !ok {
		return false, false
	}
	if s.ShortTag() != "!!bool" {
		d.errorf(s, path, "expected true or false, got %s", describe(s))
		return false, false
	}
	v, err := strconv.ParseBool(s.Value)
	if err != nil {
		// YAML 1.1 spellings the library still tags as booleans (yes, on, …).
		d.errorf(s, path, "expected true or false, got %s", describe(s))
		return false, false
	}
	return v, true
}

// duration reads a non-negative duration string ("30s"); the integer 0 is also accepted.
func (d *decoder) duration(n *yaml.Node, path string) (time.Duration, bool) {
	s, ok := d.scalar(n, path, "a duration like 30s")
	if !ok {
		return 0, false
	}
	if s.ShortTag() == "!!int" && s.Value == "0" {
		return 0, true
	}
	if s.ShortTag() != "!!str" {
		d.errorf(s, path, "expected a duration with a unit (like 30s, 500ms, 1m30s), got %s", describe(s))
		return 0, false
	}
	v, err := ParseDuration(s.Value)
	if err != nil {
		d.errorf(s, path, "%v", err)
		return 0, false
	}
	return v, true
}

// durationIn reads a duration in lo..hi.
func (d *decoder) durationIn(n *yaml.Node, path string, lo, hi time.Duration) (time.Duration, bool) {
	v, ok := d.duration(n, path)
	if ok && v > hi {
		d.errorf(n, path, "%s is too large (at most %s)", v, hi)
		return 0, false
	}
	if ok && v < lo {
		d.errorf(n, path, "%s out of range (%s..%s)", v, lo, hi)
		return 0, false
	}
	return v, ok
}

// byteSize reads a byte size: an integer or a string with a unit ("1.5MiB").
func (d *decoder) byteSize(n *yaml.Node, path string, lo, hi int64) (int64, bool) {
	s, ok := d.scalar(n, path, "a byte size like 1.5MiB")
	if !ok {
		return 0, false
	}
	var v int64
	switch s.ShortTag() {
	case "!!int":
		i, err := strconv.ParseInt(s.Value, 0, 64)
		if err != nil || i < 0 {
			d.errorf(s, path, "invalid byte size %s (a non-negative integer, or a number with a unit like 1.5MiB, 10KB)", s.Value)
			return 0, false
		}
		v = i
	case "!!str":
		i, err := ParseBytes(s.Value)
		if err != nil {
			d.errorf(s, path, "%v", err)
			return 0, false
		}
		v = i
	default:
		d.errorf(s, path, "expected a byte size (like 1572864, 1.5MiB, 10KB), got %s", describe(s))
		return 0, false
	}
	if v < lo || v > hi {
		d.errorf(s, path, "%s out of range (%d..%d bytes)", s.Value, lo, hi)
		return 0, false
	}
	return v, true
}

// bandwidth reads a rate in bits per second ("10Gbit", "100MB/s"); 0 means unlimited.
func (d *decoder) bandwidth(n *yaml.Node, path string) (float64, bool) {
	s, ok := d.scalar(n, path, "a bandwidth like 10Gbit")
	if !ok {
		return 0, false
	}
	if s.ShortTag() == "!!int" && s.Value == "0" {
		return 0, true
	}
	if s.ShortTag() != "!!str" {
		d.errorf(s, path, "expected a bandwidth with a unit (like 10Gbit, 1Gbps, 100MB/s; 0 or unlimited for no limit), got %s", describe(s))
		return 0, false
	}
	v, err := ParseBandwidth(s.Value)
	if err != nil {
		d.errorf(s, path, "%v", err)
		return 0, false
	}
	return v, true
}

// intOrPercent reads maxSurge/maxUnavailable: an integer or "25%".
func (d *decoder) intOrPercent(n *yaml.Node, path string) (sim.IntOrPercent, bool) {
	s, ok := d.scalar(n, path, "an integer or a percentage like 25%")
	if !ok {
		return sim.IntOrPercent{}, false
	}
	if t := s.ShortTag(); t != "!!int" && t != "!!str" {
		d.errorf(s, path, "expected an integer or a percentage like 25%%, got %s", describe(s))
		return sim.IntOrPercent{}, false
	}
	v, err := ParseIntOrPercent(s.Value)
	if err != nil {
		d.errorf(s, path, "%v", err)
		return sim.IntOrPercent{}, false
	}
	return v, true
}

// enum reads a string that must be one of allowed.
func (d *decoder) enum(n *yaml.Node, path string, allowed []string) (string, bool) {
	s, ok := d.scalar(n, path, "one of "+strings.Join(allowed, ", "))
	if !ok {
		return "", false
	}
	if !slices.Contains(allowed, s.Value) || s.ShortTag() != "!!str" {
		msg := fmt.Sprintf("%s is not allowed", describe(s))
		if sg := suggestName(s.Value, allowed); sg != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", sg)
		}
		d.errorf(s, path, "%s; allowed: %s", msg, strings.Join(allowed, ", "))
		return "", false
	}
	return s.Value, true
}

// stringMap reads a mapping of string to string (labels). Values may be any scalar and are
// taken as written ("true", "3").
func (d *decoder) stringMap(n *yaml.Node, path string, check func(k, v string) string) (map[string]string, bool) {
	n = d.resolve(n, path)
	if isNull(n) {
		return nil, n != nil
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "expected a mapping of strings, got %s", describe(n))
		return nil, false
	}
	out := map[string]string{}
	ok := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := d.resolve(n.Content[i], path)
		v := d.resolve(n.Content[i+1], path)
		if k == nil || v == nil {
			return nil, false
		}
		if k.Kind != yaml.ScalarNode || isNull(k) {
			d.errorf(k, path, "keys must be strings, got %s", describe(k))
			ok = false
			continue
		}
		p := join(path, k.Value)
		if v.Kind != yaml.ScalarNode {
			d.errorf(v, p, "expected a string, got %s", describe(v))
			ok = false
			continue
		}
		val := v.Value
		if isNull(v) {
			val = ""
		}
		if _, dup := out[k.Value]; dup {
			d.errorf(k, p, "duplicate key")
			ok = false
			continue
		}
		if msg := check(k.Value, val); msg != "" {
			d.errorf(k, p, "%s", msg)
			ok = false
			continue
		}
		out[k.Value] = val
	}
	return out, ok
}

// distribution reads a delay distribution: a bare duration (fixed), or a mapping with
// exactly one of fixed, uniform, lognormal, exponential.
func (d *decoder) distribution(n *yaml.Node, path string) (sim.Distribution, bool) {
	n = d.resolve(n, path)
	if n == nil {
		return sim.Distribution{}, false
	}
	kinds := []string{"fixed", "uniform", "lognormal", "exponential"}
	if n.Kind == yaml.ScalarNode && !isNull(n) {
		v, ok := d.duration(n, path)
		return sim.Fixed(v), ok
	}
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		d.errorf(n, path, "expected a duration or a mapping with exactly one of %s (e.g. lognormal: {median: 8s, p99: 40s}), got %s", strings.Join(kinds, ", "), describe(n))
		return sim.Distribution{}, false
	}
	f, ok := d.fields(n, path, kinds)
	if !ok || len(f) != 1 {
		return sim.Distribution{}, false
	}
	if e, ok := f["fixed"]; ok {
		v, ok := d.duration(e.val, join(path, "fixed"))
		return sim.Fixed(v), ok
	}
	if e, ok := f["uniform"]; ok {
		p := join(path, "uniform")
		g, ok := d.fields(e.val, p, []string{"min", "max"})
		lo, ok1 := d.required(g, e.val, p, "min", d.duration)
		hi, ok2 := d.required(g, e.val, p, "max", d.duration)
		if !ok || !ok1 || !ok2 {
			return sim.Distribution{}, false
		}
		if lo > hi {
			d.errorf(g["max"].val, join(p, "max"), "max %s is below min %s (need min <= max)", hi, lo)
			return sim.Distribution{}, false
		}
		return sim.Distribution{Kind: sim.DistUniform, Min: lo, Max: hi}, true
	}
	if e, ok := f["lognormal"]; ok {
		p := join(path, "lognormal")
		g, ok := d.fields(e.val, p, []string{"median", "p99"})
		med, ok1 := d.required(g, e.val, p, "median", d.duration)
		p99, ok2 := d.required(g, e.val, p, "p99", d.duration)
		if !ok || !ok1 || !ok2 {
			return sim.Distribution{}, false
		}
		if med <= 0 {
			d.errorf(g["median"].val, join(p, "median"), "median must be > 0")
			return sim.Distribution{}, false
		}
		if p99 < med {
			d.errorf(g["p99"].val, join(p, "p99"), "p99 %s is below median %s (need p99 >= median)", p99, med)
			return sim.Distribution{}, false
		}
		return sim.Distribution{Kind: sim.DistLognormal, Median: med, P99: p99}, true
	}
	e := f["exponential"]
	p := join(path, "exponential")
	g, ok := d.fields(e.val, p, []string{"mean"})
	mean, ok1 := d.required(g, e.val, p, "mean", d.duration)
	if !ok || !ok1 {
		return sim.Distribution{}, false
	}
	if mean <= 0 {
		d.errorf(g["mean"].val, join(p, "mean"), "mean must be > 0")
		return sim.Distribution{}, false
	}
	return sim.Distribution{Kind: sim.DistExponential, Mean: mean}, true
}

// required reads field name of mapping parent with read, reporting it missing when absent.
func (d *decoder) required(f map[string]entry, parent *yaml.Node, path, name string, read func(*yaml.Node, string) (time.Duration, bool)) (time.Duration, bool) {
	e, ok := f[name]
	if !ok {
		d.missing(parent, path, name)
		return 0, false
	}
	return read(e.val, join(path, name))
}

// missing reports a required field that is absent from the mapping at parent.
func (d *decoder) missing(parent *yaml.Node, path, name string) {
	d.errorf(parent, join(path, name), "required field is missing")
}

// Names, labels: the upstream validation patterns (apimachinery util/validation).
var (
	dns1035Label   = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)
	dns1123Label   = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dns1123Sub     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	qualifiedName  = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	labelValueExpr = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
)

// checkLabel validates a label key and value as the API server would
// (upstream: apimachinery util/validation IsQualifiedName, IsValidLabelValue).
// checkServiceLabel is checkLabel for a Service's labels, whose values may also be
// sim.NameLabelValue ($name: each stamped Service's own name, always a valid label value).
func checkServiceLabel(k, v string) string {
	if v == sim.NameLabelValue {
		v = ""
	}
	return checkLabel(k, v)
}

func checkLabel(k, v string) string {
	prefix, name, hasPrefix := strings.Cut(k, "/")
	if !hasPrefix {
		name, prefix = prefix, ""
	}
	switch {
	case hasPrefix && (prefix == "" || len(prefix) > 253 || !dns1123Sub.MatchString(prefix)):
		return fmt.Sprintf("label key %q: the prefix must be a DNS subdomain (like example.com)", k)
	case len(name) == 0 || len(name) > 63 || !qualifiedName.MatchString(name):
		return fmt.Sprintf("label key %q: the name must be 1..63 characters [A-Za-z0-9-_.], starting and ending alphanumeric", k)
	case len(v) > 63 || !labelValueExpr.MatchString(v):
		return fmt.Sprintf("label value %q: must be 0..63 characters [A-Za-z0-9-_.], starting and ending alphanumeric", v)
	}
	return ""
}
