package model

// JSON sizes, as Go's encoding/json writes the k8s.io/api types (the API server's JSON
// serializer is json.NewEncoder(w).Encode(obj)). The rules that matter:
//   - which fields appear follows the json tags: omitempty strings, maps and slices vanish
//     when empty, pointers when nil; a non-omitempty slice is "null" when nil and "[]" when
//     empty (EndpointSlice endpoints and ports, Endpoint addresses);
//   - struct-valued omitempty fields are always written (Endpoint conditions as "{}"),
//     except ObjectMeta.creationTimestamp, which is also omitzero and vanishes when unset;
//   - strings are escaped as in jsonString; map keys too;
//   - field and key order never changes a length, so none is modelled.
//
// upstream: k8s.io/api discovery/v1/types.go, core/v1/types.go, apimachinery
// apis/meta/v1/types.go (json tags); runtime/serializer/json/json.go Serializer.doEncode.

// jsonObjectMeta is the length of the "metadata" object.
// upstream: apis/meta/v1/types.go ObjectMeta.
func jsonObjectMeta(m *ObjectMeta) int64 {
	var o jsonObject
	addString := func(key, v string) {
		if v != "" {
			o.add(key, jsonString(v))
		}
	}
	addString("name", m.Name)
	addString("generateName", m.GenerateName)
	addString("namespace", m.Namespace)
	addString("uid", m.UID)
	addString("resourceVersion", m.ResourceVersion)
	if m.Generation != 0 {
		o.add("generation", jsonInt(m.Generation))
	}
	if !m.CreationTimestamp.IsZero() {
		o.add("creationTimestamp", jsonTimeBytes)
	}
	if len(m.Labels) > 0 {
		o.add("labels", jsonStringMap(m.Labels))
	}
	if len(m.Annotations) > 0 {
		o.add("annotations", jsonStringMap(m.Annotations))
	}
	if len(m.OwnerReferences) > 0 {
		var sum int64
		for i := range m.OwnerReferences {
			sum += jsonOwnerReference(&m.OwnerReferences[i]) + 1
		}
		o.add("ownerReferences", jsonListBytes(len(m.OwnerReferences), sum, false))
	}
	if len(m.ManagedFields) > 0 {
		var sum int64
		for i := range m.ManagedFields {
			sum += jsonManagedFieldsEntry(&m.ManagedFields[i]) + 1
		}
		o.add("managedFields", jsonListBytes(len(m.ManagedFields), sum, false))
	}
	return o.size()
}

// jsonStringMap is the length of a map[string]string object.
func jsonStringMap(m StringMap) int64 {
	var o jsonObject
	for _, l := range m {
		o.addRaw(jsonString(l.Key) + 1 + jsonString(l.Value))
	}
	return o.size()
}

// jsonOwnerReference: apiVersion, kind, name and uid are not omitempty.
// upstream: apis/meta/v1/types.go OwnerReference.
func jsonOwnerReference(r *OwnerReference) int64 {
	var o jsonObject
	o.add("apiVersion", jsonString(r.APIVersion))
	o.add("kind", jsonString(r.Kind))
	o.add("name", jsonString(r.Name))
	o.add("uid", jsonString(r.UID))
	if r.Controller != nil {
		o.add("controller", jsonBool(*r.Controller))
	}
	if r.BlockOwnerDeletion != nil {
		o.add("blockOwnerDeletion", jsonBool(*r.BlockOwnerDeletion))
	}
	return o.size()
}

