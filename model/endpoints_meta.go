package model

// ObjectMeta returns the metadata of the Endpoints object the last Sync decided to write
// (name, namespace, labels, and the trigger-time and over-capacity annotations), without
// materialising its addresses. The engine adds what the API server assigns. The Labels list
// is shared with the builder (one per Service version): do not modify it.
func (s *ServiceEndpoints) ObjectMeta() ObjectMeta { return s.ObjectMetaInto(nil) }

// ObjectMetaInto is ObjectMeta with the annotations written into annotations' array,
// emptied first, for a caller that reuses one across syncs (and no longer needs what it
// held). Annotations is nil when there are none, as with ObjectMeta.
func (s *ServiceEndpoints) ObjectMetaInto(annotations StringMap) ObjectMeta {
	meta := ObjectMeta{Name: s.svc.Name, Namespace: s.svc.Namespace, Labels: s.endpointsLabels()}
	annotations = annotations[:0]
	// In key order: "…/last-change-trigger-time" < "…/over-capacity".
	if !s.lastTrigger.IsZero() {
		annotations = append(annotations, Label{Key: AnnotationTriggerTime, Value: triggerTimeAnnotation(s.lastTrigger)})
	}
	if s.last.truncated {
		annotations = append(annotations, Label{Key: AnnotationOverCapacity, Value: truncatedAnnotationValue})
	}
	if len(annotations) > 0 {
		meta.Annotations = annotations
	}
	return meta
}

// Unchanged reports whether the object the last Sync decided to write encodes exactly as the
// stored one: same addresses, labels, annotations. The API server then drops the PUT as a
// no-op (UPSTREAM.md §7.1); this happens for over-capacity Endpoints, which never pass the
// controller's own skip test (§3).
func (s *ServiceEndpoints) Unchanged() bool {
	return s.stored && s.mismatch == 0 && s.lastTrigger == s.storedTrigger &&
		s.last.truncated == s.storedOverCapacity &&
		s.storedLabels.Equal(s.endpointsLabels())
}
