package trace

import (
	"time"

	"epsim/model"
)

// Label keys read from Nodes (upstream: k8s.io/api/core/v1 well_known_labels.go and
// kubeadm's control-plane role labels).
const (
	labelControlPlane = "node-role.kubernetes.io/control-plane"
	labelMaster       = "node-role.kubernetes.io/master"
)

// Values of the fields the conversions test (upstream: k8s.io/api core/v1 types.go).
const (
	conditionReady      = "Ready"
	conditionTrue       = "True"
	restartPolicyAlways = "Always"
	serviceTypeExternal = "ExternalName"
	resourceCPU         = "cpu"
)

// stamp converts an API time to a model timestamp (zero stays zero).
func stamp(t apiTime) model.Timestamp {
	if t.IsZero() {
		return 0
	}
	return model.Timestamp(t.UnixNano())
}

// podFromJSON converts a Pod to the fields the controllers read. The Ready condition gives
// Ready and ReadyTransition; status.podIPs gives IPs (status.podIP when podIPs is empty, as
// an old API server writes it); a deletionTimestamp makes the pod Terminating; ports without
// a protocol are TCP, the API server's default. Init containers with restartPolicy Always
// are sidecars, whose ports count as the pod's (upstream: k8s.io/endpointslice util podutil
// FindPort via podutil.VisitContainers). The labels, which a model Pod does not hold, are
// p.Metadata.Labels (a PodReader's events carry them).
func podFromJSON(p *podJSON) *model.Pod {
	id := model.NewPodIdentity(p.Metadata.Namespace, p.Metadata.Name, p.Metadata.UID)
	id.Hostname, id.Subdomain = p.Spec.Hostname, p.Spec.Subdomain
	m := &model.Pod{
		PodIdentity: id,
		NodeName:    p.Spec.NodeName,
		Phase:       model.ParsePodPhase(p.Status.Phase),
		Terminating: p.Metadata.DeletionTimestamp != nil,
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
		if c.Type == conditionReady {
			m.Ready = c.Status == conditionTrue
			m.ReadyTransition = stamp(c.LastTransitionTime)
		}
	}
	for _, c := range p.Spec.Containers {
		m.ContainerPorts = appendPorts(m.ContainerPorts, c.Ports)
	}
	for _, c := range p.Spec.InitContainers {
		if isSidecar(&c) {
			m.SidecarPorts = appendPorts(m.SidecarPorts, c.Ports)
		}
	}
	return m
}

// isSidecar reports whether an init container runs beside the pod's containers.
func isSidecar(c *container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == restartPolicyAlways
}

func appendPorts(out []model.ContainerPort, ports []containerPort) []model.ContainerPort {
	for _, p := range ports {
		proto := model.Protocol(p.Protocol)
		if proto == "" {
			proto = model.ProtocolTCP
		}
		out = append(out, model.ContainerPort{Name: p.Name, ContainerPort: p.ContainerPort, Protocol: proto})
	}
	return out
}

