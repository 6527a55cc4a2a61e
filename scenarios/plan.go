package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"epsim/sim"
)

// shippedPlans holds the capacity plans that come with epsim, runnable by name.
//
//go:embed plans/*.yaml
var shippedPlans embed.FS

// Plan limits. They keep a plan within what one report can show; they are ours.
const (
	// MaxPlanPoints bounds the grid (the product of every axis's value count).
	MaxPlanPoints = 10_000
	maxAxisValues = 1_000
	maxAxes       = 8
)

// Plan is a loaded, validated capacity plan (`sim plan`): a base scenario, a grid of
// overrides whose cross product is the set of runs, and the budgets each run is held to.
type Plan struct {
	// Name and Description come from the plan file.
	Name        string
	Description string
	// Notes is free text for the report (paragraphs separated by blank lines).
	Notes string
	// File is where the plan came from, as errors print it ("scenarios/plans/NAME.yaml" for a
	// shipped plan).
	File string
	// Scenario is the base scenario as the plan names it; ScenarioFile is what it resolved to.
	Scenario     string
	ScenarioFile string
	// HasSeed says the plan overrides the scenario's seed with Seed.
	HasSeed bool
	Seed    uint64
	// Set are overrides ("path=value") applied to every point before the axis's.
	Set []string
	// Axes span the grid; the first axis varies slowest.
	Axes []Axis
	// Churn says how often each phase happens per day; per-day figures weigh phases by it.
	Churn []PhaseRate
	// Budgets are the questions the report answers for every point.
	Budgets Budgets
	// Points is the grid in index order, each with its validated configuration.
	Points []GridPoint
}

// Axis is one dimension of the grid: every value is written to every path.
type Axis struct {
	// Name labels the axis in reports (the first path unless the plan names it).
	Name string
	// Paths are --set paths ("services[0].replicas"); all receive the same value.
	Paths []string
	// Values are YAML texts, as --set takes them.
	Values []string
	// valueAt locates each value in the plan file (line and column), for errors found
	// when the grid is resolved.
	valueAt [][2]int
}

// PhaseRate is how many times per day a phase's work happens in the cluster being planned.
type PhaseRate struct {
	Phase  string
	PerDay float64
	// line and column locate the phase name in the plan, for errors found after parsing.
	line, column int
}

// Budgets are the limits a plan checks every point against. Zero means "no budget", except
// WritesPerSec, where zero means "the controller's own client QPS".
type Budgets struct {
	// PerNodeBytesPerDay bounds what one kube-proxy receives per day (needs Churn).
	PerNodeBytesPerDay int64
	// PeakEgressBitsPerSec bounds the API servers' peak fan-out rate (all replicas).
	PeakEgressBitsPerSec float64
	// WritesPerSec bounds each controller's sustained write rate; 0 = its client QPS.
	WritesPerSec float64
	// WriteWindow is the window the sustained write rate is measured over (default 10s).
	WriteWindow time.Duration
}

// GridPoint is one run of the plan.
type GridPoint struct {
	// Index is the point's place in the grid (row-major, first axis slowest).
	Index int
	// Values holds one value per axis.
	Values []string
	// Sets are the overrides of this point (the plan's Set, then one per axis path).
	Sets []string
	// Config is the validated engine configuration.
	Config sim.Config
}

// DefaultWriteWindow is the window over which a sustained write rate is measured: long
// enough that a controller's burst alone does not count as saturating its QPS.
const DefaultWriteWindow = 10 * time.Second

var (
	planFields   = []string{"name", "description", "notes", "scenario", "seed", "set", "grid", "churn", "budgets"}
	axisFields   = []string{"name", "set", "values"}
	budgetFields = []string{"perNodeIngressPerDay", "peakEgress", "writesPerSecond", "writeWindow"}
)

// PlanNames lists the shipped plans by name (file name without .yaml), sorted.
func PlanNames() []string { return shippedNames(shippedPlans, "plans") }

// LoadPlan reads a plan by path or shipped name (a file on disk wins), loads its base
// scenario and validates every grid point. The base scenario is looked up beside the plan
// file first, then as Load would. Problems in the plan come back as Errors, every one at
// once; a grid point the scenario rejects is reported with its index and values.
func LoadPlan(nameOrPath string) (*Plan, error) {
	data, file, embedded, err := readPlan(nameOrPath)
	if err != nil {
		return nil, err
	}
	p, err := ParsePlan(file, data)
	if err != nil {
		return nil, err
	}
	p.ScenarioFile = p.Scenario
	if !embedded && !filepath.IsAbs(p.Scenario) {
		beside := filepath.Join(filepath.Dir(file), p.Scenario)
		if st, err := os.Stat(beside); err == nil && !st.IsDir() {
			p.ScenarioFile = beside
		}
	}
	if err := p.resolve(); err != nil {
		return nil, err
	}
	return p, nil
}

