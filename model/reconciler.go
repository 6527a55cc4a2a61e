package model

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// NodeGetter looks Nodes up by name (the controller's node lister). A Node it returned
// must not be modified afterwards, as an informer's objects are not: a change is a new Node.
// Endpoints point their nodeName and zone into it.
type NodeGetter interface {
	// Node returns the named node, or false when it does not exist.
	Node(name string) (*Node, bool)
}

// ReconcilerOptions configure the EndpointSlice reconciler.
type ReconcilerOptions struct {
	// MaxEndpointsPerSlice is --max-endpoints-per-slice (1..1000; 0 means the default 100).
	MaxEndpointsPerSlice int
	// DisablePreferSameTrafficDistribution turns the PreferSameTrafficDistribution feature
	// gate off (it is on by default): PreferSameZone and PreferSameNode are then ignored.
	DisablePreferSameTrafficDistribution bool
	// Topology is the controller's topology cache for the topology-mode annotation; nil
	// disables those hints (the annotation then strips hints).
	Topology *TopologyCache
	// Buffers, when set, are the scratch lists shared by every ServiceSlices made with
	// these options, which must then not Sync or Applied at the same time (one controller's
	// Services do not): a Sync's result is reused by the next Sync of any of them. Nil:
	// each ServiceSlices has its own.
	Buffers *SyncBuffers
}

func (o *ReconcilerOptions) maxPerSlice() int {
	if o.MaxEndpointsPerSlice <= 0 {
		return DefaultMaxEndpointsPerSlice
	}
	return o.MaxEndpointsPerSlice
}

// SlicePlan is the API writes of one finalize call, in the order upstream sends them: every
// create, then every update, then every delete. A failed write stops the rest of the plan.
// The last plan of a sync may have AddressType "" and hold only the deletes of slices of
// address types the Service no longer supports; there a failure does not stop the others.
type SlicePlan struct {
	AddressType AddressType
	// ToCreate are new slices: GenerateName set, Name empty.
	ToCreate []*EndpointSlice
	// ToUpdate are full replacements (PUT) of the named slices.
	ToUpdate []*EndpointSlice
	// ToDelete are the slices to delete (as stored).
	ToDelete []*EndpointSlice
	// Added and Removed count endpoints added to and dropped from slices
	// (endpoints_added_per_sync, endpoints_removed_per_sync).
	Added, Removed int
	// SkippedCreates counts creates dropped because the Service is being deleted.
	SkippedCreates int
}

// Writes returns the number of API calls in the plan.
func (p *SlicePlan) Writes() int { return len(p.ToCreate) + len(p.ToUpdate) + len(p.ToDelete) }

// SyncResult is the outcome of one reconcile of a Service.
type SyncResult struct {
	// Plans holds one plan per supported address type (IPv4 first), then possibly the plan
	// of unsupported-type deletes (AddressType "").
	Plans []SlicePlan
	// Err is non-nil when some pods were skipped because their Node was not found: the
	// writes still proceed, and the controller retries the Service with backoff.
	Err error
	// Events are the Events the sync records about the Service after its writes.
	Events SyncEvents
}

// Writes returns the number of API calls in all plans.
func (r *SyncResult) Writes() int {
	n := 0
	for i := range r.Plans {
		n += r.Plans[i].Writes()
	}
	return n
}

// ErrNodeNotFound is wrapped by SyncResult.Err when pods were skipped for a missing Node.
var ErrNodeNotFound = errors.New("model: node not found")

