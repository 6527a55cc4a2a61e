package model

import (
	"slices"
	"time"
)

// AddressType is the address family of an EndpointSlice (discovery/v1 AddressType).
type AddressType string

// Address types produced by the EndpointSlice controller. FQDN is never produced.
const (
	AddressTypeIPv4 AddressType = "IPv4"
	AddressTypeIPv6 AddressType = "IPv6"
)

// IPFamily is a Service's IP family (core/v1 IPFamily).
type IPFamily string

// IP families a Service may list in spec.ipFamilies.
const (
	IPv4 IPFamily = "IPv4"
	IPv6 IPFamily = "IPv6"
)

// Protocol is a port's L4 protocol (core/v1 Protocol).
type Protocol string

// Protocols a Service port may use.
const (
	ProtocolTCP  Protocol = "TCP"
	ProtocolUDP  Protocol = "UDP"
	ProtocolSCTP Protocol = "SCTP"
)

// PodPhase is a pod's lifecycle phase (core/v1 PodPhase), in one byte: the simulator keeps
// a Pod per pod, where the phase's string was 16 bytes. String and ParsePodPhase convert.
type PodPhase uint8

// Pod phases. Succeeded and Failed pods never become endpoints.
const (
	PodPhaseUnset PodPhase = iota // no phase (""), as a pod the API server has not yet defaulted
	PodPending
	PodRunning
	PodSucceeded
	PodFailed
	// PodUnknown is "Unknown", and any phase this version does not know: the controllers
	// treat every phase but Succeeded and Failed alike.
	PodUnknown
)

var podPhaseNames = [...]string{"", "Pending", "Running", "Succeeded", "Failed", "Unknown"}

// String returns the phase as the API writes it.
func (p PodPhase) String() string {
	if int(p) < len(podPhaseNames) {
		return podPhaseNames[p]
	}
	return "Unknown"
}

// Terminal reports whether the phase is Succeeded or Failed: the pod's containers will not
// run again (upstream: pkg/api/v1/pod IsPodTerminal).
func (p PodPhase) Terminal() bool { return p == PodSucceeded || p == PodFailed }

// ParsePodPhase returns the phase named s (core/v1 spelling); an empty s is PodPhaseUnset
// and a name it does not know is PodUnknown.
func ParsePodPhase(s string) PodPhase {
	for i, name := range podPhaseNames {
		if name == s {
			return PodPhase(i)
		}
	}
	return PodUnknown
}

// Well-known label and annotation keys (upstream: k8s.io/api/discovery/v1 and core/v1 constants).
const (
	LabelServiceName = "kubernetes.io/service-name"
	LabelManagedBy   = "endpointslice.kubernetes.io/managed-by"
	// LabelEndpointsManagedBy is the label the Endpoints controller sets on every Endpoints
	// object it writes, with value EndpointsControllerName.
	// upstream: endpoints_controller.go LabelManagedBy, ControllerName.
	LabelEndpointsManagedBy  = "endpoints.kubernetes.io/managed-by"
	LabelHeadless            = "service.kubernetes.io/headless"
	LabelServiceProxyName    = "service.kubernetes.io/service-proxy-name"
	LabelSkipMirror          = "endpointslice.kubernetes.io/skip-mirror"
	LabelZone                = "topology.kubernetes.io/zone"
	LabelRegion              = "topology.kubernetes.io/region"
	AnnotationTriggerTime    = "endpoints.kubernetes.io/last-change-trigger-time"
	AnnotationOverCapacity   = "endpoints.kubernetes.io/over-capacity"
	AnnotationTopologyMode   = "service.kubernetes.io/topology-mode"
	AnnotationTopologyHints  = "service.kubernetes.io/topology-aware-hints"
	AnnotationLeaderElection = "control-plane.alpha.kubernetes.io/leader"

	// ControllerName is the managed-by value of slices written by the EndpointSlice controller.
	ControllerName = "endpointslice-controller.k8s.io"
	// MirroringControllerName is the managed-by value of slices written by the mirroring controller.
	MirroringControllerName = "endpointslicemirroring-controller.k8s.io"
	// EndpointsControllerName is the legacy Endpoints controller's managed-by value.
	EndpointsControllerName = "endpoint-controller"
)