// readPlan finds a plan's bytes: on disk first, then among the shipped ones.
func readPlan(nameOrPath string) (data []byte, file string, embedded bool, err error) {
	return readShipped(nameOrPath, "plan", "plans", shippedPlans, PlanNames())
}

// ParsePlan decodes and checks plan text without loading its scenario (so the grid points
// are not built; LoadPlan does that). file names the source in error messages.
func ParsePlan(file string, data []byte) (*Plan, error) {
	d := newDecoder(file)
	root, err := parseYAML(data)
	if err != nil {
		return nil, Errors{yamlSyntaxError(file, data, err)}
	}
	p := d.decodePlan(root)
	if len(d.errs) > 0 {
		sortErrors(d.errs, nil)
		return nil, d.errs
	}
	return p, nil
}

func (d *decoder) decodePlan(root *yaml.Node) *Plan {
	p := &Plan{File: d.file, Budgets: Budgets{WriteWindow: DefaultWriteWindow}}
	if root == nil {
		d.errorf(nil, "", "empty plan (required fields: name, scenario, grid)")
		return p
	}
	f, ok := d.fields(root, "", planFields)
	if !ok {
		return p
	}
	if e, ok := f["name"]; ok {
		if v, ok := d.name(e.val); ok {
			p.Name = v
		}
	} else {
		d.missing(root, "", "name")
	}
	if e, ok := f["description"]; ok {
		p.Description, _ = d.str(e.val, "description")
	}
	if e, ok := f["notes"]; ok {
		p.Notes, _ = d.str(e.val, "notes")
	}
	if e, ok := f["scenario"]; ok {
		if v, ok := d.str(e.val, "scenario"); ok {
			if strings.TrimSpace(v) == "" {
				d.errorf(e.val, "scenario", "must name a scenario file or a shipped scenario")
			}
			p.Scenario = v
		}
	} else {
		d.missing(root, "", "scenario")
	}
	if e, ok := f["seed"]; ok {
		if v, ok := d.integer(e.val, "seed", 0, math.MaxInt64); ok {
			p.HasSeed, p.Seed = true, uint64(v)
		}
	}
	if e, ok := f["set"]; ok {
		items, _ := d.list(e.val, "set", "path=value overrides")
		for i, it := range items {
			if v, ok := d.str(it, index("set", i)); ok {
				if _, _, ok := strings.Cut(v, "="); !ok {
					d.errorf(it, index("set", i), "expected path=value, like cluster.nodes=500")
					continue
				}
				p.Set = append(p.Set, v)
			}
		}
	}
	if e, ok := f["grid"]; ok {
		p.Axes = d.axes(e.val, "grid")
	} else {
		d.missing(root, "", "grid")
	}
	if e, ok := f["churn"]; ok {
		p.Churn = d.churn(e.val, "churn")
	}
	if e, ok := f["budgets"]; ok {
		d.budgets(e.val, "budgets", &p.Budgets)
		if p.Budgets.PerNodeBytesPerDay > 0 && len(p.Churn) == 0 {
			d.errorf(e.val, "budgets.perNodeIngressPerDay", "needs churn: how many times per day each phase happens (e.g. churn: {rolling-update: 24})")
		}
	}
	return p
}