// trimPod returns a copy of p holding only what epsim reads or needs to time an event:
// identity, labels, timestamps, node, hostname and subdomain, container ports (no images,
// commands, env or volumes; no host ports), phase, IPs and conditions (no messages).
// Annotations, owner references and managedFields are dropped. This is what 'sim record'
// keeps.
func trimPod(p *podJSON) *podJSON {
	t := &podJSON{
		Kind:       "Pod",
		APIVersion: "v1",
		Metadata: objectMeta{
			Namespace:                  p.Metadata.Namespace,
			Name:                       p.Metadata.Name,
			UID:                        p.Metadata.UID,
			ResourceVersion:            p.Metadata.ResourceVersion,
			Labels:                     p.Metadata.Labels,
			CreationTimestamp:          p.Metadata.CreationTimestamp,
			DeletionTimestamp:          p.Metadata.DeletionTimestamp,
			DeletionGracePeriodSeconds: p.Metadata.DeletionGracePeriodSeconds,
		},
		Spec: podSpecJSON{
			NodeName:  p.Spec.NodeName,
			Hostname:  p.Spec.Hostname,
			Subdomain: p.Spec.Subdomain,
		},
		Status: podStatus{
			Phase:  p.Status.Phase,
			PodIP:  p.Status.PodIP,
			PodIPs: p.Status.PodIPs,
		},
	}
	for _, c := range p.Spec.Containers {
		if len(c.Ports) > 0 {
			t.Spec.Containers = append(t.Spec.Containers, container{Name: c.Name, Ports: c.Ports})
		}
	}
	for _, c := range p.Spec.InitContainers {
		if isSidecar(&c) && len(c.Ports) > 0 {
			t.Spec.InitContainers = append(t.Spec.InitContainers, container{Name: c.Name, RestartPolicy: c.RestartPolicy, Ports: c.Ports})
		}
	}
	for _, c := range p.Status.Conditions {
		t.Status.Conditions = append(t.Status.Conditions, podCondition{Type: c.Type, Status: c.Status, LastTransitionTime: c.LastTransitionTime})
	}
	return t
}

// podTime is the latest time the object itself says something happened to it: its creation,
// any condition's last transition, or the deletion request (deletionTimestamp minus the
// grace period, since the API server sets deletionTimestamp to request time + grace). It is
// the time of an event when the recording has none.
func podTime(p *podJSON) time.Time {
	t := p.Metadata.CreationTimestamp.Time
	for _, c := range p.Status.Conditions {
		if c.LastTransitionTime.After(t) {
			t = c.LastTransitionTime.Time
		}
	}
	if d := p.Metadata.DeletionTimestamp; d != nil {
		req := d.Time
		if g := p.Metadata.DeletionGracePeriodSeconds; g != nil && *g > 0 {
			req = req.Add(-time.Duration(*g) * time.Second)
		}
		if req.After(t) {
			t = req
		}
	}
	return t
}

// serviceFromJSON converts a Service. A Service without spec.selector has a nil Selector
// (its Endpoints are user-managed); type ExternalName is marked as such.
func serviceFromJSON(s *serviceJSON) *model.Service {
	m := &model.Service{
		Namespace:                s.Metadata.Namespace,
		Name:                     s.Metadata.Name,
		UID:                      s.Metadata.UID,
		CreationTimestamp:        stamp(s.Metadata.CreationTimestamp),
		Deleting:                 s.Metadata.DeletionTimestamp != nil,
		Labels:                   s.Metadata.Labels,
		Annotations:              s.Metadata.Annotations,
		Selector:                 model.SelectorFromMap(s.Spec.Selector),
		ClusterIP:                s.Spec.ClusterIP,
		PublishNotReadyAddresses: s.Spec.PublishNotReadyAddresses,
		ExternalName:             s.Spec.Type == serviceTypeExternal,
		LocalEndpointsOnly:       model.UsesLocalEndpointsOnly(s.Spec.Type, s.Spec.InternalTrafficPolicy, len(s.Spec.ExternalIPs)),
		ExternallyAccessible:     model.IsExternallyAccessible(s.Spec.Type, len(s.Spec.ExternalIPs)),
	}
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
		case p.TargetPort.isString:
			sp.TargetPort = model.NamedPort(p.TargetPort.strVal)
		case p.TargetPort.intVal == 0:
			sp.TargetPort = model.IntPort(p.Port) // the API server defaults targetPort to port
		default:
			sp.TargetPort = model.IntPort(p.TargetPort.intVal)
		}
		m.Ports = append(m.Ports, sp)
	}
	return m
}

