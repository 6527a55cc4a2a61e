package rusage

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// TestMain makes the test binary its own subject: with RUSAGE_TOUCH_MB=n it touches n MiB
// and exits.
func TestMain(m *testing.M) {
	if os.Getenv("RUSAGE_TOUCH_MB") == "32" {
		b := make([]byte, 32<<20)
		for i := range b {
			b[i] = byte(i)
		}
		runtime.KeepAlive(b)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestMaxRSSKiBSeesTheTouchedMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ru_maxrss is in KiB on Linux")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "RUSAGE_TOUCH_MB=32")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	kib, ok := MaxRSSKiB(cmd.ProcessState)
	// 32 MiB touched is 32,768 KiB resident at least; the race detector's shadow memory
	// can multiply it.
	if !ok || kib < 32<<10 || kib > 2<<20 {
		t.Errorf("MaxRSSKiB of a process that touched 32 MiB: %d KiB, %v", kib, ok)
	}
}
