package cluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Versions pins the control-plane components. Kubernetes matches the
// client-go in go.mod; Etcd is the version that Kubernetes release pins.
type Versions struct {
	Kubernetes string
	Etcd       string
	Kwok       string
}

// DefaultVersions returns the versions the project tests against.
func DefaultVersions() Versions {
	return Versions{Kubernetes: "v1.36.3", Etcd: "v3.6.8", Kwok: "v0.8.0"}
}

// stagingVersion maps a Kubernetes version to its staging modules' version
// (v1.36.3 -> v0.36.3).
func (v Versions) stagingVersion() (string, error) {
	rest, ok := strings.CutPrefix(v.Kubernetes, "v1.")
	if !ok || rest == "" {
		return "", fmt.Errorf("kubernetes version %q is not v1.x.y", v.Kubernetes)
	}
	return "v0." + rest, nil
}

func (v Versions) stamp() string {
	return fmt.Sprintf("kubernetes=%s etcd=%s kwok=%s\n", v.Kubernetes, v.Etcd, v.Kwok)
}

// Binaries locates a built control plane.
type Binaries struct {
	Dir               string
	Etcd              string
	APIServer         string
	ControllerManager string
	Scheduler         string
	Kwok              string
	// KwokStages is the kwok configuration: the stages that make nodes Ready
	// and pods Running, Succeeded or gone.
	KwokStages string
}

// BinariesIn returns where Build puts the binaries under dir.
func BinariesIn(dir string) Binaries {
	bin := filepath.Join(dir, "bin")
	return Binaries{
		Dir:               dir,
		Etcd:              filepath.Join(bin, "etcd"),
		APIServer:         filepath.Join(bin, "kube-apiserver"),
		ControllerManager: filepath.Join(bin, "kube-controller-manager"),
		Scheduler:         filepath.Join(bin, "kube-scheduler"),
		Kwok:              filepath.Join(bin, "kwok"),
		KwokStages:        filepath.Join(dir, "kwok-stages.yaml"),
	}
}

func (b Binaries) files() []string {
	return []string{b.Etcd, b.APIServer, b.ControllerManager, b.Scheduler, b.Kwok, b.KwokStages}
}

// BuildOptions says where and how to build.
type BuildOptions struct {
	// CacheDir holds one directory per Kubernetes version; DefaultCacheDir when empty.
	CacheDir string
	Versions Versions
	// Go is the go command; "go" from PATH when empty.
	Go string
	// Log receives progress and the go command's output; discarded when nil.
	Log io.Writer
}

// DefaultCacheDir is ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-chart/k8s.
func DefaultCacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find user cache directory: %w", err)
	}
	return filepath.Join(dir, "kubectl-chart", "k8s"), nil
}

