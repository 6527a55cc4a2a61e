package scenarios

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"epsim/sim"
)

// timeline decodes the list of actions. Services and the cluster must be decoded already:
// actions name services and zones, and restart or fail at most what exists.
func (d *decoder) timeline(n *yaml.Node, path string, cfg *sim.Config) []sim.Action {
	items, ok := d.list(n, path, "actions")
	if !ok {
		return nil
	}
	if len(items) == 0 {
		d.errorf(n, path, "need at least one action")
		return nil
	}
	// The entries' names an action may use (serviceIndex), and what each entry reaches: its
	// replicas now (scale changes them) and at their highest, for the pod limit.
	refIndex := newServiceIndex(cfg.Services)
	created := make([]bool, len(cfg.Services))
	createdAll, createdAny := false, false
	// kindRejected: an earlier action's kind was refused (or missing), so what it would
	// have created is unknown, and "before any create" errors about later actions would
	// only follow from that one.
	kindRejected := false
	seen := map[string]int{}
	var out []sim.Action
	if len(items) > maxActions {
		d.errorf(n, path, "%d actions is too many (at most %d): each action is a phase with its own results", len(items), maxActions)
		return nil
	}
	replicas, peak := make([]int, len(cfg.Services)), make([]int, len(cfg.Services))
	for k := range cfg.Services {
		r := podsOf(&cfg.Services[k], cfg.Cluster.Nodes)
		replicas[k], peak[k] = r, r
	}
	totalPeak := func() int64 {
		var t int64
		for k, s := range cfg.Services {
			t += int64(s.Count) * int64(peak[k])
		}
		return t
	}
	for i, it := range items {
		p := index(path, i)
		a, ok := d.action(it, p, cfg)
		if a.Name != "" {
			if line, dup := seen[a.Name]; dup {
				d.errorf(it, p+".name", "duplicate action name %q (first at line %d); each action is a phase and needs its own name", a.Name, line)
				ok = false
			} else {
				seen[a.Name] = it.Line
				d.phases = append(d.phases, a.Name)
			}
		}
		if a.Kind == "" {
			kindRejected = true
			continue
		}
		// Resolve service references to the entries they name.
		var refs []serviceMatch
		for j, ref := range a.Services {
			matches := refIndex.resolve(ref)
			if len(matches) == 0 {
				if rejectedRef(ref, d.rejected) || d.servicesIncomplete {
					continue // the service's own error (or the list's) is reported
				}
				at := serviceRefNode(it, j)
				if ns, name, ok := strings.Cut(ref, "/"); ok && len(refIndex.resolve(name)) > 0 {
					d.errorf(at, index(p+".services", j), "no service %q in namespace %q (%s is in %s)", name, ns, name, strings.Join(refIndex.namespaces(name), ", "))
					continue
				}
				d.errorf(at, index(p+".services", j), "%s", notOneOf("service", ref, refIndex.names()))
				continue
			}
			for _, m := range matches {
				m.ref = j
				refs = append(refs, m)
			}
		}
		switch a.Kind {
		case sim.ActionCreate:
			// A Service created twice: the second create does nothing, an empty phase.
			switch {
			case createdAll:
				d.errorf(it, p, "every service is already created by an earlier create action; a Service is created once")
			case len(a.Services) == 0 && createdAny:
				d.errorf(it, p, "create without services: creates every service, but some are already created by an earlier create action; name the others in services:")
			default:
				for _, m := range refs {
					if created[m.entry] {
						d.errorf(serviceRefNode(it, m.ref), index(p+".services", m.ref), "service %q is already created by an earlier create action; a Service is created once", a.Services[m.ref])
					}
				}
			}
			if len(a.Services) == 0 {
				createdAll = true
			}
			for _, m := range refs {
				created[m.entry] = true
			}
			createdAny = true
		case sim.ActionFailNodes, sim.ActionDrainNodes, sim.ActionWait:
		default:
			if kindRejected {
				break // maybe created by the action whose kind was refused
			}
			if !createdAll && !createdAny {
				d.errorf(it, p, "action %s comes before any create action; put a create action first", a.Kind)
			} else if !createdAll {
				for _, m := range refs {
					if !created[m.entry] {
						d.errorf(serviceRefNode(it, m.ref), index(p+".services", m.ref), "service %q is not created by an earlier create action", a.Services[m.ref])
					}
				}
			}
		}
		targets := refs
		if len(a.Services) == 0 {
			targets = make([]serviceMatch, len(cfg.Services))
			for k := range cfg.Services {
				targets[k] = serviceMatch{entry: k, ref: -1}
			}
		}
		// label names a target in an error: as the action named it, or by its entry.
		label := func(m serviceMatch) string {
			if m.ref >= 0 {
				return a.Services[m.ref]
			}
			return refIndex.label(m.entry)
		}
		// noOp refuses an action that would do nothing to what it names: each reference
		// whose entries are all such that is says so (named, with the reference), or, when
		// the action names none, every entry (all). It reports whether it refused.
		noOp := func(is func(*sim.ServiceConfig) bool, named, all string) bool {
			if len(a.Services) == 0 {
				for k := range cfg.Services {
					if !is(&cfg.Services[k]) {
						return false
					}
				}
				d.errorf(it, p, "%s", all)
				return true
			}
			refused := false
			for j, ref := range a.Services {
				matched, every := false, true
				for _, m := range refs {
					if m.ref == j {
						matched, every = true, every && is(&cfg.Services[m.entry])
					}
				}
				if matched && every {
					d.errorf(it, index(p+".services", j), named, ref)
					refused = true
				}
			}
			return refused
		}
		switch a.Kind {
		case sim.ActionRollout:
			// A rollout's own strategy is its DaemonSets' and StatefulSets' too, and the API
			// server refuses a DaemonSet whose maxSurge and maxUnavailable are both non-zero
			// (one given alone leaves the other at 25%), and a StatefulSet whose
			// maxUnavailable is 0; a StatefulSet's rolling update has no maxSurge at all.
			// upstream: pkg/apis/apps/validation ValidateRollingUpdateDaemonSet,
			// validateRollingUpdateStatefulSet; apps/v1 RollingUpdateStatefulSetStrategy.
			if a.ServiceStrategy {
				break
			}
			// Only a maxSurge given: one left out is the 25% default, which a StatefulSet's
			// rollout never reads.
			if a.MaxSurge.Value != 0 && hasKey(it, "maxSurge") && len(targets) > 0 &&
				!slices.ContainsFunc(targets, func(m serviceMatch) bool { return cfg.Services[m.entry].WorkloadKind != sim.KindStatefulSet }) {
				d.errorf(it, p+".maxSurge", "every service this rollout applies to is a StatefulSet, which never surges: maxSurge does not apply (give maxUnavailable)")
				ok = false
				break
			}
			for _, m := range targets {
				switch kind := cfg.Services[m.entry].WorkloadKind; {
				case kind == sim.KindDaemonSet && a.MaxSurge.Value != 0 && a.MaxUnavailable.Value != 0:
					d.errorf(it, p+".maxSurge", "service %q is a DaemonSet, whose maxSurge and maxUnavailable may not both be non-zero (set maxUnavailable: 0 to surge, or maxSurge: 0)", label(m))
				case kind == sim.KindStatefulSet && a.MaxUnavailable.Value == 0 && a.MaxSurge.Value != 0:
					d.errorf(it, p+".maxUnavailable", "service %q is a StatefulSet, whose maxUnavailable cannot be 0 (it has no maxSurge)", label(m))
				default:
					continue
				}
				ok = false
				break
			}
		case sim.ActionScale:
			if noOp(func(s *sim.ServiceConfig) bool { return s.WorkloadKind == sim.KindDaemonSet },
				"service %q is a DaemonSet, whose size is the node count (one pod per node): scale does not apply to it",
				"every service is a DaemonSet, whose size is the node count (one pod per node): scale does not apply") {
				ok = false
			}
			most := 0
			for _, m := range targets {
				s := &cfg.Services[m.entry]
				if s.WorkloadKind == sim.KindDaemonSet {
					continue // one pod per node, whatever the replicas
				}
				to := scaledReplicas(&a, s)
				most = max(most, to)
				if m.oneCopy {
					// One stamped copy: the entry's other copies keep their replicas.
					replicas[m.entry] = max(replicas[m.entry], to)
				} else {
					replicas[m.entry] = to
				}
				peak[m.entry] = max(peak[m.entry], to)
			}
			if t := totalPeak(); t > maxPods {
				field := p + ".replicas"
				if a.Percent > 0 {
					field = p + ".percent"
				}
				d.errorf(it, field, "scaling to %s makes %d pods in total (sum of count × replicas over the timeline), too many (at most %d)", counted(most, "replica", "replicas"), t, maxPods)
				ok = false
			}
		case sim.ActionRestartPods, sim.ActionFlipReadiness:
			// As failNodes asks for no more nodes than exist, these ask for no more pods
			// than a service has at this point of the timeline: each service named, or
			// the largest when the action names none.
			manual := func(s *sim.ServiceConfig) bool { return s.ManualEndpoints > 0 }
			if noOp(manual,
				"service %q is selector-less (manualEndpoints): it has no pods, so "+string(a.Kind)+" does not apply to it",
				"every service is selector-less (manualEndpoints): none has pods, so "+string(a.Kind)+" does not apply") {
				ok = false
			}
			most, name := -1, ""
			for _, m := range targets {
				if manual(&cfg.Services[m.entry]) {
					continue // no pods (its replicas, after a scale, are addresses)
				}
				r := replicas[m.entry]
				if len(a.Services) > 0 && a.Pods > r {
					most, name = r, label(m)
					break
				}
				if r > most {
					most, name = r, label(m)
				}
			}
			if most >= 0 && a.Pods > most {
				d.errorf(it, p+".pods", "%s more than service %q has at this point of the timeline (%s)", counted(a.Pods, "pod is", "pods is"), name, counted(most, "replica", "replicas"))
				ok = false
			}
		}
		if ok {
			out = append(out, a)
		}
	}
	if t := totalPeak(); t > maxPods {
		// DaemonSets run a pod on every node: count × nodes pods with no scale action.
		d.errorf(n, path, "the Services reach %d pods in total (sum of count × replicas, a DaemonSet's replicas being the node count), too many (at most %d)", t, maxPods)
	}
	return out
}

