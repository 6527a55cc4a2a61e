package kubeimport

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"epsim/model"
)

// Options control an import.
type Options struct {
	// Name is the scenario's name (default "imported").
	Name string
	// Anonymize renames namespaces, Services, ports, zones, the region and nodes
	// deterministically (same input, same names), keeping each name's length so byte
	// figures stay those of the real names.
	Anonymize bool
}

// Result is an imported scenario.
type Result struct {
	// YAML is the scenario file, with what could not be mapped as comments at its top.
	YAML []byte
	// Notes are the same unmapped things, one line each, for stderr.
	Notes []string
	// Nodes, Services and Pods size the scenario; Entries is how many services: entries
	// (Services alike are one entry with count:).
	Nodes, Services, Pods, Entries int
}

// ErrEmpty is returned when the input holds no nodes or no Services.
var ErrEmpty = errors.New("nothing to import")

// Limits the scenario loader enforces; the importer stays within them.
const (
	maxReplicas = 1_000_000
	maxPods     = 10_000_000
	maxZones    = 1000
	// defaultMilliCPU is the allocatable CPU of a node when no node's can be read: the
	// scenario's default (scenarios.DefaultNodeMilliCPU).
	defaultMilliCPU = 4000
	// maxNodePods is the most pods a scenario's node takes: the addresses of its pod range
	// (sim.NodePodAddresses).
	maxNodePods = 250
)

// Upstream defaults the importer fills in where the API leaves a field out.
const (
	// defaultPercent is a Deployment's maxSurge and maxUnavailable default (upstream:
	// k8s.io/api apps/v1 RollingUpdateDeployment).
	defaultPercent = "25%"
	// zoneLabel, regionLabel and their beta forms (upstream: k8s.io/api core/v1
	// well_known_labels.go).
	zoneLabel       = "topology.kubernetes.io/zone"
	regionLabel     = "topology.kubernetes.io/region"
	zoneLabelBeta   = "failure-domain.beta.kubernetes.io/zone"
	regionLabelBeta = "failure-domain.beta.kubernetes.io/region"
	// topologyModeAnnotation and its deprecated predecessor (upstream: k8s.io/api core/v1
	// AnnotationTopologyMode, DeprecatedAnnotationTopologyAwareHints).
	topologyModeAnnotation  = "service.kubernetes.io/topology-mode"
	topologyHintsAnnotation = "service.kubernetes.io/topology-aware-hints"
	// serviceNameLabel names a slice's Service (upstream: discovery/v1 LabelServiceName).
	serviceNameLabel = "kubernetes.io/service-name"
	// managedByLabel names a slice's writer, and sliceController the EndpointSlice
	// controller's name in it (upstream: discovery/v1 LabelManagedBy; the controller's
	// ControllerName in k8s.io/endpointslice).
	managedByLabel = "endpointslice.kubernetes.io/managed-by"
	// overCapacityAnnotation is "truncated" on an Endpoints object the Endpoints
	// controller cut to its 1000 addresses (upstream: core/v1 EndpointsOverCapacity).
	overCapacityAnnotation = "endpoints.kubernetes.io/over-capacity"
	sliceController        = "endpointslice-controller.k8s.io"
	// proxyNameLabel names the proxy that serves a Service, when not kube-proxy.
	proxyNameLabel = "service.kubernetes.io/service-proxy-name"
)

var (
	dns1035Label   = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)
	dns1123Label   = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dns1123Sub     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	labelValueExpr = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	percentExpr    = regexp.MustCompile(`^[0-9]{1,9}%$`)
	trailingNumber = regexp.MustCompile(`-?[0-9]+$`)
	lastDigits     = regexp.MustCompile(`[0-9]+([^0-9]*)$`)
)

// validLabel reports whether k and v are a label key and value the API server accepts: an
// optional DNS subdomain prefix and a name of at most 63 characters, a value of at most 63.
// upstream: apimachinery validation IsQualifiedName, IsValidLabelValue.
func validLabel(k, v string) bool {
	name := k
	if i := strings.LastIndexByte(k, '/'); i >= 0 {
		prefix := k[:i]
		if prefix == "" || len(prefix) > 253 || !dns1123Sub.MatchString(prefix) {
			return false
		}
		name = k[i+1:]
	}
	if name == "" || len(name) > 63 || !labelValueExpr.MatchString(name) {
		return false
	}
	return v == "" || len(v) <= 63 && labelValueExpr.MatchString(v)
}

// port is one mapped Service port.
type port struct {
	name, protocol, appProtocol string
	port, targetPort            int64
}

// entry is one Service as the scenario will hold it; key() groups alike ones.
type entry struct {
	namespace, name               string
	manual                        int // manualEndpoints (selector-less)
	replicas                      int
	kind                          string
	serviceName                   string // a StatefulSet's governing Service, when another
	parallel                      bool   // a StatefulSet's podManagementPolicy is Parallel
	maxSurge, maxUnavailable      string
	minReady                      int64
	headless, publishNotReady     bool
	internalTrafficLocal          bool // kube-proxy programs only its node's endpoints (model.UsesLocalEndpointsOnly)
	ipFamilies                    []string
	ports                         []port
	trafficDistribution, topology string
	proxyName                     string
	count                         int
	names                         []string // the original names of a group
	// labels are the Service's other labels, by key, which its Endpoints and slices copy.
	labels []label
}

// label is one Service label.
type label struct{ key, value string }

// ownNameValue is the label value a scenario reads as each Service's own name
// (sim.NameLabelValue; TestOwnNameValueIsSims).
const ownNameValue = "$name"

// byKey orders labels by key.
func byKey(a, b label) int { return cmp.Compare(a.key, b.key) }

// key groups entries alike in everything but their names. Labels count in full, values
// included: every copy of an entry gets the entry's labels, so Services whose label values
// differ are separate entries, or all but the first would carry its values. A value that is
// the Service's own name is $name (ownNameValue), which each copy stamps with its own
// (app.kubernetes.io/name: cart-0, cart-1… are one entry).
func (e *entry) key() string {
	var shape strings.Builder
	for _, l := range e.labels {
		fmt.Fprintf(&shape, "%q=%q,", l.key, l.value)
	}
	return fmt.Sprintf("%s|%d|%d|%s|%s|%v|%s|%s|%d|%v|%v|%v|%v|%s|%v|%s|%s|%s", e.namespace, e.manual, e.replicas, e.kind, e.serviceName, e.parallel,
		e.maxSurge, e.maxUnavailable, e.minReady, e.headless, e.publishNotReady, e.ipFamilies, e.ports,
		e.trafficDistribution, e.internalTrafficLocal, e.topology, e.proxyName, shape.String())
}

// importer carries the notes of one import.
type importer struct {
	o     *objects
	opts  Options
	notes []string
	// generic counts anonymized notes by their generic text, in first-seen order.
	generic      map[string]int
	genericOrder []string
}

func (im *importer) notef(format string, args ...any) {
	im.notes = append(im.notes, fmt.Sprintf(format, args...))
}

