//go:build e2e

// Package litmus runs real Helm plugins through kubectl chart, unchanged, and
// compares what they print and how they exit with Helm v3.22.0 running the
// same plugin. No cluster: the plugins here only read charts.
package litmus

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// unittestVersion is the helm-unittest release the litmus builds from the Go
// module proxy.
const unittestVersion = "v1.1.2"

// bin is the kubectl-chart binary, built once by TestMain.
var bin string

func TestMain(m *testing.M) {
	b, remove, err := prereq.BuildBinary("litmus")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = b
	code := m.Run()
	remove()
	os.Exit(code)
}

// corpusDir is the conformance corpus's charts.
func corpusDir(t *testing.T) string {
	t.Helper()
	return filepath.Join(prereq.Corpus(t), "corpus")
}

func helmPeer(t *testing.T, version string) string {
	t.Helper()
	return prereq.BuildHelmPeer(t, version)
}

// cacheDir is ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-chart/NAME, where the
// test builds keep what outlives a run.
func cacheDir(t *testing.T, name string) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(base, "kubectl-chart", name)
}

// goRun runs the go command in dir and fails the test with its output.
func goRun(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out
}

// unittestPlugin returns a directory laid out as helm-unittest's release
// archive: its plugin.yaml and install hook, and the binary its
// platformCommand names for this platform, built from the module proxy once
// into the cache (later runs only copy it).
func unittestPlugin(t *testing.T) string {
	t.Helper()
	var mod struct{ Dir string }
	out := goRun(t, prereq.ModuleRoot(), "mod", "download", "-json", "github.com/helm-unittest/helm-unittest@"+unittestVersion)
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download helm-unittest: %v\n%s", err, out)
	}
	osName := runtime.GOOS
	if osName == "darwin" {
		osName = "macos"
	}
	name := "untt-" + osName + "-" + runtime.GOARCH
	cache := cacheDir(t, filepath.Join("helm-unittest", unittestVersion))
	cached := filepath.Join(cache, name)
	if _, err := os.Stat(cached); err != nil {
		t.Logf("building helm-unittest %s into %s (once)", unittestVersion, cache)
		// The module cache is read-only and the build may write go.sum.
		src := filepath.Join(t.TempDir(), "src")
		if err := os.CopyFS(src, os.DirFS(mod.Dir)); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(cache, 0o755); err != nil {
			t.Fatal(err)
		}
		// Built beside the cached name and renamed into place, so that a
		// concurrent run sees either nothing or the whole binary.
		tmp, err := os.CreateTemp(cache, name+".*")
		if err != nil {
			t.Fatal(err)
		}
		_ = tmp.Close()
		defer os.Remove(tmp.Name())
		goRun(t, src, "build", "-o", tmp.Name(), "./cmd/helm-unittest")
		if err := os.Rename(tmp.Name(), cached); err != nil {
			t.Fatal(err)
		}
	}
	plugin := filepath.Join(t.TempDir(), "unittest")
	for from, mode := range map[string]os.FileMode{
		filepath.Join(mod.Dir, "plugin.yaml"):       0o644,
		filepath.Join(mod.Dir, "install-binary.sh"): 0o755,
		cached: 0o755,
	} {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(plugin, filepath.Base(from))
		if from == cached {
			to = filepath.Join(plugin, name)
		}
		if err := os.MkdirAll(plugin, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, mode); err != nil {
			t.Fatal(err)
		}
	}
	return plugin
}

// session is a user's environment: a home of its own, Helm's plugins in one
// directory and ours in another, so that each program runs what it installed.
type session struct {
	t   *testing.T
	dir string
	env []string
}

func newSession(t *testing.T) *session {
	d := t.TempDir()
	return &session{t: t, dir: d, env: []string{
		"HOME=" + d, "PATH=" + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(d, "config"), "XDG_DATA_HOME=" + filepath.Join(d, "data"),
		"XDG_CACHE_HOME=" + filepath.Join(d, "cache"),
		"KUBECTL_CHART_PLUGINS=" + filepath.Join(d, "plugins"), "HELM_PLUGINS=" + filepath.Join(d, "helm-plugins"),
		"HELM_CONFIG_HOME=" + filepath.Join(d, "helm-config"), "HELM_DATA_HOME=" + filepath.Join(d, "helm-data"),
		"HELM_CACHE_HOME=" + filepath.Join(d, "helm-cache"),
		// helm-unittest's install hook copies a binary the archive already
		// holds only when told to skip the download; the test has no network.
		"SKIP_BIN_INSTALL=1",
	}}
}

