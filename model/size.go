package model

// Exact wire sizes of EndpointSlice and Endpoints objects and of the watch events that carry
// them, computed arithmetically: nothing is serialized, and an object's size can be kept up
// to date in O(1) per changed endpoint or address (SliceSizer, SubsetSize).
//
// What the figures mean (Reference: UPSTREAM.md §7.2, §7.3):
//
//   - Protobuf object size: the bytes the API server's protobuf serializer writes, which are
//     also the bytes stored in etcd (without encryption at rest) and the object carried
//     inside a protobuf watch event: the "k8s\x00" magic, then a runtime.Unknown envelope
//     {typeMeta: {apiVersion, kind}, raw: the object's message, contentEncoding: "",
//     contentType: ""}. apiVersion/kind are "discovery.k8s.io/v1"/"EndpointSlice" and
//     "v1"/"Endpoints", as the API server's versioning codec sets them.
//   - JSON object size: json.Marshal of the object with its TypeMeta set, compact, without a
//     trailing newline. The JSON serializer's Encode (a GET response body) writes one more
//     byte, "\n"; inside a watch event the object appears without it.
//   - Watch event size: the bytes on the watch stream per event. Protobuf: a 4-byte length
//     frame + metav1.WatchEvent{type, object: RawExtension{raw: the protobuf object}}. JSON:
//     the line {"type":"ADDED","object":{…}} plus "\n". Not included: HTTP/2 and TLS framing.
//
// The sizes describe the object exactly as given, including metadata and managedFields. The
// API server stores and serves managedFields, so watchers receive them and etcd stores them.
// The controllers' request bodies do not carry them: a create sends a freshly built object,
// and an update sends a copy of kube-controller-manager's informer cache, from which
// managedFields are trimmed (this is kube-controller-manager code, k8s.io/kubernetes, not in
// the module cache; an empty managedFields in an update keeps the stored entries). So a
// request body is the size of the same object with ManagedFields nil.
//
// Nil versus empty matters only in JSON, and only where upstream has no omitempty: an
// EndpointSlice's endpoints and ports, an Endpoint's addresses ("null" when nil, "[]" when
// empty). Objects a watcher receives have been through protobuf storage, where an empty list
// decodes as nil, so the served form of an empty list is nil ("null").
//
// Modelling conventions for the fields the model types leave out or flatten: selfLink,
// finalizers, deletionTimestamp, ObjectReference.apiVersion/resourceVersion/fieldPath and
// ManagedFieldsEntry.subresource are empty; a zero Timestamp is an unset time (creation
// timestamp omitted in JSON, empty in protobuf; a managedFields time absent); an empty
// FieldsV1 means no fieldsV1. FieldsV1 must be valid JSON (compact, as the API server stores it).

// EndpointSliceSize is the exact size of EndpointSlice s in enc, walking every endpoint. Use
// SliceSizer to keep it up to date incrementally.
func EndpointSliceSize(s *EndpointSlice, enc Encoding) int64 {
	var sum int64
	for i := range s.Endpoints {
		sum += EndpointSize(&s.Endpoints[i], enc)
	}
	return EndpointSliceSizeFrom(s, len(s.Endpoints), sum, enc)
}

// EndpointSizeKnown is EndpointSize(ep, Protobuf) when ep carries its size and has no hints
// or shared ones, as the reconciler's endpoints do (ok false otherwise): small enough to
// inline in a walk of every endpoint of every slice written.
func EndpointSizeKnown(ep *Endpoint) (size int64, ok bool) {
	h := ep.Hints
	if ep.pbBase <= 0 || h != nil && h.pbSize <= 0 {
		return 0, false
	}
	n := int64(ep.pbBase)
	if h != nil {
		n += int64(h.pbSize) // hints shared (sharedHints)
	}
	return pbBytes(n), true
}

// EndpointSize is one endpoint's contribution to its slice's size in enc: in protobuf the
// tagged, length-prefixed Endpoint message; in JSON the endpoint object plus one separating
// comma (EndpointSliceSizeFrom accounts for the brackets).
func EndpointSize(ep *Endpoint, enc Encoding) int64 {
	if enc == JSON {
		return jsonEndpoint(ep) + 1
	}
	return pbBytes(pbEndpoint(ep))
}

// EndpointSliceSizeFrom is the exact size of s in enc given the number of endpoints and the
// sum of their EndpointSize contributions; s.Endpoints itself is ignored, except that with
// zero endpoints a non-nil s.Endpoints is written as "[]" rather than "null" in JSON.
// It costs O(metadata + ports), independent of the number of endpoints.
func EndpointSliceSizeFrom(s *EndpointSlice, endpoints int, endpointBytes int64, enc Encoding) int64 {
	if enc == JSON {
		return jsonSliceObject(s, jsonListBytes(endpoints, endpointBytes, s.Endpoints == nil))
	}
	return pbEnvelope(pbSliceMessage(s, endpointBytes), endpointSliceAPIVersion, endpointSliceKind)
}

