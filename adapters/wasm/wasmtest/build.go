// Package wasmtest builds the test plugins under adapters/wasm/testdata/plugins
// with Go's own wasip1 port, for the tests of the Wasm runtime and of the
// plugins that use it.
package wasmtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Build compiles the test plugin name (a reactor module, -buildmode=c-shared)
// to out and fails the test when it cannot.
func Build(tb testing.TB, name, out string) {
	tb.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("wasmtest: cannot locate the test plugins")
	}
	src := filepath.Join(filepath.Dir(self), "..", "testdata", "plugins", name)
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("build test plugin %s: %v\n%s", name, err, b)
	}
}

// Chart is the directory of the chart the test getter serves as hello-0.1.0.tgz.
func Chart(tb testing.TB) string {
	tb.Helper()
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "..", "testdata", "chart-hello")
}
