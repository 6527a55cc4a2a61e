package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// z99 is the standard normal quantile at 0.99, used to fit a lognormal by median and p99.
const z99 = 2.3263478740408408

// sampler draws delays from a Distribution with a given random stream.
type sampler struct {
	d    Distribution
	rng  *rand.Rand
	logn distuv.LogNormal
	exp  distuv.Exponential
}

func newSampler(d Distribution, rng *rand.Rand) *sampler {
	s := &sampler{d: d, rng: rng}
	switch d.Kind {
	case DistLognormal:
		mu := math.Log(float64(d.Median))
		sigma := 0.0
		if d.P99 > d.Median && d.Median > 0 {
			sigma = (math.Log(float64(d.P99)) - mu) / z99
		}
		s.logn = distuv.LogNormal{Mu: mu, Sigma: sigma, Src: rng}
	case DistExponential:
		rate := 0.0
		if d.Mean > 0 {
			rate = 1 / float64(d.Mean)
		}
		s.exp = distuv.Exponential{Rate: rate, Src: rng}
	}
	return s
}

// sample returns one delay, never negative.
func (s *sampler) sample() Time {
	var v float64
	switch s.d.Kind {
	case DistFixed, "":
		return Time(max(s.d.Value, 0))
	case DistUniform:
		if s.d.Max <= s.d.Min {
			return Time(max(s.d.Min, 0))
		}
		return Time(s.d.Min) + Time(s.rng.Int64N(int64(s.d.Max-s.d.Min)+1))
	case DistLognormal:
		if s.d.Median <= 0 {
			return 0
		}
		v = s.logn.Rand()
	case DistExponential:
		if s.d.Mean <= 0 {
			return 0
		}
		v = s.exp.Rand()
	default:
		panic(fmt.Sprintf("sim: unknown distribution kind %q", s.d.Kind))
	}
	if v < 0 || math.IsNaN(v) {
		return 0
	}
	if v > float64(100*24*time.Hour) {
		v = float64(100 * 24 * time.Hour)
	}
	return Time(v)
}

// String describes the distribution ("fixed 5s", "lognormal median 8s p99 40s").
func (d Distribution) String() string {
	switch d.Kind {
	case DistUniform:
		return fmt.Sprintf("uniform %v..%v", d.Min, d.Max)
	case DistLognormal:
		return fmt.Sprintf("lognormal median %v p99 %v", d.Median, d.P99)
	case DistExponential:
		return fmt.Sprintf("exponential mean %v", d.Mean)
	}
	return fmt.Sprintf("fixed %v", d.Value)
}

// Stream identifiers for the run's random streams, derived from the one scenario seed in a
// fixed order so that adding an actor never perturbs another's draws.
const (
	streamNames uint64 = iota + 1
	streamPlacement
	streamKubelet
	streamEndpointSliceAPI
	streamEndpointsAPI
	streamWorkload
	streamNodeLifecycle
	// The names and UIDs of the objects each control plane creates: drawn from the pods'
	// stream, they made the pods' names depend on which modes ran.
	streamEndpointSliceNames
	streamEndpointsNames
	// The informers' resync period (ControlPlaneConfig.MinResyncPeriod).
	streamResync
	// The timeouts of the kube-proxies' watches that began as watch lists (watchLists).
	streamWatchTimeouts
	// The backoff jitter of each mode's kube-proxies getting through after a failure
	// (reconnectAfterLoss).
	streamReconnectEndpointSlices
	streamReconnectEndpoints
)

// newStream returns the named random stream of a run.
func newStream(seed, id uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, id)) }