// EndpointSliceProtobufSizesFrom is EndpointSliceSizeFrom in protobuf of s as stored
// (object) and of the body of the write that stored it (request): s with the metadata req
// and no managedFields, sizing the rest once for both. req differs from s's metadata in its
// names, uid, resourceVersion, generation and creationTimestamp only (CreateRequestMeta,
// UpdateRequestMeta make it so).
func EndpointSliceProtobufSizesFrom(s *EndpointSlice, req *ObjectMeta, endpointBytes int64) (object, request int64) {
	maps, rest := pbObjectMetaMaps(&s.ObjectMeta), pbSliceRest(s, endpointBytes)
	object = pbEnvelope(pbBytes(pbObjectMetaScalars(&s.ObjectMeta)+maps+pbManagedFields(&s.ObjectMeta))+rest, endpointSliceAPIVersion, endpointSliceKind)
	request = pbEnvelope(pbBytes(pbObjectMetaScalars(req)+maps)+rest, endpointSliceAPIVersion, endpointSliceKind)
	return object, request
}

// EndpointsProtobufSizesFrom is EndpointsSizeFrom in protobuf of an Endpoints object with
// metadata meta (object) and of the body of the write that stored it (request): the metadata
// req, which differs from meta as EndpointSliceProtobufSizesFrom's, and no managedFields,
// sizing the rest once for both.
func EndpointsProtobufSizesFrom(meta, req *ObjectMeta, subsets []SubsetSize) (object, request int64) {
	maps, rest := pbObjectMetaMaps(meta), pbSubsets(subsets)
	object = pbEnvelope(pbBytes(pbObjectMetaScalars(meta)+maps+pbManagedFields(meta))+rest, endpointsAPIVersion, endpointsKind)
	request = pbEnvelope(pbBytes(pbObjectMetaScalars(req)+maps)+rest, endpointsAPIVersion, endpointsKind)
	return object, request
}

// CreateRequestMeta returns the metadata of the body a controller sends to create an object
// stored with metadata m: what the controller set (a name or a generateName, labels,
// annotations, owner references, and the namespace when withNamespace: the Endpoints
// controller leaves it to the URL) and none of what the API server assigns (a generated
// name, uid, resourceVersion, creationTimestamp, generation).
// upstream: k8s.io/endpointslice utils.go newEndpointSlice; pkg/controller/endpoint
// endpoints_controller.go syncService (a new Endpoints object: name and labels).
func CreateRequestMeta(m ObjectMeta, withNamespace bool) ObjectMeta {
	if m.GenerateName != "" {
		m.Name = ""
	}
	if !withNamespace {
		m.Namespace = ""
	}
	m.UID, m.ResourceVersion, m.CreationTimestamp, m.Generation = "", "", 0, 0
	m.ManagedFields = nil
	return m
}

// UpdateRequestMeta returns the metadata of the body a controller sends to update an object
// stored with metadata m: its informer's copy, changed, so the resourceVersion and
// generation it was stored with before (oldResourceVersion, oldGeneration).
func UpdateRequestMeta(m ObjectMeta, oldResourceVersion string, oldGeneration int64) ObjectMeta {
	m.ResourceVersion, m.Generation = oldResourceVersion, oldGeneration
	m.ManagedFields = nil
	return m
}

// EndpointsSize is the exact size of the legacy Endpoints object e in enc, walking every
// address. Use SubsetSize and EndpointsSizeFrom to keep it up to date incrementally.
func EndpointsSize(e *Endpoints, enc Encoding) int64 {
	subsets := make([]SubsetSize, len(e.Subsets))
	for i := range e.Subsets {
		subsets[i] = NewSubsetSize(&e.Subsets[i])
	}
	return EndpointsSizeFrom(&e.ObjectMeta, subsets, enc)
}

// EndpointAddressSize is one address's contribution to its subset list's size in enc: in
// protobuf the tagged, length-prefixed EndpointAddress message; in JSON the address object
// plus one separating comma. It is the same in the addresses and notReadyAddresses lists.
func EndpointAddressSize(a *EndpointAddress, enc Encoding) int64 {
	if enc == JSON {
		return jsonEndpointAddress(a) + 1
	}
	return pbBytes(pbEndpointAddress(a))
}