// axes reads the grid: a list of {name, set, values}.
func (d *decoder) axes(n *yaml.Node, path string) []Axis {
	items, ok := d.list(n, path, "axes ({set: path, values: [...]})")
	if !ok {
		return nil
	}
	if len(items) == 0 {
		d.errorf(n, path, "needs at least one axis")
		return nil
	}
	if len(items) > maxAxes {
		d.errorf(n, path, "%d axes; at most %d", len(items), maxAxes)
		return nil
	}
	var axes []Axis
	points := 1
	// setBy holds, for each path an axis sets (in its parsed form, so that spellings of
	// one path agree), the axis that sets it: two axes setting one path would label the
	// points with values the run did not use.
	setBy := map[string]string{}
	for i, it := range items {
		p := index(path, i)
		f, ok := d.fields(it, p, axisFields)
		if !ok {
			continue
		}
		var ax Axis
		var setNode *yaml.Node
		if e, ok := f["set"]; ok {
			setNode = e.val
			ax.Paths = d.axisPaths(e.val, join(p, "set"))
		} else {
			d.missing(it, p, "set")
		}
		if e, ok := f["values"]; ok {
			ax.Values, ax.valueAt = d.axisValues(e.val, join(p, "values"))
		} else {
			d.missing(it, p, "values")
		}
		if e, ok := f["name"]; ok {
			if v, ok := d.str(e.val, join(p, "name")); ok {
				if strings.TrimSpace(v) == "" || len(v) > 63 || strings.ContainsAny(v, "\n\r\t,\"") {
					d.errorf(e.val, join(p, "name"), "must be 1..63 characters on one line, without commas or quotes")
				}
				ax.Name = v
			}
		}
		if ax.Name == "" && len(ax.Paths) > 0 {
			ax.Name = ax.Paths[0]
		}
		if len(ax.Paths) == 0 || len(ax.Values) == 0 {
			continue
		}
		for _, prev := range axes {
			if prev.Name == ax.Name {
				d.errorf(it, p, "axis name %q used twice; name the axes apart", ax.Name)
			}
		}
		for _, sp := range ax.Paths {
			steps, _ := parseSetPath(sp) // axisPaths kept only paths that parse
			key := fmt.Sprintf("%+v", steps)
			if prev, ok := setBy[key]; ok {
				at, atPath := setNode, join(p, "set")
				if setNode.Kind == yaml.SequenceNode {
					for j, c := range setNode.Content {
						if c.Value == sp {
							at, atPath = c, index(join(p, "set"), j) // the last one: the one set again
						}
					}
				}
				d.errorf(at, atPath, "path %s is already set by %s; each path may be set by one axis only", sp, prev)
				continue
			}
			setBy[key] = fmt.Sprintf("axis %q (%s)", ax.Name, p)
		}
		if points *= len(ax.Values); points > MaxPlanPoints {
			d.errorf(it, p, "the grid has more than %d points; split the plan", MaxPlanPoints)
			return nil
		}
		axes = append(axes, ax)
	}
	return axes
}

// axisPaths reads an axis's set: one path or a list of them.
func (d *decoder) axisPaths(n *yaml.Node, path string) []string {
	n = d.resolve(n, path)
	if n == nil {
		return nil
	}
	var nodes []*yaml.Node
	var paths []string
	if n.Kind == yaml.SequenceNode {
		nodes = n.Content
		if len(nodes) == 0 {
			d.errorf(n, path, "needs at least one path")
		}
	} else {
		nodes = []*yaml.Node{n}
	}
	for i, it := range nodes {
		p := path
		if n.Kind == yaml.SequenceNode {
			p = index(path, i)
		}
		v, ok := d.str(it, p)
		if !ok {
			continue
		}
		if strings.Contains(v, "=") {
			d.errorf(it, p, "a path without a value (the values come from values:), like services[0].replicas")
			continue
		}
		if _, err := parseSetPath(v); err != nil {
			d.errorf(it, p, "bad path %q: %v (like services[0].replicas or controlPlane.maxEndpointsPerSlice)", v, err)
			continue
		}
		paths = append(paths, v)
	}
	return paths
}

// axisValues reads an axis's values: a list of YAML values, turned into the text --set
// takes (scalars as written, quoted when YAML would read them otherwise; mappings and lists
// in flow style).
func (d *decoder) axisValues(n *yaml.Node, path string) (out []string, at [][2]int) {
	items, ok := d.list(n, path, "values")
	if !ok {
		return nil, nil
	}
	if len(items) == 0 {
		d.errorf(n, path, "needs at least one value")
		return nil, nil
	}
	if len(items) > maxAxisValues {
		d.errorf(n, path, "%d values; at most %d", len(items), maxAxisValues)
		return nil, nil
	}
	// seen holds each value's key (valueKey) and where it was first listed.
	seen := map[string]int{}
	for i, it := range items {
		it = d.resolve(it, index(path, i))
		if it == nil {
			return nil, nil
		}
		v, err := valueText(it)
		if err != nil {
			d.errorf(it, index(path, i), "%v", err)
			continue
		}
		key := valueKey(it, v)
		if j, ok := seen[key]; ok {
			if out[j] == v {
				d.errorf(it, index(path, i), "value %s listed twice", v)
			} else {
				d.errorf(it, index(path, i), "value %s listed twice: it is %s (%s), written another way", v, out[j], index(path, j))
			}
			continue
		}
		seen[key] = len(out)
		out = append(out, v)
		at = append(at, [2]int{it.Line, it.Column})
	}
	return out, at
}

