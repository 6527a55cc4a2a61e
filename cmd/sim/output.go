package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// An --out directory is written all or nothing, and the same way by every command:
//
//  1. openOutputDir, before any long work: --out must be a directory (created if missing,
//     and then removed again if the run ends without committing) that this process may
//     write, and its parent too; an exclusive lock on it makes a second sim writing into
//     the same directory fail at once; temporaries an earlier killed sim left behind are
//     removed; a staging directory is created beside it.
//  2. write renders each file into the staging directory.
//  3. commit carries over what must survive (files this run does not write that are not
//     outputs of an earlier sim run), then swaps the staging directory and --out in one
//     atomic rename (renameat2 RENAME_EXCHANGE where the system has it; elsewhere two
//     renames, so that a reader may briefly find no directory but never a mixed one), and
//     removes the old contents.
//
// SIGINT, SIGTERM and SIGHUP between open and the end of commit remove the staging
// directory before the process dies of the signal. A reader of --out sees the previous
// result or the new one, never a mix of both.
//
// A plan shard's --out, which other shards share, is the exception: openSharedDir, then one
// file written with writeFileAtomic; it too removes the directories it created when the
// shard fails or is stopped.

// manifestName lists, inside --out, the files sim wrote there (one per line), so that the
// next run knows which files are its own outputs and which are the user's.
const manifestName = ".sim-outputs"

// stageInfix (after "."+base) names the staging directories beside --out; tmpInfix names
// the per-file temporaries of earlier sim versions and of writeFileAtomic.
const (
	stageInfix = ".sim-stage-"
	tmpInfix   = ".tmp-"
)

// legacyOutputs are files earlier sim versions wrote into --out without a manifest.
var legacyOutputs = []string{"summary.json", "timeseries.csv", "writes.jsonl", "layout.csv", "replay.json",
	"report.md", "report.html", "results.csv", "plan.json"}

// clearOfOutputs is the usage error of command cmd when a file a flag names ({flag, path};
// path "" for none) is in --out DIR under a name the outputs use (an output's, a chart's,
// the manifest's), or nil. The outputs would replace it when they are committed: an input
// read before (a replay's recording), lost; a profile written during the run, lost, or in
// the output's place. A file of another name in DIR is kept, as any file of the user's.
func clearOfOutputs(cmd, out string, files ...[2]string) error {
	if out == "" {
		return nil
	}
	for _, f := range files {
		flagName, path := f[0], f[1]
		if path == "" || path == "-" || !samePath(filepath.Dir(path), out) {
			continue
		}
		if name := filepath.Base(path); slices.Contains(legacyOutputs, name) || isLegacyChart(name) || name == manifestName || name == effectiveScenarioFile {
			return usageErrorf(cmd, "%s %s: --out %s writes %s, which would replace it; give the file another name, or --out another directory", flagName, path, out, name)
		}
	}
	return nil
}

// samePath reports whether paths a and b name one file: the same path once cleaned and
// made absolute, or, where both exist, one file under two names (a link).
func samePath(a, b string) bool {
	aa, erra := filepath.Abs(a)
	bb, errb := filepath.Abs(b)
	if erra == nil && errb == nil && aa == bb {
		return true
	}
	fa, erra := os.Stat(a)
	fb, errb := os.Stat(b)
	return erra == nil && errb == nil && os.SameFile(fa, fb)
}

// outputDir is an --out directory being written all or nothing.
type outputDir struct {
	dir   string // the directory as given
	stage string // the staging directory beside it
	// replace: the files of an earlier run that this one does not write are removed
	// (sim run, replay, plan); otherwise they are kept (sim plot adds charts).
	replace bool
	lock    *os.File
	written []string
	// created are the directories openOutputDir made for --out (it and missing parents),
	// innermost first: a run that ends without committing removes them, so that --out is
	// left as it was, absent.
	created []string

	mu      sync.Mutex // held by commit and by the signal handler
	done    bool
	signals chan os.Signal
	stop    chan struct{}
}