// Traffic distribution values of spec.trafficDistribution.
const (
	TrafficDistributionPreferClose    = "PreferClose"
	TrafficDistributionPreferSameZone = "PreferSameZone"
	TrafficDistributionPreferSameNode = "PreferSameNode"
)

// Limits and defaults taken from upstream.
const (
	// DefaultMaxEndpointsPerSlice is kube-controller-manager's --max-endpoints-per-slice default.
	DefaultMaxEndpointsPerSlice = 100
	// MaxEndpointsPerSliceLimit is the largest value the flag accepts (and the API's limit).
	MaxEndpointsPerSliceLimit = 1000
	// EndpointsMaxCapacity is the legacy Endpoints controller's truncation threshold
	// (upstream: endpoints_controller.go maxCapacity).
	EndpointsMaxCapacity = 1000
	// MirroringMaxEndpointsPerSubset is --mirroring-max-endpoints-per-subset's default.
	MirroringMaxEndpointsPerSubset = 1000
)

// Timestamp is a point in (virtual or recorded) time, as Unix nanoseconds in UTC.
// The zero value is Kubernetes' zero time: "not set".
type Timestamp int64

// IsZero reports whether t is unset.
func (t Timestamp) IsZero() bool { return t == 0 }

// Time converts t to a time.Time in UTC. It reads no clock.
func (t Timestamp) Time() time.Time { return time.Unix(0, int64(t)).UTC() }

// RFC3339Nano formats t as the trigger-time annotation does (trailing zeros trimmed).
// upstream: utils.go addTriggerTimeAnnotation (triggerTime.UTC().Format(time.RFC3339Nano)).
func (t Timestamp) RFC3339Nano() string { return t.Time().Format(time.RFC3339Nano) }

// RFC3339 formats t at second precision, as metav1.Time serializes in JSON.
func (t Timestamp) RFC3339() string { return t.Time().Format(time.RFC3339) }

// IntOrString is a targetPort: a number, or the name of a container port.
type IntOrString struct {
	IsString bool
	IntVal   int32
	StrVal   string
}

// IntPort returns a numeric targetPort.
func IntPort(p int32) IntOrString { return IntOrString{IntVal: p} }

// NamedPort returns a named targetPort.
func NamedPort(name string) IntOrString { return IntOrString{IsString: true, StrVal: name} }

// ServicePort is one entry of a Service's spec.ports.
type ServicePort struct {
	Name        string
	Protocol    Protocol
	Port        int32
	TargetPort  IntOrString
	AppProtocol *string
}

// Service is the part of a core/v1 Service the controllers read.
type Service struct {
	Namespace         string
	Name              string
	UID               string
	CreationTimestamp Timestamp
	Labels            map[string]string
	Annotations       map[string]string
	// Selector is spec.selector; nil means "no selector" (Endpoints are user-managed). The
	// controllers read only whether there is one; its pairs go into a recorded trace
	// (sim.PodRecorder), where they decide which pods a replay gives the Service.
	Selector   Selector
	ClusterIP  string // "None" for headless
	IPFamilies []IPFamily
	Ports      []ServicePort
	// TrafficDistribution is spec.trafficDistribution; "" means unset.
	TrafficDistribution string
	// Deleting is true when the Service has a deletionTimestamp. (The three flags are kept
	// together: apart, padding made a Service a size class larger.)
	Deleting                 bool
	PublishNotReadyAddresses bool
	// ExternalName is true for type ExternalName, which no controller reconciles.
	ExternalName bool
	// LocalEndpointsOnly is true when a node's kube-proxy sends the Service's traffic only
	// to the endpoints on that node (no controller reads it): spec.internalTrafficPolicy
	// Local, on a Service that takes no traffic from outside the cluster (see
	// UsesLocalEndpointsOnly).
	LocalEndpointsOnly bool
	// ExternallyAccessible is true when the Service takes traffic from outside the cluster
	// (IsExternallyAccessible), for which kube-proxy writes rules the simulator does not
	// (no controller reads it; replay counts these Services).
	ExternallyAccessible bool
}

