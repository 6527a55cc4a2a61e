package kubeimport

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"epsim/internal/yamlscalar"
)

// group merges entries alike but for their names into one entry with count:, in the order
// of their first member (Services sorted by namespace and name), and names every entry so
// that no name or stamped copy ("base-i") clashes with another in its namespace.
func group(entries []*entry) []*entry {
	slices.SortStableFunc(entries, func(a, b *entry) int {
		return cmp.Or(cmp.Compare(a.namespace, b.namespace), cmp.Compare(a.name, b.name))
	})
	byKey := map[string]*entry{}
	var out []*entry
	for _, e := range entries {
		k := e.key()
		if g, ok := byKey[k]; ok {
			g.count++
			g.names = append(g.names, e.name)
			continue
		}
		byKey[k] = e
		out = append(out, e)
	}
	// Singletons keep their names; groups get a base name whose copies are all free.
	used := map[string]bool{}
	for _, e := range out {
		if e.count == 1 {
			used[e.namespace+"/"+e.name] = true
		}
	}
	for _, e := range out {
		if e.count == 1 {
			continue
		}
		base := groupBase(e.names, e.count)
		for k := 1; ; k++ {
			cand := base
			if k > 1 {
				cand = trimName(base, e.count, len("-g"+strconv.Itoa(k))) + "-g" + strconv.Itoa(k)
			}
			if free(used, e.namespace, cand, e.count) {
				base = cand
				break
			}
		}
		used[e.namespace+"/"+base] = true
		for i := range e.count {
			used[e.namespace+"/"+base+"-"+strconv.Itoa(i)] = true
		}
		e.name = base
	}
	return out
}

func free(used map[string]bool, ns, base string, count int) bool {
	if used[ns+"/"+base] {
		return false
	}
	for i := range count {
		if used[ns+"/"+base+"-"+strconv.Itoa(i)] {
			return false
		}
	}
	return true
}

// groupBase names a group after its members: their common name without a trailing number
// ("web-1", "web-2" → "web"), else their common prefix, else "group".
func groupBase(names []string, count int) string {
	b := trailingNumber.ReplaceAllString(names[0], "")
	for _, n := range names[1:] {
		if trailingNumber.ReplaceAllString(n, "") != b {
			b = commonPrefix(names)
			break
		}
	}
	b = strings.TrimRight(b, "-0123456789")
	b = trimName(b, count, 0)
	if b == "" || !dns1035Label.MatchString(b) {
		b = "group"
	}
	return b
}

// trimName shortens base so that base + extra characters + "-<count-1>" fits 63 characters.
func trimName(base string, count, extra int) string {
	limit := 63 - extra - len("-"+strconv.Itoa(count-1))
	if len(base) > limit {
		base = strings.TrimRight(base[:limit], "-")
	}
	return base
}

func commonPrefix(names []string) string {
	p := names[0]
	for _, n := range names[1:] {
		i := 0
		for i < len(p) && i < len(n) && p[i] == n[i] {
			i++
		}
		p = p[:i]
	}
	return p
}

// anonymize renames namespaces, Services, ports, zones, the region and the node name format
// to neutral names of the same lengths, numbered in sorted order of the real names.
func anonymize(entries []*entry, cl *clusterShape) {
	var nss, names []string
	for _, e := range entries {
		nss = append(nss, e.namespace)
		names = append(names, e.namespace+"/"+e.name)
		if e.serviceName != "" {
			// The governing Service is named like the others, imported or not.
			names = append(names, e.namespace+"/"+e.serviceName)
		}
	}
	nsMap := numbered(nss, "ns-")
	nameMap := numbered(names, "svc-")
	for _, e := range entries {
		if e.serviceName != "" {
			e.serviceName = nameMap[e.namespace+"/"+e.serviceName]
		}
		e.name = nameMap[e.namespace+"/"+e.name]
		e.namespace = nsMap[e.namespace]
		e.names = []string{e.name}
		for i := range e.ports {
			if e.ports[i].name != "" {
				e.ports[i].name = padded("p", i, len(e.ports[i].name))
			}
		}
		if e.proxyName != "" {
			e.proxyName = padded("proxy", 0, len(e.proxyName))
		}
	}
	anonymizeLabels(entries)
	zm := numbered(cl.zones, "zone-")
	for i, z := range cl.zones {
		if z != "" { // no zone label: nothing to hide
			cl.zones[i] = zm[z]
		}
	}
	cl.region = padded("region-", 1, len(cl.region))
	l := len(fmt.Sprintf(cl.nodeNameFormat, 0))
	cl.nodeNameFormat = "node" + strings.Repeat("0", max(0, l-len("node-0"))) + "-%d"
}

