package yamlscalar

import (
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// TestQuoteRoundTrips requires every quoted string to read back as itself, and the plain
// form for ordinary names.
func TestQuoteRoundTrips(t *testing.T) {
	for _, s := range []string{"web", "kube-system", "a.b/c_d", "", "Yes", "no", "null", "~", "1", "0x10",
		"with space", "colon: x", "#hash", "é", "line\nbreak", `quote"d`, "-dash", "true"} {
		var got string
		if err := yaml.Unmarshal([]byte("v: "+Quote(s)), &struct{ V *string }{&got}); err != nil {
			t.Fatalf("%q as %s: %v", s, Quote(s), err)
		}
		if got != s {
			t.Errorf("%q written as %s reads back as %q", s, Quote(s), got)
		}
	}
	for _, s := range []string{"web", "kube-system", "tiny-0"} {
		if Quote(s) != s {
			t.Errorf("%q quoted as %s, want plain", s, Quote(s))
		}
	}
}

// FuzzQuote: whatever the (UTF-8) string, its scalar reads back as it. Names reach the
// generated files from YAML and JSON, which carry only UTF-8.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"web", "Yes", "a: b", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			t.Skip()
		}
		var got string
		if err := yaml.Unmarshal([]byte("v: "+Quote(s)), &struct{ V *string }{&got}); err != nil {
			t.Skip() // strings YAML cannot carry at all (invalid UTF-8, some control bytes)
		}
		if got != s {
			t.Errorf("%q written as %s reads back as %q", s, Quote(s), got)
		}
	})
}
