package model

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
)

// RepackSubsets expands subsets to (port, address, ready) triples and repacks them into
// upstream's canonical layout: addresses deduplicated by (IP, targetRef.UID), "not ready" winning
// over "ready" for the same address and port, ports with identical address sets merged into one
// subset, addresses sorted byte-wise by IP then UID, and ports and subsets sorted by the fnv128a
// hash of their hash dump. Subsets without ports keep nil ports. The input is not modified; the
// result is newly allocated and, like upstream's, never nil.
//
// upstream: pkg/api/v1/endpoints/util.go RepackSubsets, mapAddressByPort, SortSubsets.
//
// As upstream, ports are keyed by the EndpointsPort value, whose AppProtocol is a pointer: two
// equal appProtocols held in different pointers are different ports, never merged. The
// Endpoints controller's subsets share the Service port's pointer, so its equal ports merge;
// an object read from the API server has a pointer per port (asDecoded gives subsets that).
func RepackSubsets(subsets []EndpointSubset) []EndpointSubset {
	type addrKey struct{ ip, uid string }
	// First-seen copy of each address, and a dense id per address for the set keys.
	addrIDs := map[addrKey]int{}
	var addrs []EndpointAddress

	type portAddrs struct {
		port  EndpointsPort
		ready map[int]bool // address id → ready ("not ready" wins)
	}
	var ports []*portAddrs
	portIndex := map[EndpointsPort]int{}

	mapAddress := func(a *EndpointAddress, port EndpointsPort, ready bool) {
		k := addrKey{ip: a.IP}
		if a.TargetRef != nil {
			k.uid = a.TargetRef.UID
		}
		id, ok := addrIDs[k]
		if !ok {
			id = len(addrs)
			addrIDs[k] = id
			addrs = append(addrs, *a)
		}
		pi, ok := portIndex[port]
		if !ok {
			pi = len(ports)
			portIndex[port] = pi
			ports = append(ports, &portAddrs{port: port, ready: map[int]bool{}})
		}
		if wasReady, found := ports[pi].ready[id]; !found || wasReady {
			ports[pi].ready[id] = ready
		}
	}
	mapSubset := func(s *EndpointSubset, port EndpointsPort) {
		for i := range s.Addresses {
			mapAddress(&s.Addresses[i], port, true)
		}
		for i := range s.NotReadyAddresses {
			mapAddress(&s.NotReadyAddresses[i], port, false)
		}
	}
	for i := range subsets {
		if len(subsets[i].Ports) == 0 {
			// upstream: addresses without ports are tracked under the sentinel port -1.
			mapSubset(&subsets[i], EndpointsPort{Port: -1})
			continue
		}
		for _, p := range subsets[i].Ports {
			mapSubset(&subsets[i], p)
		}
	}

	// Group ports by their exact (address, ready) set. The key lists address ids in sorted
	// order with the ready bit, which is what upstream's hash of the sorted set distinguishes.
	type group struct {
		ports []EndpointsPort
		addrs map[int]bool
	}
	var groups []*group
	groupIndex := map[string]int{}
	var key strings.Builder
	for _, p := range ports {
		ids := make([]int, 0, len(p.ready))
		for id := range p.ready {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		key.Reset()
		for _, id := range ids {
			key.WriteString(strconv.Itoa(id))
			if p.ready[id] {
				key.WriteByte('r')
			} else {
				key.WriteByte('n')
			}
		}
		gi, ok := groupIndex[key.String()]
		if !ok {
			gi = len(groups)
			groupIndex[key.String()] = gi
			groups = append(groups, &group{addrs: p.ready})
		}
		if p.port.Port > 0 {
			groups[gi].ports = append(groups[gi].ports, p.port)
		}
	}

	final := make([]EndpointSubset, 0, len(groups))
	for _, g := range groups {
		var s EndpointSubset
		ids := make([]int, 0, len(g.addrs))
		for id := range g.addrs {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			if g.addrs[id] {
				s.Addresses = append(s.Addresses, addrs[id])
			} else {
				s.NotReadyAddresses = append(s.NotReadyAddresses, addrs[id])
			}
		}
		s.Ports = g.ports
		final = append(final, s)
	}
	SortSubsets(final)
	return final
}

// asDecoded returns a copy of subsets in which every port's AppProtocol is a pointer of its
// own, as in an object decoded from the API server (which is what upstream's controllers
// repack): RepackSubsets then never merges two ports with an appProtocol.
func asDecoded(subsets []EndpointSubset) []EndpointSubset {
	hasApp := func(s EndpointSubset) bool {
		return slices.ContainsFunc(s.Ports, func(p EndpointsPort) bool { return p.AppProtocol != nil })
	}
	if !slices.ContainsFunc(subsets, hasApp) {
		return subsets // nothing to give pointers of their own (RepackSubsets does not modify it)
	}
	out := slices.Clone(subsets)
	for i := range out {
		if !slices.ContainsFunc(out[i].Ports, func(p EndpointsPort) bool { return p.AppProtocol != nil }) {
			continue
		}
		out[i].Ports = slices.Clone(out[i].Ports)
		for j := range out[i].Ports {
			if a := out[i].Ports[j].AppProtocol; a != nil {
				out[i].Ports[j].AppProtocol = Ptr(*a)
			}
		}
	}
	return out
}

// repackPortValue is an EndpointsPort compared by value (AppProtocol dereferenced).
type repackPortValue struct {
	name        string
	port        int32
	protocol    Protocol
	hasApp      bool
	appProtocol string
}

func repackPortValueOf(p *EndpointsPort) repackPortValue {
	v := repackPortValue{name: p.Name, port: p.Port, protocol: p.Protocol}
	if p.AppProtocol != nil {
		v.hasApp, v.appProtocol = true, *p.AppProtocol
	}
	return v
}

// SortSubsets sorts, in place, each subset's addresses and notReadyAddresses
// (LessEndpointAddress), each subset's ports (by the fnv128a hash of their hash dump) and
// the subsets themselves (by the fnv128a hash of their hash dump), and returns its
// argument.
// upstream: pkg/api/v1/endpoints/util.go SortSubsets.
func SortSubsets(subsets []EndpointSubset) []EndpointSubset {
	var buf bytes.Buffer
	for i := range subsets {
		s := &subsets[i]
		slices.SortFunc(s.Addresses, compareEndpointAddress)
		slices.SortFunc(s.NotReadyAddresses, compareEndpointAddress)
		if len(s.Ports) > 1 {
			sums := make([][digestSize]byte, len(s.Ports))
			for j := range s.Ports {
				buf.Reset()
				writePortHashDump(&buf, &s.Ports[j], true)
				sums[j] = fnv128aSum(buf.Bytes())
			}
			sortByDigest(s.Ports, sums)
		}
	}
	if len(subsets) > 1 {
		sums := make([][digestSize]byte, len(subsets))
		for i := range subsets {
			sums[i] = SubsetHashDigest(&subsets[i])
		}
		sortByDigest(subsets, sums)
	}
	return subsets
}

// SubsetHashDigest is the digest upstream orders subsets by: the fnv128a hash of the subset's hash dump
// (k8s.io/utils/dump ForHash, i.e. spew "%#v" with sorted keys and no pointer addresses).
// upstream: pkg/api/v1/endpoints/util.go subsetsByHash, hashObject; pkg/util/hash DeepHashObject.
func SubsetHashDigest(s *EndpointSubset) [digestSize]byte {
	h := newFNV128()
	writeSubsetHashDump(&h, s)
	return h.sum()
}

// digestSize is the size of the digests subsets and ports are ordered by (fnv128a).
const digestSize = 16

// fnv128aSum returns the fnv128a hash of b, as hash/fnv's New128a sums it.
func fnv128aSum(b []byte) [digestSize]byte {
	h := newFNV128()
	for _, c := range b {
		h.byte(c)
	}
	return h.sum()
}

// sortByDigest sorts items by their digests (ascending, byte-wise), keeping the pairing.
func sortByDigest[T any](items []T, sums [][digestSize]byte) {
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return bytes.Compare(sums[a][:], sums[b][:]) })
	sorted := make([]T, len(items))
	for i, j := range idx {
		sorted[i] = items[j]
	}
	copy(items, sorted)
}

