package sim

import (
	"math/rand/v2"
	"testing"
)

// TestPodNameAndUID checks that naming a pod in one allocation draws what suffix and uid
// draw, and draws the suffix again while the name is taken.
func TestPodNameAndUID(t *testing.T) {
	for _, takenFirst := range []int{0, 1, 3} {
		ref := newNameGenerator(rand.New(rand.NewPCG(7, 8)))
		var names []string
		for range takenFirst + 1 {
			names = append(names, "web-abc-"+ref.suffix(5))
		}
		wantUID := ref.uid()

		g := newNameGenerator(rand.New(rand.NewPCG(7, 8)))
		calls := 0
		name, uid := g.podNameAndUID("web", "abc", func(b []byte) bool {
			if string(b) != names[calls] {
				t.Errorf("candidate %d = %q, want %q", calls, b, names[calls])
			}
			calls++
			return calls <= takenFirst
		})
		if name != names[takenFirst] || uid != wantUID || calls != takenFirst+1 {
			t.Errorf("taken %d times: got %q %q after %d candidates, want %q %q", takenFirst, name, uid, calls, names[takenFirst], wantUID)
		}
		if next, want := g.suffix(5), ref.suffix(5); next != want {
			t.Errorf("the streams part after naming: %q, want %q", next, want)
		}
	}
}
