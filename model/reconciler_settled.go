package model

// A ServiceSlices, as a ServiceEndpoints (see endpoints_settled.go), holds indexes that only
// make the next change cheap: a caller may drop one that has nothing to do (Settled) and make
// another when a change comes, from the same Service, stored slices and pods
// (NewServiceSlices, SetStoredSlices, SetPodRef for each pod in the order PodOf gives). Its
// plans are then the same: both are ReconcileFull's for the same inputs (the twin tests).

// Settled reports whether a Sync now would find nothing to do: no pod changed since the
// last one, every endpoint identity is stored as desired (the last Sync's writes were all
// applied), and no stored slice forces the full path. A Service with the topology-mode
// hints annotation or a traffic distribution is never settled (its hints depend on more
// than its own pods), nor one that holds what few Services need (slicesRare).
func (s *ServiceSlices) Settled() bool {
	if s.full || s.rare != nil || s.mode != hintsStrip || s.zoned || len(s.dirtyPods) > 0 || s.anomalies > 0 || s.dupHashes > 0 {
		return false
	}
	for _, f := range s.families {
		if f != nil && f.dirty.len() > 0 {
			return false
		}
	}
	return true
}

// Service returns the Service s was last given (SetService, or NewServiceSlices).
func (s *ServiceSlices) Service() *Service { return s.svc }

// PodOf returns the version s keeps of the pod ref names and its place in s's pod list, or
// nil when ref names none of s's pods (an empty ref, another reconciler's, a deleted pod's).
func (s *ServiceSlices) PodOf(ref *PodRef) (*Pod, int) {
	if pe := ref.pe; pe != nil && !pe.is(flagDeleted) && int(pe.at) < len(s.pods) && s.pods[pe.at] == pe {
		return pe.pod, int(pe.at)
	}
	return nil, -1
}
