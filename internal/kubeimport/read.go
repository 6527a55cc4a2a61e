// Package kubeimport turns what kubectl prints about a cluster (nodes, Services, workloads,
// Endpoints and EndpointSlices as JSON) into a scenario file for epsim: the cluster's shape,
// each Service with the workload it selects, Services alike grouped with count:, and a
// default timeline. It reads only the fields it maps, through small local types; nothing
// here depends on k8s.io packages.
package kubeimport

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"epsim/internal/jsonparse"
)

// ErrFormat marks input that is not kubectl's JSON (wrapped with the input's name).
var ErrFormat = errors.New("not kubectl JSON output")

// ErrRead marks an input that could not be read (followed by its name and the reason).
var ErrRead = errors.New("cannot read")

// Input is one source of kubectl output: a file or stdin.
type Input struct {
	// Name is how errors and the scenario's header name the source.
	Name string
	R    io.Reader
}

// maxInputBytes bounds one input; 10,000 Services with their workloads are a few tens of MB.
const maxInputBytes = 2 << 30

// objectMeta is the part of metadata the importer reads.
type objectMeta struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	// OwnerReferences are read to tell a Deployment's ReplicaSets from bare ones.
	OwnerReferences []ownerReference `json:"ownerReferences"`
}

// ownerReference is the part of an owner reference the importer reads.
type ownerReference struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Controller *bool  `json:"controller"`
}

// intOrString is a Kubernetes IntOrString (a port or a percentage).
type intOrString struct {
	IsStr  bool
	IntVal int64
	StrVal string
}

func (v *intOrString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		v.IsStr = true
		return json.Unmarshal(b, &v.StrVal)
	}
	return json.Unmarshal(b, &v.IntVal)
}

// String prints the value as a scenario writes it (3 or "25%").
func (v *intOrString) String() string {
	if v.IsStr {
		return v.StrVal
	}
	return strconv.FormatInt(v.IntVal, 10)
}

type node struct {
	Metadata objectMeta `json:"metadata"`
	Status   struct {
		Allocatable map[string]string `json:"allocatable"`
		Conditions  []nodeCondition   `json:"conditions"`
	} `json:"status"`
}

// nodeCondition is one of a node's status conditions (Ready: "True", "False", "Unknown").
type nodeCondition struct {
	Type   string `json:"type"`
	Status string `json:"status"`
}

type servicePort struct {
	Name        string       `json:"name"`
	Protocol    string       `json:"protocol"`
	Port        int64        `json:"port"`
	TargetPort  *intOrString `json:"targetPort"`
	AppProtocol *string      `json:"appProtocol"`
}

type service struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		Type                     string            `json:"type"`
		Selector                 map[string]string `json:"selector"`
		ClusterIP                string            `json:"clusterIP"`
		Ports                    []servicePort     `json:"ports"`
		IPFamilies               []string          `json:"ipFamilies"`
		PublishNotReadyAddresses bool              `json:"publishNotReadyAddresses"`
		TrafficDistribution      *string           `json:"trafficDistribution"`
		ExternalName             string            `json:"externalName"`
		InternalTrafficPolicy    string            `json:"internalTrafficPolicy"`
		ExternalIPs              []string          `json:"externalIPs"`
	} `json:"spec"`
}

type rollingUpdate struct {
	MaxSurge       *intOrString `json:"maxSurge"`
	MaxUnavailable *intOrString `json:"maxUnavailable"`
	Partition      *int64       `json:"partition"`
}

type updateStrategy struct {
	Type          string         `json:"type"`
	RollingUpdate *rollingUpdate `json:"rollingUpdate"`
}

type containerPort struct {
	Name          string `json:"name"`
	ContainerPort int64  `json:"containerPort"`
	Protocol      string `json:"protocol"`
}

// container is a pod template's container: its ports, and an init container's
// restartPolicy (Always for a sidecar, which keeps running beside the others).
type container struct {
	Ports         []containerPort `json:"ports"`
	RestartPolicy string          `json:"restartPolicy"`
}

