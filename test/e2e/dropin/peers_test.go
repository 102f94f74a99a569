//go:build e2e

package dropin

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// dialect is one Helm major: kubectl-chart's dialect and the Helm it is held to.
type dialect struct {
	name    string // KUBECTL_CHART_COMPAT
	version string // the Helm release compared against
}

func dialects() []dialect {
	return []dialect{{"helm4", "v4.3.1"}, {"helm3", "v3.22.0"}}
}

// peer runs one of hack/'s build scripts, which build a program once into the
// cache and print its path; the test fails when the program cannot be built.
func peer(t *testing.T, script string, args ...string) string {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join(moduleRoot(), "hack", script)}, args...)...)
	cmd.Dir = moduleRoot()
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hack/%s %s: %v\n%s", script, strings.Join(args, " "), err, errOut.String())
	}
	return strings.TrimSpace(string(out))
}

func helmPeer(t *testing.T, version string) string { return peer(t, "helm-peer.sh", version) }

// toolPeer is helmfile, ct or kubectl, built by hack/tool-peer.sh.
func toolPeer(t *testing.T, tool string) string { return peer(t, "tool-peer.sh", tool) }
