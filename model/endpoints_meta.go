package model

// ObjectMeta returns the metadata of the Endpoints object the last Sync decided to write
// (name, namespace, labels, and the trigger-time and over-capacity annotations), without
// materialising its addresses. The engine adds what the API server assigns. The Labels map
// is shared with the builder (one per Service version): do not modify it.
func (s *ServiceEndpoints) ObjectMeta() ObjectMeta { return s.ObjectMetaInto(nil) }

// ObjectMetaInto is ObjectMeta with the annotations written into annotations, cleared first
// (a new map when it is nil), for a caller that reuses one map across syncs. Annotations is
// nil when there are none, as with ObjectMeta, and annotations is then left as it was.
func (s *ServiceEndpoints) ObjectMetaInto(annotations map[string]string) ObjectMeta {
	meta := ObjectMeta{Name: s.svc.Name, Namespace: s.svc.Namespace, Labels: s.endpointsLabels()}
	if !s.lastTrigger.IsZero() || s.last.Truncated {
		if annotations == nil {
			annotations = map[string]string{}
		}
		clear(annotations)
		meta.Annotations = annotations
	}
	if !s.lastTrigger.IsZero() {
		meta.Annotations[AnnotationTriggerTime] = triggerTimeAnnotation(s.lastTrigger)
	}
	if s.last.Truncated {
		meta.Annotations[AnnotationOverCapacity] = truncatedAnnotationValue
	}
	return meta
}

// Unchanged reports whether the object the last Sync decided to write encodes exactly as the
// stored one: same addresses, labels, annotations. The API server then drops the PUT as a
// no-op (UPSTREAM.md §7.1); this happens for over-capacity Endpoints, which never pass the
// controller's own skip test (§3).
func (s *ServiceEndpoints) Unchanged() bool {
	return s.stored && s.mismatch == 0 && s.lastTrigger == s.storedTrigger &&
		s.last.Truncated == s.storedOverCapacity &&
		stringMapsEqual(s.storedLabels, s.endpointsLabels())
}
