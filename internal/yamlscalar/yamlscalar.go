// Package yamlscalar writes strings as YAML scalars for the scenario files epsim generates
// (sim validate --effective, sim import).
package yamlscalar

import (
	"strconv"
	"strings"
)

// Quote returns s as a YAML scalar: plain when YAML reads it back as the same string (a
// letter, then letters, digits and -_./, and not a word YAML reads as a boolean or null),
// double-quoted otherwise.
func Quote(s string) string {
	plain := s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z')
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./", c)) {
			plain = false
		}
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "y", "n":
		plain = false
	}
	if plain {
		return s
	}
	return strconv.Quote(s)
}
