package sim

// tokenBucket is client-go's client-side rate limiter (a token bucket of QPS and burst) on
// virtual time. Tokens may be reserved ahead: a caller learns when its request may go.
// upstream: client-go util/flowcontrol NewTokenBucketRateLimiter (golang.org/x/time/rate).
type tokenBucket struct {
	qps    float64
	burst  float64
	tokens float64
	last   Time
	// taken counts the tokens taken: the client's calls.
	taken int64
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

// reserve takes one token for a request wanting to go at t and returns when it may go.
// A QPS of 0 or less means unlimited.
func (b *tokenBucket) reserve(t Time) Time {
	b.taken++
	if b.qps <= 0 {
		return t
	}
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
