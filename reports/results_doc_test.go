package reports

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestProgrammingDocSaysOneNode: sim.ModeResult.Programming's doc comment says what the
// collector does (sim/metrics_kubeproxy.go kubeProxyResults): the samples are the one
// representative kube-proxy's, as summary.json's Programming and README "Results contract"
// say, not pooled over all nodes.
func TestProgrammingDocSaysOneNode(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../sim/results.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var doc string
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "ModeResult" {
			return true
		}
		for _, field := range ts.Type.(*ast.StructType).Fields.List {
			for _, name := range field.Names {
				if name.Name == "Programming" {
					doc = field.Doc.Text()
				}
			}
		}
		return false
	})
	doc = strings.Join(strings.Fields(doc), " ")
	if doc == "" {
		t.Fatal("sim.ModeResult.Programming has no doc comment")
	}
	if strings.Contains(doc, "pooled over all nodes") || !strings.Contains(doc, "representative kube-proxy") {
		t.Errorf("sim.ModeResult.Programming's doc does not say the samples are the representative kube-proxy's:\n%s", doc)
	}
}
