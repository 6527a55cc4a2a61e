package model

import (
	"fmt"
	"os"
	"reflect"
	"testing"
)

// TestMain checks every desired endpoint syncPortMap takes from a clean stored endpoint with
// hints against the endpoint built from its pod (checkCleanHinted).
func TestMain(m *testing.M) {
	cleanHintedCheck = checkCleanHinted
	os.Exit(m.Run())
}

// cleanHintedChecks counts checkCleanHinted's checks.
var cleanHintedChecks int

func checkCleanHinted(s *ServiceSlices, f *family, h endpointHash, d *Endpoint) {
	cleanHintedChecks++
	st := f.ids.ref(h)
	if st == nil {
		panic(fmt.Sprintf("Service %s: a clean stored endpoint with hints has no identity record", s.svc.Name))
	}
	pe := s.entryOf(st.ref())
	if pe == nil {
		panic(fmt.Sprintf("Service %s: a clean stored endpoint with hints has no pod", s.svc.Name))
	}
	if want := s.desiredEndpoint(pe, familyIndex(f.at)); !reflect.DeepEqual(&want, d) {
		panic(fmt.Sprintf("Service %s: the stored endpoint without hints is %+v, its pod's desired endpoint %+v", s.svc.Name, *d, want))
	}
}