// outputError is a problem with --out found before the run: bad input (exit 2).
func outputError(dir string, err error) error {
	return badInput(fmt.Errorf("--out %s: %w", dir, err))
}

// makeOutDir creates --out dir (cleaned) and its missing parents, and returns it with the
// directories it created, innermost first (removeCreated takes them away again).
func makeOutDir(dir string) (string, []string, error) {
	dir = filepath.Clean(dir)
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return "", nil, outputError(dir, errors.New("exists and is not a directory"))
	}
	created := missingDirs(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		removeCreated(created)
		return "", nil, outputError(dir, plainPathError(err))
	}
	return dir, created, nil
}

// effectiveScenarioFile is the scenario of a run as it ran, every default and override
// applied ('sim run --print-scenario'), which 'sim run --out' writes beside the results (and
// 'sim replay --out' the settings alone, for --scenario): it runs the same run again, and
// 'sim diff' reads it to say what two runs' inputs differ in.
const effectiveScenarioFile = "effective-scenario.yaml"

// The files of fixed names each command writes into --out, beside its charts.
var (
	replayFiles = []string{"summary.json", "timeseries.csv", "writes.jsonl", "layout.csv", "report.md", "report.html", "replay.json", effectiveScenarioFile}
	runFiles    = []string{"summary.json", "timeseries.csv", "writes.jsonl", "layout.csv", "report.md", "report.html", effectiveScenarioFile}
	planFiles   = []string{"plan.json", "results.csv", "report.md", "report.html"}
)

// openOutputDir prepares dir for an all-or-nothing write (see above). replace says whether
// outputs of an earlier run that this one does not write are removed; files, the names of
// the files it writes (runFiles, ...), which must not be the user's (userFileInTheWay).
func openOutputDir(dir string, replace bool, files []string) (*outputDir, error) {
	dir, created, err := makeOutDir(dir)
	if err != nil {
		return nil, err
	}
	// The swap renames the directory itself: work on its real, absolute path (a symlink
	// keeps pointing at the new contents; "." is a directory with a parent).
	given := dir
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	parent := filepath.Dir(dir)
	if parent == dir {
		return nil, outputError(given, errors.New("is the root directory"))
	}
	if err := checkNotWorkingDir(dir); err != nil {
		return nil, outputError(given, err)
	}
	if err := checkWritable(dir, parent); err != nil {
		return nil, outputError(dir, err)
	}
	o := &outputDir{dir: dir, replace: replace, created: created}
	lock, err := lockDir(dir)
	if err != nil {
		// Another sim holds it, or it cannot be opened: leave it to that sim.
		return nil, err
	}
	o.lock = lock
	o.sweep()
	if err := o.userFileInTheWay(files); err != nil {
		o.unlock()
		return nil, outputError(given, err)
	}
	stage, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+stageInfix+"*")
	if err != nil {
		removeCreated(o.created)
		o.unlock()
		return nil, outputError(dir, fmt.Errorf("cannot create a staging directory beside it: %w", plainPathError(err)))
	}
	o.stage = stage
	// The stage becomes --out: it takes the directory's permissions (MkdirTemp's are 0700),
	// with the setgid and sticky bits, and its owner and group (keepOwner). A team's shared
	// directory (setgid, its group) lost both to the run that wrote into it, and the team
	// its access to the files.
	if st, err := os.Stat(dir); err == nil {
		keepOwner(stage, st)
		os.Chmod(stage, st.Mode()&(fs.ModePerm|fs.ModeSetgid|fs.ModeSticky))
	}
	o.handleSignals()
	return o, nil
}