// valueKey is what an axis value means, for finding one listed twice: an integer, a number
// or a boolean by its value (5, 05, 0x5 and +5 are one value), anything else as written.
func valueKey(n *yaml.Node, text string) string {
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!int":
			var i int64
			if err := n.Decode(&i); err == nil {
				return "int " + strconv.FormatInt(i, 10)
			}
		case "!!float":
			var f float64
			if err := n.Decode(&f); err == nil {
				return "float " + strconv.FormatFloat(f, 'g', -1, 64)
			}
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err == nil {
				return "bool " + strconv.FormatBool(b)
			}
		}
	}
	return "text " + text
}

// valueText renders a YAML value as the text of a --set value that parses back to it.
func valueText(n *yaml.Node) (string, error) {
	if n.Kind == yaml.ScalarNode {
		if isNull(n) {
			return "", errors.New("expected a value, got no value")
		}
		if strings.ContainsAny(n.Value, "\n\r") || len(n.Value) > 200 {
			return "", errors.New("a value must be one short line")
		}
		if back, err := parseYAML([]byte(n.Value)); err == nil && back != nil && back.Kind == yaml.ScalarNode && back.ShortTag() == n.ShortTag() && back.Value == n.Value {
			return n.Value, nil
		}
		return strconv.Quote(n.Value), nil
	}
	flow := flowCopy(n, 0)
	if flow == nil {
		return "", errors.New("value nested too deeply")
	}
	b, err := yaml.Marshal(flow)
	if err != nil {
		return "", err
	}
	s := strings.TrimSpace(string(b))
	if strings.Contains(s, "\n") || len(s) > 200 {
		return "", errors.New("a value must fit on one short line")
	}
	return s, nil
}

// flowCopy copies n with every collection in flow style (so it prints on one line).
func flowCopy(n *yaml.Node, depth int) *yaml.Node {
	if depth > 8 {
		return nil
	}
	for hops := 0; n.Kind == yaml.AliasNode && n.Alias != nil && hops < 100; hops++ {
		n = n.Alias
	}
	c := *n
	c.Anchor, c.HeadComment, c.LineComment, c.FootComment = "", "", "", ""
	if c.Kind == yaml.MappingNode || c.Kind == yaml.SequenceNode {
		c.Style = yaml.FlowStyle
	}
	c.Content = nil
	for _, k := range n.Content {
		kc := flowCopy(k, depth+1)
		if kc == nil {
			return nil
		}
		c.Content = append(c.Content, kc)
	}
	return &c
}

// churn reads {phase: timesPerDay}.
func (d *decoder) churn(n *yaml.Node, path string) []PhaseRate {
	n = d.resolve(n, path)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "expected a mapping of phase name to times per day, got %s", describe(n))
		return nil
	}
	var out []PhaseRate
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := d.resolve(n.Content[i], path)
		if k == nil {
			return nil
		}
		if k.Kind != yaml.ScalarNode || isNull(k) {
			d.errorf(k, path, "keys must be phase names, got %s", describe(k))
			continue
		}
		p := join(path, k.Value)
		if slices.ContainsFunc(out, func(r PhaseRate) bool { return r.Phase == k.Value }) {
			d.errorf(k, p, "duplicate phase")
			continue
		}
		v, ok := d.number(n.Content[i+1], p, 0, 1e9)
		if !ok {
			continue
		}
		out = append(out, PhaseRate{Phase: k.Value, PerDay: v, line: k.Line, column: k.Column})
	}
	return out
}

// budgets reads the budgets mapping into b.
func (d *decoder) budgets(n *yaml.Node, path string, b *Budgets) {
	f, ok := d.fields(n, path, budgetFields)
	if !ok {
		return
	}
	if e, ok := f["perNodeIngressPerDay"]; ok {
		b.PerNodeBytesPerDay, _ = d.byteSize(e.val, join(path, "perNodeIngressPerDay"), 1, math.MaxInt64)
	}
	if e, ok := f["peakEgress"]; ok {
		v, ok := d.bandwidth(e.val, join(path, "peakEgress"))
		if ok && v == 0 {
			d.errorf(e.val, join(path, "peakEgress"), "must be above 0 (leave it out for no budget)")
		}
		b.PeakEgressBitsPerSec = v
	}
	if e, ok := f["writesPerSecond"]; ok {
		p := join(path, "writesPerSecond")
		if s := d.resolve(e.val, p); s != nil && s.Kind == yaml.ScalarNode && s.ShortTag() == "!!str" {
			if s.Value != "qps" {
				d.errorf(s, p, "expected a number of writes per second, or qps (the controller's client QPS), got %s", describe(s))
			}
		} else {
			b.WritesPerSec, _ = d.number(e.val, p, 0.001, 1e6)
		}
	}
	if e, ok := f["writeWindow"]; ok {
		b.WriteWindow, _ = d.durationIn(e.val, join(path, "writeWindow"), time.Second, time.Hour)
		b.WriteWindow = b.WriteWindow.Truncate(time.Second)
	}
}