// Build compiles the control plane from the Go module proxy into
// <CacheDir>/<kubernetes version>, or returns the binaries already there.
// Concurrent callers (test packages run in parallel) serialise on a file lock
// and the result appears by an atomic rename, so nobody sees half a build.
func Build(ctx context.Context, opts BuildOptions) (Binaries, error) {
	if opts.Versions == (Versions{}) {
		opts.Versions = DefaultVersions()
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Go == "" {
		opts.Go = "go"
	}
	if opts.CacheDir == "" {
		dir, err := DefaultCacheDir()
		if err != nil {
			return Binaries{}, err
		}
		opts.CacheDir = dir
	}
	final := filepath.Join(opts.CacheDir, opts.Versions.Kubernetes)
	bins := BinariesIn(final)
	if complete(bins, opts.Versions) {
		return bins, nil
	}
	if err := os.MkdirAll(opts.CacheDir, 0o755); err != nil {
		return Binaries{}, fmt.Errorf("create cache directory: %w", err)
	}
	unlock, err := lockFile(ctx, final+".lock", func() {
		fmt.Fprintf(opts.Log, "cluster: waiting for another build of %s\n", final)
	})
	if err != nil {
		return Binaries{}, fmt.Errorf("lock %s: %w", final, err)
	}
	defer unlock()
	if complete(bins, opts.Versions) {
		return bins, nil
	}

	start := time.Now()
	fmt.Fprintf(opts.Log, "cluster: building kubernetes %s, etcd %s and kwok %s into %s (several minutes the first time)\n",
		opts.Versions.Kubernetes, opts.Versions.Etcd, opts.Versions.Kwok, final)
	b := builder{opts: opts, module: final + ".module", out: final + ".tmp"}
	if err := b.build(ctx); err != nil {
		return Binaries{}, err
	}
	if err := os.RemoveAll(final); err != nil {
		return Binaries{}, fmt.Errorf("remove incomplete %s: %w", final, err)
	}
	if err := os.Rename(b.out, final); err != nil {
		return Binaries{}, fmt.Errorf("install binaries: %w", err)
	}
	fmt.Fprintf(opts.Log, "cluster: built in %s\n", time.Since(start).Round(time.Second))
	return bins, nil
}

func complete(b Binaries, v Versions) bool {
	for _, f := range b.files() {
		if _, err := os.Stat(f); err != nil {
			return false
		}
	}
	stamp, err := os.ReadFile(filepath.Join(b.Dir, "versions"))
	return err == nil && string(stamp) == v.stamp()
}

// builder compiles in a throwaway module because k8s.io/kubernetes replaces
// its staging modules with local paths, which `go install pkg@version` refuses.
type builder struct {
	opts   BuildOptions
	module string // the throwaway module
	out    string // filled, then renamed into place
}

func (b builder) build(ctx context.Context) error {
	if err := os.RemoveAll(b.out); err != nil {
		return fmt.Errorf("clean %s: %w", b.out, err)
	}
	if err := os.MkdirAll(filepath.Join(b.out, "bin"), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", b.out, err)
	}
	if err := b.writeModule(ctx); err != nil {
		return fmt.Errorf("prepare build module: %w", err)
	}
	v := b.opts.Versions
	version := "k8s.io/component-base/version."
	major, minor := "1", strings.SplitN(strings.TrimPrefix(v.Kubernetes, "v1."), ".", 2)[0]
	ldflags := strings.Join([]string{
		"-s -w",
		"-X " + version + "gitVersion=" + v.Kubernetes,
		"-X " + version + "gitMajor=" + major,
		"-X " + version + "gitMinor=" + minor,
		"-X " + version + "gitTreeState=clean",
	}, " ")
	steps := []struct {
		what string
		args []string
		env  []string
	}{
		{"kubernetes", []string{"build", "-trimpath", "-ldflags", ldflags, "-o", filepath.Join(b.out, "bin") + "/",
			"k8s.io/kubernetes/cmd/kube-apiserver",
			"k8s.io/kubernetes/cmd/kube-controller-manager",
			"k8s.io/kubernetes/cmd/kube-scheduler"}, []string{modMod}},
		{"etcd", []string{"build", "-trimpath", "-ldflags", "-s -w", "-o", filepath.Join(b.out, "bin", "etcd"),
			"go.etcd.io/etcd/server/v3"}, []string{modMod}},
		{"kwok", []string{"install", "-trimpath", "-ldflags", "-s -w", "sigs.k8s.io/kwok/cmd/kwok@" + v.Kwok},
			[]string{"GOBIN=" + filepath.Join(b.out, "bin"), "GOFLAGS="}},
	}
	for _, s := range steps {
		start := time.Now()
		if err := b.goCmd(ctx, s.env, s.args...); err != nil {
			return fmt.Errorf("build %s: %w", s.what, err)
		}
		fmt.Fprintf(b.opts.Log, "cluster: built %s in %s\n", s.what, time.Since(start).Round(time.Second))
	}
	if err := b.writeStages(ctx); err != nil {
		return fmt.Errorf("collect kwok stages: %w", err)
	}
	if err := os.WriteFile(filepath.Join(b.out, "versions"), []byte(v.stamp()), 0o644); err != nil {
		return fmt.Errorf("write version stamp: %w", err)
	}
	return nil
}

// modMod lets go resolve and record the throwaway module's requirements.
const modMod = "GOFLAGS=-mod=mod"

func (b builder) writeModule(ctx context.Context) error {
	v := b.opts.Versions
	staging, err := b.opts.Versions.stagingVersion()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(b.module, 0o755); err != nil {
		return err
	}
	k8sDir, err := b.moduleDir(ctx, "k8s.io/kubernetes@"+v.Kubernetes)
	if err != nil {
		return err
	}
	k8sMod, err := os.ReadFile(filepath.Join(k8sDir, "go.mod"))
	if err != nil {
		return fmt.Errorf("read kubernetes go.mod: %w", err)
	}
	replaced := stagingModules(k8sMod)
	if len(replaced) == 0 {
		return errors.New("kubernetes go.mod lists no staging modules")
	}
	var mod bytes.Buffer
	fmt.Fprintf(&mod, "module kubectl-chart.local/k8s-build\n\ngo 1.26.0\n\nrequire (\n")
	fmt.Fprintf(&mod, "\tk8s.io/kubernetes %s\n\tgo.etcd.io/etcd/server/v3 %s\n)\n\nreplace (\n", v.Kubernetes, v.Etcd)
	for _, m := range replaced {
		fmt.Fprintf(&mod, "\t%s => %s %s\n", m, m, staging)
	}
	mod.WriteString(")\n")
	tools := "//go:build tools\n\npackage tools\n\nimport (\n" +
		"\t_ \"go.etcd.io/etcd/server/v3\"\n" +
		"\t_ \"k8s.io/kubernetes/cmd/kube-apiserver\"\n" +
		"\t_ \"k8s.io/kubernetes/cmd/kube-controller-manager\"\n" +
		"\t_ \"k8s.io/kubernetes/cmd/kube-scheduler\"\n)\n"
	for name, data := range map[string]string{"go.mod": mod.String(), "tools.go": tools} {
		if err := os.WriteFile(filepath.Join(b.module, name), []byte(data), 0o644); err != nil {
			return err
		}
	}
	if err := os.Remove(filepath.Join(b.module, "go.sum")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return b.goCmd(ctx, []string{modMod}, "mod", "tidy")
}

// stagingModules returns the modules that kubernetes' go.mod replaces with
// ./staging directories.
func stagingModules(goMod []byte) []string {
	var mods []string
	sc := bufio.NewScanner(bytes.NewReader(goMod))
	for sc.Scan() {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "replace "))
		if len(fields) == 3 && fields[1] == "=>" && strings.HasPrefix(fields[2], "./staging/") {
			mods = append(mods, fields[0])
		}
	}
	return mods
}

