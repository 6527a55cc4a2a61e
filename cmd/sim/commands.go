package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"epsim/sim"
)

// env is everything a command touches outside itself. Tests build one with fakes, so no test
// needs the real engine, a terminal or the process's standard streams.
type env struct {
	stdout, stderr io.Writer
	// stdin is the standard input ('sim record', 'sim replay --pods -').
	stdin io.Reader
	// runSim runs a scenario (sim.Run outside tests).
	runSim func(cfg sim.Config, obs sim.Observer) (*sim.Results, error)
	// load resolves a scenario path or embedded name with --set overrides.
	load func(nameOrPath string, sets []string) (*loadedScenario, error)
	// names lists the embedded scenarios.
	names func() []string
	// loadCheck loads a scenario with its expect: budgets for 'sim check' (nil: load,
	// without budgets).
	loadCheck func(nameOrPath string, sets []string) (*checkScenario, error)
	// stderrIsTerminal enables the progress bar; otherwise progress is a line at most every
	// progressEvery (0: lineEvery) of wallClock (nil: time.Now), lineProgress.
	stderrIsTerminal bool
	wallClock        func() time.Time
	progressEvery    time.Duration
	// seed is the seed of the run under way, for the report of an internal error.
	seed *uint64
}

// newEnv returns the real environment writing to stdout and stderr.
func newEnv(stdout, stderr io.Writer) *env {
	e := &env{stdout: stdout, stderr: stderr, stdin: os.Stdin, runSim: sim.Run, load: loadScenario, names: scenarioNames, loadCheck: loadCheckScenario}
	if f, ok := stderr.(*os.File); ok {
		e.stderrIsTerminal = term.IsTerminal(int(f.Fd()))
	}
	return e
}

// command is one subcommand. setup registers the command's flags on fs and returns the
// function that runs it once fs is parsed, so the doc test can parse examples without running
// anything.
type command struct {
	name  string
	usage string // the usage line after "sim "
	short string // one line for the command list
	long  string // the help text: what it does, then examples
	setup func(fs *flag.FlagSet) func(e *env, args []string) error
}

// commands are listed in this order by 'sim help'.
var commands []*command

func init() {
	commands = []*command{cmdRun, cmdValidate, cmdScenarios, cmdExplain,
		cmdCheck, cmdDiff,
		cmdPlan,
		cmdPlot,
		cmdImport, cmdReplay, cmdRecord,
		cmdHelp, cmdVersion, cmdCompletion}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// main runs the command line args and returns the exit status. Errors are printed once, as
// "sim: …", on stderr. A crash (a bug in sim) is exit 3 with one line saying what to report.
func (e *env) main(args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			seed := "the scenario's seed"
			if e.seed != nil {
				seed = fmt.Sprintf("seed %d", *e.seed)
			}
			fmt.Fprintf(e.stderr, "sim: internal error (a bug in sim, not in your input): %s; please report it with the command line, the scenario and %s\n",
				firstLine(fmt.Sprint(r)), seed)
			if os.Getenv("EPSIM_TRACEBACK") != "" {
				e.stderr.Write(debug.Stack())
			}
			code = exitInternal
		}
	}()
	err := e.dispatch(args)
	if err != nil {
		fmt.Fprintf(e.stderr, "sim: %s\n", cleanMessage(err.Error()))
		var ee *exitError
		if errors.As(err, &ee) && ee.hint != "" {
			fmt.Fprintln(e.stderr, ee.hint)
		}
	}
	return exitCode(err)
}

// maxMessageLines caps an error message: the first lines, then how many more there were.
const maxMessageLines = 20