// LessEndpointAddress orders addresses byte-wise by IP, then by targetRef UID; an address
// without targetRef sorts before one with the same IP and a targetRef.
// upstream: pkg/api/v1/endpoints/util.go LessEndpointAddress.
func LessEndpointAddress(a, b *EndpointAddress) bool {
	if c := strings.Compare(a.IP, b.IP); c != 0 {
		return c < 0
	}
	if b.TargetRef == nil {
		return false
	}
	if a.TargetRef == nil {
		return true
	}
	return a.TargetRef.UID < b.TargetRef.UID
}

func compareEndpointAddress(a, b EndpointAddress) int {
	if LessEndpointAddress(&a, &b) {
		return -1
	}
	if LessEndpointAddress(&b, &a) {
		return 1
	}
	return 0
}

// hashDumpWriter is what the dump writers need: bytes.Buffer and fnv128 both satisfy it.
type hashDumpWriter interface {
	WriteString(s string) (int, error)
}

// writeSubsetHashDump writes exactly what k8s.io/utils/dump.ForHash prints for the
// corresponding core/v1 EndpointSubset (checked against it in repack_test.go).
func writeSubsetHashDump(w hashDumpWriter, s *EndpointSubset) {
	w.WriteString("(v1.EndpointSubset){Addresses:([]v1.EndpointAddress)")
	writeAddressListHashDump(w, s.Addresses)
	w.WriteString(" NotReadyAddresses:([]v1.EndpointAddress)")
	writeAddressListHashDump(w, s.NotReadyAddresses)
	w.WriteString(" Ports:([]v1.EndpointPort)")
	if s.Ports == nil {
		w.WriteString("<nil>")
	} else {
		w.WriteString("[")
		for i := range s.Ports {
			if i > 0 {
				w.WriteString(" ")
			}
			writePortHashDump(w, &s.Ports[i], false)
		}
		w.WriteString("]")
	}
	w.WriteString("}")
}

