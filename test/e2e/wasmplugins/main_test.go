//go:build e2e

// Package wasmplugins runs Helm 4's Wasm plugins (runtime extism/v1), one of
// each type built from Go source, through kubectl chart and through Helm
// v4.3.1, and compares what each prints and how it exits. No cluster.
package wasmplugins

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/adapters/wasm/wasmtest"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// helmVersion is the Helm peer the plugins are compared with.
const helmVersion = "v4.3.1"

// bin is the kubectl-chart binary, built once by TestMain.
var bin string

func TestMain(m *testing.M) {
	b, remove, err := prereq.BuildBinary("wasmplugins")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = b
	code := m.Run()
	remove()
	os.Exit(code)
}

// helmPeer builds (once, cached) or finds the Helm peer.
func helmPeer(t *testing.T) string {
	t.Helper()
	return prereq.BuildHelmPeer(t, helmVersion)
}

// pluginYAML writes a Wasm plugin directory: module (a test plugin's name)
// built into it and a plugin.yaml of the given type with extra lines.
func writePlugin(t *testing.T, plugins, name, typ, module, extra string) {
	t.Helper()
	dir := filepath.Join(plugins, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	y := fmt.Sprintf("apiVersion: v1\ntype: %s\nname: %s\nversion: 0.1.0\nruntime: extism/v1\n%s", typ, name, extra)
	if err := os.WriteFile(filepath.Join(dir, "plugin.yaml"), []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	if module != "" {
		wasmtest.Build(t, module, filepath.Join(dir, "plugin.wasm"))
	}
}

// mustRun runs a program and returns its combined output, failing the test when
// it fails.
func mustRun(t *testing.T, bin, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, out)
	}
	return string(out)
}

// result is what a run printed and how it exited.
type result struct {
	stdout, stderr string
	code           int
}

// runner runs a program with Helm's directories of its own under home and the
// shared plugins directory.
type runner struct {
	bin, home, plugins string
}

func (r runner) run(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(r.bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+r.home, "HELM_PLUGINS="+r.plugins,
		"XDG_CACHE_HOME="+filepath.Join(r.home, "cache"), "XDG_CONFIG_HOME="+filepath.Join(r.home, "config"),
		"XDG_DATA_HOME="+filepath.Join(r.home, "data"), "KUBECONFIG="+filepath.Join(r.home, "kubeconfig"),
		"HELM_NAMESPACE=", "HELM_DEBUG=", "KUBECTL_CHART_PLUGINS=")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	res := result{stdout: out.String(), stderr: errOut.String()}
	if exitErr, ok := err.(*exec.ExitError); ok {
		res.code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v: %v", r.bin, args, err)
	}
	return res
}