// detail records a note that names things; with Anonymize only its generic form is kept,
// counted ("3 × a Deployment uses the Recreate strategy").
func (im *importer) detail(generic, format string, args ...any) {
	if !im.opts.Anonymize {
		im.notef(format, args...)
		return
	}
	if im.generic == nil {
		im.generic = map[string]int{}
	}
	if im.generic[generic] == 0 {
		im.genericOrder = append(im.genericOrder, generic)
	}
	im.generic[generic]++
}

// dropRepeats keeps the first of the Nodes, workloads, Endpoints and EndpointSlices that
// appear more than once (the same object in two inputs, or one input given twice), which
// would otherwise count twice, and notes how many were dropped. (A repeated Service is
// noted by name where Services are read.)
func (im *importer) dropRepeats() {
	o := im.o
	note := func(n int, what string) {
		if n > 0 {
			im.notef("%s more than once (the same input given twice?); the first of each is kept", counted(n, what+" appears", what+"s appear"))
		}
	}
	note(dropRepeated(&o.nodes, func(v *node) string { return v.Metadata.Name }), "Node")
	note(dropRepeated(&o.workloads, func(v *workload) string {
		return v.Kind + "\x00" + cmp.Or(v.Metadata.Namespace, "default") + "\x00" + v.Metadata.Name
	}), "workload")
	note(dropRepeated(&o.endpoints, func(v *endpoints) string {
		return cmp.Or(v.Metadata.Namespace, "default") + "\x00" + v.Metadata.Name
	}), "Endpoints object")
	note(dropRepeated(&o.slices, func(v *endpointSlice) string {
		return cmp.Or(v.Metadata.Namespace, "default") + "\x00" + v.Metadata.Name
	}), "EndpointSlice")
}

// dropOwnedReplicaSets drops the ReplicaSets whose controller is a Deployment in the
// input ('kubectl get all' lists both): the Deployment stands for their pods. A bare
// ReplicaSet, or one whose Deployment is not in the input (or that another controller
// owns, as Argo Rollouts' are), is the workload behind its pods.
func (im *importer) dropOwnedReplicaSets() {
	o := im.o
	deployments := map[string]bool{}
	for _, w := range o.workloads {
		if w.Kind == "Deployment" {
			deployments[cmp.Or(w.Metadata.Namespace, "default")+"/"+w.Metadata.Name] = true
		}
	}
	o.workloads = slices.DeleteFunc(o.workloads, func(w workload) bool {
		if w.Kind != "ReplicaSet" {
			return false
		}
		for _, r := range w.Metadata.OwnerReferences {
			if r.Controller != nil && *r.Controller && r.Kind == "Deployment" {
				return deployments[cmp.Or(w.Metadata.Namespace, "default")+"/"+r.Name]
			}
		}
		return false
	})
}

// dropRepeated keeps the first item of each key in *list, in order, and returns how many
// it dropped.
func dropRepeated[T any](list *[]T, key func(*T) string) int {
	seen := make(map[string]bool, len(*list))
	kept := (*list)[:0]
	for i := range *list {
		if k := key(&(*list)[i]); !seen[k] {
			seen[k] = true
			kept = append(kept, (*list)[i])
		}
	}
	n := len(*list) - len(kept)
	clear((*list)[len(kept):])
	*list = kept
	return n
}

// whyNone joins the first of notes, the reasons the Services were left out, for an error.
func whyNone(notes []string) string {
	const most = 5
	if len(notes) == 0 {
		return "none selects a workload or has a port the scenario can hold"
	}
	why := strings.Join(notes[:min(len(notes), most)], "; ")
	if len(notes) > most {
		why += fmt.Sprintf("; and %d more", len(notes)-most)
	}
	return why
}

// Import reads kubectl output and returns a scenario. Input that is not kubectl JSON is an
// error wrapping ErrFormat; input without nodes or Services one wrapping ErrEmpty.
func Import(inputs []Input, opts Options) (*Result, error) {
	o, err := read(inputs)
	if err != nil {
		return nil, err
	}
	if opts.Name == "" {
		opts.Name = "imported"
	}
	im := &importer{o: o, opts: opts}
	return im.build()
}

func (im *importer) build() (*Result, error) {
	o := im.o
	if len(o.nodes) == 0 {
		return nil, fmt.Errorf("%w: no Node objects in the input (add 'kubectl get nodes -o json')", ErrEmpty)
	}
	for _, k := range slices.Sorted(maps.Keys(o.skipped)) {
		if k == "Pod" && len(o.workloads) == 0 {
			// 'kubectl get nodes,services,endpointslices,pods' is a natural first try: say
			// what gives the pods' controllers (kind, strategy) instead.
			im.notef("%s of kind %q ignored: the pods come from their workloads; add 'kubectl get deployments,statefulsets,daemonsets -A -o json'", counted(o.skipped[k], "object", "objects"), k)
			continue
		}
		im.notef("%s of kind %q ignored", counted(o.skipped[k], "object", "objects"), k)
	}
	im.dropRepeats()
	im.dropOwnedReplicaSets()
	cl := im.cluster()
	first, firstGeneric := len(im.notes), len(im.genericOrder)
	entries := im.services(len(o.nodes), cl.noHints)
	if len(entries) == 0 {
		if len(o.services) == 0 {
			return nil, fmt.Errorf("%w: no Service the scenario can hold (add 'kubectl get services -A -o json')", ErrEmpty)
		}
		// Services were read and every one was left out: say why, or the user is told to
		// add the Services they gave.
		why := append(im.notes[first:len(im.notes):len(im.notes)], im.genericOrder[firstGeneric:]...) // anonymized: the kinds
		return nil, fmt.Errorf("%w: %s read, none the scenario can hold: %s", ErrEmpty,
			counted(len(o.services), "Service", "Services"), whyNone(why))
	}
	if im.opts.Anonymize {
		anonymize(entries, cl)
	}
	groups := group(entries)
	res := &Result{Nodes: len(o.nodes), Entries: len(groups)}
	for _, g := range groups {
		res.Services += g.count
		res.Pods += g.count * g.replicas
	}
	if res.Pods > maxPods {
		return nil, fmt.Errorf("%d pods is more than a scenario holds (%d)", res.Pods, maxPods)
	}
	for _, g := range im.genericOrder {
		im.notef("%d × %s", im.generic[g], g)
	}
	res.Notes = im.notes
	sources := o.sources
	if im.opts.Anonymize {
		sources = []string{"kubectl output (anonymized)"}
	}
	res.YAML = render(im.opts.Name, sources, cl, groups, im.notes, res)
	return res, nil
}

// clusterShape is the cluster: section.
type clusterShape struct {
	nodes          int
	zones          []string
	region         string
	nodeNameFormat string
	milliCPU       int64
	// maxPods is the pods a node takes, its status.allocatable.pods (0: no node says).
	maxPods int
	// noHints says why the EndpointSlice controller gives no topology-aware hints in the
	// real cluster ("" when it can).
	noHints string
}

