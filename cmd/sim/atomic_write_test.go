//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// writeUnderUmask writes text to path with writeFileAtomic under umask and returns what
// the file is then.
func writeUnderUmask(t *testing.T, path string, umask int, text string) os.FileInfo {
	t.Helper()
	old := syscall.Umask(umask)
	err := writeFileAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, text); return err })
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != text {
		t.Fatalf("the file holds %q, want %q", b, text)
	}
	return st
}

// TestWriteFileAtomicMode: a new file written whole (an import, a baseline, a plan partial)
// gets the mode a plain create gives it under the umask, as every other output does; it was
// 0644 whatever the umask. A file it replaces keeps its own mode (0600 became 0644).
func TestWriteFileAtomicMode(t *testing.T) {
	for _, umask := range []int{0o022, 0o027} {
		path := filepath.Join(t.TempDir(), "f.yaml")
		st := writeUnderUmask(t, path, umask, "x\n")
		if got, want := st.Mode().Perm(), os.FileMode(0o666&^umask); got != want {
			t.Errorf("umask %#o: mode %v, want %v", umask, got, want)
		}
		if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) > 0 {
			t.Errorf("temporaries left: %q", left)
		}
		for _, mode := range []os.FileMode{0o600, 0o664, 0o640} {
			if err := os.Chmod(path, mode); err != nil {
				t.Fatal(err)
			}
			if got := writeUnderUmask(t, path, umask, "y\n").Mode().Perm(); got != mode {
				t.Errorf("umask %#o: a file of mode %v replaced is of mode %v, want it kept", umask, mode, got)
			}
		}
	}
}