// allLabels returns e's labels with its service-proxy-name, by key.
func (e *entry) allLabels() []label {
	if e.proxyName == "" {
		return e.labels
	}
	out := append(slices.Clone(e.labels), label{proxyNameLabel, e.proxyName})
	slices.SortFunc(out, byKey)
	return out
}

// anonymizeLabels renames the Services' label keys and values to neutral ones of the same
// lengths, numbered in sorted order: a key's prefix and name apart, so that it stays a
// valid key. Keys under the kubernetes.io and k8s.io prefixes are the well-known ones
// (app.kubernetes.io/name, ...) and are kept; their values are renamed all the same.
func anonymizeLabels(entries []*entry) {
	var prefixes, names, values []string
	for _, e := range entries {
		for _, l := range e.labels {
			if p, n, ok := strings.Cut(l.key, "/"); ok && !wellKnownPrefix(p) {
				prefixes = append(prefixes, p)
				names = append(names, n)
			} else if !ok {
				names = append(names, l.key)
			}
			if l.value != "" && l.value != ownNameValue {
				values = append(values, l.value)
			}
		}
	}
	pm, nm, vm := numberedFull(prefixes, "k"), numberedFull(names, "l"), numberedFull(values, "v")
	for _, e := range entries {
		for i, l := range e.labels {
			if p, n, ok := strings.Cut(l.key, "/"); !ok {
				l.key = nm[l.key]
			} else if !wellKnownPrefix(p) {
				l.key = pm[p] + "/" + nm[n]
			}
			if l.value != "" && l.value != ownNameValue {
				l.value = vm[l.value] // $name stays: the name is renamed itself
			}
			e.labels[i] = l
		}
		slices.SortFunc(e.labels, byKey)
	}
}

// wellKnownPrefix reports whether a label key prefix is Kubernetes' own.
func wellKnownPrefix(p string) bool {
	return p == "kubernetes.io" || p == "k8s.io" || strings.HasSuffix(p, ".kubernetes.io") || strings.HasSuffix(p, ".k8s.io")
}

// numberedFull maps each distinct value (sorted) to prefix+index, padded to the value's
// full length (longer only when the value is shorter than prefix and index).
func numberedFull(vals []string, prefix string) map[string]string {
	return numberedTo(vals, prefix, func(v string) int { return len(v) })
}

// numbered maps each distinct value (sorted) to prefix+index, padded to the length of the
// value's last path element (at most 50).
func numbered(vals []string, prefix string) map[string]string {
	return numberedTo(vals, prefix, func(v string) int {
		if j := strings.LastIndexByte(v, '/'); j >= 0 {
			v = v[j+1:]
		}
		return min(len(v), 50)
	})
}

// numberedTo maps each distinct value (sorted) to prefix+index, padded to length(value).
func numberedTo(vals []string, prefix string, length func(string) int) map[string]string {
	slices.Sort(vals)
	vals = slices.Compact(vals)
	m := make(map[string]string, len(vals))
	for i, v := range vals {
		m[v] = padded(prefix, i+1, length(v))
	}
	return m
}

// padded is prefix and i, with zeros between them up to length n.
func padded(prefix string, i, n int) string {
	s := strconv.Itoa(i)
	return prefix + strings.Repeat("0", max(0, n-len(prefix)-len(s))) + s
}

// intOrPct writes a maxSurge/maxUnavailable value: integers bare, percentages quoted.
func intOrPct(s string) string {
	if strings.HasSuffix(s, "%") {
		return strconv.Quote(s)
	}
	return s
}