// UsesLocalEndpointsOnly reports whether kube-proxy sends the traffic of a Service of type
// serviceType, with internal traffic policy internalPolicy (spec.internalTrafficPolicy:
// "Cluster", "Local" or unset) and externalIPs external IPs, only to its node's endpoints:
// with internal policy Local, unless the Service also takes traffic from outside the
// cluster (type NodePort or LoadBalancer, or an external IP). Then kube-proxy programs the
// cluster's endpoints as well, whatever the external policy (upstream needs them to short
// circuit traffic from within the cluster). Upstream asks it per port: a node port, a load
// balancer address or an external IP; a LoadBalancer with node ports turned off counts
// once its addresses are in its status, as they are in a running cluster.
// upstream: pkg/proxy/serviceport.go UsesClusterEndpoints, ExternallyAccessible.
func UsesLocalEndpointsOnly(serviceType, internalPolicy string, externalIPs int) bool {
	return internalPolicy == "Local" && !IsExternallyAccessible(serviceType, externalIPs)
}

// IsExternallyAccessible reports whether a Service of type serviceType with externalIPs
// external IPs takes traffic from outside the cluster: type NodePort or LoadBalancer, or an
// external IP. kube-proxy then writes rules for that traffic besides the cluster IP's
// (upstream iptables/proxier.go: the KUBE-EXT chain, node-port and load-balancer rules,
// and a KUBE-SVL chain under externalTrafficPolicy Local), which the simulator does not.
// upstream: pkg/proxy/serviceport.go ExternallyAccessible.
func IsExternallyAccessible(serviceType string, externalIPs int) bool {
	return serviceType == "NodePort" || serviceType == "LoadBalancer" || externalIPs > 0
}

// Selector is a Service's spec.selector as its pairs, sorted by key, each key once: the
// simulator keeps a Service per Service, and a Go map of one label takes 336 bytes where
// one pair takes 32. Nil is no selector (the Service's Endpoints are its user's); an empty,
// non-nil Selector selects every pod, as upstream's
// labels.Set(selector).AsSelectorPreValidated() of an empty map does.
type Selector []Label

// Label is one label's key and value.
type Label struct {
	Key, Value string
}

// SelectorFromMap returns the selector m: nil when m is nil, empty and non-nil when m is
// empty.
func SelectorFromMap(m map[string]string) Selector {
	if m == nil {
		return nil
	}
	return Selector(labelsOf(m))
}

// Map returns the selector as a map: nil for no selector.
func (s Selector) Map() map[string]string {
	if s == nil {
		return nil
	}
	return labelMap(s)
}

// Get returns the value the selector requires of key, and whether it requires one.
func (s Selector) Get(key string) (string, bool) { return StringMap(s).Lookup(key) }

// Matches reports whether a pod with labels is selected: it has every label of s. No
// selector (nil) selects no pod; an empty one selects every pod.
// upstream: labels.Set(selector).AsSelectorPreValidated().Matches(labels.Set(labels)).
func (s Selector) Matches(labels map[string]string) bool {
	if s == nil {
		return false
	}
	for _, l := range s {
		if v, ok := labels[l.Key]; !ok || v != l.Value {
			return false
		}
	}
	return true
}

// Key returns "namespace/name".
func (s *Service) Key() string { return s.Namespace + "/" + s.Name }

// IsHeadless reports whether the Service has no cluster IP ("None" or "").
// upstream: utils.go isServiceIPSet (negated), endpoints_controller.go headless label.
func (s *Service) IsHeadless() bool { return s.ClusterIP == "None" || s.ClusterIP == "" }

