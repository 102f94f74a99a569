//go:build e2e

package sharing

import (
	"errors"
	"os/exec"
	"testing"
)

// TestTemplateValidateUnreachableLikeHelm: template --validate with no
// cluster to reach prints what each Helm prints and exits as it exits.
func TestTemplateValidateUnreachableLikeHelm(t *testing.T) {
	h := newHome(t)
	h.env = append(h.env, "KUBECONFIG="+h.path("no-kubeconfig"))
	h.kc("create", "web")
	for _, peer := range []struct{ compat, version string }{{"helm3", "v3.22.0"}, {"helm4", "v4.3.1"}} {
		t.Run(peer.compat, func(t *testing.T) {
			helm := helmPeerAt(t, peer.version)
			args := []string{"template", "rel", "web", "--validate"}
			theirOut, theirErr, herr := h.exec(helm, args...)
			out, errOut, err := h.exec(bin, append(args, "--compat", peer.compat)...)
			if out != theirOut || errOut != theirErr || exitCode(err) != exitCode(herr) || exitCode(err) == 0 {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant Helm's exit %d, stdout %q, stderr:\n%s", exitCode(err), out, errOut, exitCode(herr), theirOut, theirErr)
			}
		})
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
