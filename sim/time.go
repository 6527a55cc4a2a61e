package sim

import (
	"strconv"
	"time"
)

// Time is virtual time: nanoseconds since the start of a run.
type Time int64

// Duration converts t to a time.Duration.
func (t Time) Duration() time.Duration { return time.Duration(t) }

// Seconds returns t in seconds.
func (t Time) Seconds() float64 { return float64(t) / 1e9 }

// String formats t like a time.Duration ("1m30s").
func (t Time) String() string { return time.Duration(t).String() }

// MarshalJSON writes t as a Go duration string.
func (t Time) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(t.String())), nil }