// kwokStages are the kwok stages (under kustomize/stage in its module) that
// stand in for a kubelet: nodes become Ready and keep their lease, pods become
// Ready, Job pods Succeeded, and deleted pods go away.
func kwokStages() []string {
	return []string{
		"node/fast/node-initialize.yaml",
		"node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
		"pod/fast/pod-ready.yaml",
		"pod/fast/pod-complete.yaml",
		"pod/fast/pod-delete.yaml",
	}
}

func (b builder) writeStages(ctx context.Context) error {
	dir, err := b.moduleDir(ctx, "sigs.k8s.io/kwok@"+b.opts.Versions.Kwok)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	for i, name := range kwokStages() {
		data, err := os.ReadFile(filepath.Join(dir, "kustomize", "stage", filepath.FromSlash(name)))
		if err != nil {
			return err
		}
		if i > 0 {
			out.WriteString("---\n")
		}
		out.Write(data)
	}
	return os.WriteFile(filepath.Join(b.out, "kwok-stages.yaml"), out.Bytes(), 0o644)
}

// moduleDir downloads a module (module@version) and returns its directory.
func (b builder) moduleDir(ctx context.Context, module string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := b.command(ctx, []string{"GOFLAGS="}, "mod", "download", "-json", module)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	// -json reports a module's own error on stdout, even when go fails.
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(stdout.Bytes(), &info); err != nil && runErr == nil {
		return "", fmt.Errorf("download %s: %w", module, err)
	}
	switch {
	case info.Error != "":
		return "", fmt.Errorf("download %s: %s", module, info.Error)
	case runErr != nil:
		return "", fmt.Errorf("download %s: %w\n%s", module, runErr, lastLines(stderr.Bytes(), 20))
	case info.Dir == "":
		return "", fmt.Errorf("download %s: go reported no directory", module)
	}
	return info.Dir, nil
}

func (b builder) goCmd(ctx context.Context, env []string, args ...string) error {
	var output bytes.Buffer
	cmd := b.command(ctx, env, args...)
	cmd.Stdout = io.MultiWriter(b.opts.Log, &output)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %w\n%s", args[0], err, lastLines(output.Bytes(), 30))
	}
	return nil
}

func (b builder) command(ctx context.Context, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, b.opts.Go, args...)
	cmd.Dir = b.module
	// The throwaway module is not the project's: no workspace, pure-Go
	// binaries that run anywhere.
	cmd.Env = append(os.Environ(), "GOWORK=off", "CGO_ENABLED=0")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}
