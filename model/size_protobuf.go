package model

// Protobuf sizes, field by field, as the gogo-generated Size methods of k8s.io/api and
// k8s.io/apimachinery v0.37.2 compute them. The rules that matter:
//   - non-pointer string fields are always written, even when empty (tag + 0-length byte);
//   - pointer fields (*string, *bool, *int32, *ObjectReference, ...) are written only when
//     non-nil; a *bool costs 2 bytes;
//   - int32/int64 scalars are always written as varints; negative values take 10 bytes;
//   - a repeated field writes one tagged, length-prefixed element per item, so nil and empty
//     lists are the same size (nothing);
//   - a map writes one entry message {1: key, 2: value} per key; key order does not change
//     the size;
//   - field numbers are below 16 (one-byte tags), except ObjectMeta.managedFields (17: two).
//
// upstream: k8s.io/api discovery/v1/generated.pb.go and core/v1/generated.pb.go, apimachinery
// apis/meta/v1/generated.pb.go, Size methods of the types named below.

// Group/version/kind strings the API server writes into every object it serves.
const (
	endpointSliceAPIVersion = "discovery.k8s.io/v1"
	endpointSliceKind       = "EndpointSlice"
	endpointsAPIVersion     = "v1"
	endpointsKind           = "Endpoints"
)

// pbEnvelope is the size of an object of message size msg as the protobuf serializer writes it:
// the "k8s\x00" magic, then runtime.Unknown{typeMeta{apiVersion, kind}, raw: msg,
// contentEncoding: "", contentType: ""}. The object's own message never contains its
// TypeMeta; the serializer takes apiVersion and kind from obj.GetObjectKind(), which the API
// server's versioning codec has set.
// upstream: runtime/serializer/protobuf/protobuf.go Serializer.doEncode,
// runtime/types_proto.go Unknown.NestedMarshalTo, runtime/generated.pb.go Unknown.Size.
func pbEnvelope(msg int64, apiVersion, kind string) int64 {
	typeMeta := pbString(apiVersion) + pbString(kind)
	return protobufMagicBytes + pbBytes(typeMeta) + pbBytes(msg) + pbString("") + pbString("")
}

// pbObjectMeta is the size of the metav1.ObjectMeta message (selfLink always empty; no
// deletionTimestamp, deletionGracePeriodSeconds or finalizers).
// upstream: apis/meta/v1/generated.pb.go ObjectMeta.Size.
func pbObjectMeta(m *ObjectMeta) int64 {
	return pbObjectMetaBase(m) + pbManagedFields(m)
}

// pbObjectMetaBase is pbObjectMeta without the managedFields.
func pbObjectMetaBase(m *ObjectMeta) int64 {
	return pbObjectMetaScalars(m) + pbObjectMetaMaps(m)
}

// pbObjectMetaMaps is the part of pbObjectMetaBase that pbObjectMetaScalars is not: labels,
// annotations and owner references.
func pbObjectMetaMaps(m *ObjectMeta) int64 {
	n := pbStringMap(m.Labels) + pbStringMap(m.Annotations)
	for i := range m.OwnerReferences {
		n += pbBytes(pbOwnerReference(&m.OwnerReferences[i]))
	}
	return n
}

// pbObjectMetaScalars is the part of pbObjectMetaBase that is not labels, annotations or
// owner references: the names, uid, resourceVersion, generation and creationTimestamp,
// which a request's metadata may have otherwise (CreateRequestMeta, UpdateRequestMeta).
func pbObjectMetaScalars(m *ObjectMeta) int64 {
	n := pbString(m.Name) + pbString(m.GenerateName) + pbString(m.Namespace) +
		pbString("") + // selfLink
		pbString(m.UID) + pbString(m.ResourceVersion) +
		1 + varintLen(uint64(m.Generation))
	var created int64
	if !m.CreationTimestamp.IsZero() {
		created = pbTimestampBytes(m.CreationTimestamp)
	}
	return n + pbBytes(created) // always written, empty when unset (Time.Size is 0 for the zero time)
}

