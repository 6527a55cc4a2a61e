package scenarios

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"epsim/sim"
)

// shipped holds the scenarios that come with epsim, runnable by name.
//
//go:embed *.yaml
var shipped embed.FS

// MaxFileBytes bounds a scenario file; real ones are a few kilobytes.
const MaxFileBytes = 4 << 20

// Names lists the shipped scenarios by name (file name without .yaml), sorted.
func Names() []string { return shippedNames(shipped, ".") }

// shippedNames lists the .yaml files of dir in fsys by name, sorted.
func shippedNames(fsys embed.FS, dir string) []string {
	entries, _ := fs.ReadDir(fsys, dir)
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// ErrNotFound is returned (wrapped, naming the path) when a scenario is neither a file on
// disk nor a shipped scenario.
var ErrNotFound = errors.New("scenarios: no such scenario")

// Load reads a scenario by path or by shipped name, applies the --set overrides (each
// "path=value"), validates it and returns it with its engine configuration (the same value
// as Scenario.Config). A file on disk wins; otherwise a bare name ("5000-nodes", with or
// without .yaml, or as scenarios/NAME.yaml) selects a shipped scenario. Problems in the
// scenario come back as Errors, every one of them at once.
func Load(nameOrPath string, sets []string) (*Scenario, sim.Config, error) {
	data, file, embedded, err := read(nameOrPath)
	if err != nil {
		return nil, sim.Config{}, err
	}
	sc, err := Parse(file, data, sets)
	if err != nil {
		return nil, sim.Config{}, err
	}
	sc.Embedded = embedded
	return sc, sc.Config, nil
}

// read finds a scenario's bytes: on disk first, then among the shipped ones.
func read(nameOrPath string) (data []byte, file string, embedded bool, err error) {
	return readShipped(nameOrPath, "scenario", "", shipped, Names())
}

// readShipped finds the bytes of a file of the given kind ("scenario", "plan"): a path on disk
// wins; otherwise NAME, NAME.yaml or scenarios/[dir/]NAME.yaml names a shipped one from fsys
// under dir ("" or "plans").
func readShipped(nameOrPath, kind, dir string, fsys embed.FS, names []string) (data []byte, file string, embedded bool, err error) {
	f, openErr := os.Open(nameOrPath)
	if openErr == nil {
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			// A directory is no scenario file: a shipped one of that name still runs.
			f.Close()
			openErr = errIsDir
		}
	}
	if openErr == nil {
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
		if err != nil {
			return nil, "", false, fmt.Errorf("%s %s: %w", kind, nameOrPath, err)
		}
		if len(data) > MaxFileBytes {
			return nil, "", false, fmt.Errorf("%s %s: file larger than %d bytes", kind, nameOrPath, MaxFileBytes)
		}
		return data, nameOrPath, false, nil
	}
	name := filepath.ToSlash(nameOrPath)
	name = strings.TrimPrefix(name, "scenarios/")
	if dir != "" {
		name = strings.TrimPrefix(name, dir+"/")
	}
	name = strings.TrimSuffix(name, ".yaml")
	if name != "" && !strings.ContainsAny(name, "/\\") && slices.Contains(names, name) {
		if data, err := fsys.ReadFile(path.Join(dir, name+".yaml")); err == nil {
			return data, path.Join("scenarios", dir, name+".yaml"), true, nil
		}
	}
	// The message names the kind and path once; ErrNotFound stays matchable with errors.Is
	// without its "scenarios:" prefix being printed after "scenario NAME:".
	if errors.Is(openErr, fs.ErrNotExist) {
		return nil, "", false, &notFoundError{fmt.Sprintf("%s %s: no such file, and not a shipped %s (%s)", kind, nameOrPath, kind, strings.Join(names, ", "))}
	}
	if openErr == errIsDir {
		return nil, "", false, &notFoundError{fmt.Sprintf("%s %s: a directory, not a %s file (and not a shipped %s: %s)", kind, nameOrPath, kind, kind, strings.Join(names, ", "))}
	}
	return nil, "", false, fmt.Errorf("%s %s: %w", kind, nameOrPath, openErr)
}

