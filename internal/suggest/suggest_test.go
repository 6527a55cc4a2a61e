package suggest

import (
	"slices"
	"testing"
)

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"fanoutBytes", "fanoutbytes", 1}, {"same", "same", 0},
	} {
		if got := EditDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	allowed := []string{"failedWrites", "fanoutBytes", "etcdBytes", "propagation.p99Seconds", "propagation.p90Seconds"}
	for _, tc := range []struct {
		got  string
		want []string
	}{
		{"failedWrite", []string{"failedWrites"}},
		{"FANOUTBYTES", []string{"fanoutBytes"}},
		{"propagation.p9", []string{"propagation.p99Seconds", "propagation.p90Seconds"}},
		{"zzzzzzzz", nil},
	} {
		if got := Closest(tc.got, allowed, 3, 3); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("Closest(%q) = %q, want %q", tc.got, got, tc.want)
		}
	}
}
