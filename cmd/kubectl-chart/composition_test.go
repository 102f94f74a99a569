package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// One composition root: only the factory builds clients of the cluster, so
// that each gets the same retries, limits and request log (issue 26).
func TestOnlyTheFactoryBuildsClients(t *testing.T) {
	const root = "factory.go"
	forbiddenImports := []string{
		"k8s.io/client-go/kubernetes", "k8s.io/client-go/dynamic", "k8s.io/client-go/discovery",
		"k8s.io/client-go/metadata", "k8s.io/client-go/restmapper", "k8s.io/cli-runtime/pkg/resource",
		"github.com/kubectl-chart/kubectl-chart/adapters/kube", "github.com/kubectl-chart/kubectl-chart/adapters/lock",
		"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/secret",
		"github.com/kubectl-chart/kubectl-chart/adapters/releasestore/configmap",
	}
	// Calls that make a client or the config one is made from.
	forbiddenCalls := []string{"ToRESTConfig", "ToDiscoveryClient", "ToRESTMapper", "NewForConfig", "NewForConfigOrDie", "RESTClientFor", "UnversionedRESTClientFor", "NewBuilder"}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	fset := token.NewFileSet()
	for _, name := range files {
		if name == root || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbiddenImports {
				if path == bad || strings.HasPrefix(path, bad+"/") {
					t.Errorf("%s imports %s: clients come from the factory (%s)", fset.Position(imp.Pos()), path, root)
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && slices.Contains(forbiddenCalls, sel.Sel.Name) {
				t.Errorf("%s calls %s: clients come from the factory (%s)", fset.Position(sel.Pos()), sel.Sel.Name, root)
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("checked %d files; run from the package's directory", checked)
	}
}