// notFoundError is ErrNotFound with a message that says what was looked for, where, and
// which shipped names exist, without repeating the sentinel's package prefix.
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }

// Is makes errors.Is(err, ErrNotFound) hold.
func (e *notFoundError) Is(target error) bool { return target == ErrNotFound }

// errIsDir stands for a path that opens but is a directory.
var errIsDir = errors.New("is a directory")

// IsPlan reports whether nameOrPath names a capacity plan rather than a scenario: a file
// whose top-level mapping has grid: or scenario: and none of cluster:, services:,
// timeline:; or, when no such file exists, the name of a shipped plan that is not also a
// shipped scenario.
func IsPlan(nameOrPath string) bool {
	data, err := os.ReadFile(nameOrPath)
	if err != nil {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.ToSlash(nameOrPath), "scenarios/plans/"), ".yaml")
		return !slices.Contains(Names(), name) && slices.Contains(PlanNames(), name)
	}
	if len(data) > MaxFileBytes {
		return false
	}
	root, err := parseYAML(data)
	if err != nil || root == nil || root.Kind != yaml.MappingNode {
		return false
	}
	plan := false
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch root.Content[i].Value {
		case "grid", "scenario":
			plan = true
		case "cluster", "services", "timeline":
			return false
		}
	}
	return plan
}

// yamlLine picks the line number out of a YAML syntax error ("yaml: line 3: …").
var yamlLine = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// yamlParserProblems are the YAML library's parser errors (go.yaml.in/yaml/v3 parserc.go),
// as opposed to its scanner's. It numbers a parser error's line from 0 (and leaves it out
// on the first line), so "{name: r, services: web]}" on line 7 read "line 6".
var yamlParserProblems = []string{
	"did not find expected <stream-start>", "did not find expected <document start>",
	"did not find expected node content", "did not find expected '-' indicator",
	"did not find expected key", "did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"found duplicate %YAML directive", "found incompatible YAML document",
	"found duplicate %TAG directive", "found undefined tag handle",
}

// yamlSyntaxError is the Error of err, a YAML syntax error of file (data), at its 1-based
// line; an error at the end of the file is put on its last line.
func yamlSyntaxError(file string, data []byte, err error) *Error {
	if line, col, msg, ok := notText(data, err); ok {
		return &Error{File: file, Line: line, Column: col, Msg: msg + ": " + notTextHint(msg)}
	}
	e := &Error{File: file, Msg: err.Error()}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Msg = "YAML syntax: " + m[2]
		if slices.Contains(yamlParserProblems, m[2]) {
			e.Line++
		}
		last := bytes.Count(data, []byte("\n"))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			last++
		}
		e.Line = min(e.Line, max(last, 1))
		if m[2] == "did not find expected ',' or '}'" || m[2] == "did not find expected ',' or ']'" {
			e.Msg += ` (a {…} or […] not closed, or a value inside one that holds [ ] { } or a comma: quote it, as "services[0].replicas")`
		}
	}
	return e
}

// notText finds, for err, a YAML reader error ("invalid trailing UTF-8 octet", "control
// characters are not allowed", which say neither where nor what), the first byte of data
// that caused it: its 1-based line and column (in characters) and what it is. ok is false
// for any other error, and for UTF-16 text (with its byte order mark), which YAML reads.
func notText(data []byte, err error) (line, col int, msg string, ok bool) {
	m := err.Error()
	if !strings.Contains(m, "UTF-8") && !strings.Contains(m, "control characters") && !strings.Contains(m, "Unicode character") {
		return 0, 0, "", false
	}
	if bytes.HasPrefix(data, []byte{0xfe, 0xff}) || bytes.HasPrefix(data, []byte{0xff, 0xfe}) {
		return 0, 0, "", false
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	line, col = 1, 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		switch {
		case r == utf8.RuneError && size <= 1:
			return line, col, fmt.Sprintf("not UTF-8 text (byte %#02x)", data[0]), true
		case !yamlPrintable(r):
			return line, col, fmt.Sprintf("control character %U, which YAML does not allow", r), true
		case r == '\n':
			line, col = line+1, 1
		default:
			col++
		}
		data = data[size:]
	}
	return 0, 0, "", false
}