// nodeFromJSON converts a Node: zone and region from the topology labels, allocatable CPU
// in millicores, the Ready condition, the control-plane role labels and its creation time.
func nodeFromJSON(n *nodeJSON) *model.Node {
	labels := n.Metadata.Labels
	m := &model.Node{
		Name:              n.Metadata.Name,
		Zone:              labels[model.LabelZone],
		Region:            labels[model.LabelRegion],
		CreationTimestamp: stamp(n.Metadata.CreationTimestamp),
	}
	if q, ok := n.Status.Allocatable[resourceCPU]; ok {
		m.AllocatableMilliCPU = q.milli
	}
	for _, c := range n.Status.Conditions {
		if c.Type == conditionReady {
			m.Ready = c.Status == conditionTrue
		}
	}
	_, cp := labels[labelControlPlane]
	_, master := labels[labelMaster]
	m.ControlPlane = cp || master
	return m
}

// sliceFromJSON converts an EndpointSlice to the model, for sizing. A slice listed without
// managedFields (kubectl hides them unless --show-managed-fields) gets the entry the API
// server stores for the EndpointSlice controller's writes, since watchers receive it
// (Reference: model.EndpointSliceManagedFields).
func sliceFromJSON(s *sliceJSON) *model.EndpointSlice {
	md := &s.Metadata
	m := &model.EndpointSlice{
		ObjectMeta: model.ObjectMeta{
			Name: md.Name, GenerateName: md.GenerateName, Namespace: md.Namespace, UID: md.UID,
			ResourceVersion: md.ResourceVersion, Generation: md.Generation,
			CreationTimestamp: stamp(md.CreationTimestamp),
			Labels:            model.StringMapOf(md.Labels), Annotations: model.StringMapOf(md.Annotations),
		},
		AddressType: model.AddressType(s.AddressType),
	}
	for _, o := range md.OwnerReferences {
		m.OwnerReferences = append(m.OwnerReferences, model.OwnerReference{
			APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, UID: o.UID,
			Controller: o.Controller, BlockOwnerDeletion: o.BlockOwnerDeletion,
		})
	}
	for _, f := range md.ManagedFields {
		e := model.ManagedFieldsEntry{Manager: f.Manager, Operation: f.Operation, APIVersion: f.APIVersion, FieldsType: f.FieldsType}
		if f.Time != nil {
			e.Time = stamp(*f.Time)
		}
		if f.FieldsV1 != nil {
			// The API server stores and sends it compact; kubectl's output indents it.
			e.FieldsV1 = string(compact(*f.FieldsV1))
		}
		m.ManagedFields = append(m.ManagedFields, e)
	}
	for i := range s.Endpoints {
		ep := &s.Endpoints[i]
		me := model.Endpoint{
			Addresses: ep.Addresses, Hostname: ep.Hostname, NodeName: ep.NodeName, Zone: ep.Zone,
			Conditions: model.EndpointConditions{
				Ready:       model.ConditionFromPtr(ep.Conditions.Ready),
				Serving:     model.ConditionFromPtr(ep.Conditions.Serving),
				Terminating: model.ConditionFromPtr(ep.Conditions.Terminating),
			},
		}
		if r := ep.TargetRef; r != nil {
			me.TargetRef = &model.ObjectReference{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, UID: r.UID}
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
		if mf := model.EndpointSliceManagedFields(m, at); mf.FieldsV1 != model.EmptyFieldSet {
			m.ManagedFields = []model.ManagedFieldsEntry{mf}
		}
	}
	return m
}

// sliceTime is the latest time a slice itself records: its creation, the trigger-time
// annotation the controller sets on each write, or its deletion.
func sliceTime(s *sliceJSON) time.Time {
	t := s.Metadata.CreationTimestamp.Time
	if v := s.Metadata.Annotations[model.AnnotationTriggerTime]; v != "" {
		if tt, err := time.Parse(time.RFC3339Nano, v); err == nil && tt.After(t) {
			t = tt
		}
	}
	if d := s.Metadata.DeletionTimestamp; d != nil && d.After(t) {
		t = d.Time
	}
	return t
}
