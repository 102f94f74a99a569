//go:build e2e

package lifecycle

import (
	"os"
	"os/exec"
	"testing"
)

// Output never decides an operation's fate: when whoever reads our output goes
// away (kubectl chart upgrade ... | head -1), the upgrade still completes and
// records its outcome instead of dying of SIGPIPE with its revision pending.
func TestClosedOutputDoesNotStopAnOperation(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	chart := demoChart(t)
	mustRun(t, "install", "web", chart, "-n", ns)

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// Nobody reads: every write to stdout or stderr fails with EPIPE.
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin(t), "upgrade", "web", chart, "-n", ns, "--set", "message=piped")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env.Kubeconfig(), "KUBECTL_CHART_STORAGE=secret")
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	_ = cmd.Wait()
	if got := statuses(t, ns, "web"); got != "1:superseded 2:deployed" {
		t.Errorf("history after an upgrade whose output was closed = %s (exit %v)", got, cmd.ProcessState)
	}
}