// pbManagedFields is the managedFields' part of the ObjectMeta message.
func pbManagedFields(m *ObjectMeta) int64 {
	var n int64
	for i := range m.ManagedFields {
		n += 1 + pbBytes(pbManagedFieldsEntry(&m.ManagedFields[i])) // field 17: two-byte tag
	}
	return n
}

// pbStringMap is the size of a map<string,string> field.
func pbStringMap(m StringMap) int64 {
	var n int64
	for _, l := range m {
		n += pbBytes(pbString(l.Key) + pbString(l.Value))
	}
	return n
}

// pbOwnerReference: kind, name, uid, apiVersion always; controller, blockOwnerDeletion if set.
// upstream: apis/meta/v1/generated.pb.go OwnerReference.Size.
func pbOwnerReference(r *OwnerReference) int64 {
	n := pbString(r.Kind) + pbString(r.Name) + pbString(r.UID) + pbString(r.APIVersion)
	if r.Controller != nil {
		n += 2
	}
	if r.BlockOwnerDeletion != nil {
		n += 2
	}
	return n
}

// pbManagedFieldsEntry: manager, operation, apiVersion, fieldsType and subresource always;
// time and fieldsV1 when set (a zero Time or empty FieldsV1 means the pointer is nil).
// upstream: apis/meta/v1/generated.pb.go ManagedFieldsEntry.Size, fieldsv1.go FieldsV1.Size.
func pbManagedFieldsEntry(e *ManagedFieldsEntry) int64 {
	n := pbString(e.Manager) + pbString(e.Operation) + pbString(e.APIVersion) +
		pbString(e.FieldsType) + pbString("") // subresource
	if !e.Time.IsZero() {
		n += pbBytes(pbTimestampBytes(e.Time))
	}
	if e.FieldsV1 != "" {
		n += pbBytes(pbString(e.FieldsV1))
	}
	return n
}

// pbObjectReference: all seven string fields are always written; apiVersion,
// resourceVersion and fieldPath are empty here (2 bytes each).
// upstream: core/v1/generated.pb.go ObjectReference.Size.
func pbObjectReference(r *ObjectReference) int64 {
	return pbString(r.Kind) + pbString(r.Namespace) + pbString(r.Name) + pbString(r.UID) + 3*2
}

// pbOptionalString is a *string field: nothing when nil.
func pbOptionalString(s *string) int64 {
	if s == nil {
		return 0
	}
	return pbString(*s)
}

// pbEndpoint is the size of one discovery/v1 Endpoint message.
// upstream: discovery/v1/generated.pb.go Endpoint.Size, EndpointConditions.Size,
// EndpointHints.Size.
func pbEndpoint(ep *Endpoint) int64 {
	base := int64(ep.pbBase)
	if base <= 0 {
		base = pbEndpointBase(ep)
	}
	return base + pbEndpointHints(ep)
}

// pbEndpointBase is pbEndpoint without the hints field.
func pbEndpointBase(ep *Endpoint) int64 {
	var n int64
	for _, a := range ep.Addresses {
		n += pbString(a)
	}
	var cond int64
	for _, c := range [...]Condition{ep.Conditions.Ready, ep.Conditions.Serving, ep.Conditions.Terminating} {
		if c.IsSet() {
			cond += 2
		}
	}
	n += pbBytes(cond) // conditions is always written
	n += pbOptionalString(ep.Hostname)
	if ep.TargetRef != nil {
		n += pbBytes(pbObjectReference(ep.TargetRef))
	}
	n += pbOptionalString(ep.NodeName) + pbOptionalString(ep.Zone)
	return n
}

// pbEndpointHints is the size of an endpoint's hints field (0 without hints).
func pbEndpointHints(ep *Endpoint) int64 {
	if ep.Hints == nil {
		return 0
	}
	if n := ep.Hints.pbSize; n > 0 {
		return int64(n)
	}
	return pbHintsField(ep.Hints)
}

