package trace

import (
	"bytes"
	"encoding/json"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"epsim/model"
)

// This file holds the k8s.io/api side of the package's tests: the …ToAPI functions, which
// make the real objects the samples and tests read, and the oracle conversions, which are
// what the readers did when they decoded into the real types (the readers' own types must
// give the same: TestWireMatchesAPITypes, FuzzWireMatchesAPITypes).

// apiStamp converts an API time to a model timestamp (zero stays zero).
func apiStamp(t metav1.Time) model.Timestamp {
	if t.IsZero() {
		return 0
	}
	return model.Timestamp(t.UnixNano())
}

// toAPITime converts a model timestamp to an API time (zero stays zero).
func toAPITime(t model.Timestamp) metav1.Time {
	if t.IsZero() {
		return metav1.Time{}
	}
	return metav1.NewTime(t.Time())
}

// oraclePodFromAPI converts a core/v1 Pod to the fields the controllers read. The Ready condition
// gives Ready and ReadyTransition; status.podIPs gives IPs (status.podIP when podIPs is
// empty, as an old API server writes it); a deletionTimestamp makes the pod Terminating;
// ports without a protocol are TCP, the API server's default. Init containers with
// restartPolicy Always are sidecars, whose ports count as the pod's
// (upstream: k8s.io/endpointslice util podutil FindPort via podutil.VisitContainers). The
// labels, which a model Pod does not hold, are p.Labels (a PodReader's events carry them).
func oraclePodFromAPI(p *corev1.Pod) *model.Pod {
	id := model.NewPodIdentity(p.Namespace, p.Name, string(p.UID))
	id.Hostname, id.Subdomain = p.Spec.Hostname, p.Spec.Subdomain
	m := &model.Pod{
		PodIdentity: id,
		NodeName:    p.Spec.NodeName,
		Phase:       model.ParsePodPhase(string(p.Status.Phase)),
		Terminating: p.DeletionTimestamp != nil,
	}
	for _, ip := range p.Status.PodIPs {
		if ip.IP != "" {
			m.IPs = append(m.IPs, ip.IP)
		}
	}
	if len(m.IPs) == 0 && p.Status.PodIP != "" {
		m.IPs = []string{p.Status.PodIP}
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			m.Ready = c.Status == corev1.ConditionTrue
			m.ReadyTransition = apiStamp(c.LastTransitionTime)
		}
	}
	for _, c := range p.Spec.Containers {
		m.ContainerPorts = appendAPIPorts(m.ContainerPorts, c.Ports)
	}
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			m.SidecarPorts = appendAPIPorts(m.SidecarPorts, c.Ports)
		}
	}
	return m
}

func appendAPIPorts(out []model.ContainerPort, ports []corev1.ContainerPort) []model.ContainerPort {
	for _, p := range ports {
		proto := model.Protocol(p.Protocol)
		if proto == "" {
			proto = model.ProtocolTCP
		}
		out = append(out, model.ContainerPort{Name: p.Name, ContainerPort: p.ContainerPort, Protocol: proto})
	}
	return out
}

