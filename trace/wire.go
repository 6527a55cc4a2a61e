package trace

import (
	"encoding/json"
	"time"
)

// The types here are the JSON of the Kubernetes objects the readers take (core/v1 Pod,
// Service and Node, discovery/v1 EndpointSlice), reduced to the fields epsim reads: what
// kubectl prints is decoded with encoding/json into these as into the k8s.io/api types,
// field for field (same names, same Go kinds, the same decoding of times, int-or-strings and
// quantities), so a value the real types take gives the same fields here. Fields left out
// are skipped unread, where the real types would refuse a malformed one. k8s.io modules are
// only test oracles for epsim (TestWireMatchesAPITypes decodes the same input with both).
//
// podJSON is also what 'sim record' writes (trimPod), so its fields are declared in the
// order, and with the omitempty tags, the real types marshal in.

// objectMeta is metav1.ObjectMeta's JSON, in its field order.
type objectMeta struct {
	Name                       string               `json:"name,omitempty"`
	GenerateName               string               `json:"generateName,omitempty"`
	Namespace                  string               `json:"namespace,omitempty"`
	UID                        string               `json:"uid,omitempty"`
	ResourceVersion            string               `json:"resourceVersion,omitempty"`
	Generation                 int64                `json:"generation,omitempty"`
	CreationTimestamp          apiTime              `json:"creationTimestamp,omitzero"`
	DeletionTimestamp          *apiTime             `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64               `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string    `json:"labels,omitempty"`
	Annotations                map[string]string    `json:"annotations,omitempty"`
	OwnerReferences            []ownerReference     `json:"ownerReferences,omitempty"`
	ManagedFields              []managedFieldsEntry `json:"managedFields,omitempty"`
}

// ownerReference is metav1.OwnerReference's JSON.
type ownerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// managedFieldsEntry is metav1.ManagedFieldsEntry's JSON. FieldsV1 holds the field set's
// JSON text as the input has it (metav1.FieldsV1 keeps it raw too).
type managedFieldsEntry struct {
	Manager     string           `json:"manager,omitempty"`
	Operation   string           `json:"operation,omitempty"`
	APIVersion  string           `json:"apiVersion,omitempty"`
	Time        *apiTime         `json:"time,omitempty"`
	FieldsType  string           `json:"fieldsType,omitempty"`
	FieldsV1    *json.RawMessage `json:"fieldsV1,omitempty"`
	Subresource string           `json:"subresource,omitempty"`
}

// apiTime is metav1.Time's JSON: RFC 3339 (fractions of a second are read, and dropped
// when written), null for the zero time. Like metav1.Time, it holds a time read in the
// local time zone.
type apiTime struct{ time.Time }

// UnmarshalJSON decodes null as the zero time and a string as RFC 3339.
func (t *apiTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	pt, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	t.Time = pt.Local()
	return nil
}

// MarshalJSON encodes the time in UTC to the second, or null.
func (t apiTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	b := make([]byte, 0, len(time.RFC3339)+2)
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, time.RFC3339)
	return append(b, '"'), nil
}

// intOrString is intstr.IntOrString's JSON: a quoted value is a string, anything else an
// int32 (null leaves the int 0).
type intOrString struct {
	isString bool
	intVal   int32
	strVal   string
}

// UnmarshalJSON decodes a string or an int32.
func (v *intOrString) UnmarshalJSON(b []byte) error {
	if b[0] == '"' {
		v.isString = true
		return json.Unmarshal(b, &v.strVal)
	}
	v.isString = false
	return json.Unmarshal(b, &v.intVal)
}

// podJSON is a core/v1 Pod's JSON: what PodReader reads and trimPod writes.
type podJSON struct {
	Kind       string      `json:"kind,omitempty"`
	APIVersion string      `json:"apiVersion,omitempty"`
	Metadata   objectMeta  `json:"metadata"`
	Spec       podSpecJSON `json:"spec"`
	Status     podStatus   `json:"status"`
}

type podSpecJSON struct {
	InitContainers []container `json:"initContainers,omitempty"`
	Containers     []container `json:"containers"`
	NodeName       string      `json:"nodeName,omitempty"`
	Hostname       string      `json:"hostname,omitempty"`
	Subdomain      string      `json:"subdomain,omitempty"`
}