// openSharedDir creates dir (and its missing parents) for files other runs may write beside
// this one's at the same time (plan shards' partials, each written with writeFileAtomic): no
// lock, staging directory or swap. As with openOutputDir, the directories it created are
// removed again, while empty, when the run ends without keep: abort, SIGINT, SIGTERM or
// SIGHUP. (A directory another shard has written into meanwhile is not empty, and stays.)
func openSharedDir(dir string) (*outputDir, error) {
	dir, created, err := makeOutDir(dir)
	if err != nil {
		return nil, err
	}
	o := &outputDir{dir: dir, created: created} // no stage: removing "" does nothing
	o.handleSignals()
	return o, nil
}

// keep ends the run of a directory from openSharedDir that succeeded: what it created stays.
func (o *outputDir) keep() {
	o.mu.Lock()
	defer o.finish()
	o.done = true
}

// missingDirs returns dir and those of its parents that do not exist, innermost first: the
// directories os.MkdirAll(dir) is about to create.
func missingDirs(dir string) []string {
	var missing []string
	for d := dir; ; {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return missing
		}
		missing = append(missing, d)
		parent := filepath.Dir(d)
		if parent == d {
			return missing
		}
		d = parent
	}
}

// removeCreated removes the directories sim created for --out, innermost first, and only
// while they are empty: whatever someone else put in one meanwhile stays, with it.
func removeCreated(created []string) {
	for _, d := range created {
		if os.Remove(d) != nil {
			return
		}
	}
}

// checkNotWorkingDir fails when dir (absolute, symlinks resolved) is the working directory
// or contains it: the swap renames dir and removes its old contents, which would leave the
// shell that ran sim in a deleted directory.
func checkNotWorkingDir(dir string) error {
	wd, err := os.Getwd()
	if err != nil {
		return nil // no working directory to protect
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	if wd == dir || strings.HasPrefix(wd, dir+string(filepath.Separator)) {
		return errors.New("is the working directory or contains it: --out DIR is replaced as a whole, " +
			"which would leave this shell in a deleted directory; give a directory below it (say --out results)")
	}
	return nil
}

// checkWritable fails unless this process may create files in dir and rename entries of
// parent (the swap renames dir itself).
func checkWritable(dir, parent string) error {
	for _, d := range []string{dir, parent} {
		if err := writable(d); err != nil {
			return fmt.Errorf("%s is not writable", d)
		}
	}
	if mountPoint(dir, parent) {
		return errors.New("is a mount point (its contents cannot be swapped in one rename); write into a directory inside it")
	}
	return nil
}

// probeWritable fails unless this process may create a file in dir: it creates one and
// removes it. It is writable's test where no access(2) tells.
func probeWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".sim-writable-*")
	if err != nil {
		return plainPathError(err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// plainPathError drops the operation and path an *fs.PathError adds, when the caller names
// the path itself.
func plainPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// sweep removes what a killed sim left: staging and old directories beside dir, per-file
// temporaries inside it. Holding the lock, nobody else is writing them.
func (o *outputDir) sweep() {
	parent, base := filepath.Dir(o.dir), filepath.Base(o.dir)
	if entries, err := os.ReadDir(parent); err == nil {
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "."+base+stageInfix) && e.IsDir() {
				os.RemoveAll(filepath.Join(parent, e.Name()))
			}
		}
	}
	if entries, err := os.ReadDir(o.dir); err == nil {
		for _, e := range entries {
			if isTemporary(e.Name()) && e.Type().IsRegular() {
				os.Remove(filepath.Join(o.dir, e.Name()))
			}
		}
	}
}

// isTemporary reports whether name is one of sim's per-file temporaries (".NAME.tmp-N").
func isTemporary(name string) bool {
	i := strings.LastIndex(name, tmpInfix)
	if !strings.HasPrefix(name, ".") || i <= 1 {
		return false
	}
	for _, c := range name[i+len(tmpInfix):] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(name) > i+len(tmpInfix)
}

