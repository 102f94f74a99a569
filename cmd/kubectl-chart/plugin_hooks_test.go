package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/test/prereq"
)

// Plugin hooks run on install, update and uninstall as each dialect's Helm
// runs them: what they print, the environment they get (Helm 3 gives its
// `helm env`, Helm 4 only the plugin's variables), Helm's error when one
// fails, and a hook without a command for this platform (skipped by Helm 3,
// an error in Helm 4). Each step is run by the real Helm and by us.
func TestPluginHooksLikeHelm(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("hooks run sh")
	}
	peers := map[dialect.Dialect]string{dialect.Helm4: prereq.HelmPeer(t, "v4.3.1"), dialect.Helm3: prereq.HelmPeer(t, "v3.22.0")}
	src := t.TempDir()
	writeFiles(t, src, map[string]string{
		"writer/plugin.yaml": `name: writer
version: 0.1.0
usage: hooks as shell command lines
command: $HELM_PLUGIN_DIR/run.sh
hooks:
  install: echo "installed $HELM_PLUGIN_NAME ns=$HELM_NAMESPACE" | tee "$HELM_PLUGIN_DIR/installed"; echo on-stderr >&2
  delete: test -d "$HELM_PLUGIN_DIR" && echo present || echo gone
`,
		"failing/plugin.yaml": `name: failing
version: 0.1.0
usage: a failing hook
command: $HELM_PLUGIN_DIR/run.sh
platformHooks:
  install:
    - command: sh
      args: [-c, "echo failing $HELM_PLUGIN_NAME >&2; exit 4"]
`,
		"nomatch/plugin.yaml": `name: nomatch
version: 0.1.0
usage: a hook for another system
command: $HELM_PLUGIN_DIR/run.sh
platformHooks:
  install:
    - os: plan9
      command: echo
`,
	})
	for d, peer := range peers {
		t.Run(string(d), func(t *testing.T) {
			ours := isolatePlugins(t)
			// Helm 4.3.1 installs a directory under $HELM_DATA_HOME whatever
			// $HELM_PLUGINS says, and uninstalls from $HELM_PLUGINS: both the same.
			t.Setenv("HELM_PLUGINS", filepath.Join(os.Getenv("XDG_DATA_HOME"), "helm", "plugins"))
			t.Setenv("HELM_NAMESPACE", "")
			t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
			for _, args := range [][]string{
				{"plugin", "install", filepath.Join(src, "writer")},
				{"plugin", "install", filepath.Join(src, "failing")},
				{"plugin", "install", filepath.Join(src, "nomatch")},
				{"plugin", "uninstall", "writer"},
			} {
				cmd := exec.Command(peer, args...)
				var wantOut, wantErr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &wantOut, &wantErr
				helmFailed := cmd.Run() != nil
				out, errOut, err := runRoot(t, append(args, "--compat", string(d))...)
				if err != nil {
					errOut += "Error: " + err.Error() + "\n"
				}
				if out != wantOut.String() || errOut != wantErr.String() || (err != nil) != helmFailed {
					t.Errorf("%v: failed %v, Helm %v\n--- ours\n%s%s--- helm\n%s%s", args, err != nil, helmFailed, out, errOut, wantOut.String(), wantErr.String())
				}
				if args[1] == "install" && args[2] == filepath.Join(src, "writer") {
					if _, err := os.Stat(filepath.Join(ours, "writer", "installed")); err != nil {
						t.Errorf("the install hook wrote nothing in the plugin's directory: %v", err)
					}
				}
			}
		})
	}
}
