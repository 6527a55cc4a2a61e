package model

// Encoding is the wire encoding of an object or watch event.
type Encoding uint8

// Encodings epsim sizes. Protobuf is kube-proxy's and kube-controller-manager's default.
const (
	Protobuf Encoding = iota
	JSON
	numEncodings
)

// String returns "protobuf" or "json".
func (e Encoding) String() string {
	if e == JSON {
		return "json"
	}
	return "protobuf"
}

// EventType is a watch event type.
type EventType string

// Watch event types.
const (
	EventAdded    EventType = "ADDED"
	EventModified EventType = "MODIFIED"
	EventDeleted  EventType = "DELETED"
)

// ByEncoding holds one byte count per encoding, indexed by Encoding.
type ByEncoding [numEncodings]int64

// SubsetSize summarises one legacy Endpoints subset, so that an Endpoints object's size can be
// computed arithmetically from running sums instead of by walking every address.
type SubsetSize struct {
	Ports []EndpointsPort
	// Addresses and NotReadyAddresses are the counts of the two lists.
	Addresses         int
	NotReadyAddresses int
	// AddressBytes and NotReadyAddressBytes are Σ EndpointAddressSize over each list,
	// per encoding.
	AddressBytes         ByEncoding
	NotReadyAddressBytes ByEncoding
}