// ContainerPort is a named port a container exposes.
type ContainerPort struct {
	Name          string
	ContainerPort int32
	Protocol      Protocol
}

// Pod is the part of a core/v1 Pod the controllers read: one version of it. A change is a
// new Pod (the controllers keep the versions they were given); the versions of one pod
// share its PodIdentity, so that an update copies only what can change.
//
// Its labels are not here: they decide which Services select the pod, which is the
// caller's to work out (the simulator knows each generated pod's Service; a replay matches
// the recorded labels, sim.TraceEvent.Labels), and no controller reads them beyond that.
// Nor is its resourceVersion: the controllers read it only to drop an update of the version
// they already have (a resync), which is the caller's to tell too (the simulator makes
// none; a replay compares the recorded versions, sim.TraceEvent.ResourceVersion). Without
// them a Pod is 64 bytes, two size classes below: the simulator copies one on every update
// of a pod.
type Pod struct {
	// PodIdentity is what no update of the pod changes; its fields are promoted (pod.Name,
	// pod.UID, pod.Hostname, ...). It must not be nil. To change one of its fields in a
	// copy of a Pod, give the copy an identity of its own first (Pod.OwnIdentity).
	*PodIdentity
	NodeName string
	// IPs is status.podIPs in order (status.podIP is IPs[0]).
	IPs []string
	// ReadyTransition is the Ready condition's lastTransitionTime (zero: no condition).
	ReadyTransition Timestamp
	// Phase is status.phase. (It and the two flags are kept together: the simulator holds
	// one Pod per pod, and padding would cost 8 bytes each.)
	Phase PodPhase
	// Ready is the truth of the Ready condition.
	Ready bool
	// Terminating is true when the pod has a deletionTimestamp.
	Terminating bool
}

// PodIdentity is the part of a pod that no update changes: its name and UID, and the spec
// fields the controllers read (the API server rejects an update of spec.hostname,
// spec.subdomain or a container's ports). A pod deleted and created again under its name is
// another pod, with another UID and identity.
type PodIdentity struct {
	// ObjectReference is the pod's reference: Kind "Pod", its namespace, name and UID. Its
	// endpoints' targetRefs point to it rather than each holding a copy (a reference of
	// another kind is not used for that).
	ObjectReference
	// PodSpecFields are the spec fields (pod.Hostname, pod.ContainerPorts, ...). It is never
	// nil, and may be shared by the pods of one template: 64 bytes a pod otherwise, most
	// of it the same ports list header in every pod of a Service.
	*PodSpecFields
	// CreationTimestamp is metadata.creationTimestamp (zero: unknown), which the ReplicaSet
	// controller ranks scale-down victims by.
	CreationTimestamp Timestamp
}

// PodSpecFields are the pod spec fields the endpoint controllers read. A value shared by
// several identities (NewPodIdentityWith) must not be modified.
type PodSpecFields struct {
	Hostname  string
	Subdomain string
	// ContainerPorts are the regular containers' ports, in container order.
	ContainerPorts []ContainerPort
	// SidecarPorts are the ports of init containers with restartPolicy Always.
	SidecarPorts []ContainerPort
}

// NewPodIdentity returns the identity of pod namespace/name with the given UID, with no
// hostname, subdomain or ports, and spec fields of its own, which the caller may set.
func NewPodIdentity(namespace, name, uid string) *PodIdentity {
	return NewPodIdentityWith(namespace, name, uid, &PodSpecFields{})
}

// NewPodIdentityWith returns the identity of pod namespace/name with the given UID and spec
// fields, which it shares (spec must not be nil, nor be modified afterwards).
func NewPodIdentityWith(namespace, name, uid string, spec *PodSpecFields) *PodIdentity {
	return &PodIdentity{ObjectReference: ObjectReference{Kind: "Pod", Namespace: namespace, Name: name, UID: uid}, PodSpecFields: spec}
}