// podsOf is how many pods entry s runs at creation: its replicas, or one per node for a
// DaemonSet.
func podsOf(s *sim.ServiceConfig, nodes int) int {
	if s.WorkloadKind == sim.KindDaemonSet {
		return nodes
	}
	return s.Replicas
}

// scaledReplicas is what a scale action sets s's replicas to: its replicas, or its percent
// of s's configured replicas rounded up, as the engine computes it (sim/timeline.go). For a
// selector-less Service (manualEndpoints) it is the addresses the user rewrites its
// Endpoints object with, and percent is of its configured manualEndpoints (its replicas
// are 0).
func scaledReplicas(a *sim.Action, s *sim.ServiceConfig) int {
	if a.Percent > 0 {
		base := s.Replicas
		if s.ManualEndpoints > 0 {
			base = s.ManualEndpoints
		}
		return (base*a.Percent + 99) / 100
	}
	return a.Replicas
}

// serviceIndex finds the Service entries a timeline reference names. A reference is an
// entry's name (all its stamped copies) or one copy's name (NAME-i), and names the entries of
// that name in every namespace; "namespace/name" names only that namespace's.
type serviceIndex struct {
	services []sim.ServiceConfig
	byName   map[string][]int // entry indices by entry name, in order
}

// serviceMatch is an entry a reference names: whether it names one stamped copy of it, and
// which of the action's references it is (-1: the action names none, so every entry).
type serviceMatch struct {
	entry   int
	oneCopy bool
	ref     int
}

