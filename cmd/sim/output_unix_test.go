//go:build unix

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// TestOutKeepsModeAndGroup: the directory that replaces --out keeps the old one's
// permissions, its setgid and sticky bits and its group, and, run as root, its owner: a
// team's shared directory (setgid, the team's group) lost both to a run that wrote into
// it, and the team its access to the files in it; a user's, run into by root, became
// root's.
func TestOutKeepsModeAndGroup(t *testing.T) {
	gid, uid := -1, -1 // a group and owner this process may give a directory, other than its own
	if os.Geteuid() == 0 {
		gid, uid = 1, 1
	} else if groups, err := os.Getgroups(); err == nil {
		if i := slices.IndexFunc(groups, func(g int) bool { return g != os.Getegid() }); i >= 0 {
			gid = groups[i]
		}
	}
	for _, mode := range []fs.FileMode{0o750, 0o700 | fs.ModeSetgid, 0o777 | fs.ModeSetgid | fs.ModeSticky} {
		out := filepath.Join(t.TempDir(), "out")
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		if gid >= 0 {
			if err := os.Chown(out, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(out, mode); err != nil {
			t.Fatal(err)
		}
		before, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		te := realEnv()
		if code := te.main([]string{"run", "quick", "--quiet", "--charts=false", "--out", out}); code != exitOK {
			t.Fatalf("exit %d: %s", code, te.stderr.String())
		}
		after, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		if os.SameFile(before, after) {
			t.Fatal("--out was not replaced: the test tests nothing")
		}
		kept := fs.ModePerm | fs.ModeSetgid | fs.ModeSticky
		if got := after.Mode() & kept; got != mode {
			t.Errorf("--out of mode %v is %v after the run", mode, got)
		}
		s0, s1 := before.Sys().(*syscall.Stat_t), after.Sys().(*syscall.Stat_t)
		if s0.Gid != s1.Gid || s0.Uid != s1.Uid {
			t.Errorf("--out of owner %d and group %d is of %d and %d after the run", s0.Uid, s0.Gid, s1.Uid, s1.Gid)
		}
	}
}
