package hugeheap

import (
	"testing"
	"time"
)

func TestThpMode(t *testing.T) {
	for _, c := range []struct{ setting, want string }{
		{"always [madvise] never\n", "madvise"},
		{"[always] madvise never\n", "always"},
		{"always madvise [never]\n", "never"},
		{"always madvise never\n", ""},
		{"", ""},
		{"] [", ""},
	} {
		if got := thpMode(c.setting); got != c.want {
			t.Errorf("thpMode(%q) = %q, want %q", c.setting, got, c.want)
		}
	}
}

func TestThpDisabled(t *testing.T) {
	for _, c := range []struct {
		godebug string
		want    bool
	}{
		{"", false},
		{"disablethp=1", true},
		{"gctrace=1,disablethp=1", true},
		{"disablethp=0", false},
		{"disablethp=1,disablethp=0", false}, // the last setting wins
		{"xdisablethp=1", false},
		{" disablethp=1 ", true},
	} {
		if got := thpDisabled(c.godebug); got != c.want {
			t.Errorf("thpDisabled(%q) = %v, want %v", c.godebug, got, c.want)
		}
	}
}

func TestHugePageSpan(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct{ p, n, beg, end uintptr }{
		{0, 4 * mib, 0, 4 * mib},
		{1, 4 * mib, 0, 6 * mib},
		{3 * mib, 4 * mib, 2 * mib, 8 * mib},
		{3 * mib, 1, 2 * mib, 4 * mib},
		{2 * mib, 2*mib - 1, 2 * mib, 4 * mib},
		{2*mib - 1, 2, 0, 4 * mib},
	} {
		if beg, end := hugePageSpan(c.p, c.n); beg != c.beg || end != c.end {
			t.Errorf("hugePageSpan(%#x, %#x) = %#x, %#x; want %#x, %#x", c.p, c.n, beg, end, c.beg, c.end)
		}
	}
}

// The verdict on huge pages: cheaper only when every one of the probes faulted in faster
// than the small window, stopping at the first that did not (the blocks freed last come
// first, so a few cheap ones say nothing of the rest) or that could not be mapped.
func TestHugeFaultsCheaper(t *testing.T) {
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	repeat := func(d time.Duration, n int) []time.Duration {
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = d
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		small  time.Duration
		huge   []time.Duration // then a failed mapping
		want   bool
		probes int
	}{
		{"every huge page cheap (blocks just freed)", ms(1), repeat(ms(0.2), 8), true, 8},
		{"small pages slow (a fresh machine)", ms(6), repeat(ms(4.5), 8), true, 8},
		{"a few cheap blocks, then dear ones", ms(1), append(repeat(ms(0.2), 7), ms(7), ms(0.2)), false, 8},
		{"the first huge page dear", ms(1), []time.Duration{ms(5)}, false, 1},
		{"as slow as the small window", ms(1), []time.Duration{ms(1)}, false, 1},
		{"a mapping failed", ms(6), []time.Duration{ms(0.2)}, false, 2},
	} {
		probes := 0
		got := hugeFaultsCheaper(tc.small, 8, func() (time.Duration, bool) {
			probes++
			if probes > len(tc.huge) {
				return 0, false
			}
			return tc.huge[probes-1], true
		})
		if got != tc.want || probes != tc.probes {
			t.Errorf("%s: %v after %d probes, want %v after %d", tc.name, got, probes, tc.want, tc.probes)
		}
	}
}

// A heap's probes: one per 16 MiB, from 8 to 32.
func TestHugeProbes(t *testing.T) {
	for _, tc := range []struct {
		heap int64
		want int
	}{{minBytes, 8}, {107 << 20, 8}, {160 << 20, 10}, {398 << 20, 24}, {647 << 20, 32}, {12 << 30, 32}} {
		if got := hugeProbes(tc.heap); got != tc.want {
			t.Errorf("hugeProbes(%d MiB) = %d, want %d", tc.heap>>20, got, tc.want)
		}
	}
}