// noHints says why upstream's topology cache has insufficient node information, so that
// no Service with topology-mode Auto gets hints, or "" when it has enough. It counts the
// ready nodes but the control plane's, and needs each to have a topology.kubernetes.io/zone
// label (not the beta one) and allocatable CPU, and two zones among them. A node without
// a Ready condition counts as ready, and one without status as having CPU (its status was
// left out of the input).
// upstream: k8s.io/endpointslice topologycache SetNodes, hasExcludedLabels, isNodeReady.
func noHints(nodes []node) string {
	zones := map[string]bool{}
	for _, n := range nodes {
		_, cp := n.Metadata.Labels["node-role.kubernetes.io/control-plane"]
		_, master := n.Metadata.Labels["node-role.kubernetes.io/master"]
		ready := true
		for _, c := range n.Status.Conditions {
			if c.Type == "Ready" {
				ready = c.Status == "True"
				break
			}
		}
		if cp || master || !ready {
			continue
		}
		z := n.Metadata.Labels[zoneLabel]
		if z == "" {
			return fmt.Sprintf("node %s is ready and has no %s label", n.Metadata.Name, zoneLabel)
		}
		statusGiven := len(n.Status.Conditions) > 0 || len(n.Status.Allocatable) > 0
		if _, ok := parseMilliCPU(n.Status.Allocatable["cpu"]); statusGiven && !ok {
			return fmt.Sprintf("node %s is ready and has no allocatable CPU", n.Metadata.Name)
		}
		zones[z] = true
	}
	switch len(zones) {
	case 0:
		return "it has no ready node but the control plane's"
	case 1:
		return "its ready nodes (but the control plane's) are in one zone"
	}
	return ""
}

func (im *importer) cluster() *clusterShape {
	o := im.o
	cl := &clusterShape{nodes: len(o.nodes), noHints: noHints(o.nodes)}
	perZone := map[string]int{}
	regions := map[string]int{}
	cpus := map[int64]int{}
	pods := map[int]int{}
	// noZone counts the nodes without a zone, badZone those of them whose label has a value
	// the API server would not accept (firstBadZone the first such value), and noCPU the
	// nodes with a status whose allocatable CPU is missing or unreadable (firstBadCPU the
	// first value given).
	noZone, badZone, noCPU := 0, 0, 0
	var firstBadZone, firstBadCPU string
	var lengths []string
	for _, n := range o.nodes {
		z := cmp.Or(n.Metadata.Labels[zoneLabel], n.Metadata.Labels[zoneLabelBeta])
		if z == "" || len(z) > 63 || !labelValueExpr.MatchString(z) {
			noZone++
			if z != "" {
				badZone++
				firstBadZone = cmp.Or(firstBadZone, z)
			}
		} else {
			perZone[z]++
		}
		if r := cmp.Or(n.Metadata.Labels[regionLabel], n.Metadata.Labels[regionLabelBeta]); r != "" && len(r) <= 63 && labelValueExpr.MatchString(r) {
			regions[r]++
		}
		if c, ok := parseMilliCPU(n.Status.Allocatable["cpu"]); ok {
			cpus[c]++
		} else if len(n.Status.Conditions) > 0 || len(n.Status.Allocatable) > 0 {
			// (A node without status had it left out of the input: nothing to say.)
			noCPU++
			firstBadCPU = cmp.Or(firstBadCPU, n.Status.Allocatable["cpu"])
		}
		if p, err := strconv.Atoi(n.Status.Allocatable["pods"]); err == nil && p > 0 {
			pods[p]++
		}
		lengths = append(lengths, n.Metadata.Name)
	}
	cl.zones = slices.Sorted(maps.Keys(perZone))
	switch {
	case len(cl.zones) == 0 && badZone > 0:
		cl.zones = []string{""}
		im.notef("no node has a valid %s label (%s one whose value is not a label value, such as %q): the scenario's nodes have no zone either (zones: [\"\"])",
			zoneLabel, counted(badZone, "has", "have"), firstBadZone)
	case len(cl.zones) == 0:
		// As in the cluster: the nodes carry no zone, nor do their endpoints (a zone would
		// add some 13 bytes to every endpoint of every slice).
		cl.zones = []string{""}
		im.notef("no node has a %s label: the scenario's nodes have none either (zones: [\"\"])", zoneLabel)
	case badZone > 0 && noZone == 1:
		im.notef("1 node without a valid %s label (its value %q is not a label value) is spread over the zones", zoneLabel, firstBadZone)
	case badZone > 0:
		im.notef("%s without a valid %s label (%d of them with a value that is not a label value, such as %q) %s spread over the zones",
			counted(noZone, "node", "nodes"), zoneLabel, badZone, firstBadZone, "are")
	case noZone > 0:
		im.notef("%s without a %s label %s spread over the zones", counted(noZone, "node", "nodes"), zoneLabel, agree(noZone, "is", "are"))
	}
	if len(cl.zones) > maxZones {
		cl.zones = cl.zones[:maxZones]
		im.notef("more than %d zones: only the first %d are kept", maxZones, maxZones)
	}
	if len(perZone) > 1 {
		lo, hi := math.MaxInt, 0
		for _, c := range perZone {
			lo, hi = min(lo, c), max(hi, c)
		}
		if hi-lo > 1 {
			var parts []string
			for _, z := range cl.zones {
				parts = append(parts, fmt.Sprintf("%s %d", z, perZone[z]))
			}
			im.detail("nodes per zone are uneven; the simulator spreads nodes evenly over zones", "nodes per zone are uneven (%s); the simulator spreads nodes evenly over zones", strings.Join(parts, ", "))
		}
	}
	cl.region = mostCommon(regions, "region-1")
	if len(regions) > 1 {
		im.detail("nodes are in several regions; the scenario has one", "nodes are in %d regions; the scenario has one, %s", len(regions), cl.region)
	}
	cl.milliCPU = mostCommon(cpus, defaultMilliCPU)
	if len(cpus) > 1 {
		im.notef("nodes have %d different allocatable CPU sizes; every node gets the most common, %dm", len(cpus), cl.milliCPU)
	}
	switch given := firstBadCPU != ""; {
	case noCPU == 0:
	case len(cpus) == 0 && given:
		im.notef("no node has an allocatable CPU the importer reads (such as %q): every node gets %dm", firstBadCPU, cl.milliCPU)
	case len(cpus) == 0:
		im.notef("no node's status lists its allocatable CPU: every node gets %dm", cl.milliCPU)
	case given:
		im.notef("%s no allocatable CPU the importer reads (such as %q): %s %dm too", counted(noCPU, "node has", "nodes have"), firstBadCPU, agree(noCPU, "it gets", "they get"), cl.milliCPU)
	default:
		im.notef("%s no allocatable CPU: %s %dm too", counted(noCPU, "node's status lists", "nodes' status lists"), agree(noCPU, "it gets", "they get"), cl.milliCPU)
	}
	cl.maxPods = mostCommon(pods, 0)
	if len(pods) > 1 {
		im.notef("nodes take %d different numbers of pods (status.allocatable.pods); every node takes the most common, %d", len(pods), cl.maxPods)
	}
	if cl.maxPods > maxNodePods {
		im.notef("nodes take %d pods (status.allocatable.pods); the simulator's nodes hand out at most %d pod addresses: maxPodsPerNode %d", cl.maxPods, maxNodePods, maxNodePods)
		cl.maxPods = maxNodePods
	}
	cl.nodeNameFormat = nameFormat(lengths)
	return cl
}