// result is what a program printed (stdout and stderr, interleaved) and its
// exit status.
type result struct {
	out  string
	code int
}

func (s *session) exec(program string, args ...string) result {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir, cmd.Env = s.dir, s.env
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return result{out: string(out)}
	case errors.As(err, &exit) && ctx.Err() == nil:
		return result{out: string(out), code: exit.ExitCode()}
	default:
		s.t.Fatalf("%s %s: %v\n%s", filepath.Base(program), strings.Join(args, " "), err, out)
		return result{}
	}
}

func (s *session) run(program string, args ...string) string {
	s.t.Helper()
	r := s.exec(program, args...)
	if r.code != 0 {
		s.t.Fatalf("%s %s: exit status %d\n%s", filepath.Base(program), strings.Join(args, " "), r.code, r.out)
	}
	return r.out
}

// timing is helm-unittest's "Time:" line, the one line that differs from run to run.
var timing = regexp.MustCompile(`(?m)^Time:.*\n?`)

// helm-unittest installed with `kubectl chart plugin install` (its install
// hook included) runs the
// unittests/ the corpus charts ship as `kubectl chart unittest CHART`, and
// prints and exits as under Helm v3.22.0 with `helm plugin install`.
func TestHelmUnittest(t *testing.T) {
	helm := helmPeer(t, "v3.22.0")
	plugin := unittestPlugin(t)
	s := newSession(t)
	// Its install hook, install-binary.sh, runs under both and says it
	// skips the download.
	ours, theirs := s.exec(bin, "plugin", "install", "--compat", "helm3", plugin), s.exec(helm, "plugin", "install", plugin)
	if ours != theirs || !strings.Contains(ours.out, "Skipping binary install") {
		t.Fatalf("plugin install: exit %d, Helm %d\n--- ours\n%s\n--- helm\n%s", ours.code, theirs.code, ours.out, theirs.out)
	}

	charts, err := filepath.Glob(filepath.Join(corpusDir(t), "*", "chart", "unittests"))
	if err != nil || len(charts) == 0 {
		t.Fatalf("no corpus chart ships unittests/ (%v)", err)
	}
	for _, tests := range charts {
		id := filepath.Base(filepath.Dir(filepath.Dir(tests)))
		t.Run(id, func(t *testing.T) {
			// A copy: the plugin may write beside the chart (snapshots).
			chart := filepath.Join(t.TempDir(), "chart")
			if err := os.CopyFS(chart, os.DirFS(filepath.Dir(tests))); err != nil {
				t.Fatal(err)
			}
			args := []string{"unittest", "-f", "unittests/*.yaml", chart}
			ours, theirs := s.exec(bin, args...), s.exec(helm, args...)
			ours.out, theirs.out = timing.ReplaceAllString(ours.out, ""), timing.ReplaceAllString(theirs.out, "")
			if ours != theirs {
				t.Errorf("unittest %s: exit %d, Helm %d\n--- ours\n%s\n--- helm\n%s", id, ours.code, theirs.code, ours.out, theirs.out)
			}
			if !strings.Contains(ours.out, "Tests:") {
				t.Errorf("unittest %s ran no tests:\n%s", id, ours.out)
			}
			t.Logf("%s: exit %d, %s", id, ours.code, regexp.MustCompile(`(?m)^Tests:.*$`).FindString(ours.out))
		})
	}
}

// A plugin's exit status is ours, as with Helm: exit 7 is exit 7, and Helm's
// words name the plugin.
func TestPluginExitStatus(t *testing.T) {
	helm := helmPeer(t, "v3.22.0")
	plugin := filepath.Join(t.TempDir(), "seven")
	if err := os.MkdirAll(plugin, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"plugin.yaml": "name: seven\nversion: 0.1.0\nusage: exits 7\ndescription: exits 7\ncommand: \"$HELM_PLUGIN_DIR/seven.sh\"\n",
		"seven.sh":    "#!/bin/sh\necho \"seven says $*\"\nexit 7\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(plugin, name), []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := newSession(t)
	s.run(bin, "plugin", "install", plugin)
	s.run(helm, "plugin", "install", plugin)
	ours, theirs := s.exec(bin, "seven", "a", "b"), s.exec(helm, "seven", "a", "b")
	if ours.code != 7 || ours != theirs {
		t.Errorf("a plugin exiting 7: exit %d, Helm %d\n--- ours\n%s\n--- helm\n%s", ours.code, theirs.code, ours.out, theirs.out)
	}
}