// container is a core/v1 Container's name, ports and restart policy (a sidecar's is
// Always). Resources is only there to be written: the real type's is never omitted.
type container struct {
	Name          string          `json:"name"`
	Ports         []containerPort `json:"ports,omitempty"`
	Resources     struct{}        `json:"resources"`
	RestartPolicy *string         `json:"restartPolicy,omitempty"`
}

type containerPort struct {
	Name          string `json:"name,omitempty"`
	ContainerPort int32  `json:"containerPort"`
	Protocol      string `json:"protocol,omitempty"`
}

type podStatus struct {
	Phase      string         `json:"phase,omitempty"`
	Conditions []podCondition `json:"conditions,omitempty"`
	PodIP      string         `json:"podIP,omitempty"`
	PodIPs     []podIP        `json:"podIPs,omitempty"`
}

type podCondition struct {
	Type               string  `json:"type"`
	Status             string  `json:"status"`
	LastProbeTime      apiTime `json:"lastProbeTime"`
	LastTransitionTime apiTime `json:"lastTransitionTime"`
}

type podIP struct {
	IP string `json:"ip"`
}

// serviceJSON is a core/v1 Service's JSON.
type serviceJSON struct {
	Kind     string     `json:"kind"`
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		Selector                 map[string]string `json:"selector"`
		ClusterIP                string            `json:"clusterIP"`
		Type                     string            `json:"type"`
		PublishNotReadyAddresses bool              `json:"publishNotReadyAddresses"`
		TrafficDistribution      *string           `json:"trafficDistribution"`
		IPFamilies               []string          `json:"ipFamilies"`
		Ports                    []servicePort     `json:"ports"`
		InternalTrafficPolicy    string            `json:"internalTrafficPolicy"`
		ExternalIPs              []string          `json:"externalIPs"`
	} `json:"spec"`
}

type servicePort struct {
	Name        string      `json:"name"`
	Protocol    string      `json:"protocol"`
	AppProtocol *string     `json:"appProtocol"`
	Port        int32       `json:"port"`
	TargetPort  intOrString `json:"targetPort"`
}

// nodeJSON is a core/v1 Node's JSON. Capacity is read only to refuse what the real type
// refuses: a quantity that does not parse.
type nodeJSON struct {
	Kind     string     `json:"kind"`
	Metadata objectMeta `json:"metadata"`
	Status   struct {
		Capacity    map[string]quantity `json:"capacity"`
		Allocatable map[string]quantity `json:"allocatable"`
		Conditions  []nodeCondition     `json:"conditions"`
	} `json:"status"`
}

// nodeCondition is the part of a Node's condition read: its type and status.
type nodeCondition struct {
	Type   string `json:"type"`
	Status string `json:"status"`
}

// sliceJSON is a discovery/v1 EndpointSlice's JSON.
type sliceJSON struct {
	Kind        string             `json:"kind"`
	Metadata    objectMeta         `json:"metadata"`
	AddressType string             `json:"addressType"`
	Endpoints   []endpointJSON     `json:"endpoints"`
	Ports       []endpointPortJSON `json:"ports"`
}

type endpointPortJSON struct {
	Name        *string `json:"name"`
	Protocol    *string `json:"protocol"`
	Port        *int32  `json:"port"`
	AppProtocol *string `json:"appProtocol"`
}

type endpointJSON struct {
	Addresses  []string `json:"addresses"`
	Conditions struct {
		Ready       *bool `json:"ready"`
		Serving     *bool `json:"serving"`
		Terminating *bool `json:"terminating"`
	} `json:"conditions"`
	Hostname           *string           `json:"hostname"`
	TargetRef          *targetRefJSON    `json:"targetRef"`
	DeprecatedTopology map[string]string `json:"deprecatedTopology"`
	NodeName           *string           `json:"nodeName"`
	Zone               *string           `json:"zone"`
	Hints              *hintsJSON        `json:"hints"`
}

type targetRefJSON struct {
	Kind            string `json:"kind"`
	Namespace       string `json:"namespace"`
	Name            string `json:"name"`
	UID             string `json:"uid"`
	APIVersion      string `json:"apiVersion"`
	ResourceVersion string `json:"resourceVersion"`
	FieldPath       string `json:"fieldPath"`
}

type hintsJSON struct {
	ForZones []hintJSON `json:"forZones"`
	ForNodes []hintJSON `json:"forNodes"`
}

type hintJSON struct {
	Name string `json:"name"`
}