// PodToAPI converts a model Pod, its labels and its resourceVersion to a core/v1 Pod carrying
// exactly the fields oraclePodFromAPI reads, so that oraclePodFromAPI(PodToAPI(p, ...)) equals p. Regular container ports go on one
// container named "app", sidecar ports on one init container named "sidecar" with
// restartPolicy Always. A Terminating pod gets deletionTimestamp deleting (callers that know
// when the pod was deleted pass it; any non-zero time marks the pod as terminating).
func PodToAPI(m *model.Pod, labels map[string]string, resourceVersion string, created, deleting model.Timestamp) *corev1.Pod {
	p := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:         m.Namespace,
			Name:              m.Name,
			UID:               typesUID(m.UID),
			Labels:            labels,
			ResourceVersion:   resourceVersion,
			CreationTimestamp: toAPITime(created),
		},
		Spec: corev1.PodSpec{
			NodeName:  m.NodeName,
			Hostname:  m.Hostname,
			Subdomain: m.Subdomain,
		},
		Status: corev1.PodStatus{Phase: corev1.PodPhase(m.Phase.String())},
	}
	if m.Terminating {
		if deleting.IsZero() {
			deleting = max(created, m.ReadyTransition, 1)
		}
		t := toAPITime(deleting)
		p.DeletionTimestamp = &t
	}
	if len(m.ContainerPorts) > 0 {
		p.Spec.Containers = []corev1.Container{{Name: "app", Ports: apiPorts(m.ContainerPorts)}}
	}
	if len(m.SidecarPorts) > 0 {
		always := corev1.ContainerRestartPolicyAlways
		p.Spec.InitContainers = []corev1.Container{{Name: "sidecar", RestartPolicy: &always, Ports: apiPorts(m.SidecarPorts)}}
	}
	for _, ip := range m.IPs {
		p.Status.PodIPs = append(p.Status.PodIPs, corev1.PodIP{IP: ip})
	}
	if len(m.IPs) > 0 {
		p.Status.PodIP = m.IPs[0]
	}
	if !m.ReadyTransition.IsZero() || m.Ready {
		status := corev1.ConditionFalse
		if m.Ready {
			status = corev1.ConditionTrue
		}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status, LastTransitionTime: toAPITime(m.ReadyTransition)}}
	}
	return p
}

func apiPorts(in []model.ContainerPort) []corev1.ContainerPort {
	out := make([]corev1.ContainerPort, 0, len(in))
	for _, p := range in {
		out = append(out, corev1.ContainerPort{Name: p.Name, ContainerPort: p.ContainerPort, Protocol: corev1.Protocol(p.Protocol)})
	}
	return out
}

// oracleTrimPod returns a copy of p holding only what epsim reads or needs to time an event:
// identity, labels, timestamps, node, hostname and subdomain, container ports (no images,
// commands, env or volumes), phase, IPs and conditions (no messages). Annotations, owner
// references and managedFields are dropped. This is what 'sim record' keeps.
func oracleTrimPod(p *corev1.Pod) *corev1.Pod {
	t := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:                  p.Namespace,
			Name:                       p.Name,
			UID:                        p.UID,
			ResourceVersion:            p.ResourceVersion,
			Labels:                     p.Labels,
			CreationTimestamp:          p.CreationTimestamp,
			DeletionTimestamp:          p.DeletionTimestamp,
			DeletionGracePeriodSeconds: p.DeletionGracePeriodSeconds,
		},
		Spec: corev1.PodSpec{
			NodeName:  p.Spec.NodeName,
			Hostname:  p.Spec.Hostname,
			Subdomain: p.Spec.Subdomain,
		},
		Status: corev1.PodStatus{
			Phase:  p.Status.Phase,
			PodIP:  p.Status.PodIP,
			PodIPs: p.Status.PodIPs,
		},
	}
	for _, c := range p.Spec.Containers {
		if len(c.Ports) > 0 {
			t.Spec.Containers = append(t.Spec.Containers, corev1.Container{Name: c.Name, Ports: trimAPIPorts(c.Ports)})
		}
	}
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways && len(c.Ports) > 0 {
			t.Spec.InitContainers = append(t.Spec.InitContainers, corev1.Container{Name: c.Name, RestartPolicy: c.RestartPolicy, Ports: trimAPIPorts(c.Ports)})
		}
	}
	for _, c := range p.Status.Conditions {
		t.Status.Conditions = append(t.Status.Conditions, corev1.PodCondition{Type: c.Type, Status: c.Status, LastTransitionTime: c.LastTransitionTime})
	}
	return t
}

// trimAPIPorts drops hostIP and hostPort, which epsim never reads.
func trimAPIPorts(in []corev1.ContainerPort) []corev1.ContainerPort {
	out := make([]corev1.ContainerPort, 0, len(in))
	for _, p := range in {
		out = append(out, corev1.ContainerPort{Name: p.Name, ContainerPort: p.ContainerPort, Protocol: p.Protocol})
	}
	return out
}