// pbHintsField is the size of a hints field holding h.
func pbHintsField(h *EndpointHints) int64 {
	var n int64
	for _, z := range h.ForZones {
		n += pbBytes(pbString(z))
	}
	for _, nd := range h.ForNodes {
		n += pbBytes(pbString(nd))
	}
	return pbBytes(n)
}

// pbEndpointPort: every field is a pointer, written only when set.
// upstream: discovery/v1/generated.pb.go EndpointPort.Size.
func pbEndpointPort(p *EndpointPort) int64 {
	n := pbOptionalString(p.Name) + pbOptionalString(p.AppProtocol)
	if p.Protocol != nil {
		n += pbString(string(*p.Protocol))
	}
	if p.Port != nil {
		n += 1 + int32VarintLen(*p.Port)
	}
	return n
}

// pbSliceMessage is the EndpointSlice message without its envelope, from the rest of the
// object and the precomputed endpoint list bytes (Σ tagged endpoint fields).
// upstream: discovery/v1/generated.pb.go EndpointSlice.Size.
func pbSliceMessage(s *EndpointSlice, endpointBytes int64) int64 {
	return pbBytes(pbObjectMeta(&s.ObjectMeta)) + pbSliceRest(s, endpointBytes)
}

// pbSliceRest is pbSliceMessage without the metadata.
func pbSliceRest(s *EndpointSlice, endpointBytes int64) int64 {
	n := endpointBytes + pbString(string(s.AddressType))
	for i := range s.Ports {
		n += pbBytes(pbEndpointPort(&s.Ports[i]))
	}
	return n
}

// pbEndpointAddress is the size of one core/v1 EndpointAddress message: ip and hostname
// always, targetRef and nodeName when set.
// upstream: core/v1/generated.pb.go EndpointAddress.Size.
func pbEndpointAddress(a *EndpointAddress) int64 {
	n := pbString(a.IP) + pbString(a.Hostname) + pbOptionalString(a.NodeName)
	if a.TargetRef != nil {
		n += pbBytes(pbObjectReference(a.TargetRef))
	}
	return n
}

// pbEndpointsPort: name, port and protocol always; appProtocol when set.
// upstream: core/v1/generated.pb.go EndpointPort.Size.
func pbEndpointsPort(p *EndpointsPort) int64 {
	return pbString(p.Name) + 1 + int32VarintLen(p.Port) + pbString(string(p.Protocol)) +
		pbOptionalString(p.AppProtocol)
}

// pbSubset is one core/v1 EndpointSubset message from its summary.
// upstream: core/v1/generated.pb.go EndpointSubset.Size.
func pbSubset(s *SubsetSize) int64 {
	n := s.AddressBytes[Protobuf] + s.NotReadyAddressBytes[Protobuf]
	for i := range s.Ports {
		n += pbBytes(pbEndpointsPort(&s.Ports[i]))
	}
	return n
}

// pbEndpointsMessage is the Endpoints message without its envelope.
// upstream: core/v1/generated.pb.go Endpoints.Size.
func pbEndpointsMessage(meta *ObjectMeta, subsets []SubsetSize) int64 {
	return pbBytes(pbObjectMeta(meta)) + pbSubsets(subsets)
}

// pbSubsets is pbEndpointsMessage without the metadata.
func pbSubsets(subsets []SubsetSize) int64 {
	var n int64
	for i := range subsets {
		n += pbBytes(pbSubset(&subsets[i]))
	}
	return n
}

// pbWatchEvent is a protobuf watch event carrying an object of objectBytes (envelope
// included): the 4-byte length frame, then metav1.WatchEvent{type, object: RawExtension{raw}}.
// upstream: apimachinery apis/meta/v1/generated.pb.go WatchEvent.Size,
// runtime/generated.pb.go RawExtension.Size; client-go rest/watch/encoder.go Encoder.Encode.
func pbWatchEvent(objectBytes int64, t EventType) int64 {
	return protobufFrameBytes + pbString(string(t)) + pbBytes(pbBytes(objectBytes))
}
