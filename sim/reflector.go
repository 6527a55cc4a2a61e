package sim

import (
	"fmt"
	"time"
)

// A kube-proxy whose connection was found lost keeps trying to list and watch again while its
// node is cut off, and gets through only at one of its tries' connection attempts after the
// network is back, not the instant it is back. Every try dials a new connection (the lost
// one is closed), which times out after 30 s: a cut-off node's SYNs go unanswered, and Linux
// sends them 0, 1, 3, 7 and 15 s into the dial (initial RTO 1 s, doubling). The first SYN
// sent once the network is back gets through, and that request lists.
//
// A kube-proxy of 1.37 (EndpointSlices): its reflector waits one backoff step (0.8 to 1.6 s)
// after the lost watch, then asks for a watch list. The REST client retries a watch whose
// dial timed out, 1 s after it (Retry-After 1), up to 10 times, then returns an empty watch,
// and the reflector asks for a watch list again at once: so it dials every 31 s (30 s after
// an eleventh try), and gets through 0 to 16 s after the return, with a watch list.
//
// A kube-proxy of Endpoints (before 1.19, a LIST and no watch list; its client retries no
// dial): each ListAndWatch is one LIST, and the reflector waits between them a delay that
// doubles from 0.8 s to 30 s, with up to as much again of jitter. Its backoff starts again
// only after two minutes without a try, which never happens while it tries: it gets through
// 0 to 75 s after the return.
//
// upstream: client-go tools/cache/reflector.go (RunWithContext: delayHandler.Until, one
// backoffManager step after the lost watch; defaultBackoffInit, defaultBackoffMax,
// defaultBackoffFactor, defaultBackoffJitter; watchList: another watch list after an empty
// watch), rest/request.go Watch (a timeout is retried; after the retries an empty watch),
// rest/with_retry.go (maxRetries 10, retryAfterResponse: 1 s), apimachinery
// util/wait/backoff.go (delay; exponentialBackoffManagerImpl, 1.18's: its reset clock set
// at every step), client-go transport/cache.go (dial Timeout 30 s); Linux
// net.ipv4.tcp_syn_retries (6) and TCP_TIMEOUT_INIT (1 s). A cut that refuses connections
// (EHOSTUNREACH) rather than dropping them makes a 1.37 kube-proxy fall back to a LIST: not
// modelled.
const (
	reflectorBackoffInit = Time(800 * time.Millisecond)
	reflectorBackoffMax  = Time(30 * time.Second)
	dialTimeout          = Time(30 * time.Second)
	// watchRetryAfter and watchTries are the REST client's retries of a watch that timed
	// out: 1 s apart, 11 tries in all; watchRound is the time of those 11 tries.
	watchRetryAfter = Time(time.Second)
	watchTries      = 11
	watchRound      = watchTries*dialTimeout + (watchTries-1)*watchRetryAfter
	// retriesFollowed is how much of a long cut the Endpoints kube-proxy's tries are
	// followed for (reconnectAfterLoss).
	retriesFollowed = Time(time.Hour)
)

// synTimes are when a dial sends its SYNs, from its start, within dialTimeout.
var synTimes = [...]Time{0, Time(time.Second), Time(3 * time.Second), Time(7 * time.Second), Time(15 * time.Second)}

// gotThrough returns the first SYN time of a dial started at t that is at or after back, and
// whether there is one.
func gotThrough(t, back Time) (Time, bool) {
	for _, syn := range synTimes {
		if t+syn >= back {
			return t + syn, true
		}
	}
	return 0, false
}

// reconnectAfterLoss returns when a kube-proxy of mode m that found its connection lost at
// lost, cut off until back (at least lost), gets through and lists again. jitter draws the
// backoff's jitter (a float in [0, 1), math/rand's Float64).
func reconnectAfterLoss(m Mode, lost, back Time, jitter func() float64) Time {
	if back < lost {
		panic(fmt.Sprintf("sim: reconnect: back at %v before the connection was lost at %v", back, lost))
	}
	// The reflector's backoff as Backoff.Step makes it, from its first delay: it doubles until
	// it reaches the cap, and stays there.
	delay, capped := reflectorBackoffInit, false
	if m == ModeEndpoints && back-lost > retriesFollowed {
		// After a few minutes the tries of a long cut repeat at the capped delay, with
		// their jitter: they are followed from an hour before the return, so that a cut of
		// weeks costs no more than one of an hour.
		lost, delay, capped = back-retriesFollowed, reflectorBackoffMax, true
	}
	t := lost
	for {
		d := delay
		if !capped {
			if delay *= 2; delay > reflectorBackoffMax {
				delay, capped = reflectorBackoffMax, true
			}
		}
		t += d + Time(jitter()*float64(d))
		if m == ModeEndpointSlices {
			// Watch lists from now on, tried again and again without the backoff: rounds
			// of 11 tries, the same each (the rounds before the return are skipped).
			if back > t {
				t += (back - t) / watchRound * watchRound
			}
			for try := 0; ; try++ {
				if at, ok := gotThrough(t, back); ok {
					return at
				}
				t += dialTimeout
				if try%watchTries != watchTries-1 {
					t += watchRetryAfter
				}
			}
		}
		if at, ok := gotThrough(t, back); ok {
			return at
		}
		t += dialTimeout
	}
}
