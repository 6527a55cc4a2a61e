package sim

import "slices"

// tokenBucket is client-go's client-side rate limiter (a token bucket of QPS and burst) on
// virtual time. A caller learns when its request may go. Requests take their tokens in the
// order of their times, as the real limiter sees them: reserve is called at the request's
// own time (never ahead of the clock), and a request nobody waits on (an Event the
// broadcaster writes later) is put off with reserveLater until the bucket reaches its time.
// upstream: client-go util/flowcontrol NewTokenBucketRateLimiter (golang.org/x/time/rate:
// Limiter.Wait reserves at the time of the call).
type tokenBucket struct {
	qps    float64
	burst  float64
	tokens float64
	last   Time
	// later are the times of the requests put off by reserveLater, ascending.
	later []Time
	// taken counts the tokens taken: the client's calls.
	taken int64
	// behind counts the requests reserved at a time before an earlier-reserved one's: out of
	// the order the real limiter would see them in (tests check the callers never do it).
	behind int64
}

func newTokenBucket(qps float64, burst int) *tokenBucket {
	return &tokenBucket{qps: qps, burst: float64(burst), tokens: float64(burst)}
}

// refund gives back the token of a reserved request that was not made (a scheduling
// attempt that found no node makes no binding call). Requests already reserved behind it
// keep their times; later ones find the token.
func (b *tokenBucket) refund() {
	b.taken--
	if b.qps > 0 {
		b.tokens = min(b.tokens+1, b.burst)
	}
}

// reserve takes one token for a request made at t and returns when it may go. Requests
// put off to t or before take theirs first. A QPS of 0 or less means unlimited.
func (b *tokenBucket) reserve(t Time) Time {
	b.taken++
	if b.qps <= 0 {
		return t
	}
	if t < b.last {
		b.behind++
	}
	b.takeLater(t)
	return b.take(t)
}

// reserveLater takes one token for a request made at t, which may be ahead of the clock,
// whose caller does not wait for it: the token is taken when a request at t or after is
// reserved, so the requests made meanwhile go first, as they would.
func (b *tokenBucket) reserveLater(t Time) {
	b.taken++
	if b.qps <= 0 {
		return
	}
	if t <= b.last {
		b.take(t)
		return
	}
	i, _ := slices.BinarySearch(b.later, t+1) // after those at t: first put off, first served
	b.later = slices.Insert(b.later, i, t)
}

// takeLater takes the tokens of the requests put off to t or before, in their order.
func (b *tokenBucket) takeLater(t Time) {
	n := 0
	for n < len(b.later) && b.later[n] <= t {
		b.take(b.later[n])
		n++
	}
	if n == len(b.later) {
		b.later = b.later[:0]
	} else if n > 0 {
		b.later = b.later[n:]
	}
}

// take takes one token at t (not before the bucket's last request) and returns when the
// request may go.
func (b *tokenBucket) take(t Time) Time {
	if t > b.last {
		b.tokens += (t - b.last).Seconds() * b.qps
		if b.tokens > b.burst {
			b.tokens = b.burst
		}
		b.last = t
	}
	b.tokens--
	if b.tokens >= 0 {
		return t
	}
	wait := Time(-b.tokens / b.qps * 1e9)
	return b.last + wait
}