// notTextHint says what to do about what notText found.
func notTextHint(msg string) string {
	if strings.HasPrefix(msg, "not UTF-8") {
		return "save the file as UTF-8"
	}
	return "is this a text file?"
}

// yamlPrintable reports whether YAML allows r in a document (go.yaml.in/yaml/v3
// readerc.go, yaml_parser_update_buffer).
func yamlPrintable(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || (r >= 0x20 && r <= 0x7E) || r == 0x85 ||
		(r >= 0xA0 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

// Parse decodes and validates scenario text. file names the source in error messages.
// sets are --set overrides ("path=value") applied to the YAML tree before validation, so
// they are checked like the file. On any problem it returns Errors (and no scenario).
func Parse(file string, data []byte, sets []string) (*Scenario, error) {
	return parse(file, data, sets, nil)
}

// LoadSettings is Load for a file read for its settings alone ('sim replay --scenario',
// which takes the nodes, Services and pod churn from a recording): name, cluster, services
// and timeline may be left out, and placeholders (one node, one Service, a create) stand
// in for those the file does not have. What the file has is checked as Load checks it;
// an empty file is still an error.
func LoadSettings(nameOrPath string, sets []string) (*Scenario, sim.Config, error) {
	data, file, embedded, err := read(nameOrPath)
	if err != nil {
		return nil, sim.Config{}, err
	}
	sc, err := parse(file, data, sets, addPlaceholders)
	if err != nil {
		return nil, sim.Config{}, err
	}
	sc.Embedded = embedded
	return sc, sc.Config, nil
}

// placeholders are the fields LoadSettings adds to a file that lacks them.
const placeholders = `name: settings
cluster: {nodes: 1}
services: [{name: settings}]
timeline: [{name: create, action: create}]
`

// addPlaceholders adds to root, a top-level mapping, each field of placeholders it lacks.
func addPlaceholders(root *yaml.Node) {
	if root == nil || root.Kind != yaml.MappingNode {
		return
	}
	fill, err := parseYAML([]byte(placeholders))
	if err != nil {
		panic("scenarios: placeholders do not parse: " + err.Error())
	}
	for i := 0; i+1 < len(fill.Content); i += 2 {
		key := fill.Content[i].Value
		has := false
		for j := 0; j+1 < len(root.Content); j += 2 {
			has = has || root.Content[j].Value == key
		}
		if !has {
			root.Content = append(root.Content, fill.Content[i], fill.Content[i+1])
		}
	}
}

// parse is Parse with prepare, when not nil, applied to the file's YAML tree before the
// --set overrides.
func parse(file string, data []byte, sets []string, prepare func(*yaml.Node)) (*Scenario, error) {
	d := newDecoder(file)
	root, err := parseYAML(data)
	if err != nil {
		return nil, Errors{yamlSyntaxError(file, data, err)}
	}
	if prepare != nil {
		prepare(root)
	}
	root = d.applySets(root, sets)
	sc := d.decodeScenario(root)
	if len(d.errs) > 0 {
		order := map[string]int{}
		for i, s := range sets {
			if _, ok := order[s]; !ok {
				order[s] = i
			}
		}
		sortErrors(d.errs, order)
		return nil, d.errs
	}
	return sc, nil
}

// Validate loads each scenario (path or shipped name) with the --set overrides and writes a
// verdict per scenario to w: "ok NAME (…)" or its problems, one per line. It returns the
// exit code for `sim validate`: 0 when all are valid, 1 otherwise.
func Validate(paths []string, sets []string, w io.Writer) int {
	code := 0
	for _, p := range paths {
		sc, cfg, err := Load(p, sets)
		if err != nil {
			fmt.Fprintln(w, err)
			code = 1
			continue
		}
		services, pods := 0, 0
		for _, s := range cfg.Services {
			services += s.Count
			pods += s.Count * s.Replicas
		}
		fmt.Fprintf(w, "ok %s: %s (%s, %s, %s, %s)\n",
			sc.File, sc.Name, counted(cfg.Cluster.Nodes, "node", "nodes"), counted(services, "service", "services"), counted(pods, "pod", "pods"), counted(len(cfg.Timeline), "phase", "phases"))
	}
	return code
}