// mostCommon returns the key with the highest count (the smallest key on a tie), or def.
func mostCommon[K cmp.Ordered](m map[K]int, def K) K {
	best, n := def, 0
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if m[k] > n {
			best, n = k, m[k]
		}
	}
	return best
}

// parseMilliCPU reads a CPU quantity ("4", "3920m", "3.5") in millicores.
func parseMilliCPU(q string) (int64, bool) {
	if q == "" {
		return 0, false
	}
	if v, ok := strings.CutSuffix(q, "m"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		return n, err == nil && n >= 1 && n <= 10_000_000
	}
	f, err := strconv.ParseFloat(q, 64)
	if err != nil || math.IsNaN(f) || f < 0.001 || f > 10_000 {
		return 0, false
	}
	return int64(math.Round(f * 1000)), true
}

// nameFormat makes a node name format from a typical real node name (the median length):
// its last run of digits becomes %d, so simulated names are as long as real ones (every
// endpoint carries its node's name).
func nameFormat(names []string) string {
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(a, b)) })
	if len(names) == 0 {
		return "node-%d"
	}
	typical := names[len(names)/2]
	// The index goes into the host part (before the first dot): "ip-10-0-1-27.ec2.internal"
	// becomes "ip-10-0-1-%d.ec2.internal".
	host, domain, _ := strings.Cut(typical, ".")
	if domain != "" {
		domain = "." + domain
	}
	var f string
	if m := lastDigits.FindStringSubmatchIndex(host); m != nil {
		f = host[:m[0]] + "%d" + host[m[2]:] + domain
	} else {
		f = host + "-%d" + domain
	}
	if validFormat(f, len(names)) {
		return f
	}
	return "node-%d"
}

func validFormat(f string, nodes int) bool {
	if strings.Count(f, "%") != 1 || strings.Count(f, "%d") != 1 {
		return false
	}
	for _, i := range []int{0, nodes - 1} {
		n := fmt.Sprintf(f, i)
		if len(n) > 253 || !dns1123Sub.MatchString(n) {
			return false
		}
	}
	return true
}