// ReconcileFull is the straightforward port of upstream's Reconcile: from a Service, its
// selector-matched pods, the Service's existing slices and the nodes, it computes the writes
// that bring the slices to the desired state. Upstream's random choices are replaced by fixed
// ones that upstream could also have made (UPSTREAM.md §2.12): address types IPv4 then IPv6,
// port maps in key order, existing slices in name order, endpoints popped in identity order,
// ties in step 2 and best fit broken by name. It does not modify its inputs. With a topology
// cache in opts, the cache's per-Service hint records are updated.
// upstream: reconciler.go Reconcile
func ReconcileFull(svc *Service, pods []*Pod, existing []*EndpointSlice, nodes NodeGetter, opts ReconcilerOptions, trigger Timestamp) SyncResult {
	existing = slices.Clone(existing)
	slices.SortStableFunc(existing, func(a, b *EndpointSlice) int { return strings.Compare(a.Name, b.Name) })
	types := addressTypesForService(svc)
	var res SyncResult
	var unsupported []*EndpointSlice
	byType := map[AddressType][]*EndpointSlice{}
	for _, s := range existing {
		if !slices.Contains(types, s.AddressType) {
			if opts.Topology != nil {
				if name := s.Labels.Get(LabelServiceName); name != "" {
					opts.Topology.RemoveHints(s.Namespace+"/"+name, s.AddressType)
				}
			}
			unsupported = append(unsupported, s)
			continue
		}
		byType[s.AddressType] = append(byType[s.AddressType], s)
	}
	labels := SliceLabels(svc)
	missing := 0
	for _, at := range types {
		plan, miss := reconcileAddressTypeFull(svc, pods, byType[at], nodes, &opts, at, labels)
		missing += miss
		finalize(svc, &plan, trigger)
		res.Plans = append(res.Plans, plan)
	}
	if len(unsupported) > 0 {
		res.Plans = append(res.Plans, SlicePlan{ToDelete: unsupported})
	}
	if missing > 0 {
		res.Err = fmt.Errorf("service %s: %d pod endpoints skipped: %w", svc.Key(), missing, ErrNodeNotFound)
	}
	res.Events = opts.Topology.takeEvents()
	return res
}

// desiredSet is the desired endpoints of one port map, by identity.
type desiredSet struct {
	ports     []EndpointPort
	endpoints map[endpointHash]*Endpoint
}

