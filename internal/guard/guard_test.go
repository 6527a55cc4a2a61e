// Package guard holds tests that read epsim's source for house rules: the determinism guard,
// which fails on anything that would make a run depend on the host (STYLE.md §7, rule 8),
// and the dependency guard, which keeps upstream Kubernetes modules out of the program
// (they are test oracles only).
package guard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// forbidden are selector expressions no simulation package may use: the wall clock and the
// global random generator.
var forbidden = map[string]map[string]bool{
	"time": {"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true, "AfterFunc": true, "Tick": true, "NewTicker": true, "NewTimer": true},
	"rand": {"Int": true, "Intn": true, "IntN": true, "Int64": true, "Int64N": true, "Int63": true, "Int63n": true, "Int32": true, "Int32N": true, "Uint32": true, "Uint64": true, "Float32": true, "Float64": true, "Perm": true, "Shuffle": true, "N": true, "Seed": true, "Read": true, "ExpFloat64": true, "NormFloat64": true},
}

// TestSimulationPackagesAreDeterministic parses every non-test file of model, sim, scenarios,
// reports and trace. None may read the clock or the global random generator; model and sim
// may not start goroutines.
func TestSimulationPackagesAreDeterministic(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, pkg := range []string{"model", "sim", "scenarios", "reports", "trace"} {
		files, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files found (%v)", pkg, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			checkFile(t, pkg, f)
		}
	}
}

func checkFile(t *testing.T, pkg, path string) {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]string{} // local name -> import path
	for _, imp := range file.Imports {
		p := strings.Trim(imp.Path.Value, `"`)
		name := filepath.Base(p)
		if p == "math/rand/v2" {
			name = "rand"
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imports[name] = p
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			id, ok := n.X.(*ast.Ident)
			if !ok {
				return true
			}
			path := imports[id.Name]
			base := filepath.Base(path)
			if path == "math/rand/v2" || path == "math/rand" {
				base = "rand"
			}
			if (path == "time" || base == "rand") && forbidden[base][n.Sel.Name] {
				t.Errorf("%s: %s.%s makes runs depend on the host", fset.Position(n.Pos()), id.Name, n.Sel.Name)
			}
		case *ast.GoStmt:
			if pkg == "model" || pkg == "sim" {
				t.Errorf("%s: go statement in %s (a run has no goroutines)", fset.Position(n.Pos()), pkg)
			}
		}
		return true
	})
}
