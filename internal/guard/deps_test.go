package guard

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// upstreamPrefixes are the import paths of upstream Kubernetes modules, which epsim uses only
// as test oracles (differential tests against the real controllers, serializers and types):
// the program itself must not link them.
var upstreamPrefixes = []string{"k8s.io/", "sigs.k8s.io/"}

// TestUpstreamModulesAreTestOnly parses the imports of every non-test Go file of the module
// and fails on an upstream Kubernetes module.
func TestUpstreamModulesAreTestOnly(t *testing.T) {
	root := filepath.Join("..", "..")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, prefix := range upstreamPrefixes {
				if strings.HasPrefix(p, prefix) {
					t.Errorf("%s imports %s: upstream modules are for tests only", path, p)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d non-test files found under %s", checked, root)
	}
}
