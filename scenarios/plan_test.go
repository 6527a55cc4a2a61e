package scenarios

import (
	"testing"
)

func TestLoadShippedPlansQuickCheck(t *testing.T) {
	for _, name := range PlanNames() {
		p, err := LoadPlan(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: %d points %v", name, len(p.Points), p.Points[len(p.Points)-1].Sets)
	}
}