// services maps every Service to an entry.
//
// noHints, when not "", says why the real cluster gives no topology-aware hints.
func (im *importer) services(nodes int, noHints string) []*entry {
	o := im.o
	// Pods per Service from EndpointSlices (per address type; dual-stack counts once; a
	// terminating pod's endpoint is left out: its replacement is counted, or it is going) and
	// from Endpoints, for Services whose pods no visible workload explains.
	// The EndpointSlice controller's slices (and unlabelled ones) hold the pods the
	// selector selects; another manager's slices of the same Service (a mesh, a custom
	// controller) hold other addresses, and count only for a Service that has no
	// slices of the controller.
	slicePods := map[string]*slicePodCount{}
	for _, s := range o.slices {
		svc := s.Metadata.Labels[serviceNameLabel]
		if svc == "" {
			continue
		}
		k := cmp.Or(s.Metadata.Namespace, "default") + "/" + svc
		c := slicePods[k]
		if c == nil {
			c = &slicePodCount{own: map[string]int{}, other: map[string]int{}}
			slicePods[k] = c
		}
		byType := c.own
		m, labelled := s.Metadata.Labels[managedByLabel]
		own := !labelled || m == sliceController
		if !own {
			byType = c.other
			c.otherSlices++
			if !slices.Contains(c.managers, m) {
				c.managers = append(c.managers, m)
			}
		}
		byType[s.AddressType] += 0 // the manager has slices, if no endpoints
		if own {
			// The numbers the Service's ports' targetPorts resolved to in the pods,
			// by the Service port's name and protocol.
			for _, p := range s.Ports {
				if p.Port >= 1 && p.Port <= 65535 {
					if c.targetPorts == nil {
						c.targetPorts = map[string]int64{}
					}
					c.targetPorts[p.Name+"/"+cmp.Or(p.Protocol, "TCP")] = p.Port
				}
			}
		}
		for _, ep := range s.Endpoints {
			if t := ep.Conditions.Terminating; t == nil || !*t {
				byType[s.AddressType]++
			}
		}
	}
	epAddrs := map[string]int{}
	// epTruncated are the Endpoints objects the Endpoints controller cut to 1000
	// addresses: their Services have more pods than they list.
	epTruncated := map[string]bool{}
	// epFamilies are the address families an Endpoints object's addresses are of: the
	// mirroring controller mirrors each into slices of its own address type.
	epFamilies := map[string]map[string]bool{}
	for _, ep := range o.endpoints {
		ips := map[string]bool{}
		for _, ss := range ep.Subsets {
			for _, a := range slices.Concat(ss.Addresses, ss.NotReadyAddresses) {
				ips[a.IP] = true
			}
		}
		k := cmp.Or(ep.Metadata.Namespace, "default") + "/" + ep.Metadata.Name
		epAddrs[k] = len(ips)
		fams := map[string]bool{}
		for ip := range ips {
			fams[addressFamily(ip)] = true
		}
		epFamilies[k] = fams
		if ep.Metadata.Annotations[overCapacityAnnotation] == "truncated" {
			epTruncated[k] = true
		}
	}
	// byLabel indexes workloads by namespace and pod template label, in input order.
	byLabel := map[string][]int{}
	for j := range o.workloads {
		w := &o.workloads[j]
		for k, v := range w.Spec.Template.Metadata.Labels {
			key := cmp.Or(w.Metadata.Namespace, "default") + "\x00" + k + "=" + v
			byLabel[key] = append(byLabel[key], j)
		}
	}
	// selectedBy counts the Services that select each workload.
	selectedBy := make([]int, len(o.workloads))
	seen := map[string]bool{}
	var out []*entry
	var noPods, externalName, noEndpoints, badLabels int
	// reachable counts the Services of internal traffic policy Local that take traffic from
	// outside the cluster: kube-proxy programs every endpoint of theirs, and the scenario
	// says Cluster.
	var reachable int
	// external counts the Services imported that take traffic from outside the cluster:
	// kube-proxy's rules for that traffic are not simulated.
	var external int
	var repeated []string // the ids of the Services that appear more than once
	for i := range o.services {
		s := &o.services[i]
		ns, name := cmp.Or(s.Metadata.Namespace, "default"), s.Metadata.Name
		id := ns + "/" + name
		switch {
		case !dns1035Label.MatchString(name) || len(name) > 63:
			im.detail("a Service with an invalid name skipped", "Service %q: not a valid Service name, skipped", id)
			continue
		case !dns1123Label.MatchString(ns) || len(ns) > 63:
			im.detail("a Service with an invalid namespace skipped", "Service %q: not a valid namespace, skipped", id)
			continue
		case seen[id]:
			// Noted once for all of them, below: a note each made an input given twice
			// print a line per Service.
			if !slices.Contains(repeated, id) {
				repeated = append(repeated, id)
			}
			continue
		case s.Spec.Type == "ExternalName":
			seen[id] = true // counted once, however often it appears
			externalName++
			continue
		}
		seen[id] = true
		e := &entry{namespace: ns, name: name, count: 1, names: []string{name}}
		e.headless = s.Spec.ClusterIP == "None"
		e.publishNotReady = s.Spec.PublishNotReadyAddresses
		e.internalTrafficLocal = model.UsesLocalEndpointsOnly(s.Spec.Type, s.Spec.InternalTrafficPolicy, len(s.Spec.ExternalIPs))
		if s.Spec.InternalTrafficPolicy == "Local" && !e.internalTrafficLocal {
			reachable++
		}
		for _, f := range s.Spec.IPFamilies {
			if (f == "IPv4" || f == "IPv6") && !slices.Contains(e.ipFamilies, f) && len(e.ipFamilies) < 2 {
				e.ipFamilies = append(e.ipFamilies, f)
			}
		}
		if td := s.Spec.TrafficDistribution; td != nil && *td != "" {
			switch *td {
			case "PreferClose", "PreferSameZone", "PreferSameNode":
				e.trafficDistribution = *td
			default:
				im.detail("a trafficDistribution the simulator does not know left out", "Service %s: trafficDistribution %q is not one the simulator knows; left out", id, *td)
			}
		}
		if t := cmp.Or(s.Metadata.Annotations[topologyModeAnnotation], s.Metadata.Annotations[topologyHintsAnnotation]); t != "" {
			switch t {
			case "Auto", "auto":
				if noHints != "" {
					// The simulator's nodes are all ready and zoned: it would give hints.
					im.detail("topology-mode Auto left out: the cluster's nodes give the controller too little information for hints",
						"Service %s: topology-mode %s left out: the EndpointSlice controller gives no hints in this cluster (%s)", id, t, noHints)
					break
				}
				e.topology = t
			case "Disabled":
				e.topology = t
			default:
				im.detail("a topology mode other than Auto or Disabled left out", "Service %s: topology mode %q is not Auto or Disabled; left out", id, t)
			}
		}
		if p := s.Metadata.Labels[proxyNameLabel]; p != "" && len(p) <= 63 && labelValueExpr.MatchString(p) {
			e.proxyName = p
		}
		for k, v := range s.Metadata.Labels {
			if k == proxyNameLabel {
				continue
			}
			if !validLabel(k, v) {
				badLabels++
				continue
			}
			if v == name {
				// The Service's own name ($name), so that Services alike but for it
				// (app.kubernetes.io/name: cart-0, cart-1…) are one entry whose copies
				// each carry their own.
				v = ownNameValue
			}
			e.labels = append(e.labels, label{k, v})
		}
		slices.SortFunc(e.labels, byKey)
		// The workloads the selector selects: same namespace, template labels ⊇ selector.
		var ws []*workload
		if len(s.Spec.Selector) > 0 {
			// Candidates share the selector's first label (in key order) in the namespace.
			k := slices.Min(slices.Collect(maps.Keys(s.Spec.Selector)))
			for _, j := range byLabel[ns+"\x00"+k+"="+s.Spec.Selector[k]] {
				w := &o.workloads[j]
				if subset(s.Spec.Selector, w.Spec.Template.Metadata.Labels) {
					ws = append(ws, w)
					selectedBy[j]++
				}
			}
		}
		var cports []containerPort
		var slicePorts map[string]int64
		switch {
		case s.Spec.Selector == nil:
			n, fams := epAddrs[id], epFamilies[id]
			if c := slicePods[id]; n == 0 && c != nil {
				fams = c.families()
				// EndpointSlices written without an Endpoints object (by the user, as
				// Endpoints' deprecation in 1.33 advises, or a controller): the nearest
				// the simulator has is hand-made Endpoints and their mirrored slices.
				if n = c.pods(); n > 0 {
					im.detail("a Service without a selector has EndpointSlices but no Endpoints object; imported as manualEndpoints (Endpoints the mirroring controller mirrors)",
						"Service %s has no selector and no Endpoints object; the %s of its EndpointSlices imported as manualEndpoints (hand-made Endpoints the mirroring controller mirrors)", id, counted(n, "endpoint", "endpoints"))
				}
			}
			if n == 0 {
				noEndpoints++
				continue
			}
			e.manual = min(n, maxReplicas)
			// Slices are mirrored for the families the addresses are of, whatever the
			// Service's ipFamilies (a dual-stack Service with IPv4 Endpoints gets IPv4
			// slices only; upstream: endpointslicemirroring reconciler, by address type).
			e.ipFamilies = slices.DeleteFunc(e.ipFamilies, func(f string) bool { return !fams[f] })
			if len(e.ipFamilies) == 0 {
				for _, f := range []string{"IPv4", "IPv6"} {
					if fams[f] {
						e.ipFamilies = append(e.ipFamilies, f)
					}
				}
			}
		case len(ws) > 0:
			im.workloads(e, id, ws, nodes)
			for _, w := range ws {
				// As upstream's FindPort looks: the containers, then the sidecars (init
				// containers with restartPolicy Always, which keep running).
				for _, c := range w.Spec.Template.Spec.Containers {
					cports = append(cports, c.Ports...)
				}
				for _, c := range w.Spec.Template.Spec.InitContainers {
					if c.RestartPolicy == "Always" {
						cports = append(cports, c.Ports...)
					}
				}
			}
		default:
			e.kind = "Deployment"
			e.maxSurge, e.maxUnavailable = defaultPercent, defaultPercent
			n := 0
			if c := slicePods[id]; c != nil {
				n, slicePorts = c.pods(), c.targetPorts
			}
			if n == 0 {
				n = epAddrs[id]
				if epTruncated[id] {
					im.detail("a Service's Endpoints object is truncated at 1000 addresses and no EndpointSlice says how many pods it has; 1000 imported",
						"Service %s: its Endpoints object is truncated (%s) and no EndpointSlice of it is in the input; it has more than the %s imported (add 'kubectl get endpointslices -A -o json')", id, overCapacityAnnotation, counted(n, "pod", "pods"))
				}
			}
			if n > 0 {
				im.detail("a Service no workload in the input selects (Deployment, StatefulSet, DaemonSet or ReplicaSet); its pods taken from its endpoints, run as a Deployment", "Service %s: no workload in the input (Deployment, StatefulSet, DaemonSet or ReplicaSet) selects it; %s taken from its endpoints, run as a Deployment", id, counted(n, "pod", "pods"))
			} else {
				noPods++
			}
			e.replicas = min(n, maxReplicas)
		}
		if c := slicePods[id]; s.Spec.Selector != nil && c != nil && c.otherSlices > 0 && (len(ws) > 0 || len(c.own) > 0) {
			// Written beside the controller's (a mesh, a multi-cluster controller): kube-proxy
			// watches them too, but the simulator writes only the controller's.
			im.detail("a Service has EndpointSlices of another manager beside the controller's; they are not simulated",
				"Service %s: %s managed by %s beside the EndpointSlice controller's %s not simulated", id, counted(c.otherSlices, "EndpointSlice", "EndpointSlices"), strings.Join(c.managers, ", "), agree(c.otherSlices, "is", "are"))
		}
		if !im.ports(e, id, s, cports, slicePorts, len(ws) > 0 || slicePorts != nil) {
			continue
		}
		if model.IsExternallyAccessible(s.Spec.Type, len(s.Spec.ExternalIPs)) {
			external++
		}
		out = append(out, e)
	}
	if n := len(repeated); n > 0 {
		what := counted(n, "Service appears", "Services appear") + " more than once (the same input given twice?); the first of each is kept"
		if im.opts.Anonymize {
			im.notef("%s", what)
		} else {
			slices.Sort(repeated)
			more := ""
			if n > 3 {
				repeated, more = repeated[:3], ", …"
			}
			im.notef("%s: %s%s", what, strings.Join(repeated, ", "), more)
		}
	}
	if reachable > 0 {
		im.notef("%s internalTrafficPolicy Local but %s traffic from outside the cluster (NodePort, LoadBalancer or external IPs), for which kube-proxy programs every endpoint: %s imported without the policy", counted(reachable, "Service has", "Services have"), agree(reachable, "takes", "take"), agree(reachable, "it is", "they are"))
	}
	if external > 0 {
		// The scenario's Services are ClusterIP (model.IsExternallyAccessible says what
		// kube-proxy writes for the others).
		im.notef("%s traffic from outside the cluster (NodePort, LoadBalancer or external IPs): kube-proxy's rules for it (node ports, load-balancer IPs, externalTrafficPolicy Local) are not simulated, only those of the cluster IP and the endpoints, so its syncs are a few rules short a port for each", counted(external, "Service takes", "Services take"))
	}
	if externalName > 0 {
		im.notef("%s skipped (%s no endpoints)", counted(externalName, "ExternalName Service", "ExternalName Services"), agree(externalName, "it has", "they have"))
	}
	if noEndpoints > 0 {
		im.notef("%s without a selector and without endpoints in the input skipped (add 'kubectl get endpoints,endpointslices -A -o json' to import %s)", counted(noEndpoints, "Service", "Services"), agree(noEndpoints, "it", "them"))
	}
	if noPods > 0 {
		im.notef("%s no pods in the input; %s imported with replicas: 0", counted(noPods, "Service selects", "Services select"), agree(noPods, "it is", "they are"))
	}
	sharedPods, unselected := 0, 0
	for _, n := range selectedBy {
		switch {
		case n == 0:
			unselected++
		case n > 1:
			sharedPods++
		}
	}
	if sharedPods > 0 {
		im.notef("%s selected by more than one Service; each Service gets its own pods in the simulation", counted(sharedPods, "workload is", "workloads are"))
	}
	if badLabels > 0 {
		im.notef("%d Service labels are not valid label keys or values; left out", badLabels)
	}
	if unselected > 0 {
		im.notef("%s selected by no Service; %s no endpoints and %s left out", counted(unselected, "workload is", "workloads are"), agree(unselected, "it has", "they have"), agree(unselected, "is", "are"))
	}
	return out
}