// render writes the scenario file.
func render(name string, sources []string, cl *clusterShape, groups []*entry, notes []string, res *Result) []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Imported by 'sim import' from %s.\n", strings.Join(sources, ", "))
	w("# %s in %s, %s (%s), %s.\n", counted(res.Nodes, "node", "nodes"), counted(len(cl.zones), "zone", "zones"),
		counted(res.Services, "Service", "Services"), counted(res.Entries, "entry", "entries"), counted(res.Pods, "pod", "pods"))
	w("# Every field is described by 'sim explain' and in docs/scenario.md; pod timing and the\n")
	w("# control plane use the defaults ('sim validate --effective' prints them).\n")
	if len(notes) > 0 {
		w("#\n# Not mapped from the input:\n")
		for _, n := range notes {
			w("#   - %s\n", printable(n))
		}
	}
	w("name: %s\n", yamlscalar.Quote(name))
	w("description: %s\n", yamlscalar.Quote(fmt.Sprintf("Imported from kubectl output: %s, %s, %s", counted(res.Nodes, "node", "nodes"), counted(res.Services, "Service", "Services"), counted(res.Pods, "pod", "pods"))))
	w("cluster:\n  nodes: %d\n  zones: [", cl.nodes)
	for i, z := range cl.zones {
		if i > 0 {
			w(", ")
		}
		w("%s", yamlscalar.Quote(z))
	}
	w("]\n  region: %s\n  nodeNameFormat: %s\n  nodeMilliCPU: %d\n", yamlscalar.Quote(cl.region), yamlscalar.Quote(cl.nodeNameFormat), cl.milliCPU)
	if cl.maxPods > 0 {
		w("  maxPodsPerNode: %d\n", cl.maxPods)
	}
	w("services:\n")
	for _, e := range groups {
		if e.count > 1 {
			w("  # %d Services alike: %s\n", e.count, summarize(e.names))
		}
		w("  - name: %s\n    namespace: %s\n", yamlscalar.Quote(e.name), yamlscalar.Quote(e.namespace))
		if e.count > 1 {
			w("    count: %d\n", e.count)
		}
		if e.manual > 0 {
			w("    manualEndpoints: %d\n", e.manual)
		} else {
			w("    kind: %s\n    replicas: %d\n    maxSurge: %s\n    maxUnavailable: %s\n", e.kind, e.replicas, intOrPct(e.maxSurge), intOrPct(e.maxUnavailable))
			if e.serviceName != "" {
				w("    serviceName: %s\n", yamlscalar.Quote(e.serviceName))
			}
			if e.parallel {
				w("    podManagementPolicy: Parallel\n")
			}
			if e.minReady > 0 {
				w("    minReadySeconds: %d\n", e.minReady)
			}
		}
		if e.headless {
			w("    headless: true\n")
		}
		if len(e.ipFamilies) > 0 {
			w("    ipFamilies: [%s]\n", strings.Join(e.ipFamilies, ", "))
		}
		if e.publishNotReady {
			w("    publishNotReadyAddresses: true\n")
		}
		if e.trafficDistribution != "" {
			w("    trafficDistribution: %s\n", e.trafficDistribution)
		}
		if e.internalTrafficLocal {
			w("    internalTrafficPolicy: Local\n")
		}
		if e.topology != "" {
			w("    topologyMode: %s\n", e.topology)
		}
		if labels := e.allLabels(); len(labels) > 0 {
			w("    labels: {")
			for i, l := range labels {
				if i > 0 {
					w(", ")
				}
				v := l.value
				if v == ownNameValue && e.count == 1 {
					v = e.name // a Service alone: its name as it is, $name only for copies
				}
				w("%s: %s", yamlscalar.Quote(l.key), yamlscalar.Quote(v))
			}
			w("}\n")
		}
		w("    ports:")
		if len(e.ports) == 0 {
			w(" []")
		}
		w("\n")
		for _, p := range e.ports {
			w("      - {")
			if p.name != "" {
				w("name: %s, ", yamlscalar.Quote(p.name))
			}
			w("protocol: %s, port: %d, targetPort: %d", p.protocol, p.port, p.targetPort)
			if p.appProtocol != "" {
				w(", appProtocol: %s", yamlscalar.Quote(p.appProtocol))
			}
			w("}\n")
		}
	}
	w("timeline:\n  - name: create\n    action: create\n")
	var largest []*entry
	for _, e := range groups {
		if e.manual == 0 && e.replicas > 0 {
			largest = append(largest, e)
		}
	}
	if len(largest) > 0 {
		slices.SortStableFunc(largest, func(a, b *entry) int { return cmp.Compare(b.replicas, a.replicas) })
		largest = largest[:min(3, len(largest))]
		w("  # A rollout of the largest Services, each with its own strategy.\n")
		// A name alone names the Services of that name in every namespace: with more than
		// one namespace, each reference names its namespace too.
		qualify := false
		for _, e := range groups {
			qualify = qualify || e.namespace != groups[0].namespace
		}
		var refs []string
		for _, e := range largest {
			n := e.name
			if e.count > 1 {
				n += "-0"
			}
			if qualify {
				n = e.namespace + "/" + n
			}
			if !slices.Contains(refs, yamlscalar.Quote(n)) {
				refs = append(refs, yamlscalar.Quote(n))
			}
		}
		w("  - name: rollout-largest\n    action: rollout\n    services: [%s]\n", strings.Join(refs, ", "))
		w("  # Every Service rolled at once, as a cluster-wide rollout wave does.\n")
		w("  - name: rollout-all\n    action: rollout\n")
		w("  # One node drained (cordoned, its pods evicted and recreated elsewhere).\n")
		w("  - name: drain-node\n    action: drainNodes\n    nodes: 1\n")
	}
	return []byte(b.String())
}

// printable replaces what a YAML comment cannot hold (control characters, invalid UTF-8).
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == utf8.RuneError || r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0xfeff || r == 0x2028 || r == 0x2029 {
			return '?'
		}
		return r
	}, s)
}

// summarize lists a group's names briefly: all of up to four, else the first three and the
// last.
func summarize(names []string) string {
	if len(names) <= 4 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:3], ", ") + ", …, " + names[len(names)-1]
}