// handleSignals removes the staging directory when SIGINT, SIGTERM or SIGHUP arrive before
// the commit has finished, then lets the signal end the process as it would have.
func (o *outputDir) handleSignals() {
	o.signals = make(chan os.Signal, 1)
	o.stop = make(chan struct{})
	signal.Notify(o.signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	// The goroutine gets the channels, not o: finish clears o.stop, which the goroutine
	// could otherwise read after that (a data race, and a select on a nil channel).
	signals, stop := o.signals, o.stop
	go func() {
		select {
		case sig := <-signals:
			o.mu.Lock()
			if !o.done {
				os.RemoveAll(o.stage)
				removeCreated(o.created)
			}
			// Die of the signal, as without the handler, so that a shell or CI sees it; the
			// exit status a shell would report is the fallback.
			signal.Reset(sig)
			s := sig.(syscall.Signal)
			if raise(s) {
				time.Sleep(time.Second)
			}
			os.Exit(128 + int(s))
		case <-stop:
		}
	}()
}

// write renders one file of the result into the staging directory.
func (o *outputDir) write(name string, render func(w io.Writer) error) error {
	s, err := o.stream(name)
	if err != nil {
		return err
	}
	err = render(s)
	if cerr := s.Close(); err == nil {
		return cerr
	}
	return fmt.Errorf("%s: %w", name, plainPathError(err))
}

// stream creates one file of the result in the staging directory, to be written as the run
// goes (writes.jsonl) and closed before commit; write skips it afterwards (wrote).
func (o *outputDir) stream(name string) (*outputStream, error) {
	if name != filepath.Base(name) || name == manifestName || strings.HasPrefix(name, ".") {
		return nil, fmt.Errorf("%s: not a plain output file name", name)
	}
	if slices.Contains(o.written, name) {
		return nil, fmt.Errorf("%s: written twice", name)
	}
	f, err := os.OpenFile(filepath.Join(o.stage, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, plainPathError(err))
	}
	o.written = append(o.written, name)
	return &outputStream{Writer: bufio.NewWriterSize(f, 1<<16), f: f, name: name}, nil
}

// wrote reports whether name was written (or is being streamed) into the staging directory.
func (o *outputDir) wrote(name string) bool { return slices.Contains(o.written, name) }

// outputStream is a buffered file of the staging directory.
type outputStream struct {
	*bufio.Writer
	f    *os.File
	name string
}

// Close flushes and closes the file; its error names the file.
func (s *outputStream) Close() error {
	err := s.Flush()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", s.name, plainPathError(err))
	}
	return nil
}

// commit makes the staged files the content of --out in one step.
func (o *outputDir) commit() error {
	testHook("before-commit")
	o.mu.Lock()
	defer o.finish()
	if o.done {
		return errors.New("output already committed or aborted")
	}
	err := o.carryOver()
	if err == nil {
		err = o.writeManifest()
	}
	if err == nil {
		err = o.swap()
	}
	// After the swap the staging path holds the old contents; before it, the new ones.
	os.RemoveAll(o.stage)
	o.done = true
	if err != nil {
		removeCreated(o.created)
		return fmt.Errorf("--out %s: %w (nothing in it was changed)", o.dir, err)
	}
	return nil
}

// abort drops the staged files; --out stays as it was: when this run created it, it is
// removed again.
func (o *outputDir) abort() {
	o.mu.Lock()
	defer o.finish()
	if !o.done {
		os.RemoveAll(o.stage)
		removeCreated(o.created)
		o.done = true
	}
}

// finish releases the lock and the signal handler; o.mu is held.
func (o *outputDir) finish() {
	if o.stop != nil {
		signal.Stop(o.signals)
		close(o.stop)
		o.stop = nil
	}
	o.unlock()
	o.mu.Unlock()
}

func (o *outputDir) unlock() {
	if o.lock != nil {
		o.lock.Close()
		o.lock = nil
	}
}