// jsonManagedFieldsEntry: every field is omitempty; fieldsV1 is its raw JSON, compacted.
// upstream: apis/meta/v1/types.go ManagedFieldsEntry, helpers.go FieldsV1.MarshalJSON.
func jsonManagedFieldsEntry(e *ManagedFieldsEntry) int64 {
	var o jsonObject
	if e.Manager != "" {
		o.add("manager", jsonString(e.Manager))
	}
	if e.Operation != "" {
		o.add("operation", jsonString(e.Operation))
	}
	if e.APIVersion != "" {
		o.add("apiVersion", jsonString(e.APIVersion))
	}
	if !e.Time.IsZero() {
		o.add("time", jsonTimeBytes)
	}
	if e.FieldsType != "" {
		o.add("fieldsType", jsonString(e.FieldsType))
	}
	if e.FieldsV1 != "" {
		o.add("fieldsV1", jsonRawCompact(e.FieldsV1))
	}
	return o.size()
}

// jsonObjectReference: every field is omitempty.
// upstream: core/v1/types.go ObjectReference.
func jsonObjectReference(r *ObjectReference) int64 {
	var o jsonObject
	for _, f := range [...]struct{ key, v string }{
		{"kind", r.Kind}, {"namespace", r.Namespace}, {"name", r.Name}, {"uid", r.UID},
	} {
		if f.v != "" {
			o.add(f.key, jsonString(f.v))
		}
	}
	return o.size()
}

// jsonOptionalString adds a *string omitempty field when set.
func (o *jsonObject) addOptionalString(key string, s *string) {
	if s != nil {
		o.add(key, jsonString(*s))
	}
}

// jsonEndpoint is the length of one discovery/v1 Endpoint object.
// upstream: discovery/v1/types.go Endpoint, EndpointConditions, EndpointHints, ForZone.
func jsonEndpoint(ep *Endpoint) int64 {
	var o jsonObject
	var addrs int64
	for _, a := range ep.Addresses {
		addrs += jsonString(a) + 1
	}
	o.add("addresses", jsonListBytes(len(ep.Addresses), addrs, ep.Addresses == nil))
	var cond jsonObject
	for _, f := range [...]struct {
		key string
		v   Condition
	}{{"ready", ep.Conditions.Ready}, {"serving", ep.Conditions.Serving}, {"terminating", ep.Conditions.Terminating}} {
		if f.v.IsSet() {
			cond.add(f.key, jsonBool(f.v == ConditionTrue))
		}
	}
	o.add("conditions", cond.size())
	o.addOptionalString("hostname", ep.Hostname)
	if ep.TargetRef != nil {
		o.add("targetRef", jsonObjectReference(ep.TargetRef))
	}
	o.addOptionalString("nodeName", ep.NodeName)
	o.addOptionalString("zone", ep.Zone)
	if ep.Hints != nil {
		var h jsonObject
		if len(ep.Hints.ForZones) > 0 {
			h.add("forZones", jsonNameList(ep.Hints.ForZones))
		}
		if len(ep.Hints.ForNodes) > 0 {
			h.add("forNodes", jsonNameList(ep.Hints.ForNodes))
		}
		o.add("hints", h.size())
	}
	return o.size()
}

// jsonNameList is a non-empty list of {"name":…} objects (ForZone, ForNode).
func jsonNameList(names []string) int64 {
	var sum int64
	for _, n := range names {
		sum += 2 + jsonKey("name") + jsonString(n) + 1
	}
	return jsonListBytes(len(names), sum, false)
}

// jsonEndpointPort: every field is a pointer, omitempty.
// upstream: discovery/v1/types.go EndpointPort.
func jsonEndpointPort(p *EndpointPort) int64 {
	var o jsonObject
	o.addOptionalString("name", p.Name)
	if p.Protocol != nil {
		o.add("protocol", jsonString(string(*p.Protocol)))
	}
	if p.Port != nil {
		o.add("port", jsonInt(int64(*p.Port)))
	}
	o.addOptionalString("appProtocol", p.AppProtocol)
	return o.size()
}