// Equal reports whether id and o hold the same values.
func (id *PodIdentity) Equal(o *PodIdentity) bool {
	return id == o || id.ObjectReference == o.ObjectReference && id.PodSpecFields.Equal(o.PodSpecFields)
}

// Equal reports whether f and o hold the same values.
func (f *PodSpecFields) Equal(o *PodSpecFields) bool {
	return f == o || f.Hostname == o.Hostname && f.Subdomain == o.Subdomain &&
		slices.Equal(f.ContainerPorts, o.ContainerPorts) && slices.Equal(f.SidecarPorts, o.SidecarPorts)
}

// OwnIdentity gives p a copy of its identity, which p may then change without changing the
// other versions that shared it, and returns p.
func (p *Pod) OwnIdentity() *Pod {
	id := *p.PodIdentity
	spec := *id.PodSpecFields
	id.PodSpecFields = &spec
	p.PodIdentity = &id
	return p
}

// targetRef returns the pod's reference for its endpoints' targetRef: the identity's own
// when it is a Pod reference, else a new one.
func (p *Pod) targetRef() *ObjectReference {
	if r := &p.ObjectReference; r.Kind == "Pod" {
		return r
	}
	return &ObjectReference{Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: p.UID}
}

// Key returns "namespace/name".
func (p *Pod) Key() string { return p.Namespace + "/" + p.Name }

// Node is the part of a core/v1 Node the controllers read.
type Node struct {
	Name   string
	Zone   string // topology.kubernetes.io/zone, "" if unlabelled
	Region string
	// AllocatableMilliCPU is status.allocatable.cpu in millicores (0: unknown).
	AllocatableMilliCPU int64
	Ready               bool
	// ControlPlane is true for nodes labelled node-role.kubernetes.io/control-plane or master.
	ControlPlane bool
	// CreationTimestamp is metadata.creationTimestamp (zero: unknown). A replay's node
	// created during the recording joins then (its kube-proxy starts).
	CreationTimestamp Timestamp
}

// ObjectReference is an endpoint's targetRef (kind, namespace, name, uid only).
type ObjectReference struct {
	Kind      string
	Namespace string
	Name      string
	UID       string
}

// OwnerReference is a metadata.ownerReferences entry.
type OwnerReference struct {
	APIVersion         string
	Kind               string
	Name               string
	UID                string
	Controller         *bool
	BlockOwnerDeletion *bool
}

// EndpointConditions are an endpoint's ready/serving/terminating conditions.
type EndpointConditions struct {
	Ready       Condition
	Serving     Condition
	Terminating Condition
}

// Condition is one endpoint condition: the API's optional boolean (a *bool), in a byte. An
// endpoint has three, and a large run keeps millions of endpoints: as three pointers they
// made an Endpoint 104 bytes, in the 112-byte size class, and gave the garbage collector
// three more pointers to follow per endpoint.
type Condition uint8

const (
	// ConditionUnset is a condition the endpoint does not have (the API's nil). Consumers
	// read an unset ready or serving condition as true, an unset terminating one as false.
	ConditionUnset Condition = iota
	// ConditionFalse is a condition set to false.
	ConditionFalse
	// ConditionTrue is a condition set to true.
	ConditionTrue
)

// ConditionOf returns the condition set to b.
func ConditionOf(b bool) Condition {
	if b {
		return ConditionTrue
	}
	return ConditionFalse
}

// ConditionFromPtr returns the condition of the API's field: unset for nil.
func ConditionFromPtr(b *bool) Condition {
	if b == nil {
		return ConditionUnset
	}
	return ConditionOf(*b)
}

// IsSet reports whether the condition is set (the API's field is not nil).
func (c Condition) IsSet() bool { return c != ConditionUnset }

// Ptr returns the API's field: nil when unset, else a new *bool holding the value.
func (c Condition) Ptr() *bool {
	if c == ConditionUnset {
		return nil
	}
	return Ptr(c == ConditionTrue)
}

