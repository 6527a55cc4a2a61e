package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// TestTokenBucketMatchesRateLimiter drives the model's bucket and the limiter client-go's
// token bucket wraps (golang.org/x/time/rate, as flowcontrol.NewTokenBucketRateLimiter
// makes it) with the same requests, and compares when each may go. Some requests are put
// off (reserveLater, made ahead of the clock); the real limiter sees every request at its
// own time, so it is given them all in time order. Its answer is a time.Duration, the
// model's a Time: they may differ by a nanosecond of rounding.
func TestTokenBucketMatchesRateLimiter(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 7))
		qps := []float64{0.5, 5, 20, 50, 100}[rng.IntN(5)]
		burst := 1 + rng.IntN(40)
		b := newTokenBucket(qps, burst)
		lim := rate.NewLimiter(rate.Limit(qps), burst)

		type request struct {
			at    Time
			later bool // put off: made ahead of the clock, its time not waited for
			order int
		}
		var reqs []request
		var now Time
		for i := range 300 {
			// Bursts of requests at one instant, quiet spells that refill the bucket.
			switch rng.IntN(4) {
			case 0:
				now += Time(rng.Int64N(int64(3 * float64(time.Second) / qps)))
			case 1:
				now += Time(rng.Int64N(int64(time.Millisecond)))
			}
			r := request{at: now, order: i}
			if rng.IntN(3) == 0 {
				r.later = true
				r.at = now + Time(rng.Int64N(int64(500*time.Millisecond)))
			}
			reqs = append(reqs, r)
		}
		got := map[int]Time{}
		for _, r := range reqs {
			if r.later {
				b.reserveLater(r.at)
			} else {
				got[r.order] = b.reserve(r.at)
			}
		}
		if b.behind != 0 {
			t.Fatalf("seed %d: %d requests reserved out of order", seed, b.behind)
		}
		if b.taken != int64(len(reqs)) {
			t.Fatalf("seed %d: taken = %d, want %d", seed, b.taken, len(reqs))
		}

		// The real limiter: every request at its own time, a put-off one before the
		// requests reserved at its time or later (it was recorded first).
		inOrder := slices.Clone(reqs)
		slices.SortStableFunc(inOrder, func(x, y request) int {
			if x.at != y.at {
				return int(x.at - y.at)
			}
			if x.later != y.later {
				if x.later {
					return -1
				}
				return 1
			}
			return 0
		})
		checked := 0
		for _, r := range inOrder {
			at := start.Add(time.Duration(r.at))
			res := lim.ReserveN(at, 1)
			if !res.OK() {
				t.Fatalf("seed %d: the limiter refused a request", seed)
			}
			if r.later {
				continue
			}
			want := r.at + Time(res.DelayFrom(at))
			if d := got[r.order] - want; d < -1 || d > 1 {
				t.Fatalf("seed %d (qps %v, burst %d): request %d at %v may go at %v, limiter says %v",
					seed, qps, burst, r.order, r.at, got[r.order], want)
			}
			checked++
		}
		if checked == 0 {
			t.Fatalf("seed %d: no request compared", seed)
		}
	}
}
