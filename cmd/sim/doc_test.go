package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// examplePattern matches a "$ sim …" transcript line in doc.go, and an indented "sim …"
// example in a command's help.
var (
	docExample  = regexp.MustCompile(`(?m)^\s*\$ sim (.*)$`)
	helpExample = regexp.MustCompile(`(?m)^    sim (.*)$`)
)

// TestDocExamplesParse checks that every example in doc.go (the user manual) and in every
// command's help names a real command and only flags that command has, with values it
// accepts (the benchstat doc-test pattern, without running the engine).
func TestDocExamplesParse(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var examples []string
	for _, m := range docExample.FindAllStringSubmatch(string(doc), -1) {
		examples = append(examples, m[1])
	}
	if len(examples) < 8 {
		t.Fatalf("doc.go has only %d $ sim examples", len(examples))
	}
	for _, c := range commands {
		for _, m := range helpExample.FindAllStringSubmatch(c.long, -1) {
			examples = append(examples, m[1])
		}
	}
	for _, ex := range examples {
		args := strings.Fields(ex)
		c := lookup(args[0])
		if c == nil {
			t.Errorf("example %q: no command %q", ex, args[0])
			continue
		}
		fs := newFlagSet(c)
		c.setup(fs)
		if _, err := parseArgs(fs, args[1:]); err != nil {
			t.Errorf("example %q: %v", ex, err)
		}
		if c.name == "run" {
			if m := fs.Lookup("mode"); m != nil {
				if _, err := parseMode(m.Value.String()); err != nil {
					t.Errorf("example %q: %v", ex, err)
				}
			}
		}
	}
	// Every command is in the manual.
	for _, c := range commands {
		if !strings.Contains(string(doc), "\t"+c.name+" ") {
			t.Errorf("doc.go's command list lacks %q", c.name)
		}
	}
}