// resolve loads the base scenario for every grid point and checks the churn phases.
func (p *Plan) resolve() error {
	base, _, err := Load(p.ScenarioFile, p.Set)
	if errors.Is(err, ErrNotFound) {
		// err already says "scenario NAME: …".
		return fmt.Errorf("plan %s: base %w", p.File, err)
	}
	if err != nil {
		return fmt.Errorf("plan %s: base scenario: %w", p.File, err)
	}
	var phases []string
	for _, a := range base.Config.Timeline {
		phases = append(phases, a.Name)
	}
	var errs Errors
	for _, r := range p.Churn {
		if !slices.Contains(phases, r.Phase) {
			msg := fmt.Sprintf("%q is not a phase of scenario %s", r.Phase, base.File)
			if s := suggestName(r.Phase, phases); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			errs = append(errs, &Error{File: p.File, Line: r.line, Column: r.column, Path: join("churn", r.Phase), Msg: msg + "; phases: " + strings.Join(phases, ", ")})
		}
	}
	if len(errs) > 0 {
		return errs
	}
	data, file, _, err := read(p.ScenarioFile)
	if err != nil {
		return err
	}
	p.Points = nil
	var pointErrs []error
	var valueErrs Errors
	blamed := map[[2]int]bool{}
	for i, values := range gridValues(p.Axes) {
		sets := slices.Clone(p.Set)
		for a, ax := range p.Axes {
			for _, path := range ax.Paths {
				sets = append(sets, path+"="+values[a])
			}
		}
		sc, err := Parse(file, data, sets)
		if err != nil {
			if a, j, verr := p.valueRefused(file, data, values); verr != nil {
				// One error at the value, however many grid points have it.
				if !blamed[[2]int{a, j}] {
					blamed[[2]int{a, j}] = true
					valueErrs = append(valueErrs, verr)
				}
			} else if len(pointErrs) < 5 {
				pointErrs = append(pointErrs, fmt.Errorf("plan %s: grid point %d (%s): %w", p.File, i, PointLabel(p.Axes, values), err))
			}
			continue
		}
		cfg := sc.Config
		if p.HasSeed {
			cfg.Seed = p.Seed
		}
		p.Points = append(p.Points, GridPoint{Index: i, Values: values, Sets: sets, Config: cfg})
	}
	if len(valueErrs) > 0 {
		pointErrs = append([]error{valueErrs}, pointErrs...)
	}
	return errors.Join(pointErrs...)
}

// valueRefused finds, for a grid point the base scenario refuses, an axis value of it that
// the base refuses on its own (every other axis left at the base's setting): its axis, its
// place in the axis and the error, located at the value in the plan file. It returns a nil
// error when there is none: the point's values are refused only together.
func (p *Plan) valueRefused(file string, data []byte, values []string) (axis, j int, err *Error) {
	for a, ax := range p.Axes {
		j := slices.Index(ax.Values, values[a])
		sets := slices.Clone(p.Set)
		for _, path := range ax.Paths {
			sets = append(sets, path+"="+values[a])
		}
		if _, perr := Parse(file, data, sets); perr != nil {
			e := &Error{File: p.File, Path: index(join(index("grid", a), "values"), j), Msg: fmt.Sprintf("%s: %v", values[a], perr)}
			if j >= 0 && j < len(ax.valueAt) {
				e.Line, e.Column = ax.valueAt[j][0], ax.valueAt[j][1]
			}
			return a, j, e
		}
	}
	return 0, 0, nil
}

// gridValues lists the cross product of the axes' values, first axis slowest.
func gridValues(axes []Axis) [][]string {
	out := [][]string{nil}
	for _, ax := range axes {
		var next [][]string
		for _, prefix := range out {
			for _, v := range ax.Values {
				next = append(next, append(slices.Clip(prefix), v))
			}
		}
		out = next
	}
	if len(axes) == 0 {
		return nil
	}
	return out
}

// PointLabel names a grid point by its axis values: "replicas=500, slice=100".
func PointLabel(axes []Axis, values []string) string {
	parts := make([]string, len(axes))
	for i, ax := range axes {
		v := ""
		if i < len(values) {
			v = values[i]
		}
		parts[i] = ax.Name + "=" + v
	}
	return strings.Join(parts, ", ")
}