// cleanMessage drops the "sim: " packages put in front of their errors (main adds one), and
// the "reports: " of the reports package's (a package name means nothing to the user), and
// a context said twice in a row ("replay: replay: x"), and caps the message at
// maxMessageLines lines.
func cleanMessage(msg string) string {
	msg = strings.TrimPrefix(msg, "sim: ")
	msg = strings.ReplaceAll(strings.TrimPrefix(msg, "reports: "), ": reports: ", ": ")
	lines := strings.Split(msg, "\n")
	if len(lines) > maxMessageLines+1 {
		n := len(lines) - maxMessageLines
		lines = append(lines[:maxMessageLines], fmt.Sprintf("and %d more lines", n))
	}
	for i, l := range lines {
		parts := strings.Split(strings.ReplaceAll(l, ": sim: ", ": "), ": ")
		out := parts[:0]
		for j, p := range parts {
			if j > 0 && j < len(parts)-1 && p == parts[j-1] {
				continue
			}
			out = append(out, p)
		}
		lines[i] = strings.Join(out, ": ")
	}
	return strings.Join(lines, "\n")
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func (e *env) dispatch(args []string) error {
	if len(args) == 0 {
		writeOverview(e.stderr)
		return &exitError{code: exitBadInput, err: errors.New("no command given")}
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		writeOverview(e.stdout)
		return nil
	case "-version", "--version":
		name = "version"
	}
	c := lookup(name)
	if c == nil {
		return usageErrorf("", "unknown command %q", name)
	}
	fs := newFlagSet(c)
	runFn := c.setup(fs)
	pos, err := parseArgs(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		writeCommandHelp(e.stdout, c)
		return nil
	}
	if err != nil {
		return usageErrorf(c.name, "%s: %s", c.name, flagError(err))
	}
	if err := emptyPathFlag(fs); err != nil {
		return usageErrorf(c.name, "%s: %v", c.name, err)
	}
	return runFn(e, pos)
}

// emptyPathFlag fails when a flag that names a file or directory (FILE or DIR in its usage)
// was given an empty value: --out "" would otherwise be taken as no --out at all.
func emptyPathFlag(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if name, _ := flag.UnquoteUsage(f); err == nil && (name == "FILE" || name == "DIR") && f.Value.String() == "" {
			err = fmt.Errorf("--%s: empty %s (leave the flag out for its default)", f.Name, name)
		}
	})
	return err
}

// The flag package's messages name the flag with one dash: flagValueError matches the one
// for a value a flag rejected ("invalid value "x" for flag -seed: …"), flagUnknownError
// the one for a flag the command has not ("flag provided but not defined: -jobs") and
// flagArgError the one for a flag given no value ("flag needs an argument: -out").
var (
	flagValueError   = regexp.MustCompile(`^(invalid (?:boolean )?value ".*" for) (?:flag )?-([A-Za-z0-9-]+): `)
	flagUnknownError = regexp.MustCompile(`^flag provided but not defined: -+([^ ]+)$`)
	flagArgError     = regexp.MustCompile(`^flag needs an argument: -+([^ ]+)$`)
)

// flagError is err's message with the flag named as help names it, --seed.
func flagError(err error) string {
	msg := err.Error()
	if m := flagUnknownError.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("unknown flag --%s", m[1])
	}
	if m := flagArgError.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("--%s needs a value", m[1])
	}
	return flagValueError.ReplaceAllString(msg, "$1 --$2: ")
}

func newFlagSet(c *command) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned and printed once by main
	return fs
}