// slicePodCount counts a Service's endpoints by address type: in the EndpointSlice
// controller's slices (own) and in other managers' (other).
// targetPorts are the ports of the controller's slices: the number each Service port's
// targetPort resolved to, by the Service port's name and protocol.
// otherSlices counts other managers' slices, and managers names them.
type slicePodCount struct {
	own, other  map[string]int
	targetPorts map[string]int64
	otherSlices int
	managers    []string
}

// families are the address types of the endpoints pods counts.
func (c *slicePodCount) families() map[string]bool {
	m := c.own
	if len(m) == 0 {
		m = c.other
	}
	fams := map[string]bool{}
	for t, n := range m {
		if n > 0 {
			fams[t] = true
		}
	}
	return fams
}

// addressFamily is "IPv6" for an IPv6 address, else "IPv4".
func addressFamily(ip string) string {
	if strings.Contains(ip, ":") {
		return "IPv6"
	}
	return "IPv4"
}

// pods is the Service's pod count: the controller's endpoints of its largest address type
// (a dual-stack pod has one in each), or other managers' when the controller has none.
func (c *slicePodCount) pods() int {
	m := c.own
	if len(m) == 0 {
		m = c.other
	}
	n := 0
	for _, v := range m {
		n = max(n, v)
	}
	return n
}

// subset reports whether every key of sel has the same value in labels.
func subset(sel, labels map[string]string) bool {
	for k, v := range sel {
		if lv, ok := labels[k]; !ok || lv != v {
			return false
		}
	}
	return true
}