// previousOutputs returns which entries of --out an earlier sim run wrote: those its
// manifest lists. A directory without a manifest was written by a sim version that kept
// none (legacyOutputs and its charts, isOldSimChart), if it holds one of the files only
// sim writes, under its name and with its first bytes (looksLikeLegacyOutput); otherwise,
// by the user, whose files all stay. (Earlier rules were names alone: every .png and .svg
// was a chart, even beside a manifest that did not list it, and a results.csv or
// summary.json of the user's marked their directory as sim's; either way a diagram.png of
// theirs went with a run.)
func (o *outputDir) previousOutputs(entries []os.DirEntry) func(os.DirEntry) bool {
	if b, err := os.ReadFile(filepath.Join(o.dir, manifestName)); err == nil {
		listed := map[string]bool{}
		for _, n := range strings.Split(string(b), "\n") {
			if n != "" {
				listed[n] = true
			}
		}
		return func(e os.DirEntry) bool { return listed[e.Name()] }
	}
	legacy := slices.ContainsFunc(entries, func(e os.DirEntry) bool {
		return e.Type().IsRegular() && looksLikeLegacyOutput(filepath.Join(o.dir, e.Name()))
	})
	return func(e os.DirEntry) bool {
		return legacy && (slices.Contains(legacyOutputs, e.Name()) || e.Type().IsRegular() && o.isOldSimChart(e.Name()))
	}
}

// oldSimSVG is how the SVG of every chart sim has drawn starts (gonum/plot's SVG backend).
const oldSimSVG = "<?xml version=\"1.0\"?>\n<!-- Generated by SVGo and Plotinum VG -->"

// isOldSimChart reports whether name, in a directory of a sim version without a manifest,
// is one of its charts: a .png or .svg whose .svg twin is gonum/plot's, as sim has drawn
// every chart in both formats since its first. A diagram.png of the user's, which has no
// such twin, stays.
func (o *outputDir) isOldSimChart(name string) bool {
	if !isLegacyChart(name) {
		return false
	}
	f, err := os.Open(filepath.Join(o.dir, strings.TrimSuffix(strings.TrimSuffix(name, ".png"), ".svg")+".svg"))
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(oldSimSVG))
	n, _ := io.ReadFull(f, head)
	return string(head[:n]) == oldSimSVG
}

// legacyOutputKinds are the files only sim writes into --out, by name, each known by its
// first bytes as every sim version has written it (report.md and report.html are names a
// user's files may have, and have none).
var legacyOutputKinds = map[string]outputKind{
	"summary.json":   startsWith("a run's summary", "{\n  \"scenario\":"),
	"replay.json":    startsWith("a replay's summary", "{\n  \"pods\":"),
	"plan.json":      startsWith("a plan", "{\n  \"format\": \"epsim-plan/"),
	"timeseries.csv": startsWith("a run's time series", "second,endpoints"),
	"layout.csv":     startsWith("a run's slice layout", "timeSeconds,slices,"),
	"results.csv":    startsWith("a plan's results", "index,"),
	"writes.jsonl": {"a run's write log", func(h []byte) bool {
		return bytes.HasPrefix(h, []byte(`{"time":`)) && bytes.Contains(h, []byte(`"verb":`))
	}},
}

// startsWith is the outputKind, called name, of the files that start with prefix.
func startsWith(name, prefix string) outputKind {
	return outputKind{name, func(h []byte) bool { return bytes.HasPrefix(h, []byte(prefix)) }}
}