func newServiceIndex(services []sim.ServiceConfig) *serviceIndex {
	x := &serviceIndex{services: services, byName: map[string][]int{}}
	for k := range services {
		x.byName[services[k].Name] = append(x.byName[services[k].Name], k)
	}
	return x
}

// entryNamespace is the namespace of entry s's Services: "default" when it names none.
func entryNamespace(s *sim.ServiceConfig) string {
	if s.Namespace == "" {
		return "default"
	}
	return s.Namespace
}

// resolve returns the entries ref names, in the entries' order (none when it names none).
func (x *serviceIndex) resolve(ref string) []serviceMatch {
	ns, name, qualified := strings.Cut(ref, "/")
	if !qualified {
		ns, name = "", ref
	}
	var out []serviceMatch
	inNamespace := func(k int) bool { return !qualified || entryNamespace(&x.services[k]) == ns }
	for _, k := range x.byName[name] {
		if inNamespace(k) {
			out = append(out, serviceMatch{entry: k})
		}
	}
	if cut := strings.LastIndexByte(name, '-'); cut > 0 {
		base := name[:cut]
		for _, k := range x.byName[base] {
			s := &x.services[k]
			if i, ok := stampIndex(name, base); ok && s.Count > 1 && i < s.Count && inNamespace(k) {
				out = append(out, serviceMatch{entry: k, oneCopy: true})
			}
		}
	}
	slices.SortFunc(out, func(a, b serviceMatch) int { return a.entry - b.entry })
	return out
}