// workloads sets e's replicas, kind and strategy from the workloads its selector selects.
func (im *importer) workloads(e *entry, id string, ws []*workload, nodes int) {
	total := 0
	var main *workload
	mainReplicas := -1
	for _, w := range ws {
		r := replicasOf(w, nodes)
		if w.Kind != "DaemonSet" && w.Spec.Replicas != nil && *w.Spec.Replicas < 0 {
			im.detail("a workload with negative replicas (which the API server refuses) imported with 0",
				"Service %s: %s %s has replicas %d, which the API server refuses; imported as 0", id, w.Kind, w.Metadata.Name, *w.Spec.Replicas)
		}

		total = min(total+r, maxReplicas+1) // more than a service holds is noted below
		if r > mainReplicas {
			main, mainReplicas = w, r
		}
	}
	if total > maxReplicas {
		im.detail("a Service with more pods than a service holds; cut to the limit", "Service %s: %d pods is more than a service holds; %d kept", id, podsOf(ws, nodes), maxReplicas)
		total = maxReplicas
	}
	e.replicas = total
	if len(ws) > 1 {
		var names []string
		for _, w := range ws {
			names = append(names, w.Kind+" "+w.Metadata.Name)
		}
		im.detail("a Service selects several workloads; their pods are summed", "Service %s selects %d workloads (%s); their pods are summed and run as one %s", id, len(ws), strings.Join(names, ", "), main.Kind)
	}
	e.kind = main.Kind
	if main.Kind == "DaemonSet" && (len(ws) > 1 || total != nodes) {
		// The simulator runs a DaemonSet's pod on every node. One scheduled on some nodes
		// only (a nodeSelector, taints), or beside other workloads, runs as a Deployment of
		// as many pods, rolled as the DaemonSet rolls (its strategy, below).
		e.kind = "Deployment"
		im.detail("a DaemonSet not on every node, or beside other workloads, is run as a Deployment of its pods with its rolling update",
			"Service %s: DaemonSet %s (%s on %s) runs as a Deployment of the Service's %s, rolled as the DaemonSet rolls", id, main.Metadata.Name, counted(replicasOf(main, nodes), "pod", "pods"), counted(nodes, "node", "nodes"), counted(total, "pod", "pods"))
	}
	if main.Kind == "ReplicaSet" {
		// The simulator's nearest: a Deployment's pods are a ReplicaSet's.
		e.kind = "Deployment"
		im.detail("a ReplicaSet no Deployment in the input owns is run as a Deployment (with its default strategy)",
			"Service %s: ReplicaSet %s, which no Deployment in the input owns, is run as a Deployment (maxSurge and maxUnavailable 25%%)", id, main.Metadata.Name)
	}
	if sn := main.Spec.ServiceName; main.Kind == "StatefulSet" && sn == "" {
		// No governing Service (spec.serviceName is optional): its pods have no subdomain,
		// so no Service's endpoints carry their hostnames. The scenario's empty
		// serviceName means this Service; a name no Service has says none.
		e.serviceName = "governing-service"
		if e.name == e.serviceName {
			e.serviceName += "-2"
		}
		im.detail("a StatefulSet has no serviceName (its pods' endpoints have no hostnames); a name no Service has stands for it",
			"Service %s: StatefulSet %s has no serviceName, so its pods' endpoints have no hostnames; written as serviceName %s", id, main.Metadata.Name, e.serviceName)
	} else if main.Kind == "StatefulSet" && sn != e.name {
		// Its pods' subdomain names another Service: this one's endpoints get no hostnames.
		e.serviceName = sn
		if len(sn) > 63 || !dns1035Label.MatchString(sn) {
			// Not a Service's name (the API server would have refused it): any other name
			// says the same to the simulator.
			e.serviceName = "governing-service"
			if e.name == e.serviceName {
				e.serviceName += "-2"
			}
			im.detail("a StatefulSet's serviceName is not a valid Service name; another name stands for it",
				"Service %s: StatefulSet %s has serviceName %q, not a valid Service name; written as %s", id, main.Metadata.Name, sn, e.serviceName)
		}
	}
	switch mr := main.Spec.MinReadySeconds; {
	case mr > maxMinReadySeconds:
		e.minReady = maxMinReadySeconds
		im.detail("a workload's minReadySeconds is more than a scenario holds (1 day); cut to the limit",
			"Service %s: %s %s has minReadySeconds %d, more than a scenario holds; imported as %d (1 day)", id, main.Kind, main.Metadata.Name, mr, maxMinReadySeconds)
	case mr < 0:
		im.detail("a workload with a negative minReadySeconds (which the API server refuses) imported with 0",
			"Service %s: %s %s has minReadySeconds %d, which the API server refuses; imported as 0", id, main.Kind, main.Metadata.Name, mr)
	case mr > 0:
		e.minReady = mr
	}
	// Rolling update defaults per kind (upstream: k8s.io/api apps/v1 types.go):
	// Deployment 25%/25%; StatefulSet maxUnavailable 1, no surge; DaemonSet maxSurge 0,
	// maxUnavailable 1.
	surge, unavail := defaultPercent, defaultPercent
	st := main.Spec.UpdateStrategy
	switch main.Kind {
	case "Deployment":
		st = main.Spec.Strategy
	case "ReplicaSet":
		st = updateStrategy{} // a ReplicaSet does not roll: the Deployment defaults
	default:
		surge, unavail = "0", "1"
	}
	switch st.Type {
	case "Recreate":
		// All old pods go before any new one starts.
		surge, unavail = "0", "100%"
		im.detail("a workload uses the Recreate strategy, imported as maxSurge 0, maxUnavailable 100%", "Service %s: %s %s uses the Recreate strategy, imported as maxSurge 0, maxUnavailable 100%%", id, main.Kind, main.Metadata.Name)
	case "OnDelete":
		im.detail("a workload updates OnDelete, imported as a rolling update", "Service %s: %s %s updates OnDelete; imported as a rolling update with maxSurge %s, maxUnavailable %s", id, main.Kind, main.Metadata.Name, surge, unavail)
	}
	if ru := st.RollingUpdate; ru != nil && st.Type != "Recreate" {
		// A value the scenario cannot hold is noted, with what stands for it.
		take := func(field string, v *intOrString, percentMax int, value *string) {
			got, problem := intOrPercent(v, percentMax)
			switch {
			case problem == "":
				if got != "" {
					*value = got
				}
			case got != "":
				*value = got
				im.detail("a workload's "+field+" is "+problem+"; imported as "+got,
					"Service %s: %s %s has %s %s, %s; imported as %s", id, main.Kind, main.Metadata.Name, field, v, problem, got)
			default:
				im.detail("a workload's "+field+" is "+problem+"; the default is imported",
					"Service %s: %s %s has %s %q, %s; imported as the default %s", id, main.Kind, main.Metadata.Name, field, v.String(), problem, *value)
			}
		}
		if main.Kind != "StatefulSet" {
			take("maxSurge", ru.MaxSurge, 0, &surge)
		} // else StatefulSets do not surge: surge stays 0
		take("maxUnavailable", ru.MaxUnavailable, 100, &unavail)
		if ru.Partition != nil && *ru.Partition > 0 {
			im.detail("a StatefulSet has a partition; the simulator rolls every pod", "Service %s: StatefulSet %s has partition %d; the simulator rolls every pod", id, main.Metadata.Name, *ru.Partition)
		}
	}
	e.parallel = main.Kind == "StatefulSet" && main.Spec.PodManagementPolicy == "Parallel"
	if (surge == "0" || surge == "0%") && (unavail == "0" || unavail == "0%") {
		unavail = "1"
		im.detail("a workload has maxSurge and maxUnavailable both 0 (which the API server refuses); maxUnavailable imported as 1",
			"Service %s: %s %s has maxSurge and maxUnavailable both 0, which the API server refuses; maxUnavailable imported as 1", id, main.Kind, main.Metadata.Name)
	}
	e.maxSurge, e.maxUnavailable = surge, unavail
}

// replicasOf is a workload's pod count: spec.replicas (default 1; a negative count, which
// the API server refuses, is 0; more than a service holds is cut to one more than that,
// for the caller to note), or for a DaemonSet every node (the simulator's DaemonSet runs
// one pod per node).
func replicasOf(w *workload, nodes int) int {
	if w.Kind == "DaemonSet" {
		if d := int(w.Status.DesiredNumberScheduled); d > 0 {
			return min(d, maxReplicas+1) // the nodes it is scheduled on
		}
		return nodes // no status in the input: every node
	}
	if w.Spec.Replicas == nil {
		return 1
	}
	return int(max(min(*w.Spec.Replicas, maxReplicas+1), 0))
}