// looksLikeLegacyOutput reports whether path is a file only sim writes: its name is one of
// legacyOutputKinds and its first bytes are that kind's.
func looksLikeLegacyOutput(path string) bool {
	kind, ok := legacyOutputKinds[filepath.Base(path)]
	if !ok {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	return kind.looksLike(head[:n])
}

// userFileInTheWay fails when --out holds a file of the user's under one of the names
// files that the command writes: one that neither the manifest lists nor a sim version
// without a manifest wrote (previousOutputs), and not empty. The commit would replace it:
// a user's own report.md or summary.json in the directory they named was lost without a
// word.
func (o *outputDir) userFileInTheWay(files []string) error {
	entries, err := os.ReadDir(o.dir)
	if err != nil {
		return nil // the commit says what is wrong
	}
	earlier := o.previousOutputs(entries)
	for _, e := range entries {
		if e.IsDir() || !slices.Contains(files, e.Name()) || earlier(e) {
			continue
		}
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.Size() == 0 {
			continue // nothing to lose, as outputKind.replaceable has it
		}
		return fmt.Errorf("holds a %s that sim did not write, which the outputs would replace; move it, or give --out another directory", e.Name())
	}
	return nil
}

// isLegacyChart reports whether name is a chart an earlier sim wrote without a manifest.
func isLegacyChart(name string) bool {
	return strings.HasSuffix(name, ".png") || strings.HasSuffix(name, ".svg")
}

// carryOver links into the staging directory every entry of --out that must survive the
// swap: the user's own files always, and earlier outputs unless this write replaces them.
func (o *outputDir) carryOver() error {
	entries, err := os.ReadDir(o.dir)
	if err != nil {
		return plainPathError(err)
	}
	earlier := o.previousOutputs(entries)
	manifestKept := []string{}
	for _, e := range entries {
		name := e.Name()
		if name == manifestName || isTemporary(name) {
			continue
		}
		if slices.Contains(o.written, name) {
			if e.IsDir() {
				return fmt.Errorf("%s is a directory; sim would replace it with a file", name)
			}
			continue
		}
		ours := earlier(e)
		if ours && o.replace {
			continue
		}
		if ours {
			manifestKept = append(manifestKept, name)
		}
		src, dst := filepath.Join(o.dir, name), filepath.Join(o.stage, name)
		if e.IsDir() {
			// A directory cannot be hard-linked: it moves into the stage. If the swap
			// fails it is moved back.
			if err := os.Rename(src, dst); err != nil {
				return fmt.Errorf("cannot keep %s: %w", name, plainPathError(errors.Unwrap(err)))
			}
			continue
		}
		if err := os.Link(src, dst); err != nil {
			return fmt.Errorf("cannot keep %s: %w", name, plainPathError(errors.Unwrap(err)))
		}
	}
	o.written = append(o.written, manifestKept...)
	return nil
}

// writeManifest records the outputs of this write in the staging directory.
func (o *outputDir) writeManifest() error {
	names := slices.Clone(o.written)
	slices.Sort(names)
	return os.WriteFile(filepath.Join(o.stage, manifestName), []byte(strings.Join(names, "\n")+"\n"), 0o644)
}

// swap exchanges the staging directory and --out.
func (o *outputDir) swap() error {
	err := exchange(o.stage, o.dir)
	if err == nil {
		return nil
	}
	if !errors.Is(err, errExchangeUnsupported) {
		o.moveBackDirs()
		return err
	}
	// Two renames: --out moves aside, the stage takes its place.
	aside := o.stage + "-old"
	if err := os.Rename(o.dir, aside); err != nil {
		o.moveBackDirs()
		return plainPathError(errors.Unwrap(err))
	}
	if err := os.Rename(o.stage, o.dir); err != nil {
		os.Rename(aside, o.dir)
		o.moveBackDirs()
		return plainPathError(errors.Unwrap(err))
	}
	return os.Rename(aside, o.stage)
}

// moveBackDirs returns directories carryOver moved into the stage to --out.
func (o *outputDir) moveBackDirs() {
	entries, _ := os.ReadDir(o.stage)
	for _, e := range entries {
		if e.IsDir() {
			os.Rename(filepath.Join(o.stage, e.Name()), filepath.Join(o.dir, e.Name()))
		}
	}
}

// errExchangeUnsupported: the system cannot swap two directories in one rename.
var errExchangeUnsupported = errors.New("atomic exchange not supported")

// errLocked is the error of a second sim writing into the same --out.
var errLocked = errors.New("another sim is writing into it; try again when it has finished")

// testHook lets the hostile-input tests act at a point of the write: with EPSIM_TEST_HOOK
// set to "point:signal", the process sends itself that signal when it reaches point.
func testHook(point string) {
	v := os.Getenv("EPSIM_TEST_HOOK")
	p, sig, ok := strings.Cut(v, ":")
	if !ok || p != point {
		return
	}
	s := map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP}[sig]
	if s != 0 && raise(s) {
		select {} // the handler ends the process
	}
}

