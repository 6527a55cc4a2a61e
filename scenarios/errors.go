package scenarios

import (
	"epsim/internal/suggest"
	"fmt"
	"slices"
	"strings"
)

// counted writes n and its noun, singular for one: "1 pod", "3 pods", "0 replicas".
func counted[N int | int64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Error is one problem found in a scenario. It prints as
// "file:line:column: field.path: problem (what is allowed)"; a problem that came from a
// --set override prints the flag instead of a line and column.
type Error struct {
	// File is the scenario's file name as the user gave it (or "scenarios/NAME.yaml" for an
	// embedded scenario).
	File string
	// Line and Column are 1-based; 0 when unknown.
	Line, Column int
	// Set is the --set flag (path=value) the faulty value came from; empty for the file.
	Set string
	// Path is the field path, e.g. "services[0].ports[1].port"; empty for the document.
	Path string
	// Msg says what is wrong and what is allowed.
	Msg string
}

// Error formats the problem on one line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	switch {
	case e.Set != "":
		fmt.Fprintf(&b, ": --set %s", e.Set)
	case e.Line > 0 && e.Column > 0:
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	case e.Line > 0:
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Path != "" {
		b.WriteString(": ")
		b.WriteString(e.Path)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one scenario: those of --set flags first, in flag order
// (the flags are what the user just typed), then those of the file in file order. Load
// returns it (as an error) whenever a scenario has at least one problem.
type Errors []*Error

// maxErrorLines is how many problems Errors prints before "and N more".
const maxErrorLines = 20

// Error prints one problem per line: the first 20, then how many more there are.
func (es Errors) Error() string {
	lines := make([]string, 0, min(len(es), maxErrorLines)+1)
	for i, e := range es {
		if i == maxErrorLines {
			lines = append(lines, fmt.Sprintf("and %d more", len(es)-maxErrorLines))
			break
		}
		lines = append(lines, e.Error())
	}
	return strings.Join(lines, "\n")
}

// Unwrap exposes the individual problems to errors.Is and errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// sortErrors orders problems by position: --set problems in flag order (setOrder maps a
// flag to its index), then file problems by line and column.
func sortErrors(es Errors, setOrder map[string]int) {
	slices.SortStableFunc(es, func(a, b *Error) int {
		ai, bi := 1, 1
		if a.Set != "" {
			ai = 0
		}
		if b.Set != "" {
			bi = 0
		}
		if ai != bi {
			return ai - bi
		}
		if ai == 0 {
			return setOrder[a.Set] - setOrder[b.Set]
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
}

// suggestName returns the allowed name closest to got (case-insensitive edit distance), or
// "" when none is close enough to be a likely typo.
func suggestName(got string, allowed []string) string {
	if c := suggest.Closest(got, allowed, 1, max(2, len(got)/3)); len(c) > 0 {
		return c[0]
	}
	return ""
}

// unknownField is the message for a key the schema does not have.
func unknownField(key string, allowed []string) string {
	msg := fmt.Sprintf("unknown field %q", key)
	if s := suggestName(key, allowed); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return msg + "; allowed: " + strings.Join(allowed, ", ")
}