// workload is a Deployment, StatefulSet, DaemonSet or ReplicaSet.
type workload struct {
	Kind     string     `json:"kind"`
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		Replicas        *int64 `json:"replicas"`
		MinReadySeconds int64  `json:"minReadySeconds"`
		Template        struct {
			Metadata objectMeta `json:"metadata"`
			Spec     struct {
				Containers []container `json:"containers"`
				// InitContainers' ports count for those that run beside the others
				// (restartPolicy Always: sidecars).
				InitContainers []container `json:"initContainers"`
			} `json:"spec"`
		} `json:"template"`
		// Strategy is a Deployment's; UpdateStrategy a StatefulSet's or DaemonSet's.
		Strategy       updateStrategy `json:"strategy"`
		UpdateStrategy updateStrategy `json:"updateStrategy"`
		// ServiceName is a StatefulSet's governing Service: its pods' subdomain.
		ServiceName string `json:"serviceName"`
		// PodManagementPolicy is a StatefulSet's: OrderedReady (the default) or Parallel.
		PodManagementPolicy string `json:"podManagementPolicy"`
	} `json:"spec"`
	Status struct {
		DesiredNumberScheduled int64 `json:"desiredNumberScheduled"`
	} `json:"status"`
}

type endpointAddress struct {
	IP string `json:"ip"`
}

type endpoints struct {
	Metadata objectMeta `json:"metadata"`
	Subsets  []struct {
		Addresses         []endpointAddress `json:"addresses"`
		NotReadyAddresses []endpointAddress `json:"notReadyAddresses"`
	} `json:"subsets"`
}

type endpointSlice struct {
	Metadata    objectMeta      `json:"metadata"`
	AddressType string          `json:"addressType"`
	Endpoints   []sliceEndpoint `json:"endpoints"`
	Ports       []slicePort     `json:"ports"`
}

// slicePort is an EndpointSlice's port: the Service port's name and protocol, and the
// number its targetPort resolved to in the pods.
type slicePort struct {
	Name     string `json:"name"`
	Port     int64  `json:"port"`
	Protocol string `json:"protocol"`
}

// sliceEndpoint is an EndpointSlice's endpoint: its addresses, and whether its pod is
// terminating (conditions.terminating; nil when not given).
type sliceEndpoint struct {
	Addresses  []string `json:"addresses"`
	Conditions struct {
		Terminating *bool `json:"terminating"`
	} `json:"conditions"`
}

// objects is everything read from the inputs, by kind, in input order.
type objects struct {
	sources   []string
	nodes     []node
	services  []service
	workloads []workload
	endpoints []endpoints
	slices    []endpointSlice
	// skipped counts objects of kinds the importer does not read, by kind.
	skipped map[string]int
}

// read decodes every input: JSON values one after another, each a List (items of any mix
// of kinds, as 'kubectl get a,b,c -o json' prints) or a bare object.
func read(inputs []Input) (*objects, error) {
	return readWith(inputs, true)
}

// readWith is read, with the fast decoders (fast.go) where they take a value when fast is
// set, with encoding/json alone when not (for tests).
func readWith(inputs []Input, fast bool) (*objects, error) {
	o := &objects{skipped: map[string]int{}}
	for _, in := range inputs {
		o.sources = append(o.sources, in.Name)
		data, err := readAll(io.LimitReader(in.R, maxInputBytes))
		if err != nil {
			return nil, fmt.Errorf("%w %s: %w", ErrRead, in.Name, err)
		}
		data = withoutBOM(data)
		n := 0
		if fast {
			if n, err = o.addFast(data, in.Name); err != nil {
				return nil, err
			}
		}
		dec := json.NewDecoder(bytes.NewReader(data[n:]))
		for {
			dec.More() // passes over white space: the offset is the value's start
			start := n + int(dec.InputOffset())
			var raw json.RawMessage
			err := dec.Decode(&raw)
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w: %v%s%s", in.Name, ErrFormat, err, where(data, start, err), yamlHint(data, start))
			}
			if err := o.add(raw, in.Name, 0, ""); err != nil {
				return nil, err
			}
		}
	}
	return o, nil
}

