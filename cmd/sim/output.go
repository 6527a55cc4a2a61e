package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// outputDir writes a set of files into dir all or nothing: write renders each file into a
// temporary file in dir (same filesystem, so the rename is atomic), commit renames them all
// into place, abort removes them.
type outputDir struct {
	dir     string
	pending []pendingFile
}

type pendingFile struct{ tmp, final string }

// write renders one file into a temporary file.
func (o *outputDir) write(name string, render func(w io.Writer) error) error {
	f, err := os.CreateTemp(o.dir, "."+name+".tmp-*")
	if err != nil {
		return err
	}
	o.pending = append(o.pending, pendingFile{tmp: f.Name(), final: filepath.Join(o.dir, name)})
	bw := bufio.NewWriterSize(f, 1<<16)
	err = render(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// commit renames every temporary file to its final name.
func (o *outputDir) commit() error {
	var errs []error
	for _, p := range o.pending {
		if err := os.Rename(p.tmp, p.final); err != nil {
			errs = append(errs, err)
			os.Remove(p.tmp)
		}
	}
	o.pending = nil
	return errors.Join(errs...)
}

// abort removes every temporary file.
func (o *outputDir) abort() {
	for _, p := range o.pending {
		os.Remove(p.tmp)
	}
	o.pending = nil
}