// reconcileAddressTypeFull: upstream: reconciler.go reconcileByAddressType (up to finalize).
func reconcileAddressTypeFull(svc *Service, pods []*Pod, existing []*EndpointSlice, nodes NodeGetter,
	opts *ReconcilerOptions, at AddressType, labels StringMap) (SlicePlan, int) {
	plan := SlicePlan{AddressType: at}
	existingByKey := map[PortMapKey][]*EndpointSlice{}
	for i, s := range existing {
		if ownedBy(s, svc) {
			s = inUpstreamOrder(s)
			existing[i] = s
			k := NewPortMapKey(s.Ports)
			existingByKey[k] = append(existingByKey[k], s)
		} else {
			plan.ToDelete = append(plan.ToDelete, s)
		}
	}
	desiredByKey := map[PortMapKey]*desiredSet{}
	missing := 0
	for _, pod := range pods {
		if !shouldPodBeInEndpoints(pod) {
			continue
		}
		ports := endpointPorts(svc, pod)
		k := NewPortMapKey(ports)
		ds := desiredByKey[k]
		if ds == nil {
			ds = &desiredSet{ports: ports, endpoints: map[endpointHash]*Endpoint{}}
			desiredByKey[k] = ds
		}
		node, ok := nodes.Node(pod.NodeName)
		if !ok {
			if !svc.PublishNotReadyAddresses {
				missing++
				continue
			}
			node = nil
		}
		ep := podToEndpoint(pod, node, svc, at)
		if len(ep.Addresses) > 0 {
			ds.endpoints[hashEndpoint(&ep)] = &ep
		}
	}
	keys := make([]PortMapKey, 0, len(desiredByKey))
	for k := range desiredByKey {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	max := opts.maxPerSlice()
	for _, k := range keys {
		ds := desiredByKey[k]
		c, u, d, added, removed := reconcileByPortMappingFull(svc, existingByKey[k], ds, at, max, labels)
		plan.ToCreate = append(plan.ToCreate, c...)
		plan.ToUpdate = append(plan.ToUpdate, u...)
		plan.ToDelete = append(plan.ToDelete, d...)
		plan.Added += added
		plan.Removed += removed
	}
	oldKeys := make([]PortMapKey, 0, len(existingByKey))
	for k := range existingByKey {
		if desiredByKey[k] == nil {
			oldKeys = append(oldKeys, k)
		}
	}
	slices.Sort(oldKeys)
	for _, k := range oldKeys {
		plan.ToDelete = append(plan.ToDelete, existingByKey[k]...)
	}
	placeholderAndHints(svc, &plan, existing, opts, labels)
	return plan, missing
}

// placeholderAndHints applies the placeholder rule and the hint passes to a plan whose
// placement is done. existing must be in name order.
// upstream: reconciler.go reconcileByAddressType (from the placeholder to finalize)
func placeholderAndHints(svc *Service, plan *SlicePlan, existing []*EndpointSlice, opts *ReconcilerOptions, labels StringMap) {
	if len(existing) == len(plan.ToDelete) && len(plan.ToCreate) == 0 {
		p := newEndpointSlice(svc, []EndpointPort{}, plan.AddressType, labels)
		if len(plan.ToDelete) == 1 && placeholderEqual(plan.ToDelete[0], p) {
			plan.ToDelete = plan.ToDelete[:0]
		} else {
			plan.ToCreate = append(plan.ToCreate, p)
		}
	}
	mode := hintsModeFor(svc, opts)
	if mode == hintsStrip && opts.Topology == nil && !sliceListsHaveHints(existing, plan) {
		// Fast exit: nothing to strip anywhere (the common case).
		return
	}
	si := sliceInfo{
		service:     svc,
		addressType: plan.AddressType,
		toCreate:    plan.ToCreate,
		toUpdate:    plan.ToUpdate,
		unchanged:   unchangedSlices(existing, plan.ToUpdate, plan.ToDelete),
	}
	switch mode {
	case hintsTopology:
		opts.Topology.addHints(&si)
	case hintsStrip:
		if opts.Topology != nil {
			opts.Topology.removeHintsOff(svc, si.addressType)
		}
		removeHintsFromSlices(&si)
	default:
		if opts.Topology != nil {
			opts.Topology.removeHintsOff(svc, si.addressType)
		}
		reconcileTrafficDistribution(&si, mode == hintsPreferSameNode)
	}
	plan.ToCreate, plan.ToUpdate = si.toCreate, si.toUpdate
}

// sliceListsHaveHints reports whether anything in existing or the plan carries hints.
func sliceListsHaveHints(existing []*EndpointSlice, plan *SlicePlan) bool {
	for _, l := range [][]*EndpointSlice{existing, plan.ToCreate, plan.ToUpdate} {
		for _, s := range l {
			if sliceHasHints(s) {
				return true
			}
		}
	}
	return false
}

// unchangedSlices: existing slices that are neither updated nor deleted, in existing order.
// upstream: utils.go unchangedSlices
func unchangedSlices(existing, toUpdate, toDelete []*EndpointSlice) []*EndpointSlice {
	changed := make(map[string]bool, len(toUpdate)+len(toDelete))
	for _, s := range toUpdate {
		changed[s.Name] = true
	}
	for _, s := range toDelete {
		changed[s.Name] = true
	}
	var out []*EndpointSlice
	for _, s := range existing {
		if !changed[s.Name] {
			out = append(out, s)
		}
	}
	return out
}

// reconcileByPortMappingFull places one port map's desired endpoints into its existing
// slices (name order). Endpoints are popped in identity order; step 2 fills the fullest
// first (ties by name); best fit picks the smallest gap (ties by name).
// upstream: reconciler.go reconcileByPortMapping
func reconcileByPortMappingFull(svc *Service, existing []*EndpointSlice, ds *desiredSet, at AddressType,
	max int, labels StringMap) (toCreate, toUpdate, toDelete []*EndpointSlice, added, removed int) {
	var unchanged []*EndpointSlice
	updated := map[string]bool{}
	// Step 1.
	for _, s := range existing {
		kept := make([]Endpoint, 0, len(s.Endpoints))
		changed := false
		for i := range s.Endpoints {
			e := &s.Endpoints[i]
			h := hashEndpoint(e)
			if d := ds.endpoints[h]; d != nil {
				kept = append(kept, *d)
				if !EndpointsEqualBeyondHash(d, e) {
					changed = true
				}
				delete(ds.endpoints, h)
			}
		}
		lc := labelsChanged(s.Labels, svc)
		switch {
		case changed || len(kept) != len(s.Endpoints):
			if len(s.Endpoints) > len(kept) {
				removed += len(s.Endpoints) - len(kept)
			}
			if len(kept) == 0 {
				toDelete = append(toDelete, s)
			} else {
				c := *s
				c.Endpoints = kept
				c.Labels = labels
				toUpdate = append(toUpdate, &c)
				updated[s.Name] = true
			}
		case lc:
			c := copySlice(s)
			c.Labels = labels
			toUpdate = append(toUpdate, c)
			updated[s.Name] = true
		default:
			unchanged = append(unchanged, s)
		}
	}
	added = len(ds.endpoints)
	pending := make([]endpointHash, 0, len(ds.endpoints))
	for h := range ds.endpoints {
		pending = append(pending, h)
	}
	slices.SortFunc(pending, endpointHash.compare)
	next := 0
	pop := func() Endpoint { e := ds.endpoints[pending[next]]; next++; return *e }
	remaining := func() int { return len(pending) - next }
	// Step 2.
	if remaining() > 0 && len(toUpdate) > 0 {
		order := slices.Clone(toUpdate)
		slices.SortStableFunc(order, fillOrder)
		for _, s := range order {
			for remaining() > 0 && len(s.Endpoints) < max {
				s.Endpoints = append(s.Endpoints, pop())
			}
		}
	}
	// Step 3.
	for remaining() > 0 {
		var target *EndpointSlice
		if remaining() < max && len(unchanged) > 0 {
			if i := bestFit(unchanged, remaining(), max); i >= 0 {
				target = copySlice(unchanged[i])
				unchanged = slices.Delete(unchanged, i, i+1)
			}
		}
		if target == nil {
			target = newEndpointSlice(svc, ds.ports, at, labels)
		}
		for remaining() > 0 && len(target.Endpoints) < max {
			target.Endpoints = append(target.Endpoints, pop())
		}
		if target.Name != "" {
			toUpdate = append(toUpdate, target)
		} else {
			toCreate = append(toCreate, target)
		}
	}
	slices.SortStableFunc(toUpdate, byName)
	return toCreate, toUpdate, toDelete, added, removed
}

func byName(a, b *EndpointSlice) int { return strings.Compare(a.Name, b.Name) }

// fillOrder sorts fullest first, ties by name. upstream: utils.go endpointSliceEndpointLen
func fillOrder(a, b *EndpointSlice) int {
	if len(a.Endpoints) != len(b.Endpoints) {
		return len(b.Endpoints) - len(a.Endpoints)
	}
	return strings.Compare(a.Name, b.Name)
}

// bestFit returns the index of the candidate (name order) that ends closest to full after
// taking all n endpoints, the first on ties, or -1. upstream: utils.go getSliceToFill
func bestFit(candidates []*EndpointSlice, n, max int) int {
	closest, best := max, -1
	for i, s := range candidates {
		gap := max - (n + len(s.Endpoints))
		if gap >= 0 && gap < closest {
			closest, best = gap, i
			if gap == 0 {
				break
			}
		}
	}
	return best
}

// finalize recycles (create, delete) pairs into updates, drops creates when the Service is
// being deleted, and stamps the trigger-time annotation on everything written.
// upstream: reconciler.go finalize
func finalize(svc *Service, plan *SlicePlan, trigger Timestamp) {
	for i := 0; i < len(plan.ToDelete) && len(plan.ToCreate) > 0; {
		d := plan.ToDelete[i]
		c := plan.ToCreate[len(plan.ToCreate)-1]
		if d.AddressType == c.AddressType && ownedBy(d, svc) {
			c.Name = d.Name
			plan.ToCreate = plan.ToCreate[:len(plan.ToCreate)-1]
			plan.ToUpdate = append(plan.ToUpdate, c)
			plan.ToDelete = slices.Delete(plan.ToDelete, i, i+1)
		} else {
			i++
		}
	}
	if svc.Deleting {
		plan.SkippedCreates = len(plan.ToCreate)
		plan.ToCreate = nil
	}
	// Most slices carry no annotation but the trigger time: they share one list (annotation
	// lists are never written through, as withTriggerTime's copying assumes).
	var onlyTrigger StringMap
	for _, list := range [2][]*EndpointSlice{plan.ToCreate, plan.ToUpdate} {
		for _, s := range list {
			if !onlyTriggerTime(s.Annotations) {
				s.Annotations = withTriggerTime(s.Annotations, trigger)
				continue
			}
			if onlyTrigger == nil {
				onlyTrigger = triggerOnly(trigger)
			}
			s.Annotations = onlyTrigger
		}
	}
}

// onlyTriggerTime reports whether annotations has no key but the trigger time's.
func onlyTriggerTime(annotations StringMap) bool {
	return len(annotations) == 0 || len(annotations) == 1 && annotations[0].Key == AnnotationTriggerTime
}