// writeFileAtomic renders one file into a temporary file beside path and renames it into
// place, so that path is never half-written. It is for single files other runs may share a
// directory with (baselines, plan partials), without the lock and swap of an --out.
func writeFileAtomic(path string, render func(w io.Writer) error) error {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// Made with the mode a plain create gives (createBeside), not os.CreateTemp's 0600.
	f, err := createBeside(filepath.Join(dir, name))
	if err != nil {
		return plainPathError(err)
	}
	tmp := f.Name()
	bw := bufio.NewWriterSize(f, 1<<16)
	err = render(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if st, serr := os.Stat(path); err == nil && serr == nil && st.Mode().IsRegular() {
		// A file replaced keeps its mode and, as far as this process may, its owner
		// (keepOwner): a baseline kept private (0600) was 0644 after --update-baseline.
		keepOwner(tmp, st)
		err = os.Chmod(tmp, st.Mode().Perm())
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return plainPathError(err)
	}
	return nil
}

// outputKind is a kind of file a flag names for sim to write (a profile, a baseline, a
// JUnit report, an imported scenario, a recorded trace), recognised by its first bytes.
type outputKind struct {
	name      string                 // "a profile", as in "is not a profile"
	looksLike func(head []byte) bool // head: the first outputKindHead bytes, or the file
}

// outputKindHead is how much of a file outputKind.looksLike sees: as much as a scenario
// file may hold.
const outputKindHead = 4 << 20

var (
	// profileOutput: pprof's profiles are gzip-compressed protobuf.
	profileOutput = startsWith("a profile", "\x1f\x8b")
	// baselineOutput: a baseline's two fields (a damaged one, say with a merge's conflict
	// markers, is one still: --update-baseline is how it is mended).
	baselineOutput = outputKind{"a baseline", func(h []byte) bool {
		return bytes.Contains(h, []byte(`"scenario"`)) && bytes.Contains(h, []byte(`"figures"`))
	}}
	// junitOutput: JUnit XML, sim's or another tool's.
	junitOutput = outputKind{"a JUnit report", func(h []byte) bool { return bytes.Contains(h, []byte("<testsuite")) }}
	// scenarioOutput: a scenario, imported (its first line says so) or written by hand
	// (the format's two sections).
	scenarioOutput = outputKind{"a scenario", func(h []byte) bool {
		return bytes.HasPrefix(h, []byte("# Imported by 'sim import'")) ||
			scenarioSection("cluster").Match(h) && scenarioSection("services").Match(h)
	}}
	// traceOutput: sim record's traces start every line with the event's arrival time.
	traceOutput = startsWith("a trace of 'sim record'", `{"time":`)
)

// scenarioSection matches a top-level key of a YAML scenario at the start of a line.
func scenarioSection(key string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^` + key + `:`)
}

// replaceable fails when path holds a file sim must not write over with an output of kind
// k: a regular file, not empty, that does not look like one. A mistyped flag (--out
// services.json for --out scenario.yaml, --junit my-cluster.yaml) destroyed a user's file
// without a word; now sim writes over only an output of the same kind (its own, damaged or
// not, or another tool's of that format), an empty file, or a device, and leaves anything
// else as it was. A path with no file, or one it cannot read, is left to the write, which
// says what is wrong.
func (k outputKind) replaceable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		return nil
	}
	head := make([]byte, outputKindHead)
	n, _ := io.ReadFull(f, head)
	if k.looksLike(head[:n]) {
		return nil
	}
	return fmt.Errorf("exists and is not %s: sim writes over %s or an empty file only (give another name, or remove the file)", k.name, k.name)
}
