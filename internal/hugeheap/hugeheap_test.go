package hugeheap

import "testing"

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