// EndpointsSizeFrom is the exact size in enc of an Endpoints object with metadata meta and
// the subsets summarised by subsets. It costs O(metadata + subsets + ports), independent of
// the number of addresses.
func EndpointsSizeFrom(meta *ObjectMeta, subsets []SubsetSize, enc Encoding) int64 {
	if enc == JSON {
		return jsonEndpointsObject(meta, subsets)
	}
	return pbEnvelope(pbEndpointsMessage(meta, subsets), endpointsAPIVersion, endpointsKind)
}

// WatchEventSize is the size on the watch stream of one event of type t carrying an object of
// objectBytes (an EndpointSliceSize or EndpointsSize figure in the same encoding).
func WatchEventSize(objectBytes int64, t EventType, enc Encoding) int64 {
	if enc == JSON {
		return jsonWatchEvent(objectBytes, t)
	}
	return pbWatchEvent(objectBytes, t)
}

// NewSubsetSize summarises subset s: its ports, and the count and summed EndpointAddressSize
// of each address list, in every encoding.
func NewSubsetSize(s *EndpointSubset) SubsetSize {
	z := SubsetSize{Ports: s.Ports}
	for i := range s.Addresses {
		z.AddAddress(&s.Addresses[i], false)
	}
	for i := range s.NotReadyAddresses {
		z.AddAddress(&s.NotReadyAddresses[i], true)
	}
	return z
}

// AddAddress accounts for address a added to the subset's notReadyAddresses list if
// notReady, else to its addresses list.
func (z *SubsetSize) AddAddress(a *EndpointAddress, notReady bool) {
	count, bytes := &z.Addresses, &z.AddressBytes
	if notReady {
		count, bytes = &z.NotReadyAddresses, &z.NotReadyAddressBytes
	}
	*count++
	for enc := range numEncodings {
		bytes[enc] += EndpointAddressSize(a, enc)
	}
}

// RemoveAddress accounts for address a (as it was when added) removed from the subset's
// notReadyAddresses list if notReady, else from its addresses list. It panics if the list's
// count would go negative.
func (z *SubsetSize) RemoveAddress(a *EndpointAddress, notReady bool) {
	count, bytes := &z.Addresses, &z.AddressBytes
	if notReady {
		count, bytes = &z.NotReadyAddresses, &z.NotReadyAddressBytes
	}
	if *count == 0 {
		panic("model: SubsetSize.RemoveAddress on an empty address list")
	}
	*count--
	for enc := range numEncodings {
		bytes[enc] -= EndpointAddressSize(a, enc)
	}
}

// SliceSizer keeps the endpoint part of an EndpointSlice's size up to date as endpoints are
// added, removed and replaced, in every encoding, so that the slice's size costs
// O(metadata + ports) instead of O(endpoints). The zero value is an empty slice.
//
// Each call costs O(size of the endpoint(s) passed); the caller passes the endpoint as it was
// when it was added (Remove, and Replace's old) — the sizer keeps no copies.
type SliceSizer struct {
	endpoints int
	bytes     ByEncoding
}

// NewSliceSizer returns a sizer holding the given endpoints.
func NewSliceSizer(endpoints []Endpoint) SliceSizer {
	var z SliceSizer
	for i := range endpoints {
		z.Add(&endpoints[i])
	}
	return z
}

// Add accounts for endpoint ep added to the slice.
func (z *SliceSizer) Add(ep *Endpoint) {
	z.endpoints++
	for enc := range numEncodings {
		z.bytes[enc] += EndpointSize(ep, enc)
	}
}

// Remove accounts for endpoint ep removed from the slice. It panics if the slice is empty.
func (z *SliceSizer) Remove(ep *Endpoint) {
	if z.endpoints == 0 {
		panic("model: SliceSizer.Remove on an empty slice")
	}
	z.endpoints--
	for enc := range numEncodings {
		z.bytes[enc] -= EndpointSize(ep, enc)
	}
}

// Replace accounts for endpoint old replaced in place by updated.
func (z *SliceSizer) Replace(old, updated *Endpoint) {
	for enc := range numEncodings {
		z.bytes[enc] += EndpointSize(updated, enc) - EndpointSize(old, enc)
	}
}

// Len is the number of endpoints accounted for.
func (z *SliceSizer) Len() int { return z.endpoints }

// EndpointBytes is the sum of the endpoints' EndpointSize contributions per encoding.
func (z *SliceSizer) EndpointBytes() ByEncoding { return z.bytes }

// Size is the exact size in enc of slice s holding the accounted endpoints: s supplies the
// metadata, ports and address type; s.Endpoints is ignored (see EndpointSliceSizeFrom).
func (z *SliceSizer) Size(s *EndpointSlice, enc Encoding) int64 {
	return EndpointSliceSizeFrom(s, z.endpoints, z.bytes[enc], enc)
}
