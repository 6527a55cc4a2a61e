package sim

import (
	"fmt"
	"time"
)

// A kube-proxy whose connection was found lost keeps trying to list and watch again while its
// node is cut off, and gets through only at one of its attempts' connection tries after the
// network is back, not the instant it is back. Its reflector's loop: ListAndWatch, which
// fails, then a delay that doubles from 0.8 s to 30 s with up to as much again of jitter,
// then again. A kube-proxy of 1.37 first asks for a watch list and, when that fails, falls
// back to a LIST within the same ListAndWatch; one of Endpoints (before 1.19) asks for a
// LIST. Each request dials a new connection (the lost one is closed), which times out after
// 30 s: a cut-off node's SYNs go unanswered, and Linux sends them 0, 1, 3, 7 and 15 s into
// the dial (initial RTO 1 s, doubling). The first SYN sent once the network is back gets
// through, and that request lists: a watch list (its events gzipped, and the watch after it
// too: watchLists), or a LIST.
// upstream: client-go tools/cache/reflector.go (RunWithContext: delayHandler.Until;
// defaultBackoffInit, defaultBackoffMax, defaultBackoffReset, defaultBackoffFactor,
// defaultBackoffJitter; ListAndWatchWithContext: fallbackToList; isWatchErrorRetriable: a
// dial timeout is not retried within watchList), apimachinery util/wait/backoff.go
// (Backoff.Step, DelayWithReset, Jitter), client-go transport/cache.go (dial Timeout 30 s);
// Linux net.ipv4.tcp_syn_retries (6) and TCP_TIMEOUT_INIT (1 s).
const (
	reflectorBackoffInit  = Time(800 * time.Millisecond)
	reflectorBackoffMax   = Time(30 * time.Second)
	reflectorBackoffReset = Time(2 * time.Minute)
	dialTimeout           = Time(30 * time.Second)
)

// synTimes are when a dial sends its SYNs, from its start, within dialTimeout.
var synTimes = [...]Time{0, Time(time.Second), Time(3 * time.Second), Time(7 * time.Second), Time(15 * time.Second)}

// reconnect is when a kube-proxy gets through to the API server again and how it lists.
type reconnect struct {
	at        Time
	watchList bool
}

// reconnectAfterLoss returns when a kube-proxy of mode m that found its connection lost at
// lost, cut off until back (at least lost), lists again. jitter draws the backoff's jitter
// (a float in [0, 1), math/rand's Float64).
func reconnectAfterLoss(m Mode, lost, back Time, jitter func() float64) reconnect {
	if back < lost {
		panic(fmt.Sprintf("sim: reconnect: back at %v before the connection was lost at %v", back, lost))
	}
	requests := 1 // a LIST
	if m == ModeEndpointSlices {
		requests = 2 // a watch list, then the LIST it falls back to
	}
	// The backoff as Backoff.Step makes it: the delay doubles until it reaches the cap, and
	// stays there. DelayWithReset starts it again from the first delay at a draw more than
	// reflectorBackoffReset after its last start (the reflector's creation, long before, so
	// the first draw starts it; then every two minutes of failures).
	delay, capped := reflectorBackoffInit, false
	lastReset := lost - reflectorBackoffReset - 1
	t := lost
	for {
		if t-lastReset > reflectorBackoffReset {
			delay, capped, lastReset = reflectorBackoffInit, false, t
		}
		d := delay
		if !capped {
			if delay *= 2; delay > reflectorBackoffMax {
				delay, capped = reflectorBackoffMax, true
			}
		}
		t += d + Time(jitter()*float64(d))
		for r := range requests {
			for _, syn := range synTimes {
				if t+syn >= back {
					return reconnect{at: t + syn, watchList: m == ModeEndpointSlices && r == 0}
				}
			}
			t += dialTimeout
		}
	}
}