// names returns the entries' names, sorted, each once.
func (x *serviceIndex) names() []string {
	names := make([]string, 0, len(x.byName))
	for k := range x.byName {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// namespaces returns the namespaces of the entries ref names, sorted, each once.
func (x *serviceIndex) namespaces(ref string) []string {
	var out []string
	for _, m := range x.resolve(ref) {
		out = append(out, entryNamespace(&x.services[m.entry]))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// label names entry k for a message: its name, behind its namespace when another
// namespace has an entry of that name too.
func (x *serviceIndex) label(k int) string {
	s := &x.services[k]
	for _, j := range x.byName[s.Name] {
		if entryNamespace(&x.services[j]) != entryNamespace(s) {
			return entryNamespace(s) + "/" + s.Name
		}
	}
	return s.Name
}

// rejectedRef reports whether ref names an entry left out for its errors (rejected holds
// their names and counts): its error is reported, not the reference's.
func rejectedRef(ref string, rejected map[string]int) bool {
	if _, name, ok := strings.Cut(ref, "/"); ok {
		ref = name
	}
	if _, ok := rejected[ref]; ok {
		return true
	}
	cut := strings.LastIndexByte(ref, '-')
	if cut <= 0 {
		return false
	}
	c, ok := rejected[ref[:cut]]
	if !ok || c <= 1 {
		return false
	}
	i, ok := stampIndex(ref, ref[:cut])
	return ok && i < c
}

// strategy decodes maxSurge and maxUnavailable of a rolling update (a service's or a rollout
// action's) over the defaults already in surge and unavail.
// upstream: pkg/apis/apps/validation ValidateRollingUpdateDeployment.
func (d *decoder) strategy(n *yaml.Node, f map[string]entry, path string, surge, unavail *sim.IntOrPercent) {
	if e, ok := f["maxSurge"]; ok {
		*surge, _ = d.intOrPercent(e.val, join(path, "maxSurge"))
	}
	if e, ok := f["maxUnavailable"]; ok {
		p := join(path, "maxUnavailable")
		if v, ok := d.intOrPercent(e.val, p); ok {
			// upstream: IsNotMoreThan100Percent.
			if v.IsPercent && v.Value > 100 {
				d.errorf(e.val, p, "%s out of range (0%%..100%%)", FormatIntOrPercent(v))
			}
			*unavail = v
		}
	}
	if surge.Value == 0 && unavail.Value == 0 {
		// upstream: "may not be 0 when `maxSurge` is 0".
		at := n
		if e, ok := f["maxUnavailable"]; ok {
			at = e.val
		}
		d.errorf(at, join(path, "maxUnavailable"), "may not be 0 when maxSurge is 0 (the rollout could never progress)")
	}
}

func (d *decoder) action(n *yaml.Node, path string, cfg *sim.Config) (sim.Action, bool) {
	var a sim.Action
	f, ok := d.fields(n, path, actionFields)
	if !ok {
		return a, false
	}
	before := len(d.errs)
	if e, ok := f["name"]; ok {
		p := join(path, "name")
		if v, ok := d.str(e.val, p); ok {
			switch {
			case len(v) > 63 || !dns1123Label.MatchString(v):
				d.errorf(e.val, p, "%q must be lowercase a-z, 0-9 and '-' (at most 63 characters): it names a phase, and expect keys are phase.mode.figure", v)
			case v == "total":
				d.errorf(e.val, p, `"total" is reserved for the sum of all phases`)
			}
			a.Name = v
		}
	} else {
		d.missing(n, path, "name")
	}
	e, ok := f["action"]
	if !ok {
		d.missing(n, path, "action")
		return a, false
	}
	kind, ok := d.enum(e.val, join(path, "action"), actionKinds)
	if !ok {
		return a, false
	}
	a.Kind = sim.ActionKind(kind)
	allowed := actionKindFields[a.Kind]
	for _, name := range actionFields {
		e, present := f[name]
		if !present || name == "name" || name == "action" || name == "settle" || slices.Contains(allowed, name) {
			continue
		}
		d.errorf(e.key, join(path, name), "field %q does not apply to action %s (its fields: %s)", name, kind, strings.Join(append([]string{"name", "action", "settle"}, allowed...), ", "))
	}
	if e, ok := f["services"]; ok && slices.Contains(allowed, "services") {
		p := join(path, "services")
		items, _ := d.list(e.val, p, "service names")
		for i, it := range items {
			if v, ok := d.str(it, index(p, i)); ok {
				if slices.Contains(a.Services, v) {
					d.errorf(it, index(p, i), "duplicate service %q", v)
					continue
				}
				a.Services = append(a.Services, v)
			}
		}
	}
	if e, ok := f["settle"]; ok {
		a.Settle, _ = d.durationIn(e.val, join(path, "settle"), 0, maxLongDuration)
	}
	if e, ok := f["spread"]; ok && slices.Contains(allowed, "spread") {
		a.Spread, _ = d.durationIn(e.val, join(path, "spread"), 0, maxLongDuration)
	}
	if e, ok := f["curve"]; ok && slices.Contains(allowed, "curve") {
		if v, ok := d.enum(e.val, join(path, "curve"), spreadCurves); ok {
			a.Curve = sim.SpreadCurve(v)
			if _, spread := f["spread"]; !spread {
				d.errorf(e.key, join(path, "curve"), "curve applies to a spread action; add spread (the window the starts follow the curve over)")
			}
		}
	}
	switch a.Kind {
	case sim.ActionRollout:
		_, hasSurge := f["maxSurge"]
		_, hasUnavail := f["maxUnavailable"]
		if !hasSurge && !hasUnavail {
			// A rollout that sets neither uses each workload's own strategy (services[].maxSurge,
			// maxUnavailable), as a real rollout does.
			a.ServiceStrategy = true
		}
		a.MaxSurge, a.MaxUnavailable = DefaultRollout()
		d.strategy(n, f, path, &a.MaxSurge, &a.MaxUnavailable)
	case sim.ActionScale:
		er, hasReplicas := f["replicas"]
		ep, hasPercent := f["percent"]
		switch {
		case hasReplicas && hasPercent:
			d.errorf(ep.key, join(path, "percent"), "give replicas or percent, not both")
		case hasReplicas:
			v, _ := d.integer(er.val, join(path, "replicas"), 0, maxReplicas)
			a.Replicas = int(v)
		case hasPercent:
			v, _ := d.integer(ep.val, join(path, "percent"), 1, 10000)
			a.Percent = int(v)
		default:
			d.errorf(n, path, "action scale needs replicas (how many) or percent (of each Service's configured replicas, or manualEndpoints)")
		}
	case sim.ActionRestartPods, sim.ActionFlipReadiness:
		a.Pods = 1
		if e, ok := f["pods"]; ok {
			v, _ := d.integer(e.val, join(path, "pods"), 1, maxReplicas)
			a.Pods = int(v)
		}
		if e, ok := f["notReadyFor"]; ok && a.Kind == sim.ActionFlipReadiness {
			a.NotReadyFor, _ = d.durationIn(e.val, join(path, "notReadyFor"), 0, maxLongDuration)
		}
	case sim.ActionFailNodes, sim.ActionDrainNodes:
		en, hasNodes := f["nodes"]
		ez, hasZone := f["zone"]
		switch {
		case hasNodes && hasZone:
			d.errorf(ez.key, join(path, "zone"), "give nodes or zone, not both")
		case !hasNodes && !hasZone:
			d.errorf(n, path, "action %s needs nodes (how many) or zone (which zone)", kind)
		case hasNodes:
			v, _ := d.integer(en.val, join(path, "nodes"), 1, int64(max(cfg.Cluster.Nodes, 1)))
			a.Nodes = int(v)
		default:
			p := join(path, "zone")
			if v, ok := d.str(ez.val, p); ok {
				if !slices.Contains(cfg.Cluster.Zones, v) {
					d.errorf(ez.val, p, "%s", notOneOf("zone", v, cfg.Cluster.Zones))
				}
				a.Zone = v
			}
		}
		if e, ok := f["waves"]; ok && a.Kind == sim.ActionDrainNodes {
			p := join(path, "waves")
			if v, ok := d.integer(e.val, p, 1, int64(max(cfg.Cluster.Nodes, 1))); ok {
				a.Waves = int(v)
				if _, spread := f["spread"]; !spread && v > 1 {
					d.errorf(e.key, p, "waves need spread (the time over which the waves start)")
				}
			}
		}
		if _, spread := f["spread"]; spread && a.Kind == sim.ActionDrainNodes {
			if _, waves := f["waves"]; !waves {
				d.errorf(f["spread"].key, join(path, "spread"), "spread applies to drainNodes with waves; add waves")
			}
		}
		if e, ok := f["duration"]; ok && a.Kind == sim.ActionFailNodes {
			p := join(path, "duration")
			if v, ok := d.durationIn(e.val, p, 0, maxLongDuration); ok {
				if v == 0 {
					d.errorf(e.val, p, "must be > 0 (leave it out for nodes that never come back)")
				}
				a.Duration = v
			}
		}
	case sim.ActionLabelService:
		if e, ok := f["labels"]; ok {
			p := join(path, "labels")
			a.Labels, _ = d.stringMap(e.val, p, checkLabel)
			if len(a.Labels) == 0 && len(d.errs) == before {
				d.errorf(e.val, p, "need at least one label")
			}
		} else {
			d.missing(n, path, "labels")
		}
	case sim.ActionWait:
		if e, ok := f["duration"]; ok {
			p := join(path, "duration")
			if v, ok := d.durationIn(e.val, p, 0, maxLongDuration); ok {
				if v == 0 {
					d.errorf(e.val, p, "must be > 0")
				}
				a.Duration = v
				d.waits = append(d.waits, waitAt{e.val, p, v})
			}
		} else {
			d.missing(n, path, "duration")
		}
	}
	return a, len(d.errs) == before
}

// serviceRefNode returns the node of the j-th service an action (mapping node n) names,
// for an error to point at it (or at the --set that gave it); n itself when not found.
func serviceRefNode(n *yaml.Node, j int) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return n
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != "services" {
			continue
		}
		v := resolveAliases(n.Content[i+1])
		switch {
		case v.Kind == yaml.SequenceNode && j < len(v.Content):
			return v.Content[j]
		case v.Kind == yaml.ScalarNode:
			return v
		}
	}
	return n
}

// hasKey reports whether mapping node n has key.
func hasKey(n *yaml.Node, key string) bool {
	if n == nil || n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}
