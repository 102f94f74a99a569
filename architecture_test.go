package kubectlchart_test

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

const module = "github.com/kubectl-chart/kubectl-chart"

// forbiddenForCore lists what domain/ and ports/ must never reach, directly or
// transitively: the hexagon's core stays free of I/O frameworks and of its own adapters.
var forbiddenForCore = []string{
	"k8s.io/client-go",
	"k8s.io/cli-runtime",
	"k8s.io/kubectl",
	"go.etcd.io/bbolt",
	"github.com/spf13/cobra",
	"github.com/spf13/pflag",
	"net/http",
	"os/exec",
	"helm.sh/helm",
	"github.com/tetratelabs/wazero",
	"github.com/extism",
	module + "/adapters",
	module + "/cmd",
}

func TestDependencyRule(t *testing.T) {
	tests := map[string]struct {
		patterns  []string
		forbidden []string
	}{
		"domain and ports stay pure": {
			patterns:  []string{"./domain/...", "./ports/..."},
			forbidden: forbiddenForCore,
		},
		"adapters never import cmd": {
			patterns:  []string{"./adapters/..."},
			forbidden: []string{module + "/cmd", "helm.sh/helm"},
		},
		"nothing links helm": {
			patterns:  []string{"./..."},
			forbidden: []string{"helm.sh/helm"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for pkg, deps := range depsOf(t, tc.patterns...) {
				for _, dep := range deps {
					for _, bad := range tc.forbidden {
						if dep == bad || strings.HasPrefix(dep, bad+"/") {
							t.Errorf("%s reaches %s (via %s)", pkg, bad, dep)
						}
					}
				}
			}
		})
	}
}

// depsOf returns, per package matched by patterns, every package it reaches.
func depsOf(t *testing.T, patterns ...string) map[string][]string {
	t.Helper()
	args := append([]string{"list", "-e", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}"}, patterns...)
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if strings.Contains(stderr.String(), "matched no packages") {
			return nil
		}
		t.Fatalf("go list %v: %v\n%s", patterns, err, stderr.String())
	}
	deps := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		deps[fields[0]] = fields[1:]
	}
	return deps
}

// TestTopLevelLayout keeps the repository's top level to the design card's
// entries: code goes into cmd/, domain/, ports/ or adapters/ (patched copies of
// pure libraries under domain/internal), tooling into hack/, test/, .ci/ and
// examples/, documentation into README.md, ARCHITECTURE.md, CONTRIBUTING.md and docs/.
func TestTopLevelLayout(t *testing.T) {
	allowed := map[string]bool{
		"cmd": true, "domain": true, "ports": true, "adapters": true,
		"plugins.yaml": true, "krew-manifest.yaml": true, "go.mod": true, "go.sum": true,
		"Makefile": true, "README.md": true, "LICENSE": true,
		// Documentation by audience: users (README.md, docs/), contributors.
		"ARCHITECTURE.md": true, "CONTRIBUTING.md": true, "docs": true,
		".ci": true, "hack": true, "test": true, "examples": true,
		".gitignore": true, ".golangci.yml": true,
		// The module's root package: the embedded plugins.yaml and this test.
		"plugins.go": true, "architecture_test.go": true,
	}
	out, err := exec.Command("git", "ls-files").Output()
	if err != nil {
		prereq.Missing(t, "not a git checkout: %v", err)
	}
	seen := map[string]bool{}
	for _, path := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		top, _, _ := strings.Cut(path, "/")
		if !allowed[top] && !seen[top] {
			seen[top] = true
			t.Errorf("%s at the top level: the design card has no place for it there", top)
		}
	}
}

// TestEndToEndBehindTag keeps every Go file of the end-to-end suites behind
// the e2e build tag: one file without it makes `go test ./...` build a half of
// a suite, which fails to compile or builds Kubernetes for nothing.
func TestEndToEndBehindTag(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "test/e2e/*.go").Output()
	if err != nil {
		prereq.Missing(t, "not a git checkout: %v", err)
	}
	for _, path := range strings.Fields(string(out)) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(src, []byte("//go:build e2e\n")) {
			t.Errorf("%s: does not start with //go:build e2e", path)
		}
	}
}

// TestDomainTypesShowTheirMethods keeps every exported type of domain/ that has
// methods with at least one exported: an exported type whose behaviour is all
// unexported reads, from outside, as plain data while its package hides what it
// does with it. Helpers on such a type are functions, or the type is
// unexported. Copies of other projects' packages (a directory with its own
// LICENSE) are kept as upstream wrote them and left out.
func TestDomainTypesShowTheirMethods(t *testing.T) {
	type typeKey struct{ dir, name string }
	exported := map[typeKey]bool{}
	methods := map[typeKey][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir("domain", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if _, err := os.Stat(filepath.Join(path, "LICENSE")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					if ts, ok := spec.(*ast.TypeSpec); ok && ts.Name.IsExported() {
						exported[typeKey{dir, ts.Name.Name}] = true
					}
				}
			case *ast.FuncDecl:
				if name := receiverName(decl); name != "" {
					k := typeKey{dir, name}
					methods[k] = append(methods[k], decl.Name.Name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(exported) == 0 {
		t.Fatal("no exported type found under domain/: run the test from the repository root")
	}
	for k := range exported {
		names := methods[k]
		if len(names) > 0 && !slices.ContainsFunc(names, ast.IsExported) {
			t.Errorf("%s.%s is exported, but none of its methods is (%s): make them functions, or the type unexported",
				k.dir, k.name, strings.Join(names, ", "))
		}
	}
}

// receiverName is the name of the type a method is declared on ("" for a
// function), generic or not.
func receiverName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return ""
	}
	expr := fn.Recv.List[0].Type
	if star, ok := expr.(*ast.StarExpr); ok {
		expr = star.X
	}
	switch x := expr.(type) {
	case *ast.IndexExpr:
		expr = x.X
	case *ast.IndexListExpr:
		expr = x.X
	}
	if id, ok := expr.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
