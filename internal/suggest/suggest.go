// Package suggest finds the names a mistyped one was probably meant to be, for "did you mean"
// hints in error messages.
package suggest

import (
	"slices"
	"strings"
)

// Closest returns up to n of allowed nearest to got by edit distance (case-insensitive): the
// nearest ones only, ties in allowed's order, none further than maxDist. A name got is a
// prefix of counts as distance 1 (a name cut short, like propagation.p99 for p99Seconds).
func Closest(got string, allowed []string, n, maxDist int) []string {
	type cand struct {
		name string
		dist int
	}
	var cands []cand
	g := strings.ToLower(got)
	for _, a := range allowed {
		la := strings.ToLower(a)
		d := EditDistance(g, la)
		if strings.HasPrefix(la, g) {
			d = min(d, 1)
		}
		if d <= maxDist {
			cands = append(cands, cand{a, d})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return a.dist - b.dist })
	out := make([]string, 0, min(n, len(cands)))
	for _, c := range cands {
		if len(out) == n || c.dist > cands[0].dist {
			break
		}
		out = append(out, c.name)
	}
	return out
}

// EditDistance is the Levenshtein distance between a and b, over bytes. Inputs longer than
// 64 bytes are compared on their first 64 bytes (names are shorter; this bounds the cost of a
// hostile input).
func EditDistance(a, b string) int {
	a, b = a[:min(len(a), 64)], b[:min(len(b), 64)]
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