// oraclePodTime is the latest time the object itself says something happened to it: its creation,
// any condition's last transition, or the deletion request (deletionTimestamp minus the
// grace period, since the API server sets deletionTimestamp to request time + grace). It is
// the time of an event when the recording has none.
func oraclePodTime(p *corev1.Pod) time.Time {
	t := p.CreationTimestamp.Time
	for _, c := range p.Status.Conditions {
		if c.LastTransitionTime.After(t) {
			t = c.LastTransitionTime.Time
		}
	}
	if d := p.DeletionTimestamp; d != nil {
		req := d.Time
		if g := p.DeletionGracePeriodSeconds; g != nil && *g > 0 {
			req = req.Add(-time.Duration(*g) * time.Second)
		}
		if req.After(t) {
			t = req
		}
	}
	return t
}

// oracleServiceFromAPI converts a core/v1 Service. A Service without spec.selector has a nil
// Selector (its Endpoints are user-managed); type ExternalName is marked as such.
func oracleServiceFromAPI(s *corev1.Service) *model.Service {
	m := &model.Service{
		Namespace:                s.Namespace,
		Name:                     s.Name,
		UID:                      string(s.UID),
		CreationTimestamp:        apiStamp(s.CreationTimestamp),
		Deleting:                 s.DeletionTimestamp != nil,
		Labels:                   s.Labels,
		Annotations:              s.Annotations,
		Selector:                 model.SelectorFromMap(s.Spec.Selector),
		ClusterIP:                s.Spec.ClusterIP,
		PublishNotReadyAddresses: s.Spec.PublishNotReadyAddresses,
		ExternalName:             s.Spec.Type == corev1.ServiceTypeExternalName,
	}
	// upstream: pkg/proxy/serviceport.go UsesClusterEndpoints (ExternallyAccessible per
	// port: a node port, a load balancer address, an external IP)
	internalLocal := s.Spec.InternalTrafficPolicy != nil && *s.Spec.InternalTrafficPolicy == corev1.ServiceInternalTrafficPolicyLocal
	accessible := s.Spec.Type == corev1.ServiceTypeNodePort || s.Spec.Type == corev1.ServiceTypeLoadBalancer || len(s.Spec.ExternalIPs) > 0
	m.LocalEndpointsOnly = internalLocal && !accessible
	m.ExternallyAccessible = accessible
	if td := s.Spec.TrafficDistribution; td != nil {
		m.TrafficDistribution = *td
	}
	for _, f := range s.Spec.IPFamilies {
		m.IPFamilies = append(m.IPFamilies, model.IPFamily(f))
	}
	for _, p := range s.Spec.Ports {
		proto := model.Protocol(p.Protocol)
		if proto == "" {
			proto = model.ProtocolTCP
		}
		sp := model.ServicePort{Name: p.Name, Protocol: proto, Port: p.Port, AppProtocol: p.AppProtocol}
		switch {
		case p.TargetPort.Type == intstr.String:
			sp.TargetPort = model.NamedPort(p.TargetPort.StrVal)
		case p.TargetPort.IntVal == 0:
			sp.TargetPort = model.IntPort(p.Port) // the API server defaults targetPort to port
		default:
			sp.TargetPort = model.IntPort(p.TargetPort.IntVal)
		}
		m.Ports = append(m.Ports, sp)
	}
	return m
}