// String returns "true", "false" or "unset".
func (c Condition) String() string {
	switch c {
	case ConditionTrue:
		return "true"
	case ConditionFalse:
		return "false"
	}
	return "unset"
}

// EndpointHints are topology hints (forZones and forNodes names).
type EndpointHints struct {
	ForZones []string
	ForNodes []string
	// pbSize caches the protobuf size of an endpoint's hints field (valid when > 0; see
	// sharedHints) on the hints the controller shares between endpoints, never changed once
	// made: a slice written with hints was sized zone name by zone name, every endpoint.
	pbSize int32
}

// sharedHints returns h with its size cached, for sharing between endpoints: h must not
// be changed afterwards.
func sharedHints(h *EndpointHints) *EndpointHints {
	h.pbSize = int32(pbHintsField(h))
	return h
}

// Endpoint is one discovery/v1 Endpoint. Its fields are in the API's order but for
// Conditions, which sits with the small fields at the end: so an Endpoint is 80 bytes, a
// size class of its own (the stored slices of a large run hold millions).
type Endpoint struct {
	Addresses []string
	Hostname  *string
	TargetRef *ObjectReference
	NodeName  *string
	Zone      *string
	Hints     *EndpointHints

	// identity caches hashEndpoint for endpoints the reconciler built (valid when set); it
	// travels with copies, so a written slice's endpoints need not be hashed again.
	identity endpointHash
	// pbBase caches the protobuf size of every field but hints (valid when > 0: conditions
	// are always written), set when the reconciler builds the endpoint. Hints are the only
	// field changed after that (by the topology passes), so they are sized every time.
	pbBase int32

	Conditions EndpointConditions

	hasIdentity bool
}

// EndpointPort is one discovery/v1 EndpointPort. Every field is a pointer, as upstream.
type EndpointPort struct {
	Name        *string
	Protocol    *Protocol
	Port        *int32
	AppProtocol *string
}

// ObjectMeta is the metadata the simulator tracks for sizes and identity.
type ObjectMeta struct {
	Name              string
	GenerateName      string
	Namespace         string
	UID               string
	ResourceVersion   string
	Generation        int64
	CreationTimestamp Timestamp
	Labels            StringMap
	Annotations       StringMap
	OwnerReferences   []OwnerReference
	// ManagedFields is the managedFields entries as the API server stores them.
	ManagedFields []ManagedFieldsEntry
}

// ManagedFieldsEntry is one metadata.managedFields entry. FieldsV1 is the raw JSON of the
// field set; for the controllers' atomic lists it is small and constant.
type ManagedFieldsEntry struct {
	Manager    string
	Operation  string // "Update" or "Apply"
	APIVersion string
	Time       Timestamp
	FieldsType string // "FieldsV1"
	FieldsV1   string
}

// EndpointSlice is one discovery/v1 EndpointSlice.
type EndpointSlice struct {
	ObjectMeta
	AddressType AddressType
	Endpoints   []Endpoint
	Ports       []EndpointPort
}

// EndpointAddress is one core/v1 EndpointAddress of a legacy Endpoints subset.
type EndpointAddress struct {
	IP        string
	Hostname  string
	NodeName  *string
	TargetRef *ObjectReference
}

// EndpointsPort is one core/v1 EndpointPort of a legacy Endpoints subset.
type EndpointsPort struct {
	Name        string
	Port        int32
	Protocol    Protocol
	AppProtocol *string
}

// EndpointSubset is one core/v1 EndpointSubset.
type EndpointSubset struct {
	Addresses         []EndpointAddress
	NotReadyAddresses []EndpointAddress
	Ports             []EndpointsPort
}

// Endpoints is one legacy core/v1 Endpoints object.
type Endpoints struct {
	ObjectMeta
	Subsets []EndpointSubset
}

// Ptr returns a pointer to v (a helper for the many pointer fields of the API types).
func Ptr[T any](v T) *T { return &v }
