//go:build e2e

package plugins

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// Releases installed and upgraded with a post-renderer record what each Helm
// records: Helm 4 post-renders hooks too and sorts the output into hooks and
// manifest again (a post-renderer can add, drop or unhook hooks), Helm 3
// post-renders the manifest alone. For each dialect and post-renderer the
// release is installed and upgraded once by the Helm peer and once by us, in
// namespaces of their own; exit status and error line agree, and the peer
// reads the same `get manifest` and `get hooks` back from both. A
// post-renderer that fails an install fails an upgrade of a release installed
// without it the same way. Our `diff upgrade` with the post-renderer the
// upgrade ran sees nothing to change.
func TestPostRenderedRecordsLikeHelm(t *testing.T) {
	chart, renderers, peers := postRenderFixture(t)
	for _, compat := range []string{"helm4", "helm3"} {
		for _, pr := range []string{"identity", "add-docs", "drop-hooks", "unhook", "malformed", "no-kind", "not-mapping", "empty", "fail"} {
			t.Run(compat+"/"+pr, func(t *testing.T) {
				flag, plugins := rendererFlag(t, renderers, compat, pr)
				helm := peerRunner{t: t, bin: peers[compat], env: isolatedEnv(t, plugins, compat)}
				ours := peerRunner{t: t, bin: bin, env: isolatedEnv(t, plugins, compat)}
				nsHelm, nsOurs := env.Namespace(t), env.Namespace(t)
				// same runs a step by both and says whether it succeeded.
				same := func(args ...string) bool {
					t.Helper()
					hCode, _, hErr := helm.run(append(args, "-n", nsHelm)...)
					oCode, _, oErr := ours.run(append(args, "-n", nsOurs)...)
					if hCode != oCode || errorLine(hErr, nsHelm) != errorLine(oErr, nsOurs) {
						t.Fatalf("%s: exit %d, %q; Helm's: exit %d, %q", args[0], oCode, errorLine(oErr, nsOurs), hCode, errorLine(hErr, nsHelm))
					}
					return hCode == 0
				}
				for rev, cmd := range []string{"install", "upgrade"} {
					if !same(cmd, "rel", chart, "--post-renderer", flag) {
						if cmd == "install" {
							// A failing post-renderer fails an upgrade too, in the
							// upgrade's words.
							identity, _ := rendererFlag(t, renderers, compat, "identity")
							same("install", "rel", chart, "--post-renderer", identity)
							same("upgrade", "rel", chart, "--post-renderer", flag)
						}
						return
					}
					for _, what := range []string{"manifest", "hooks"} {
						get := []string{"get", what, "rel", "--revision", string(rune('1' + rev))}
						_, want, _ := helm.run(append(get, "-n", nsHelm)...)
						_, got, _ := helm.run(append(get, "-n", nsOurs)...)
						if got != want {
							t.Errorf("after %s, get %s of our release:\n%s\nof Helm's:\n%s", cmd, what, got, want)
						}
					}
				}
				code, out, errOut := ours.run("diff", "upgrade", "rel", chart, "-n", nsOurs, "--post-renderer", flag,
					"--detailed-exitcode", "--no-color")
				if code != 0 {
					t.Errorf("diff upgrade with the upgrade's post-renderer: exit %d\n%s%s", code, out, errOut)
				}
			})
		}
	}
}

// postRenderFixture is the chart, the post-renderers (those whose template
// output cmd/kubectl-chart pins) and the Helm peers by dialect.
func postRenderFixture(t *testing.T) (chart, renderers string, peers map[string]string) {
	t.Helper()
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	renderers = filepath.Join(prereq.ModuleRoot(), "cmd", "kubectl-chart", "testdata", "postrender", "plugins")
	peers = map[string]string{"helm3": helmPeer(t, "v3.22.0"), "helm4": helmPeer(t, "v4.3.1")}
	return filepath.Join(testdata, "hooked"), renderers, peers
}

// rendererFlag is --post-renderer's value for post-renderer name in the
// dialect and the plugin directory to run with: Helm 4 takes the plugin's
// name; Helm 3 runs an executable by path and reads no plugin of Helm 4's kind.
func rendererFlag(t *testing.T, renderers, compat, name string) (flag, plugins string) {
	if compat == "helm3" {
		return filepath.Join(renderers, name, "run.sh"), t.TempDir()
	}
	return name, renderers
}

// peerRunner runs Helm or us against the test cluster.
type peerRunner struct {
	t   *testing.T
	bin string
	env []string
}

// run returns the exit status, stdout and stderr of a run.
func (r peerRunner) run(args ...string) (int, string, string) {
	r.t.Helper()
	cmd := exec.Command(r.bin, append(args, "--kubeconfig", env.Kubeconfig())...)
	cmd.Env = r.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if exit, ok := errors.AsType[*exec.ExitError](err); ok {
		return exit.ExitCode(), stdout.String(), stderr.String()
	}
	if err != nil {
		r.t.Fatalf("%s %s: %v", r.bin, strings.Join(args, " "), err)
	}
	return 0, stdout.String(), stderr.String()
}

// isolatedEnv is an environment of its own home, plugins from dir, the dialect compat.
func isolatedEnv(t *testing.T, plugins, compat string) []string {
	home := t.TempDir()
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "HELM_PLUGINS=" + plugins,
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, "data"), "KUBECTL_CHART_COMPAT=" + compat,
	}
}

// errorLine is the line of stderr that starts with "Error: ", the namespace
// masked.
func errorLine(stderr, ns string) string {
	for line := range strings.Lines(stderr) {
		if strings.HasPrefix(line, "Error: ") {
			return strings.ReplaceAll(strings.TrimSpace(line), ns, "NS")
		}
	}
	return ""
}

func helmPeer(t *testing.T, version string) string {
	t.Helper()
	return prereq.BuildHelmPeer(t, version)
}

// A dry run with --hide-secret prints what each Helm prints: Helm 3 hides the
// Secrets before its post-renderer sees them, Helm 4 in what it returns.
// The post-renderer returns the stream it was handed inside a ConfigMap, so
// the output shows what it saw.
func TestPostRenderHideSecretLikeHelm(t *testing.T) {
	chart, renderers, peers := postRenderFixture(t)
	for _, compat := range []string{"helm4", "helm3"} {
		t.Run(compat, func(t *testing.T) {
			flag, plugins := rendererFlag(t, renderers, compat, "show-input")
			ns := env.Namespace(t)
			args := []string{"install", "rel", chart, "-n", ns, "--dry-run=client", "--hide-secret", "--post-renderer", flag}
			run := func(bin string) string {
				r := peerRunner{t: t, bin: bin, env: isolatedEnv(t, plugins, compat)}
				code, out, errOut := r.run(args...)
				if code != 0 {
					t.Fatalf("%s: exit %d\n%s", bin, code, errOut)
				}
				var kept strings.Builder
				for line := range strings.Lines(out) {
					if !strings.HasPrefix(line, "LAST DEPLOYED: ") {
						kept.WriteString(line)
					}
				}
				return kept.String()
			}
			if got, want := run(bin), run(peers[compat]); got != want {
				t.Errorf("stdout:\n%s\nHelm's:\n%s", got, want)
			}
		})
	}
}
