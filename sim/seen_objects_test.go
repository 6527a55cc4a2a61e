package sim

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestSeenObjectsMatchesAMap drives a seenObjects and a map with the same random sets and
// removals, over lists that cross namedListScan both ways, and compares every answer.
func TestSeenObjectsMatchesAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var o seenObjects
	ref := map[string]objectEndpoints{}
	indexed := false
	for step := range 5000 {
		// Few names early and late, many in between: the list grows past the scan length
		// and shrinks below it again.
		names := 4
		if step > 1000 && step < 4000 {
			names = 40
		}
		name := fmt.Sprintf("slice-%d", rng.IntN(names))
		counts := objectEndpoints{ready: rng.Int32N(100), fallback: rng.Int32N(5), all: rng.Int32N(200)}
		var got, want objectEndpoints
		if rng.IntN(3) == 0 {
			got, want = o.remove(name), ref[name]
			delete(ref, name)
		} else {
			got, want = o.set(name, counts), ref[name]
			ref[name] = counts
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d, %s: previous counts %+v, want %+v", step, name, got, want)
		}
		if len(o.list) != len(ref) {
			t.Fatalf("step %d: %d objects, want %d", step, len(o.list), len(ref))
		}
		for i, so := range o.list {
			if o.find(so.name) != i || !reflect.DeepEqual(ref[so.name], so.counts) {
				t.Fatalf("step %d: %s at %d found at %d with %+v, want %+v", step, so.name, i, o.find(so.name), so.counts, ref[so.name])
			}
		}
		indexed = indexed || o.index != nil
	}
	if !indexed {
		t.Fatal("the list was never indexed")
	}
}
