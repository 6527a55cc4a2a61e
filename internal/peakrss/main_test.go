package main

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestMain makes the test binary its own test subject: with PEAKRSS_TOUCH_MB=n it touches n MB
// and exits.
func TestMain(m *testing.M) {
	if v := os.Getenv("PEAKRSS_TOUCH_MB"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			panic(err)
		}
		b := make([]byte, n<<20)
		for i := range b {
			b[i] = byte(i)
		}
		runtime.KeepAlive(b)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestPeakMBSeesWhatTheProcessTouches(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS is read as Linux gives it")
	}
	if raceDetector {
		t.Skip("the race detector's shadow memory multiplies the resident memory measured")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	small, err := peakMB(self, nil, append(os.Environ(), "PEAKRSS_TOUCH_MB=1"))
	if err != nil {
		t.Fatal(err)
	}
	big, err := peakMB(self, nil, append(os.Environ(), "PEAKRSS_TOUCH_MB=64"))
	if err != nil {
		t.Fatal(err)
	}
	// 63 MiB more touched is 66 MB more resident, less what the small run had resident anyway.
	if d := big - small; d < 60 || d > 80 {
		t.Errorf("peak RSS touching 64 MiB: %.1f MB, touching 1 MiB: %.1f MB (difference %.1f, want about 66)", big, small, d)
	}
}

func TestSummary(t *testing.T) {
	for _, c := range []struct {
		v     []float64
		limit float64
		want  string
	}{
		{[]float64{3, 1, 2}, 0, "b: 3 runs, 1.0–3.0 MB, median 2.0, mean 2.0"},
		{[]float64{4, 1, 2, 3}, 2, "b: 4 runs, 1.0–4.0 MB, median 2.5, mean 2.5, 2 at most 2 MB"},
	} {
		if got := summary("b", c.v, c.limit); got != c.want {
			t.Errorf("summary(%v, %g) = %q, want %q", c.v, c.limit, got, c.want)
		}
	}
}

func TestRunRefusesMissingBuilds(t *testing.T) {
	err := run([]string{"-base", "x"})
	if err == nil || !strings.Contains(err.Error(), "want -base, -new") {
		t.Errorf("run without -new: %v", err)
	}
}
