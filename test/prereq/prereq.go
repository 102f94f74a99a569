// Package prereq finds what a test needs besides the code under test (the Helm
// peers, the conformance corpus, host commands, the tools hack/tool-peer.sh
// builds) and ends the test when it is missing: outside CI the test skips, in
// CI ($CI=true) it fails, since CI prepares all of it first (make peers) and a
// skipped comparison would pass unseen.
package prereq

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// TB is what prereq needs of a test or benchmark (testing.TB).
type TB interface {
	Helper()
	Skip(args ...any)
	Fatal(args ...any)
}

// InCI reports whether the tests run in CI, where nothing may be missing.
func InCI() bool { return os.Getenv("CI") == "true" }

// Missing ends the test because what it needs is missing: a skip, or a
// failure in CI. why names what is missing and how to get it.
func Missing(tb TB, format string, args ...any) {
	tb.Helper()
	why := fmt.Sprintf(format, args...)
	if InCI() {
		tb.Fatal(why + " (CI=true: a missing prerequisite fails the test)")
		return
	}
	tb.Skip(why)
}

// HelmPeer is the Helm of version (v4.3.1, v3.22.0) that hack/helm-peer.sh
// builds into ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-chart/helm/VERSION/helm.
func HelmPeer(tb TB, version string) string {
	tb.Helper()
	return cached(tb, "helm", version, "helm", fmt.Sprintf("hack/helm-peer.sh %s (make peers)", version))
}

// Tool is a tool of version that hack/tool-peer.sh builds (helmfile, ct,
// kubectl) into ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-chart/TOOL/VERSION/TOOL.
func Tool(tb TB, tool, version string) string {
	tb.Helper()
	return cached(tb, tool, version, tool, fmt.Sprintf("hack/tool-peer.sh %s %s (make peers)", tool, version))
}

func cached(tb TB, dir, version, name, builder string) string {
	tb.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		Missing(tb, "no cache directory for %s %s: %v", name, version, err)
		return ""
	}
	bin := filepath.Join(cache, "kubectl-chart", dir, version, name)
	if _, err := os.Stat(bin); err != nil {
		Missing(tb, "no %s %s at %s: %s builds it", name, version, bin, builder)
		return ""
	}
	return bin
}

// Corpus is the conformance corpus: $CONFORMANCE, by default ../shared/conformance
// beside the module's directory.
func Corpus(tb TB) string {
	tb.Helper()
	dir := os.Getenv("CONFORMANCE")
	if dir == "" {
		dir = filepath.Join(ModuleRoot(), "..", "shared", "conformance")
	}
	if _, err := os.Stat(filepath.Join(dir, "corpus")); err != nil {
		Missing(tb, "no conformance corpus at %s (set CONFORMANCE)", dir)
		return ""
	}
	return dir
}

// Command is the path of a command on $PATH (git, sh, prlimit ...).
func Command(tb TB, name string) string {
	tb.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Missing(tb, "%s is not installed: %v", name, err)
		return ""
	}
	return path
}

// ModuleRoot is the repository's top directory, found from this file's place
// in it.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// BuildHelmPeer is the Helm of version, built by hack/helm-peer.sh first when
// the cache lacks it (minutes): for what must not skip, such as the
// end-to-end tests and writing goldens.
func BuildHelmPeer(tb TB, version string) string {
	tb.Helper()
	return build(tb, "helm-peer.sh", version)
}

// BuildTool is a tool (helmfile, ct, kubectl) of its default version, built
// by hack/tool-peer.sh first when the cache lacks it.
func BuildTool(tb TB, tool string) string {
	tb.Helper()
	return build(tb, "tool-peer.sh", tool)
}

// build runs one of hack/'s build scripts, which build a program once into
// the cache and print its path; the test fails when it cannot be built.
func build(tb TB, script string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join(ModuleRoot(), "hack", script)}, args...)...)
	cmd.Dir = ModuleRoot()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatal(fmt.Sprintf("hack/%s %s: %v\n%s", script, strings.Join(args, " "), err, stderr.String()))
		return ""
	}
	return strings.TrimSpace(string(out))
}

// BuildBinary builds kubectl-chart into a new temporary directory, for the
// end-to-end suites' TestMain, as `make build` does (wazero's initialisers
// made lazy: hack/wazero-lazyinit.sh); remove drops the directory.
func BuildBinary(suite string) (bin string, remove func(), err error) {
	gowork, err := WazeroLazyInit()
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "kubectl-chart-"+suite+"-")
	if err != nil {
		return "", nil, err
	}
	remove = func() { _ = os.RemoveAll(dir) }
	bin = filepath.Join(dir, "kubectl-chart")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/kubectl-chart")
	cmd.Dir = ModuleRoot()
	cmd.Env = WorkspaceEnv(gowork)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		remove()
		return "", nil, fmt.Errorf("build kubectl-chart: %w", err)
	}
	return bin, remove, nil
}

// WorkspaceEnv is this process's environment for a go command in the
// workspace gowork, with extra entries: GOFLAGS keeps its flags but -mod,
// which workspace mode refuses (.ci/run sets -mod=mod).
func WorkspaceEnv(gowork string, extra ...string) []string {
	var flags []string
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if !strings.HasPrefix(f, "-mod=") {
			flags = append(flags, f)
		}
	}
	env := append(os.Environ(), "GOWORK="+gowork, "GOFLAGS="+strings.Join(flags, " "))
	return append(env, extra...)
}

// WazeroLazyInit is the go.work hack/wazero-lazyinit.sh writes: the module
// with wazero's package initialisers made lazy, as the binary is shipped.
func WazeroLazyInit() (string, error) {
	cmd := exec.Command("bash", filepath.Join(ModuleRoot(), "hack", "wazero-lazyinit.sh"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("hack/wazero-lazyinit.sh: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}