func writeAddressListHashDump(w hashDumpWriter, list []EndpointAddress) {
	if list == nil {
		w.WriteString("<nil>")
		return
	}
	w.WriteString("[")
	for i := range list {
		if i > 0 {
			w.WriteString(" ")
		}
		writeAddressHashDump(w, &list[i])
	}
	w.WriteString("]")
}

// writeAddressHashDump writes one core/v1 EndpointAddress as a slice element of a hash dump.
func writeAddressHashDump(w hashDumpWriter, a *EndpointAddress) {
	w.WriteString("{IP:(string)")
	w.WriteString(a.IP)
	w.WriteString(" Hostname:(string)")
	w.WriteString(a.Hostname)
	w.WriteString(" NodeName:(*string)")
	if a.NodeName == nil {
		w.WriteString("<nil>")
	} else {
		w.WriteString(*a.NodeName)
	}
	w.WriteString(" TargetRef:(*v1.ObjectReference)")
	if r := a.TargetRef; r == nil {
		w.WriteString("<nil>")
	} else {
		w.WriteString("{Kind:(string)")
		w.WriteString(r.Kind)
		w.WriteString(" Namespace:(string)")
		w.WriteString(r.Namespace)
		w.WriteString(" Name:(string)")
		w.WriteString(r.Name)
		w.WriteString(" UID:(types.UID)")
		w.WriteString(r.UID)
		w.WriteString(" APIVersion:(string) ResourceVersion:(string) FieldPath:(string)}")
	}
	w.WriteString("}")
}

// writePortHashDump writes a core/v1 EndpointPort as dump.ForHash prints it; topLevel adds the
// type prefix spew prints for a value that is not a slice element.
func writePortHashDump(w hashDumpWriter, p *EndpointsPort, topLevel bool) {
	if topLevel {
		w.WriteString("(v1.EndpointPort)")
	}
	w.WriteString("{Name:(string)")
	w.WriteString(p.Name)
	w.WriteString(" Port:(int32)")
	w.WriteString(strconv.FormatInt(int64(p.Port), 10))
	w.WriteString(" Protocol:(v1.Protocol)")
	w.WriteString(string(p.Protocol))
	w.WriteString(" AppProtocol:(*string)")
	if p.AppProtocol == nil {
		w.WriteString("<nil>")
	} else {
		w.WriteString(*p.AppProtocol)
	}
	w.WriteString("}")
}
