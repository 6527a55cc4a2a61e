package sim

import (
	"cmp"
	"maps"
	"slices"

	"epsim/model"
)

// seedSlices stores the cluster's EndpointSlices (ReplayOptions.Slices) before the
// controllers start, as if written before time 0, and returns how many it stored and how
// many it left out (see ReplayOptions.Slices). No write is counted for them.
func (e *Engine) seedSlices(list []*model.EndpointSlice) (seeded, unseeded int64) {
	var y *sliceSyncer
	for _, c := range e.ctls {
		if s, ok := c.syncer.(*sliceSyncer); ok {
			y = s
		}
	}
	if y == nil {
		return 0, int64(len(list)) // the EndpointSlice controller does not run
	}
	type key struct{ namespace, name string }
	byKey := map[key]int{}
	for i, s := range e.services {
		if y.reconcilers[i] != nil { // a Service whose endpoints the controller manages
			byKey[key{s.svc.Namespace, s.svc.Name}] = i
		}
	}
	// Grouped by Service, each group by name (the lister's order).
	groups := map[int][]*model.EndpointSlice{}
	for _, sl := range list {
		i, ok := byKey[key{sl.Namespace, sl.Labels.Get(model.LabelServiceName)}]
		if !ok || sl.Labels.Get(model.LabelManagedBy) != model.ControllerName {
			unseeded++
			continue
		}
		e.api.followRecorded(sl.ResourceVersion)
		groups[i] = append(groups[i], sl)
	}
	for _, idx := range slices.Sorted(maps.Keys(groups)) {
		g := groups[idx]
		slices.SortStableFunc(g, func(a, b *model.EndpointSlice) int { return cmp.Compare(a.Name, b.Name) })
		g = slices.CompactFunc(g, func(a, b *model.EndpointSlice) bool { return a.Name == b.Name })
		seeded += int64(len(g))
		unseeded += int64(len(groups[idx]) - len(g))
		y.seed(e.services[idx], g)
	}
	return seeded, unseeded
}

// seed stores slices, the existing EndpointSlices of Service s (sorted by name, unique),
// as the API server stores them before the run: the reconciler starts from them, every
// kube-proxy has programmed them, and the run's counts of objects and slice sizes include
// them. Each is copied; a slice's managedFields count in its stored size only.
func (y *sliceSyncer) seed(s *serviceState, list []*model.EndpointSlice) {
	e := y.e
	mi := modeIndex(ModeEndpointSlices)
	st := &y.stored[s.idx]
	stored := make([]*model.EndpointSlice, len(list))
	for j, in := range list {
		sl := *in
		if len(sl.ManagedFields) == 0 {
			y.mf[0] = y.fields.EndpointSlice(&sl, sl.CreationTimestamp)
			sl.ManagedFields = y.mf[:]
		}
		sums := sliceEndpoints(&sl, e.api.needJSON, e.proxyAt)
		bytes, _ := sliceSizesFrom(&sl, &sl.ObjectMeta, sums.size, e.api.needJSON)
		sl.ManagedFields = nil
		selected, unserved := proxySelection(sl.Labels, false)
		st.add(&storedSlice{slice: &sl, bytes: bytes, sums: sums, selected: selected, unserved: unserved})
		e.sliceNames.add(sl.Namespace, sl.Name)
		e.stats.sliceResized(-1, len(sl.Endpoints))
		e.stats.objects[mi]++
		if selected {
			e.api.listBytes[mi] += bytes[model.Protobuf]
			e.kubeProxies[mi].proxier(familyOf(sl.AddressType)).seed(sl.Name, s.idx, len(s.svc.Ports), objectEndpoints{
				ready: sums.ready, fallback: sums.fallback, all: int32(len(sl.Endpoints)), hints: sums.hints}, unserved)
		}
		stored[j] = &sl
	}
	y.reconciler(s.idx).SetStoredSlices(stored)
}

// seed records an object the kube-proxy had programmed before the run began, with its
// endpoint counts: they are in its rules, and no sync is due for it.
func (k *kubeProxy) seed(name string, svc, ports int, counts objectEndpoints, unserved bool) {
	k.service(svc, ports)
	old := k.services[svc].objects.set(name, counts)
	k.apply(&kubeProxyChange{svc: svc, unserved: unserved,
		endpointDelta: int(counts.ready - old.ready), fallbackDelta: int(counts.fallback - old.fallback),
		allDelta: int(counts.all - old.all), hintsDelta: counts.hints.plus(old.hints, -1)})
}