// ServiceToAPI converts a model Service to a core/v1 Service with the fields oracleServiceFromAPI
// reads.
func ServiceToAPI(m *model.Service) *corev1.Service {
	s := &corev1.Service{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: m.Namespace, Name: m.Name, UID: typesUID(m.UID),
			CreationTimestamp: toAPITime(m.CreationTimestamp),
			Labels:            m.Labels, Annotations: m.Annotations,
		},
		Spec: corev1.ServiceSpec{
			Selector:                 m.Selector.Map(),
			ClusterIP:                m.ClusterIP,
			Type:                     corev1.ServiceTypeClusterIP,
			PublishNotReadyAddresses: m.PublishNotReadyAddresses,
		},
	}
	if m.ClusterIP != "" {
		s.Spec.ClusterIPs = []string{m.ClusterIP}
	}
	if m.ExternalName {
		s.Spec.Type = corev1.ServiceTypeExternalName
	} else if m.ExternallyAccessible {
		s.Spec.Type = corev1.ServiceTypeNodePort
	}
	if m.TrafficDistribution != "" {
		s.Spec.TrafficDistribution = &m.TrafficDistribution
	}
	if m.LocalEndpointsOnly {
		local := corev1.ServiceInternalTrafficPolicyLocal
		s.Spec.InternalTrafficPolicy = &local
	}
	for _, f := range m.IPFamilies {
		s.Spec.IPFamilies = append(s.Spec.IPFamilies, corev1.IPFamily(f))
	}
	for _, p := range m.Ports {
		sp := corev1.ServicePort{Name: p.Name, Protocol: corev1.Protocol(p.Protocol), Port: p.Port, AppProtocol: p.AppProtocol}
		if p.TargetPort.IsString {
			sp.TargetPort = intstr.FromString(p.TargetPort.StrVal)
		} else {
			sp.TargetPort = intstr.FromInt32(p.TargetPort.IntVal)
		}
		s.Spec.Ports = append(s.Spec.Ports, sp)
	}
	return s
}

// oracleNodeFromAPI converts a core/v1 Node: zone and region from the topology labels,
// allocatable CPU in millicores, the Ready condition, and the control-plane role labels.
func oracleNodeFromAPI(n *corev1.Node) *model.Node {
	m := &model.Node{
		Name:              n.Name,
		Zone:              n.Labels[model.LabelZone],
		Region:            n.Labels[model.LabelRegion],
		CreationTimestamp: apiStamp(n.CreationTimestamp),
	}
	if q, ok := n.Status.Allocatable[corev1.ResourceCPU]; ok {
		m.AllocatableMilliCPU = q.MilliValue()
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			m.Ready = c.Status == corev1.ConditionTrue
		}
	}
	_, cp := n.Labels[labelControlPlane]
	_, master := n.Labels[labelMaster]
	m.ControlPlane = cp || master
	return m
}

// NodeToAPI converts a model Node to a core/v1 Node with the fields oracleNodeFromAPI reads.
func NodeToAPI(m *model.Node) *corev1.Node {
	n := &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: m.Name, Labels: map[string]string{"kubernetes.io/hostname": m.Name},
			CreationTimestamp: toAPITime(m.CreationTimestamp)},
	}
	if m.Zone != "" {
		n.Labels[model.LabelZone] = m.Zone
	}
	if m.Region != "" {
		n.Labels[model.LabelRegion] = m.Region
	}
	if m.ControlPlane {
		n.Labels[labelControlPlane] = ""
	}
	if m.AllocatableMilliCPU > 0 {
		n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: *resourceMilli(m.AllocatableMilliCPU)}
	}
	status := corev1.ConditionFalse
	if m.Ready {
		status = corev1.ConditionTrue
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}
	return n
}

