package main

import (
	"flag"

	"epsim/sim"
)

// commandProfiles are --cpuprofile and --memprofile of a command that runs several
// simulations in one process, side by side or one after the other (check's scenarios,
// plan's points): a CPU profile of the whole command, and one heap profile near the
// largest live heap its runs reach together, which is what the machine has to hold.
type commandProfiles struct {
	cmd      string // the command, for errors
	cpu, mem string // the flags' files ("": not asked for)
	stopCPU  func() error
	heap     *peakHeapProfiler
}

// addFlags defines --cpuprofile and --memprofile on fs; what names what the command runs
// ("the scenarios", "the points"), for the help.
func (p *commandProfiles) addFlags(fs *flag.FlagSet, cmd, what string) {
	p.cmd = cmd
	fs.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of the whole command to `FILE`")
	fs.StringVar(&p.mem, "memprofile", "", "write a heap profile to `FILE`, taken near the largest live heap of "+what+" together")
}

// check is the usage error of flags that cannot go together, or nil: --cpuprofile and
// --memprofile naming one file (both would write it, and it would hold neither profile
// whole: pprof read "invalid header"), or a profile in a file of out, the command's --out
// DIR ("": none; clearOfOutputs). Run and replay, which profile one run their own way,
// check their flags with it too.
func (p *commandProfiles) check(out string) error {
	if p.cpu != "" && p.mem != "" && samePath(p.cpu, p.mem) {
		return usageErrorf(p.cmd, "--cpuprofile and --memprofile name one file, %s: give each a file of its own", p.mem)
	}
	return clearOfOutputs(p.cmd, out, p.files()...)
}

// files are the profiles' flags and files, {flag, path} (path "": not asked for).
func (p *commandProfiles) files() [][2]string {
	return [][2]string{{"--cpuprofile", p.cpu}, {"--memprofile", p.mem}}
}

// flagAt returns the flag of the profile that path names (by any name: samePath), or ""
// for none (and for path "").
func (p *commandProfiles) flagAt(path string) string {
	for _, f := range p.files() {
		if path != "" && f[1] != "" && samePath(f[1], path) {
			return f[0]
		}
	}
	return ""
}

// start checks that the profiles' files can be written and starts the CPU profile, before
// anything runs; stop must follow, and writeHeap once the runs are done.
func (p *commandProfiles) start() error {
	if p.mem != "" {
		if err := startHeapProfile(p.cmd, p.mem); err != nil {
			return err
		}
		p.heap = newPeakHeapProfiler(nil)
	}
	if p.cpu != "" {
		stop, err := startCPUProfile(p.cmd, p.cpu)
		if err != nil {
			return err
		}
		p.stopCPU = stop
	}
	return nil
}

// floored reports whether the runs may keep the collector's floor (gcfloor): not under
// --memprofile, as a heap profile is of a collection and small runs under the floor make
// none (as sim run's --memprofile).
func (p *commandProfiles) floored() bool { return p.heap == nil }

// watch returns the Observer of one run: next (nil for none), and the heap sampled at each
// of its reports under --memprofile.
func (p *commandProfiles) watch(next sim.Observer) sim.Observer {
	if p.heap == nil {
		return next
	}
	return p.heap.watch(next)
}

// writeHeap writes the heap profile, if --memprofile asked for one, once the runs are done.
func (p *commandProfiles) writeHeap() error {
	if p.heap == nil {
		return nil
	}
	return p.heap.writeTo(p.mem)
}

// stop ends the CPU profile, if one runs, and returns err, or the error of ending it when
// err is nil. A second call does nothing.
func (p *commandProfiles) stop(err error) error {
	if p.stopCPU == nil {
		return err
	}
	serr := p.stopCPU()
	p.stopCPU = nil
	if err == nil {
		err = serr
	}
	return err
}