// jsonSliceObject is the EndpointSlice object from the rest of the object and its endpoint
// list's length (already including brackets, or "null").
// upstream: discovery/v1/types.go EndpointSlice (endpoints and ports are not omitempty).
func jsonSliceObject(s *EndpointSlice, endpointList int64) int64 {
	var o jsonObject
	o.add("kind", jsonString(endpointSliceKind))
	o.add("apiVersion", jsonString(endpointSliceAPIVersion))
	o.add("metadata", jsonObjectMeta(&s.ObjectMeta))
	o.add("addressType", jsonString(string(s.AddressType)))
	o.add("endpoints", endpointList)
	var ports int64
	for i := range s.Ports {
		ports += jsonEndpointPort(&s.Ports[i]) + 1
	}
	o.add("ports", jsonListBytes(len(s.Ports), ports, s.Ports == nil))
	return o.size()
}

// jsonEndpointAddress: ip always; hostname, nodeName, targetRef when set.
// upstream: core/v1/types.go EndpointAddress.
func jsonEndpointAddress(a *EndpointAddress) int64 {
	var o jsonObject
	o.add("ip", jsonString(a.IP))
	if a.Hostname != "" {
		o.add("hostname", jsonString(a.Hostname))
	}
	o.addOptionalString("nodeName", a.NodeName)
	if a.TargetRef != nil {
		o.add("targetRef", jsonObjectReference(a.TargetRef))
	}
	return o.size()
}

// jsonEndpointsPort: port always; name and protocol when non-empty; appProtocol when set.
// upstream: core/v1/types.go EndpointPort.
func jsonEndpointsPort(p *EndpointsPort) int64 {
	var o jsonObject
	if p.Name != "" {
		o.add("name", jsonString(p.Name))
	}
	o.add("port", jsonInt(int64(p.Port)))
	if p.Protocol != "" {
		o.add("protocol", jsonString(string(p.Protocol)))
	}
	o.addOptionalString("appProtocol", p.AppProtocol)
	return o.size()
}

// jsonSubset is one core/v1 EndpointSubset from its summary; its three lists are omitempty.
// upstream: core/v1/types.go EndpointSubset.
func jsonSubset(s *SubsetSize) int64 {
	var o jsonObject
	if s.Addresses > 0 {
		o.add("addresses", jsonListBytes(s.Addresses, s.AddressBytes[JSON], false))
	}
	if s.NotReadyAddresses > 0 {
		o.add("notReadyAddresses", jsonListBytes(s.NotReadyAddresses, s.NotReadyAddressBytes[JSON], false))
	}
	if len(s.Ports) > 0 {
		var ports int64
		for i := range s.Ports {
			ports += jsonEndpointsPort(&s.Ports[i]) + 1
		}
		o.add("ports", jsonListBytes(len(s.Ports), ports, false))
	}
	return o.size()
}

// jsonEndpointsObject is the Endpoints object; subsets is omitempty.
// upstream: core/v1/types.go Endpoints.
func jsonEndpointsObject(meta *ObjectMeta, subsets []SubsetSize) int64 {
	var o jsonObject
	o.add("kind", jsonString(endpointsKind))
	o.add("apiVersion", jsonString(endpointsAPIVersion))
	o.add("metadata", jsonObjectMeta(meta))
	if len(subsets) > 0 {
		var sum int64
		for i := range subsets {
			sum += jsonSubset(&subsets[i]) + 1
		}
		o.add("subsets", jsonListBytes(len(subsets), sum, false))
	}
	return o.size()
}

// jsonWatchEvent is one JSON watch event line: {"type":"…","object":…} and a newline. The
// object is embedded verbatim (the serializer's trailing newline is compacted away).
// upstream: client-go rest/watch/encoder.go Encoder.Encode; runtime/extension.go
// RawExtension.MarshalJSON; runtime/serializer/json/json.go (json.Encoder adds "\n").
func jsonWatchEvent(objectBytes int64, t EventType) int64 {
	var o jsonObject
	o.add("type", jsonString(string(t)))
	o.add("object", objectBytes)
	return o.size() + 1
}