// parseArgs parses flags anywhere among the arguments ("sim run x.yaml --out d" and
// "sim run --out d x.yaml" both work) and returns the positional arguments. "--" ends the
// flags.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	args = joinBoolValues(fs, args)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// joinBoolValues rewrites "--flag true" and "--flag false" into "--flag=true" and
// "--flag=false" for the boolean flags of fs, so that "sim run x.yaml --charts false" does not
// read "false" as a second scenario. Only the literal words true and false are taken: any
// other word after a boolean flag stays an argument. "--" ends the flags.
func joinBoolValues(fs *flag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name, ok := strings.CutPrefix(a, "--")
		if !ok {
			name, ok = strings.CutPrefix(a, "-")
		}
		if ok && name != "" && !strings.Contains(name, "=") && i+1 < len(args) &&
			(args[i+1] == "true" || args[i+1] == "false") && isBoolFlag(fs, name) {
			out = append(out, a+"="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

// isBoolFlag reports whether fs has a boolean flag called name.
func isBoolFlag(fs *flag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// formatFlag registers --format and its alias -o on fs, both setting *p (default table);
// usage describes the formats ("" for the plain "table or json").
func formatFlag(fs *flag.FlagSet, p *string, usage string) {
	if usage == "" {
		usage = "stdout `format`: table or json"
	}
	*p = "table"
	v := &choiceValue{p: p, choices: []string{"table", "json"}}
	fs.Var(v, "format", usage)
	fs.Var(v, "o", "the same as --`format`") // the same Value: one flag, two names
}

// choiceFlag registers a string flag name on fs whose values are a fixed set (choices),
// setting *p, value by default. The command checks the value itself (its usage error names
// the set); the completion scripts offer the set instead of files (completionSpec).
func choiceFlag(fs *flag.FlagSet, p *string, name, value, usage string, choices ...string) {
	*p = value
	fs.Var(&choiceValue{p: p, choices: choices}, name, usage)
}

// choiceValue is a flag.Value of choiceFlag: a string that Choices describes.
type choiceValue struct {
	p       *string
	choices []string
}

// String returns the flag's value.
func (v *choiceValue) String() string {
	if v == nil || v.p == nil {
		return ""
	}
	return *v.p
}

// Set stores s; the command checks it against the choices, with its own message.
func (v *choiceValue) Set(s string) error {
	*v.p = s
	return nil
}

// Choices returns the values the flag takes, for completion.
func (v *choiceValue) Choices() []string { return v.choices }

// seedFlag registers --seed on fs, setting *p: 0..2^63-1, the range a scenario's seed:
// and --set seed= take, so that a run's seed can be written into a scenario
// (--print-scenario) that loads back.
func seedFlag(fs *flag.FlagSet, p *uint64, usage string) {
	fs.Var((*seedValue)(p), "seed", usage)
}

// seedValue is a --seed: an integer 0..2^63-1.
type seedValue uint64

func (v *seedValue) String() string { return strconv.FormatUint(uint64(*v), 10) }

func (v *seedValue) Set(s string) error {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n > math.MaxInt64 {
		return fmt.Errorf("want an integer from 0 to 2^63-1 (%d), the range of a scenario's seed field", int64(math.MaxInt64))
	}
	*v = seedValue(n)
	return nil
}

// checkFormat rejects a --format other than table or json.
func checkFormat(cmd, format string) error {
	if format != "table" && format != "json" {
		return usageErrorf(cmd, "--format %q: want table or json", format)
	}
	return nil
}

var cmdHelp = &command{
	name:  "help",
	usage: "help [command]",
	short: "explain a command, its flags and examples",
	long: `Help prints the list of commands, or, given a command, what it does, its flags with
their defaults, and examples.

Examples:

    sim help
    sim help run`,
	setup: func(fs *flag.FlagSet) func(e *env, args []string) error {
		return func(e *env, args []string) error {
			switch len(args) {
			case 0:
				writeOverview(e.stdout)
				return nil
			case 1:
				c := lookup(args[0])
				if c == nil {
					return usageErrorf("", "help: unknown command %q", args[0])
				}
				writeCommandHelp(e.stdout, c)
				return nil
			}
			return usageErrorf("help", "help takes at most one command")
		}
	},
}

var cmdVersion = &command{
	name:  "version",
	usage: "version",
	short: "print the version of sim, its VCS revision and Go's",
	long: `Version prints the module version sim was built from, the VCS revision and commit time
it was built at (with "+dirty" when the work tree had changes), the Go version and the
platform. A binary built by 'go build' in a git work tree carries the revision; 'go run'
and 'go test' binaries do not, and say "revision unknown".

Examples:

    sim version`,
	setup: func(fs *flag.FlagSet) func(e *env, args []string) error {
		return func(e *env, args []string) error {
			if len(args) > 0 {
				return usageErrorf("version", "version takes no arguments")
			}
			bi, _ := debug.ReadBuildInfo()
			fmt.Fprintln(e.stdout, versionLine(bi))
			return nil
		}
	},
}

// versionLine formats the build info of the binary: "sim (epsim) MODULE-VERSION revision
// REV[+dirty] (TIME) GOVERSION GOOS/GOARCH". bi may be nil (no build info).
func versionLine(bi *debug.BuildInfo) string {
	v, rev := "(devel)", "revision unknown"
	if bi != nil {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		var r, t, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				r = s.Value
			case "vcs.time":
				t = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
		if r != "" {
			rev = "revision " + r + dirty
			if t != "" {
				rev += " (" + t + ")"
			}
		}
	}
	return fmt.Sprintf("sim (epsim) %s %s %s %s/%s", v, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// writeOverview prints the command list.
func writeOverview(w io.Writer) {
	fmt.Fprint(w, `sim simulates what an endpoint change costs — API writes, etcd bytes, watch events and
bytes fanned out to every kube-proxy — with legacy Endpoints and with EndpointSlices.

usage: sim <command> [flags] [arguments]

commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.short)
	}
	fmt.Fprint(w, `
Run 'sim help <command>' for a command's flags and examples. Exit status: 0 ok; 1 the run
failed, or check or diff found a figure out of bounds; 2 bad input (usage or scenario
errors); 3 an internal error (a bug in sim).
`)
}

// writeCommandHelp prints a command's usage, its help text and its flags with defaults.
func writeCommandHelp(w io.Writer, c *command) {
	fs := newFlagSet(c)
	c.setup(fs)
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	usage := c.usage
	if hasFlags {
		usage = strings.Replace(usage, c.name, c.name+" [flags]", 1)
	}
	fmt.Fprintf(w, "usage: sim %s\n\n%s\n", usage, c.long)
	if !hasFlags {
		return
	}
	fmt.Fprint(w, "\nFlags:\n\n")
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		head := "  --" + f.Name
		if len(f.Name) == 1 {
			head = "  -" + f.Name
		}
		if name != "" {
			head += " " + name
		}
		fmt.Fprintf(w, "%s\n        %s", head, usage)
		switch f.DefValue {
		case "", "0", "false", "[]":
		default:
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}