// oracleSliceFromAPI converts a discovery/v1 EndpointSlice to the model, for sizing. A slice
// listed without managedFields (kubectl hides them unless --show-managed-fields) gets the
// entry the API server stores for the EndpointSlice controller's writes, since watchers
// receive it (Reference: model.EndpointSliceManagedFields).
func oracleSliceFromAPI(s *discoveryv1.EndpointSlice) *model.EndpointSlice {
	m := &model.EndpointSlice{
		ObjectMeta: model.ObjectMeta{
			Name: s.Name, GenerateName: s.GenerateName, Namespace: s.Namespace, UID: string(s.UID),
			ResourceVersion: s.ResourceVersion, Generation: s.Generation,
			CreationTimestamp: apiStamp(s.CreationTimestamp),
			Labels:            model.StringMapOf(s.Labels), Annotations: model.StringMapOf(s.Annotations),
		},
		AddressType: model.AddressType(s.AddressType),
	}
	for _, o := range s.OwnerReferences {
		m.OwnerReferences = append(m.OwnerReferences, model.OwnerReference{
			APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, UID: string(o.UID),
			Controller: o.Controller, BlockOwnerDeletion: o.BlockOwnerDeletion,
		})
	}
	for _, f := range s.ManagedFields {
		e := model.ManagedFieldsEntry{Manager: f.Manager, Operation: string(f.Operation), APIVersion: f.APIVersion, FieldsType: f.FieldsType}
		if f.Time != nil {
			e.Time = apiStamp(*f.Time)
		}
		if f.FieldsV1 != nil {
			// As the API server holds it: structured-merge-diff writes fieldsV1 compact
			// (fieldpath.Set.ToJSON); decoding kubectl's indented output keeps its spaces.
			var b bytes.Buffer
			if err := json.Compact(&b, f.FieldsV1.Raw); err != nil {
				panic(err)
			}
			e.FieldsV1 = b.String()
		}
		m.ManagedFields = append(m.ManagedFields, e)
	}
	for _, ep := range s.Endpoints {
		me := model.Endpoint{
			Addresses: ep.Addresses, Hostname: ep.Hostname, NodeName: ep.NodeName, Zone: ep.Zone,
			Conditions: model.EndpointConditions{
				Ready:       model.ConditionFromPtr(ep.Conditions.Ready),
				Serving:     model.ConditionFromPtr(ep.Conditions.Serving),
				Terminating: model.ConditionFromPtr(ep.Conditions.Terminating),
			},
		}
		if r := ep.TargetRef; r != nil {
			me.TargetRef = &model.ObjectReference{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, UID: string(r.UID)}
		}
		if h := ep.Hints; h != nil {
			me.Hints = &model.EndpointHints{}
			for _, z := range h.ForZones {
				me.Hints.ForZones = append(me.Hints.ForZones, z.Name)
			}
			for _, n := range h.ForNodes {
				me.Hints.ForNodes = append(me.Hints.ForNodes, n.Name)
			}
		}
		m.Endpoints = append(m.Endpoints, me)
	}
	for _, p := range s.Ports {
		m.Ports = append(m.Ports, model.EndpointPort{Name: p.Name, Protocol: (*model.Protocol)(p.Protocol), Port: p.Port, AppProtocol: p.AppProtocol})
	}
	if len(m.ManagedFields) == 0 {
		at := m.CreationTimestamp
		if t := m.Annotations.Get(model.AnnotationTriggerTime); t != "" {
			if tt, err := time.Parse(time.RFC3339Nano, t); err == nil {
				at = model.Timestamp(tt.Truncate(time.Second).UnixNano())
			}
		}
		// The API server keeps no entry of a manager that owns no field.
		if mf := model.EndpointSliceManagedFields(m, at); mf.FieldsV1 != "{}" {
			m.ManagedFields = []model.ManagedFieldsEntry{mf}
		}
	}
	return m
}

func typesUID(s string) types.UID { return types.UID(s) }

func resourceMilli(m int64) *resource.Quantity {
	return resource.NewMilliQuantity(m, resource.DecimalSI)
}

// oracleSliceTime is sliceTime on the real type.
func oracleSliceTime(s *discoveryv1.EndpointSlice) time.Time {
	t := s.CreationTimestamp.Time
	if v := s.Annotations[model.AnnotationTriggerTime]; v != "" {
		if tt, err := time.Parse(time.RFC3339Nano, v); err == nil && tt.After(t) {
			t = tt
		}
	}
	if d := s.DeletionTimestamp; d != nil && d.After(t) {
		t = d.Time
	}
	return t
}

// SliceFromAPI converts a real EndpointSlice as SliceReader does: through its JSON.
func SliceFromAPI(s *discoveryv1.EndpointSlice) *model.EndpointSlice {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	var w sliceJSON
	if err := json.Unmarshal(b, &w); err != nil {
		panic(err)
	}
	return sliceFromJSON(&w)
}