// yamlHint says what to do when the input's first value looks like YAML ('kubectl get
// -o yaml', or a manifest): "apiVersion: v1", "items:", "---".
func yamlHint(data []byte, start int) string {
	if start != len(data)-len(bytes.TrimLeft(data, " \t\r\n")) {
		return "" // not the first value
	}
	line, _, _ := bytes.Cut(data[start:], []byte("\n"))
	line = bytes.TrimSpace(line)
	if bytes.Equal(line, []byte("---")) || yamlKey.Match(line) {
		return "; this looks like YAML: give kubectl's '-o json' output"
	}
	return ""
}

var yamlKey = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*:( |$)`)

// where locates a decoding error of the value that starts at byte start of data: the byte
// and line of a syntax error, the value's start when the input ends inside it. (The
// Decoder's own offsets leave out the white space between values.)
func where(data []byte, start int, err error) string {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		// The value alone: a decoder's offsets count from its first value.
		var raw json.RawMessage
		if errors.As(json.NewDecoder(bytes.NewReader(data[start:])).Decode(&raw), &syn) {
			at := start + int(syn.Offset) - 1
			return fmt.Sprintf(" (byte %d, line %d)", at, 1+bytes.Count(data[:at], []byte("\n")))
		}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf(" (the input ends inside the value that starts at byte %d, line %d)", start, 1+bytes.Count(data[:start], []byte("\n")))
	}
	return ""
}

// addFast adds the objects of data up to the first value that is not a valid JSON object,
// and returns where that value starts (len(data) when there is none): the Decoder reads
// from there, and tells what is wrong. A valid object that the fast decoders refuse is
// added by add.
func (o *objects) addFast(data []byte, src string) (int, error) {
	f := &fastReader{o: o}
	p := jsonparse.NewParser(data)
	for {
		p.Space()
		start := p.Offset()
		if p.Peek() != '{' {
			return start, nil
		}
		raw, ok := p.Raw()
		if !ok {
			return start, nil
		}
		if !f.value(raw) {
			if err := o.add(raw, src, 0, ""); err != nil {
				return 0, err
			}
		}
	}
}

// withoutBOM returns data as UTF-8 without a byte order mark. kubectl writes UTF-8, but
// a redirection may not keep it: Windows PowerShell's '>' writes UTF-16LE with a BOM, and
// some of its cmdlets UTF-8 with one, which encoding/json refuses at the first byte.
func withoutBOM(data []byte) []byte {
	switch {
	case bytes.HasPrefix(data, []byte{0xef, 0xbb, 0xbf}):
		return data[3:]
	case len(data)%2 == 0 && (bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff})):
		order := binary.ByteOrder(binary.LittleEndian)
		if data[0] == 0xfe {
			order = binary.BigEndian
		}
		units := make([]uint16, 0, len(data)/2-1)
		for i := 2; i < len(data); i += 2 {
			units = append(units, order.Uint16(data[i:]))
		}
		out := make([]byte, 0, len(units))
		for _, r := range utf16.Decode(units) {
			out = utf8.AppendRune(out, r)
		}
		return out
	}
	return data
}

// readAll reads r to its end: at once into a buffer of the file's size when r is a file.
func readAll(r io.Reader) ([]byte, error) {
	var buf bytes.Buffer
	if lr, ok := r.(*io.LimitedReader); ok {
		if f, ok := lr.R.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
				buf.Grow(int(min(st.Size(), lr.N)) + bytes.MinRead)
			}
		}
	}
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

// named returns ` "NAMESPACE/NAME"` (or ` "NAME"`) of the object raw, for an error about
// it in an input of thousands: "" when its metadata does not say.
func named(raw []byte) string {
	var o struct {
		Metadata struct {
			Name, Namespace string
		}
	}
	if json.Unmarshal(raw, &o) != nil || o.Metadata.Name == "" {
		return ""
	}
	if o.Metadata.Namespace == "" {
		return fmt.Sprintf(" %q", o.Metadata.Name)
	}
	return fmt.Sprintf(" %q", o.Metadata.Namespace+"/"+o.Metadata.Name)
}

// add decodes one object, or a List's items (lists nest at most a few levels). itemKind is
// the kind of a typed list's items (a NodeList's are Nodes), which the API server leaves out
// of each item.
func (o *objects) add(raw json.RawMessage, src string, depth int, itemKind string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return fmt.Errorf("%s: %w: expected a JSON object (a List or a single object), got %.20q", src, ErrFormat, raw)
	}
	var head struct {
		Kind  string             `json:"kind"`
		Items *[]json.RawMessage `json:"items"`
		Type  string             `json:"type"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return fmt.Errorf("%s: %w: %v", src, ErrFormat, jsonTypeError(err))
	}
	if head.Items != nil || strings.HasSuffix(head.Kind, "List") {
		if depth > 4 {
			return fmt.Errorf("%s: %w: lists nested too deep", src, ErrFormat)
		}
		if head.Items == nil {
			return nil
		}
		kind := strings.TrimSuffix(head.Kind, "List")
		for _, it := range *head.Items {
			if err := o.add(it, src, depth+1, kind); err != nil {
				return err
			}
		}
		return nil
	}
	if head.Type != "" && head.Kind == "" {
		return fmt.Errorf("%s: %w: a watch event; use 'kubectl get … -o json' without --watch", src, ErrFormat)
	}
	if head.Kind == "" {
		head.Kind = itemKind
	}
	var err error
	switch head.Kind {
	case "Node":
		var v node
		err = json.Unmarshal(raw, &v)
		o.nodes = append(o.nodes, v)
	case "Service":
		var v service
		err = json.Unmarshal(raw, &v)
		o.services = append(o.services, v)
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet":
		var v workload
		err = json.Unmarshal(raw, &v)
		v.Kind = head.Kind
		o.workloads = append(o.workloads, v)
	case "Endpoints":
		var v endpoints
		err = json.Unmarshal(raw, &v)
		o.endpoints = append(o.endpoints, v)
	case "EndpointSlice":
		var v endpointSlice
		err = json.Unmarshal(raw, &v)
		o.slices = append(o.slices, v)
	default:
		k := head.Kind
		if k == "" {
			k = "(no kind)"
		}
		o.skipped[k]++
	}
	if err != nil {
		return fmt.Errorf("%s: %w: a %s%s: %v", src, ErrFormat, head.Kind, named(raw), jsonTypeError(err))
	}
	return nil
}

// jsonTypeError says what a field of the wrong JSON type is in kubectl's words: encoding/json
// said 'json: cannot unmarshal string into Go struct field .spec.ports of type
// []kubeimport.servicePort', naming this package's types, which the user never sees.
func jsonTypeError(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Type == nil {
		return err
	}
	var want string
	switch te.Type.Kind() {
	case reflect.String:
		want = "a string"
	case reflect.Slice, reflect.Array:
		want = "a list"
	case reflect.Map, reflect.Struct, reflect.Pointer:
		want = "an object"
	case reflect.Bool:
		want = "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		want = "a whole number in range"
	case reflect.Float32, reflect.Float64:
		want = "a number"
	default:
		return err
	}
	got := te.Value
	switch {
	case got == "array":
		got = "a list"
	case got == "object":
		got = "an object"
	case got == "bool":
		got = "true or false"
	case strings.HasPrefix(got, "number "):
		got = "the number " + strings.TrimPrefix(got, "number ")
	case got != "":
		got = "a " + got
	}
	if te.Field == "" {
		return fmt.Errorf("%s, where kubectl writes %s", got, want)
	}
	return fmt.Errorf("%s: %s, where kubectl writes %s", te.Field, got, want)
}