// podsOf is the pods of the workloads ws, summed as given (spec.replicas, saturating),
// for a note that says how many there were.
func podsOf(ws []*workload, nodes int) int64 {
	var total int64
	for _, w := range ws {
		r := int64(replicasOf(w, nodes))
		if w.Kind != "DaemonSet" && w.Spec.Replicas != nil && *w.Spec.Replicas > 0 {
			r = *w.Spec.Replicas
		}
		if total > math.MaxInt64-r {
			return math.MaxInt64
		}
		total += r
	}
	return total
}

// intOrPercent reads a maxSurge or maxUnavailable as the scenario holds it: an integer
// 0..2^31-1 or a whole percentage (at most percentMax when it is not 0: maxUnavailable
// cannot exceed 100%, maxSurge may). v nil gives "", "". A value the scenario cannot hold
// gives problem, saying why, and value what stands for it ("" for the default).
func intOrPercent(v *intOrString, percentMax int) (value, problem string) {
	if v == nil {
		return "", ""
	}
	if v.IsStr {
		if !percentExpr.MatchString(v.StrVal) {
			return "", "not an integer or a whole percentage"
		}
		p, _ := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
		if percentMax > 0 && p > percentMax {
			return strconv.Itoa(percentMax) + "%", fmt.Sprintf("more than %d%%", percentMax)
		}
		return strconv.Itoa(p) + "%", ""
	}
	if v.IntVal < 0 {
		return "", "negative"
	}
	if v.IntVal > math.MaxInt32 {
		return strconv.Itoa(math.MaxInt32), "more than a scenario holds"
	}
	return strconv.FormatInt(v.IntVal, 10), ""
}

// unresolvedPort is a Service port whose named targetPort no selected pod has: its index
// among the mapped ports, the name and the port number.
type unresolvedPort struct {
	index int
	name  string
	port  int64
}

// maxMinReadySeconds is the longest minReadySeconds a scenario holds (1 day).
const maxMinReadySeconds = 86400

// ports maps the Service's ports; named targetPorts are resolved against the selected pod
// templates' container ports, or, when no workload selected is in the input, as the
// EndpointSlice controller resolved them in the pods (slicePorts, by the Service port's
// name and protocol). It reports false when the Service cannot be imported.
//
// known says that the selected pods' ports are known (from their workloads or slices): a
// port whose named targetPort they lack is then left out, as upstream leaves it out of
// their endpoints, unless no port resolves.
func (im *importer) ports(e *entry, id string, s *service, cports []containerPort, slicePorts map[string]int64, known bool) bool {
	names := map[string]bool{}
	var unresolved []unresolvedPort
	for i, p := range s.Spec.Ports {
		if p.Port < 1 || p.Port > 65535 {
			im.detail("a port out of range left out", "Service %s: port %d out of range, left out", id, p.Port)
			continue
		}
		mp := port{name: p.Name, protocol: cmp.Or(p.Protocol, "TCP"), port: p.Port, targetPort: p.Port}
		if mp.protocol != "TCP" && mp.protocol != "UDP" && mp.protocol != "SCTP" {
			im.detail("a port with an unknown protocol left out", "Service %s: port %d protocol %q unknown, left out", id, p.Port, p.Protocol)
			continue
		}
		if mp.name != "" && (len(mp.name) > 63 || !dns1123Label.MatchString(mp.name) || names[mp.name]) {
			im.detail("an invalid or repeated port name renamed", "Service %s: port name %q invalid or repeated; renamed port-%d", id, mp.name, i)
			mp.name = fmt.Sprintf("port-%d", i)
		}
		if tp := p.TargetPort; tp != nil {
			switch {
			case !tp.IsStr && tp.IntVal >= 1 && tp.IntVal <= 65535:
				mp.targetPort = tp.IntVal
			case !tp.IsStr && tp.IntVal != 0:
				// 0 is unset, which the API server defaults to the port; another number
				// out of range it refuses.
				im.detail("a targetPort out of range; the port number is used", "Service %s: targetPort %d out of range; the port number %d is used", id, tp.IntVal, p.Port)
			case tp.IsStr:
				found := false
				for _, c := range cports {
					if c.Name == tp.StrVal && cmp.Or(c.Protocol, "TCP") == mp.protocol && c.ContainerPort >= 1 && c.ContainerPort <= 65535 {
						mp.targetPort, found = c.ContainerPort, true
						break
					}
				}
				if n, ok := slicePorts[p.Name+"/"+mp.protocol]; !found && ok {
					mp.targetPort, found = n, true
				}
				if !found {
					unresolved = append(unresolved, unresolvedPort{len(e.ports), tp.StrVal, p.Port})
				}
			}
		}
		if p.AppProtocol != nil && *p.AppProtocol != "" && len(*p.AppProtocol) <= 316 && !strings.ContainsAny(*p.AppProtocol, "\n\r\t\"\\") {
			mp.appProtocol = *p.AppProtocol
		}
		names[mp.name] = true
		e.ports = append(e.ports, mp)
		if len(e.ports) == 100 {
			break
		}
	}
	if known && len(unresolved) < len(e.ports) {
		// The controllers leave a port whose targetPort a pod does not have out of its
		// endpoints (upstream: FindPort's error, in the Endpoints and EndpointSlice
		// controllers); when no port resolves, the port number stands in.
		for _, u := range slices.Backward(unresolved) {
			e.ports = slices.Delete(e.ports, u.index, u.index+1)
			im.detail("a named targetPort matches no container port of the selected pods; the port is left out, as the controllers leave it out of the endpoints",
				"Service %s: targetPort %q names no container port of the selected pods; port %d left out, as the controllers leave it out of the endpoints", id, u.name, u.port)
		}
	} else {
		for _, u := range unresolved {
			im.detail("a named targetPort matches no container port of the selected pods; the port number is used", "Service %s: targetPort %q names no container port of the selected pods; the port number %d is used", id, u.name, u.port)
		}
	}
	// Names must be unique, and present when there are several ports: a renamed port may
	// have taken a name a later port has; give later ones a free name.
	seen := map[string]bool{}
	for i := range e.ports {
		p := &e.ports[i]
		if p.name == "" && len(e.ports) == 1 {
			continue
		}
		if p.name == "" || seen[p.name] {
			base := fmt.Sprintf("port-%d", i)
			p.name = base
			for k := 2; seen[p.name] || names[p.name] && p.name != base; k++ {
				p.name = fmt.Sprintf("%s-%d", base, k)
			}
		}
		seen[p.name] = true
	}
	if len(e.ports) == 0 && !e.headless {
		im.detail("a Service without a usable port (and not headless) skipped", "Service %s: no usable port and not headless, skipped", id)
		return false
	}
	return true
}

// counted is n followed by one when n is 1 and by many otherwise: "1 pod", "2 pods",
// "1 node has", "3 nodes have". Notes and the file's header count things that are often
// one (a Service's single pod, one ExternalName Service), and "1 pods" reads as a bug.
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// agree is one when n is 1 and many otherwise, for the words that follow a counted noun
// ("it is", "they are").
func agree(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
