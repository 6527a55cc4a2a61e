package model

import "math"

// truncatedAnnotationValue is the over-capacity annotation's value once addresses were dropped.
// upstream: endpoints_controller.go truncated.
const truncatedAnnotationValue = "truncated"

// truncateKeepCounts decides how many addresses of the truncated list each subset keeps.
// ready and notReady are the per-subset list lengths, in subset order. It reports whether the
// object is over capacity at all, whether the ready lists are the ones truncated (then every
// not-ready address is dropped), and the kept count per subset of the truncated list.
//
// upstream: endpoints_controller.go truncateEndpoints. The share is computed in float64 exactly
// as upstream does, ceil((inSubset/total)·max), so rounding matches.
func truncateKeepCounts(ready, notReady []int) (over, truncateReady bool, keep []int) {
	totalReady, totalNotReady := 0, 0
	for i := range ready {
		totalReady += ready[i]
		totalNotReady += notReady[i]
	}
	if totalReady+totalNotReady <= EndpointsMaxCapacity {
		return false, false, nil
	}
	maxKept := EndpointsMaxCapacity - totalReady
	numTotal := totalNotReady
	if totalReady > EndpointsMaxCapacity {
		truncateReady = true
		maxKept = EndpointsMaxCapacity
		numTotal = totalReady
	}
	canBeAdded := maxKept
	keep = make([]int, len(ready))
	for i := range ready {
		inSubset := notReady[i]
		if truncateReady {
			inSubset = ready[i]
		}
		toBeAdded := int(math.Ceil((float64(inSubset) / float64(numTotal)) * float64(maxKept)))
		if toBeAdded > canBeAdded {
			toBeAdded = canBeAdded
		}
		kept := min(inSubset, toBeAdded)
		keep[i] = kept
		canBeAdded -= kept
	}
	return true, truncateReady, keep
}

// truncateEndpoints cuts ep's subsets to EndpointsMaxCapacity addresses in place and reports
// whether it did. Ready addresses are kept before not-ready ones; each subset gets its
// proportional share of the allowance, taking the first addresses of its (IP-sorted) lists.
// upstream: endpoints_controller.go truncateEndpoints, addressSubset.
func truncateEndpoints(ep *Endpoints) bool {
	ready := make([]int, len(ep.Subsets))
	notReady := make([]int, len(ep.Subsets))
	for i, s := range ep.Subsets {
		ready[i], notReady[i] = len(s.Addresses), len(s.NotReadyAddresses)
	}
	over, truncateReady, keep := truncateKeepCounts(ready, notReady)
	if !over {
		return false
	}
	for i := range ep.Subsets {
		s := &ep.Subsets[i]
		if truncateReady {
			s.Addresses = s.Addresses[:keep[i]]
			// upstream sets an empty, non-nil list; on the wire it is the same as nil.
			s.NotReadyAddresses = []EndpointAddress{}
		} else {
			s.NotReadyAddresses = s.NotReadyAddresses[:keep[i]]
		}
	}
	return true
}

// capacityAnnotationSetCorrectly reports whether the stored object is within capacity and
// carries no over-capacity annotation. An object with the annotation never passes, which is why
// an over-capacity Endpoints is PUT on every sync (UPSTREAM.md §3 "Quirk").
// upstream: endpoints_controller.go capacityAnnotationSetCorrectly.
func capacityAnnotationSetCorrectly(annotations StringMap, subsets []EndpointSubset) bool {
	n := 0
	for _, s := range subsets {
		n += len(s.Addresses) + len(s.NotReadyAddresses)
	}
	if n > EndpointsMaxCapacity {
		return false
	}
	return !annotations.Has(AnnotationOverCapacity)
}
