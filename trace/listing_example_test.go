package trace_test

import (
	"fmt"
	"strings"

	"epsim/trace"
)

// A watch of EndpointSlices starts with the slices that exist (its listing, ADDED events),
// then the changes. Listing takes the former, which a replay begins with, and Next goes on
// with the first change.
func ExampleSliceReader_Listing() {
	slice := func(typ, name string, endpoints int) string {
		var eps []string
		for i := range endpoints {
			eps = append(eps, fmt.Sprintf(`{"addresses":["10.0.0.%d"]}`, i+1))
		}
		return `{"type":"` + typ + `","object":{"kind":"EndpointSlice","apiVersion":"discovery.k8s.io/v1",` +
			`"metadata":{"name":"` + name + `","namespace":"shop","creationTimestamp":"2026-01-01T00:00:00Z"},` +
			`"addressType":"IPv4","endpoints":[` + strings.Join(eps, ",") + `]}}` + "\n"
	}
	stream := slice("ADDED", "web-abcde", 3) + slice("ADDED", "web-fghij", 1) + slice("MODIFIED", "web-fghij", 2)
	r := trace.NewSliceReader(strings.NewReader(stream), "slices.json")
	listing, err := r.Listing()
	if err != nil {
		panic(err)
	}
	for _, s := range listing {
		fmt.Printf("listed %s: %d endpoints\n", s.Name, len(s.Endpoints))
	}
	ev, err := r.Next()
	if err != nil {
		panic(err)
	}
	fmt.Printf("then %s %s: %d endpoints\n", ev.Type, ev.Slice.Name, len(ev.Slice.Endpoints))
	// Output:
	// listed web-abcde: 3 endpoints
	// listed web-fghij: 1 endpoints
	// then MODIFIED web-fghij: 2 endpoints
}
